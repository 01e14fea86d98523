"""Installed models (:mod:`desktop_mt.models.installed`) and, until the window imports them from
:mod:`desktop_mt.app.settings`, the model choice's old names.

The model choice (the active model per direction, the Hub mirror) is the application's:
``desktop_mt.app.settings``. The functions below only pass their calls on, for
``desktop_mt/gui/models.py`` and the tests that still name ``desktop_mt.models.set_active`` and the
like; this module goes once they import ``desktop_mt.app.settings`` (and the models.store entry of
tests/test_architecture.py's LAYER_EDGES_TO_GO with it). No logic here.
"""

from __future__ import annotations

from pathlib import Path

from .installed import (
    BUNDLED,
    DEFAULT_ENDPOINT,
    MIRROR_HINT,
    STAGING_DIR,
    InstalledModel,
    decoder_layout,
    folder_size,
    installed,
    list_installed,
    manifest_path,
    models_dir,
    resolve_model,
    staging_root,
)

__all__ = [
    "BUNDLED",
    "DEFAULT_ENDPOINT",
    "MIRROR_HINT",
    "STAGING_DIR",
    "InstalledModel",
    "active_model_dir",
    "active_models",
    "decoder_layout",
    "folder_size",
    "get_active",
    "get_endpoint_setting",
    "installed",
    "list_installed",
    "manifest_path",
    "models_dir",
    "remove_model",
    "resolve_endpoint",
    "resolve_model",
    "set_active",
    "set_endpoint_setting",
    "settings_path",
    "staging_root",
]


def settings_path() -> Path:
    from ..app import settings

    return settings.settings_path()


def active_models() -> dict[str, str]:
    from ..app import settings

    return settings.active_models()


def get_active(direction: str = "en-zh") -> str:
    from ..app import settings

    return settings.get_active(direction)


def set_active(name_or_path: str, direction: str | None = None) -> str:
    from ..app import settings

    return settings.set_active(name_or_path, direction)


def active_model_dir(direction: str = "en-zh") -> Path | None:
    from ..app import settings

    return settings.active_model_dir(direction)


def remove_model(name: str) -> Path:
    from ..app import settings

    return settings.remove_model(name)


def get_endpoint_setting() -> str:
    from ..app import settings

    return settings.get_endpoint_setting()


def set_endpoint_setting(url: str) -> None:
    from ..app import settings

    settings.set_endpoint_setting(url)


def resolve_endpoint(explicit: str | None = None) -> str:
    from ..app import settings

    return settings.resolve_endpoint(explicit)
