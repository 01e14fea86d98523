"""User settings: a dataclass with defaults and its JSON persistence (no Qt here).

The file is ``settings.json`` in the platformdirs config dir. Writes are atomic (a temp
file in the same folder, then ``os.replace``) so a crash mid-write never leaves half a
file. Reading is forgiving: missing keys take their defaults, a value of the wrong type
or out of range falls back to its default with a warning, unknown keys are ignored with a
warning, and a file that is not JSON at all is backed up and replaced by defaults.
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

from ..fsutil import atomic_write
from . import paths

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
VARIANTS = ("int8", "fp32")
# Chinese output script: the model's Simplified, or Traditional converted by OpenCC.
SCRIPTS = ("simplified", "traditional-tw", "traditional-hk")
# 2: beams 0 means the model's generation_config. Version-1 files saved greedy (1) as the default,
# not as a choice, so loading one turns beams 1 into 0.
SETTINGS_VERSION = 2
HOTKEY_TARGETS = ("window", "popup")  # the main window, or the small popup at the pointer
DEFAULT_HOTKEY = "Ctrl+Alt+E"  # Crow Translate's "translate selection" default: familiar.
DEFAULT_LOCAL_API_PORT = 5000  # LibreTranslate's, what Pot/Easydict/Bob users type first


@dataclasses.dataclass
class Settings:
    """Everything the user can change. Field defaults are the app's defaults.

    ``model_path`` "" means the bundled model. ``max_output_length`` 0 means "the model's
    own limit". ``beams`` 0 takes the model's ``generation_config`` (num_beams; 4 for the
    bundled model), 1 is greedy search (streams every token). Thread counts 0 let
    ONNX Runtime choose. Geometry fields hold base64 of Qt's saveGeometry/saveState.
    """

    intra_op_threads: int = 0
    inter_op_threads: int = 1
    variant: str = "int8"
    max_output_length: int = 0
    beams: int = 0
    script: str = SCRIPTS[0]
    settings_version: int = SETTINGS_VERSION
    model_path: str = ""
    extra_model_dirs: list[str] = dataclasses.field(default_factory=list)
    translate_as_you_type: bool = False
    hotkey_enabled: bool = True
    hotkey: str = DEFAULT_HOTKEY
    use_primary_selection: bool = False
    hotkey_opens: str = "window"  # the global hotkey shows the translation in: HOTKEY_TARGETS
    keep_history: bool = True  # finished translations go to the history (desktop_mt.history)
    history_limit: int = 10_000  # the history keeps this many newest entries
    window_geometry: str = ""
    splitter_state: str = ""
    close_to_tray: bool = True  # the close button hides to the tray (when there is one)
    tray_notice_shown: bool = False  # the "still running in the tray" notice, shown once
    font_size: int = 13  # source pane points (View > text size)
    recent_files: list[str] = dataclasses.field(default_factory=list)  # newest first
    join_lines: bool = True  # Edit > Join lines on paste (PDF line breaks, hyphenation)
    bilingual: bool = False  # View > Bilingual: source paragraph, then its translation
    replace_hotkey: str = ""  # global "translate and replace the selection"; "" = off
    # The Local API (desktop_mt.gui.local_api): the HTTP server of `desktop-mt serve` inside the
    # app, on 127.0.0.1:local_api_port; local_api_key "" = no key required.
    local_api: bool = False
    local_api_port: int = DEFAULT_LOCAL_API_PORT
    local_api_key: str = ""


def _int_range(lo: int, hi: int) -> Callable[[Any], bool]:
    # bool is a subclass of int in Python: true/false in the JSON is not a number here.
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


# One validator per field; a value that fails it falls back to the default.
_VALIDATORS: dict[str, Callable[[Any], bool]] = {
    "intra_op_threads": _int_range(0, 256),
    "inter_op_threads": _int_range(0, 64),
    "variant": lambda v: v in VARIANTS,
    "max_output_length": _int_range(0, 4096),
    "beams": _int_range(0, 16),
    "script": lambda v: v in SCRIPTS,
    "settings_version": _int_range(1, 1000),
    "model_path": _is_str,
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
    "font_size": _int_range(8, 40),
    "recent_files": _is_str_list,
    "join_lines": _is_bool,
    "bilingual": _is_bool,
    "replace_hotkey": _is_str,
    "local_api": _is_bool,
    "local_api_port": _int_range(1, 65535),
    "local_api_key": _is_str,
}


@dataclasses.dataclass
class LoadResult:
    """What :func:`load_settings` found: the settings to use and what to tell the user."""

    settings: Settings
    warnings: list[str]
    backup: Path | None = None


def settings_path() -> Path:
    """The settings file in the (possibly redirected) config dir."""
    return paths.config_dir() / SETTINGS_FILE


def from_dict(data: dict[str, Any]) -> tuple[Settings, list[str]]:
    """Build Settings from parsed JSON; bad or unknown entries become warnings."""
    defaults = Settings()
    values: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in data.items():
        check = _VALIDATORS.get(key)
        if check is None:
            warnings.append(f"Unknown setting '{key}' ignored.")
        elif check(value):
            values[key] = value
        else:
            default = getattr(defaults, key)
            warnings.append(f"Setting '{key}' had an invalid value {value!r}; using {default!r}.")
    if values.pop("settings_version", 1) < SETTINGS_VERSION and values.get("beams") == 1:
        values["beams"] = 0  # see SETTINGS_VERSION
    return dataclasses.replace(defaults, **values), warnings


def to_dict(settings: Settings) -> dict[str, Any]:
    """JSON-ready dict of every field."""
    return dataclasses.asdict(settings)


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write settings atomically (:func:`desktop_mt.fsutil.atomic_write`)."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(to_dict(settings), indent=2, ensure_ascii=False) + "\n"
    # A new file is private (0600), as the temp files of tempfile.mkstemp it was written with were.
    atomic_write(path, text, mode=0o600)
    return path


def _backup_corrupt(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.stem}.corrupt-{stamp}{path.suffix}")
    n = 1
    while backup.exists():  # two corruptions in one second must not overwrite the first
        backup = path.with_name(f"{path.stem}.corrupt-{stamp}-{n}{path.suffix}")
        n += 1
    os.replace(path, backup)
    return backup


def _recover(path: Path, reason: str) -> LoadResult:
    """Back up an unreadable file, write defaults in its place, and say so."""
    try:
        backup = _backup_corrupt(path)
        save_settings(Settings(), path)
    except OSError as exc:
        msg = f"Settings file {path} is unreadable ({reason}) and could not be replaced: {exc}. Using defaults."
        return LoadResult(Settings(), [msg])
    msg = (
        f"Settings file {path} was unreadable ({reason}). It was saved as {backup.name} "
        f"and the default settings are in use."
    )
    log.warning("settings file corrupt (%s); backed up to %s", reason, backup)
    return LoadResult(Settings(), [msg], backup)


def load_settings(path: Path | None = None) -> LoadResult:
    """Read settings; never raises for a bad file (see the module docstring)."""
    path = path or settings_path()
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return LoadResult(Settings(), [])
    except (OSError, UnicodeDecodeError) as exc:
        if isinstance(exc, UnicodeDecodeError):
            return _recover(path, "not UTF-8 text")
        return LoadResult(Settings(), [f"Cannot read settings file {path}: {exc}. Using defaults."])
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return _recover(path, f"invalid JSON at line {exc.lineno}")
    if not isinstance(data, dict):
        return _recover(path, "not a JSON object")
    settings, warnings = from_dict(data)
    for w in warnings:
        log.warning("settings: %s", w)
    return LoadResult(settings, warnings)
