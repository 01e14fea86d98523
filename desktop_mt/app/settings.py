"""The one settings store of desktop-mt: the window's settings, the active model of each
direction and the download mirror, in one file with one schema and a version number.

The file is ``settings.json`` in the config folder (:func:`desktop_mt.base.paths.config_dir`)::

    {
      "settings_version": 3,
      "variant": "int8", "beams": 0, "direction": "auto", ...   (the fields of :class:`Settings`)
      "models": {"active": {"en-zh": "", "zh-en": ""}, "endpoint": ""}
    }

``models.active`` holds the active model of each direction: "" for the bundled model of that
direction, an installed model's name (a folder in the models folder), or a model folder's path.
``models.endpoint`` is the Hub mirror chosen in the app or with ``desktop-mt models mirror``
("" = none). The window, the command line (``desktop-mt models use``) and the server all read and
write this section through this module (:func:`active_models`, :func:`set_active`,
:func:`active_model_dir`, :func:`resolve_endpoint`...); nothing else records a model choice.

Migration. Before version 3 two files recorded the model: ``settings.json`` (version 1 or 2, the
window's fields and ``model_path``, the window's model) and ``models.json`` next to it
(``active_by_direction``/``active`` and ``endpoint``, the command line's). Reading an older file
merges both into version 3 and writes it; ``models.json`` is renamed ``models.json.migrated``
(kept, no longer read). Where both named a model for one direction, ``models.json``'s wins (the
app adopted it at start before) and the other folder is kept in ``extra_model_dirs``, so the
settings still offer it. Version-1 files saved greedy search (``beams`` 1) as the default, not as
a choice: loading one turns ``beams`` 1 into 0 (the model's own setting).

Reading is forgiving: a missing key takes its default, a value of the wrong type or out of range
falls back to its default with a warning, an unknown key is ignored with a warning. A file that
is not a JSON object (or not UTF-8) is moved aside as ``settings.corrupt-<time>.json``, never
deleted, and the message says where it went; defaults are written in its place. Writes are
atomic (:func:`desktop_mt.base.fsutil.atomic_write`): a crash mid-write never leaves half a file. The
window's save writes its fields and keeps the ``models`` section as it is on disk at that moment,
so a model chosen with ``desktop-mt models use`` while the app runs is not undone when it quits.

No Qt here: ``desktop_mt.gui.settings`` re-exports this module for the window.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..base import paths
from ..base.errors import N_, DesktopMTError, ModelFormatError, ModelNotFoundError, Phrase, WordedText
from ..base.fsutil import atomic_write
from ..engine import script
from ..engine.direction import DIRECTIONS as DIRECTIONS  # re-exported: the GUI's settings import them from here
from ..engine.direction import EN_ZH as EN_ZH
from ..engine.direction import TARGETS as TARGETS
from ..engine.direction import Direction, Target, check_direction
from ..engine.model_format import VARIANTS as VARIANTS
from ..engine.model_format import Variant, inspect_model_dir
from ..models.installed import MIRROR_HINT, default_endpoint, delete_model, resolve_model

__all__ = [
    "DIRECTIONS",  # the engine's, re-exported for the GUI's settings
    "EN_ZH",
    "TARGETS",
    "VARIANTS",
    "SETTINGS_FILE",
    "SETTINGS_VERSION",
    "SCRIPTS",
    "LANGUAGES",
    "HOTKEY_TARGETS",
    "DEFAULT_HOTKEY",
    "DEFAULT_LOCAL_API_PORT",
    "Settings",
    "ModelSettings",
    "LoadResult",
    "settings_path",
    "from_dict",
    "to_dict",
    "model_folder",
    "folder_direction",
    "load_settings",
    "save_settings",
    "load_models",
    "update_models",
    "active_models",
    "get_active",
    "set_active",
    "active_model_dir",
    "remove_model",
    "get_endpoint_setting",
    "set_endpoint_setting",
    "resolve_endpoint",
]

_logger = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
_LEGACY_MODELS_FILE = "models.json"  # the model manager's file before version 3
_MIGRATED_SUFFIX = ".migrated"
# 2: beams 0 means the model's generation_config (version 1 saved greedy, 1, as the default).
# 3: one file: the model choice per direction and the mirror moved in from models.json, the
#    window's model_path became the active model of its direction.
SETTINGS_VERSION = 3
# The directions (EN_ZH, DIRECTIONS), the window's targets (TARGETS: per paragraph, into
# English, into Chinese) and the model variants (VARIANTS) are the engine's, imported above.
# Chinese output script: the model's Simplified, or Traditional for Taiwan or Hong Kong converted
# by OpenCC (the engine's scripts but its generic "traditional", which Settings does not offer).
SCRIPTS = tuple(s for s in script.SCRIPTS if s != "traditional")
# The interface language (Settings > Language, applied at the next start): the system's
# (desktop_mt.gui.i18n decides), English, or Simplified Chinese.
LANGUAGES = ("system", "en", "zh_CN")
HOTKEY_TARGETS = ("window", "popup")  # the main window, or the small popup at the pointer
DEFAULT_HOTKEY = "Ctrl+Alt+E"  # Crow Translate's "translate selection" default: familiar.
_DEFAULT_SELECTION_HOTKEY = "Ctrl+Alt+D"  # Easydict's and Bob's "select and translate" key, D
_DEFAULT_REGION_HOTKEY = "Ctrl+Alt+O"  # O for OCR
DEFAULT_LOCAL_API_PORT = 5000  # LibreTranslate's, what Pot/Easydict/Bob users type first
_MODELS_KEY = "models"
# Fields of Settings that are not written as such: model_path lives in "models".
_NOT_SAVED = ("model_path", "model_path_saved")


@dataclasses.dataclass
class Settings:
    """Everything the user can change in the window. Field defaults are the app's defaults.

    ``model_path`` is the window's model: "" for the bundled one, else a folder. It is not a
    field of the file: it is read from, and saved into, the active model of its direction
    (``models.active``), English->Chinese when loaded. ``model_path_saved`` is the value the file
    held when it was read (a save writes ``model_path`` only when it differs, so a choice made
    elsewhere meanwhile stands). ``direction`` is the window's direction control: "auto" (each
    paragraph into the other language), "en" or "zh". ``max_output_length`` 0 means "the model's
    own limit". ``beams`` 0 takes the model's ``generation_config`` (num_beams), 1 is greedy search
    (streams every token). Thread counts 0 let ONNX Runtime choose. Geometry fields hold base64 of
    Qt's saveGeometry/saveState.
    """

    intra_op_threads: int = 0
    inter_op_threads: int = 1
    variant: Variant = "int8"
    max_output_length: int = 0
    beams: int = 0
    script: script.Script = SCRIPTS[0]
    settings_version: int = SETTINGS_VERSION
    model_path: str = ""
    extra_model_dirs: list[str] = dataclasses.field(default_factory=list)
    # On by default, as DeepL: after a pause only the sentence being typed goes to the model (a
    # file without the key gets True; a saved false, the user's own choice, stays false).
    translate_as_you_type: bool = True
    hotkey_enabled: bool = True
    hotkey: str = DEFAULT_HOTKEY
    use_primary_selection: bool = False
    hotkey_opens: str = "window"  # the global hotkey shows the translation in: HOTKEY_TARGETS
    keep_history: bool = True  # finished translations go to the history (desktop_mt.app.history)
    history_limit: int = 10_000  # the history keeps this many newest entries
    window_geometry: str = ""
    splitter_state: str = ""
    close_to_tray: bool = True  # the close button hides to the tray (when there is one)
    tray_notice_shown: bool = False  # the "still running in the tray" notice, shown once
    first_start_dismissed: bool = False  # the first-start page (demo models only) was put away
    font_size: int = 13  # source pane points (View > text size)
    recent_files: list[str] = dataclasses.field(default_factory=list)  # newest first
    join_lines: bool = True  # Edit > Join lines on paste (PDF line breaks, hyphenation)
    bilingual: bool = False  # View > Bilingual: source paragraph, then its translation
    replace_hotkey: str = ""  # global "translate and replace the selection"; "" = off
    # The other global shortcuts (Settings > Global shortcuts; "" = off). ``hotkey`` above is
    # "translate clipboard"; all follow ``hotkey_enabled`` (desktop_mt/gui/features/shortcuts.py).
    selection_hotkey: str = _DEFAULT_SELECTION_HOTKEY  # translate the selected text
    region_hotkey: str = _DEFAULT_REGION_HOTKEY  # translate a screen region (OCR)
    show_hotkey: str = ""  # bring the window forward
    # Translate selection where there is no PRIMARY selection (Windows, macOS): press copy in
    # the application in front, then put the clipboard back. Opt-in: it presses keys there.
    selection_copy: bool = False
    # The Local API (desktop_mt.gui.features.local_api): the HTTP server of `desktop-mt serve` inside the
    # app, on 127.0.0.1:local_api_port; local_api_key "" = no key required.
    local_api: bool = False
    local_api_port: int = DEFAULT_LOCAL_API_PORT
    local_api_key: str = ""
    direction: Target = "auto"  # the window's direction control: TARGETS
    language: str = LANGUAGES[0]  # the interface language: LANGUAGES (read at start)
    model_path_saved: str = dataclasses.field(default="", repr=False, compare=False)


@dataclasses.dataclass
class ModelSettings:
    """The ``models`` section: the active model per direction and the download mirror."""

    active: dict[Direction, str] = dataclasses.field(default_factory=lambda: dict.fromkeys(DIRECTIONS, ""))
    endpoint: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"active": {d: self.active.get(d, "") for d in DIRECTIONS}, "endpoint": self.endpoint}


def _int_range(lo: int, hi: int) -> Callable[[Any], bool]:
    # bool is a subclass of int in Python: true/false in the JSON is not a number here.
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


# One validator per saved field; a value that fails it falls back to the default.
_VALIDATORS: dict[str, Callable[[Any], bool]] = {
    "intra_op_threads": _int_range(0, 256),
    "inter_op_threads": _int_range(0, 64),
    "variant": lambda v: v in VARIANTS,
    "max_output_length": _int_range(0, 4096),
    "beams": _int_range(0, 16),
    "script": lambda v: v in SCRIPTS,
    "settings_version": _int_range(1, 1000),
    "extra_model_dirs": _is_str_list,
    "translate_as_you_type": _is_bool,
    "hotkey_enabled": _is_bool,
    "hotkey": _is_str,
    "use_primary_selection": _is_bool,
    "hotkey_opens": lambda v: v in HOTKEY_TARGETS,
    "keep_history": _is_bool,
    "history_limit": _int_range(1, 1_000_000),
    "window_geometry": _is_str,
    "splitter_state": _is_str,
    "close_to_tray": _is_bool,
    "tray_notice_shown": _is_bool,
    "first_start_dismissed": _is_bool,
    "font_size": _int_range(8, 40),
    "recent_files": _is_str_list,
    "join_lines": _is_bool,
    "bilingual": _is_bool,
    "replace_hotkey": _is_str,
    "selection_hotkey": _is_str,
    "region_hotkey": _is_str,
    "show_hotkey": _is_str,
    "selection_copy": _is_bool,
    "local_api": _is_bool,
    "local_api_port": _int_range(1, 65535),
    "local_api_key": _is_str,
    "direction": lambda v: v in TARGETS,
    "language": lambda v: v in LANGUAGES,
}


@dataclasses.dataclass
class LoadResult:
    """What :func:`load_settings` found: the settings to use and what to tell the user.

    ``backup`` is where an unreadable file was moved; ``models`` the model section."""

    settings: Settings
    warnings: list[str]
    backup: Path | None = None
    models: ModelSettings = dataclasses.field(default_factory=ModelSettings)


def settings_path() -> Path:
    """The settings file in the (possibly redirected) config dir."""
    return paths.config_dir() / SETTINGS_FILE


# -- the window's fields -----------------------------------------------------------------------


def from_dict(data: dict[str, Any]) -> tuple[Settings, list[str]]:
    """The window's Settings from a parsed file; bad or unknown entries become warnings.

    ``model_path`` (a pre-3 file's) is taken as it is; ``models`` is not the window's."""
    defaults = Settings()
    values: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in data.items():
        if key == _MODELS_KEY:
            continue
        check = _is_str if key == "model_path" else _VALIDATORS.get(key)
        if check is None:
            warnings.append(f"Unknown setting '{key}' ignored.")
        elif check(value):
            values[key] = value
        else:
            default = getattr(defaults, key)
            warnings.append(f"Setting '{key}' had an invalid value {value!r}; using {default!r}.")
    if values.pop("settings_version", 1) < 2 and values.get("beams") == 1:
        values["beams"] = 0  # see SETTINGS_VERSION
    return dataclasses.replace(defaults, **values), warnings


def to_dict(settings: Settings) -> dict[str, Any]:
    """The window's fields as saved (JSON-ready; ``model_path`` goes to the models section)."""
    data = {k: v for k, v in dataclasses.asdict(settings).items() if k not in _NOT_SAVED}
    data["settings_version"] = SETTINGS_VERSION
    return data


# -- the models section -------------------------------------------------------------------------


def _models_from_dict(section: Any) -> tuple[ModelSettings, list[str]]:
    """The ``models`` section, checked like the window's fields."""
    models, warnings = ModelSettings(), list[str]()
    if section is None:
        return models, warnings
    if not isinstance(section, dict):
        return models, [f"Setting 'models' had an invalid value {section!r}; no model chosen."]
    active = section.get("active", {})
    if not isinstance(active, dict):
        warnings.append(f"Setting 'models.active' had an invalid value {active!r}; bundled models in use.")
        active = {}
    for direction in DIRECTIONS:
        value = active.get(direction, "")
        if isinstance(value, str):
            models.active[direction] = value
        else:
            warnings.append(f"Setting 'models.active.{direction}' had an invalid value {value!r}; using ''.")
    endpoint = section.get("endpoint", "")
    if isinstance(endpoint, str):
        models.endpoint = endpoint
    else:
        warnings.append(f"Setting 'models.endpoint' had an invalid value {endpoint!r}; using ''.")
    return models, warnings


def model_folder(value: str) -> str:
    """The folder of an active-model value: "" (bundled) stays "", an installed model's name
    becomes its folder in the models folder, a path stays as it is."""
    if not value or "/" in value or "\\" in value or Path(value).is_absolute():
        return value
    return str(paths.user_models_dir() / value)


def _model_value(folder: str) -> str:
    """What the file records for a model folder: its name when it is in the models folder."""
    if not folder:
        return ""
    try:
        if Path(folder).expanduser().resolve().parent == paths.user_models_dir().resolve():
            return Path(folder).name
    except OSError:
        pass
    return folder


def folder_direction(folder: str) -> Direction | None:
    """The direction a model folder translates (None: unknown, missing or another pair)."""
    if not folder:
        return EN_ZH  # the bundled model the window used before both directions
    try:
        return inspect_model_dir(folder).direction
    except (DesktopMTError, OSError, ValueError):
        return None


# -- reading -----------------------------------------------------------------------------------


def _backup_aside(path: Path) -> Path:
    """Move an unreadable file aside as ``<stem>.corrupt-<time><suffix>`` (never over another)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.stem}.corrupt-{stamp}{path.suffix}")
    n = 1
    while backup.exists():  # two corruptions in one second must not overwrite the first
        backup = path.with_name(f"{path.stem}.corrupt-{stamp}-{n}{path.suffix}")
        n += 1
    os.replace(path, backup)
    return backup


@dataclasses.dataclass
class _Read:
    data: dict[str, Any] | None  # None: no file (or unreadable)
    warnings: list[str]
    backup: Path | None = None


def _read_object(path: Path, what: str) -> _Read:
    """A JSON object from ``path``; an unreadable one is moved aside and said so."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _Read(None, [])
    except UnicodeDecodeError:
        return _set_aside(path, what, Phrase(N_("not UTF-8 text")))
    except OSError as exc:
        return _Read(None, [f"Cannot read {what} {path}: {exc}. Using defaults."])
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return _set_aside(path, what, WordedText(N_("invalid JSON at line {line}"), line=exc.lineno))
    if not isinstance(data, dict):
        return _set_aside(path, what, Phrase(N_("not a JSON object")))
    return _Read(data, [])


def _set_aside(path: Path, what: str, reason: str) -> _Read:
    try:
        backup = _backup_aside(path)
    except OSError as exc:
        return _Read(None, [f"{what.capitalize()} {path} is unreadable ({reason}) and could not be moved: {exc}."])
    _logger.warning("%s corrupt (%s); kept as %s", what, reason, backup)
    msg = WordedText(
        N_("{what} {file} was unreadable ({reason}). It was saved as {backup} and the default settings are in use."),
        what=Phrase(_CAPITALIZED[what]),
        file=path,
        reason=reason,
        backup=backup.name,
    )
    return _Read(None, [msg], backup)


# the sentence-initial form of each file's name (translated with the warning it starts)
_CAPITALIZED = {"settings file": N_("Settings file"), "model settings file": N_("Model settings file")}


def load_settings(path: Path | None = None) -> LoadResult:
    """Read the settings (migrating an older file and ``models.json``); never raises for a bad
    file (see the module docstring)."""
    path = path or settings_path()
    read = _read_object(path, "settings file")
    data = read.data
    warnings = list(read.warnings)
    version = data.get("settings_version", 1) if data is not None else None
    migrate = version is None or not isinstance(version, int) or version < SETTINGS_VERSION
    legacy = _legacy_models_file(path)
    if migrate and (data is not None or legacy.exists() or read.backup is not None):
        data, more = _migrate(data or {}, legacy)
        warnings += more
        try:
            _write(path, data)
        except OSError as exc:  # a read-only config folder: use the migrated settings, keep the files
            warnings.append(f"Settings file {path} could not be updated ({exc}); changes will not be saved.")
        else:
            _retire(legacy)
    data = data or {}
    settings, field_warnings = from_dict(data)
    models, model_warnings = _models_from_dict(data.get(_MODELS_KEY))
    warnings += field_warnings + model_warnings
    settings.model_path = settings.model_path_saved = model_folder(models.active[EN_ZH])
    for w in field_warnings + model_warnings:
        _logger.warning("settings: %s", w)
    return LoadResult(settings, warnings, read.backup, models)


def _legacy_models_file(path: Path) -> Path:
    return path.with_name(_LEGACY_MODELS_FILE)


def _retire(legacy: Path) -> None:
    """Rename the migrated ``models.json`` so nothing reads it again (its content is kept)."""
    if legacy.exists():
        try:
            os.replace(legacy, legacy.with_name(legacy.name + _MIGRATED_SUFFIX))
        except OSError as exc:
            _logger.warning("could not rename the migrated %s: %s", legacy, exc)


def _migrate(old: dict[str, Any], legacy: Path) -> tuple[dict[str, Any], list[str]]:
    """A version-3 document from a version 1/2 ``settings.json`` and the old ``models.json``."""
    read = _read_object(legacy, "model settings file")
    warnings = list(read.warnings)
    manager = read.data or {}
    data = {k: v for k, v in old.items() if k not in ("model_path", _MODELS_KEY)}
    if data.get("settings_version", 1) < 2 and data.get("beams") == 1:
        data["beams"] = 0  # see SETTINGS_VERSION
    data["settings_version"] = SETTINGS_VERSION
    by_direction = manager.get("active_by_direction")
    if not isinstance(by_direction, dict):
        by_direction = {EN_ZH: manager.get("active", "")}
    active = {d: v if isinstance(v := by_direction.get(d, ""), str) else "" for d in DIRECTIONS}
    window_model = old.get("model_path", "")
    if isinstance(window_model, str) and window_model:
        direction = folder_direction(window_model) or EN_ZH
        chosen = model_folder(active[direction])
        if not active[direction]:
            active[direction] = _model_value(window_model)
        elif not _same_folder(chosen, window_model):
            found = data.get("extra_model_dirs")
            extra: list[str] = list(found) if isinstance(found, list) and _is_str_list(found) else []
            if window_model not in extra and _model_value(window_model) == window_model:
                data["extra_model_dirs"] = [*extra, window_model]
            warnings.append(
                f"The window's model {window_model} and the command line's {active[direction]} "
                f"differed; {active[direction]} is the {direction} model now (choose in Models)."
            )
    endpoint = manager.get("endpoint", "")
    data[_MODELS_KEY] = ModelSettings(active, endpoint if isinstance(endpoint, str) else "").to_dict()
    return {**to_dict(Settings()), **data}, warnings  # every field written, defaults where missing


def _same_folder(a: str, b: str) -> bool:
    if not a or not b:
        return a == b
    try:
        return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()
    except OSError:
        return a == b


# -- writing -----------------------------------------------------------------------------------


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    # A new file is private (0600): it may hold the Local API's key.
    atomic_write(path, text, mode=0o600)


def _current(path: Path) -> dict[str, Any]:
    """The file as it is now (migrated first if it is older), for a read-modify-write."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = None
    except (OSError, ValueError):
        data = None
    if not isinstance(data, dict) or data.get("settings_version") != SETTINGS_VERSION:
        load_settings(path)  # migrates an older file, sets a corrupt one aside
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
    return data if isinstance(data, dict) else {"settings_version": SETTINGS_VERSION}


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the window's settings atomically, keeping the file's ``models`` section; a
    ``model_path`` changed since it was read becomes the active model of its direction."""
    path = path or settings_path()
    current = _current(path) if path.exists() or _legacy_models_file(path).exists() else {}
    models, _ = _models_from_dict(current.get(_MODELS_KEY))
    if settings.model_path != settings.model_path_saved:
        direction = folder_direction(settings.model_path) or EN_ZH
        models.active[direction] = _model_value(settings.model_path)
        settings.model_path_saved = settings.model_path
    _write(path, {**to_dict(settings), _MODELS_KEY: models.to_dict()})
    return path


def load_models(path: Path | None = None) -> ModelSettings:
    """The model section (migrating older files first)."""
    return load_settings(path).models


def update_models(change: Callable[[ModelSettings], None], path: Path | None = None) -> ModelSettings:
    """Change the model section in place (``change`` edits the :class:`ModelSettings` it gets)
    and write it, leaving every other setting as the file has it."""
    path = path or settings_path()
    current = _current(path)
    models, _ = _models_from_dict(current.get(_MODELS_KEY))
    change(models)
    _write(path, {**current, "settings_version": SETTINGS_VERSION, _MODELS_KEY: models.to_dict()})
    return models


# -- the model choice and the mirror, for the front ends -----------------------------------------


def active_models() -> dict[Direction, str]:
    """The active model of each direction (``{"en-zh": ..., "zh-en": ...}``): "" (bundled), an
    installed model's name, or a folder path (older files are migrated when read)."""
    active = load_models().active
    return {d: active.get(d, "") for d in DIRECTIONS}


def get_active(direction: str = EN_ZH) -> str:
    """The active model of ``direction``: "" (bundled), an installed model's name, or a folder path."""
    return active_models()[check_direction(direction)]


def set_active(name_or_path: str, direction: str | None = None) -> Direction:
    """Make a model the active one of its direction ("" = the bundled one); returns the direction.

    ``direction`` None takes the model's own (its language pair; English->Chinese for "").
    The model must resolve now, and translate in ``direction`` when one is given. A folder in
    the models folder is recorded by its name."""
    if name_or_path:
        info = inspect_model_dir(resolve_model(name_or_path))
        own = info.direction
        if own is None:
            raise ModelFormatError(
                f"{name_or_path!r} translates {info.source_lang}->{info.target_lang}; "
                f"desktop-mt needs an English->Chinese or Chinese->English model"
            )
        if direction is not None and check_direction(direction) != own:
            raise ModelFormatError(f"{name_or_path!r} translates {own}, not {direction}")
        direction = own
        if "/" in name_or_path or "\\" in name_or_path:
            name_or_path = _model_value(name_or_path)
    chosen = check_direction(direction or EN_ZH)

    def change(models: ModelSettings) -> None:
        models.active[chosen] = name_or_path

    update_models(change)
    return chosen


def active_model_dir(direction: str = EN_ZH) -> Path | None:
    """The active model's folder for ``direction``, or None for the bundled model. A model that
    no longer resolves (removed, moved) raises :class:`ModelNotFoundError` naming the fix."""
    active = get_active(direction)
    if not active:
        return None
    try:
        return resolve_model(active)
    except ModelNotFoundError as exc:
        raise ModelNotFoundError(
            f"the active {direction} model is unavailable: {exc}; choose another with "
            f"`desktop-mt models use NAME` (or '' for the bundled model)"
        ) from exc


def remove_model(name: str) -> Path:
    """Delete an installed model (``models.installed.delete_model``); the active setting falls
    back to the bundled model where it was this one. Returns the removed folder."""
    target = delete_model(name)
    for direction, active in active_models().items():
        if active in (name, str(target)):
            set_active("", direction)
    return target


def get_endpoint_setting() -> str:
    """The Hub mirror saved in the settings ("" = none)."""
    return load_models().endpoint


def set_endpoint_setting(url: str) -> None:
    """The Hub mirror chosen in the app ("" = none: ``HF_ENDPOINT`` or the Hub itself)."""
    url = url.strip().rstrip("/")
    if url and not url.startswith(("http://", "https://")):
        raise DesktopMTError(f"endpoint {url!r} must start with http:// or https:// (e.g. {MIRROR_HINT})")

    def change(models: ModelSettings) -> None:
        models.endpoint = url

    update_models(change)


def resolve_endpoint(explicit: str | None = None) -> str:
    """The Hub endpoint to use: the explicit argument, else the app's mirror setting, else
    ``HF_ENDPOINT``, else huggingface.co."""
    if explicit and explicit.strip():
        return explicit.strip().rstrip("/")
    return default_endpoint(get_endpoint_setting())
