"""The window's settings: the dataclass and its persistence live in :mod:`desktop_mt.app.settings`
(the one settings store, shared with the command line's model choice); this module keeps the
names the GUI has always imported from here."""

from __future__ import annotations

from desktop_mt.app.settings import (
    DEFAULT_HOTKEY,
    DEFAULT_LOCAL_API_PORT,
    HOTKEY_TARGETS,
    LANGUAGES,
    SCRIPTS,
    SETTINGS_FILE,
    SETTINGS_VERSION,
    TARGETS,
    VARIANTS,
    LoadResult,
    Settings,
    from_dict,
    load_settings,
    save_settings,
    settings_path,
    to_dict,
)

__all__ = [
    "DEFAULT_HOTKEY",
    "DEFAULT_LOCAL_API_PORT",
    "HOTKEY_TARGETS",
    "LANGUAGES",
    "SCRIPTS",
    "SETTINGS_FILE",
    "SETTINGS_VERSION",
    "TARGETS",
    "VARIANTS",
    "LoadResult",
    "Settings",
    "from_dict",
    "load_settings",
    "save_settings",
    "settings_path",
    "to_dict",
]
