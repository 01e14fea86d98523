"""Where the app keeps its files (platformdirs), in one place so tests can redirect them.

Not GUI code: the CLI, the model manager (:mod:`desktop_mt.models`) and the GUI share it
(``desktop_mt.gui.paths`` re-exports it). Tests set ``DESKTOP_MT_HOME``, which puts config/,
logs/ and models/ under one folder, so the real user directories are never touched.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

__all__ = [
    "APP_NAME",
    "HOME_ENV",
    "config_dir",
    "log_dir",
    "user_models_dir",
    "data_dir",
    "cache_dir",
]

APP_NAME = "desktop-mt"
# Environment override: one folder holding config/, logs/ and models/ (tests, portable use).
HOME_ENV = "DESKTOP_MT_HOME"


def _home() -> Path | None:
    value = os.environ.get(HOME_ENV)
    return Path(value) if value else None


def config_dir() -> Path:
    """Folder of ``settings.json``."""
    home = _home()
    if home is not None:
        return home / "config"
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def log_dir() -> Path:
    """Folder of ``desktop-mt.log``."""
    home = _home()
    if home is not None:
        return home / "logs"
    return Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))


def user_models_dir() -> Path:
    """The user's "models" folder: every valid model directory inside it is offered."""
    home = _home()
    if home is not None:
        return home / "models"
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "models"


def data_dir() -> Path:
    """Folder of the user's data the app keeps (the translation history)."""
    home = _home()
    if home is not None:
        return home / "data"
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    """Folder of caches the app can rebuild (e.g. the model files' verified hashes)."""
    home = _home()
    if home is not None:
        return home / "cache"
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))
