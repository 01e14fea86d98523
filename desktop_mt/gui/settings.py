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
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from . import paths

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
VARIANTS = ("int8", "fp32")
DEFAULT_HOTKEY = "Ctrl+Alt+E"  # Crow Translate's "translate selection" default: familiar.


@dataclasses.dataclass
class Settings:
    """Everything the user can change. Field defaults are the app's defaults.

    ``model_path`` "" means the bundled model. ``max_output_length`` 0 means "the model's
    own limit". ``beams`` 1 is greedy search (what streams smoothest). Thread counts 0 let
    ONNX Runtime choose. Geometry fields hold base64 of Qt's saveGeometry/saveState.
    """

    intra_op_threads: int = 0
    inter_op_threads: int = 1
    variant: str = "int8"
    max_output_length: int = 0
    beams: int = 1
    model_path: str = ""
    extra_model_dirs: list[str] = dataclasses.field(default_factory=list)
    translate_as_you_type: bool = False
    hotkey_enabled: bool = True
    hotkey: str = DEFAULT_HOTKEY
    use_primary_selection: bool = False
    window_geometry: str = ""
    splitter_state: str = ""


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
    "beams": _int_range(1, 16),
    "model_path": _is_str,
    "extra_model_dirs": _is_str_list,
    "translate_as_you_type": _is_bool,
    "hotkey_enabled": _is_bool,
    "hotkey": _is_str,
    "use_primary_selection": _is_bool,
    "window_geometry": _is_str,
    "splitter_state": _is_str,
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
    return dataclasses.replace(defaults, **values), warnings


def to_dict(settings: Settings) -> dict[str, Any]:
    """JSON-ready dict of every field."""
    return dataclasses.asdict(settings)


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write settings atomically: temp file in the same folder, fsync, ``os.replace``."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(to_dict(settings), indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        # Never leave temp files behind when the disk is full or the folder read-only.
        Path(tmp).unlink(missing_ok=True)
        raise
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
    msg = (f"Settings file {path} was unreadable ({reason}). It was saved as {backup.name} "
           f"and the default settings are in use.")
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
