"""Where the app keeps its files (platformdirs), in one place so tests can redirect them.

Tests monkeypatch :func:`config_dir`, :func:`log_dir` and :func:`user_models_dir` (or set
``DESKTOP_MT_HOME``, which puts all three under one folder) so the real user
directories are never touched.
"""

from __future__ import annotations

import os
from pathlib import Path

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
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def log_dir() -> Path:
    """Folder of ``desktop-mt.log``."""
    home = _home()
    if home is not None:
        return home / "logs"
    import platformdirs

    return Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))


def user_models_dir() -> Path:
    """The user's "models" folder: every valid model directory inside it is offered."""
    home = _home()
    if home is not None:
        return home / "models"
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "models"


def resources_dir() -> Path:
    """``resources/`` at the repository root (icons, styles, the bundled model), or inside
    a PyInstaller bundle (``sys._MEIPASS``), like the engine's ``bundled_model_dir``."""
    import sys

    base = getattr(sys, "_MEIPASS", None)
    return Path(base) / "resources" if base else Path(__file__).resolve().parents[2] / "resources"
