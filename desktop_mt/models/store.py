"""Installed models, the active model and the download endpoint (shared by the CLI and the GUI).

Installed models are folders in :func:`desktop_mt.paths.user_models_dir` (one per name). The two
settings live in ``models.json`` in the config folder, written atomically:
``{"active": "", "endpoint": ""}``. ``active`` is "" for the bundled model, an installed
model's name, or a model folder's absolute path; ``endpoint`` is the Hub mirror chosen in the app
("" = none).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path
from typing import Any

from .. import paths
from ..fsutil import atomic_write
from ..engine.model_format import MANIFEST, ModelInfo, inspect_model_dir
from ..errors import DesktopMTError, ModelFormatError, ModelNotFoundError

SETTINGS_FILE = "models.json"
DEFAULT_ENDPOINT = "https://huggingface.co"
MIRROR_HINT = "https://hf-mirror.com"
BUNDLED = "bundled"  # the name of the model shipped inside the app (`models use bundled`)
STAGING_DIR = ".downloads"  # partial downloads, never offered as a model (no config.json in it)


@dataclasses.dataclass(frozen=True)
class InstalledModel:
    """A valid model folder in the user's models folder."""

    name: str
    path: Path
    info: ModelInfo
    size_bytes: int

    @property
    def variants(self) -> tuple[str, ...]:
        return self.info.variants

    @property
    def target_tokens(self) -> tuple[str, ...]:
        from ..engine.tokenizer import target_tokens

        return target_tokens(self.info)

    @property
    def source(self) -> dict[str, Any]:
        """Where it was downloaded from (repo, revision, endpoint), {} for a hand-placed folder."""
        return dict((self.info.manifest or {}).get("download", {}))


def models_dir() -> Path:
    return paths.user_models_dir()


def staging_root() -> Path:
    return models_dir() / STAGING_DIR


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def list_installed() -> list[InstalledModel]:
    """Every valid model folder in the user's models folder, by name."""
    folder = models_dir()
    if not folder.is_dir():
        return []
    found = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            info = inspect_model_dir(sub)
        except (ModelNotFoundError, ModelFormatError):
            continue
        found.append(InstalledModel(sub.name, sub, info, folder_size(sub)))
    return found


def installed(name: str) -> InstalledModel | None:
    return next((m for m in list_installed() if m.name == name), None)


def resolve_model(name_or_path: str) -> Path:
    """A model folder for ``--model``: an existing folder, or the name of an installed model."""
    candidate = Path(name_or_path).expanduser()
    if candidate.is_dir():
        return candidate
    if "/" not in name_or_path and "\\" not in name_or_path:
        found = installed(name_or_path)
        if found is not None:
            return found.path
        from .catalog import load_catalog

        if any(e.name == name_or_path for e in load_catalog()):
            raise ModelNotFoundError(f"model {name_or_path!r} is not installed in {models_dir()}; "
                                     f"run `desktop-mt models download {name_or_path}`")
    raise ModelNotFoundError(f"{name_or_path!r} is neither a model folder nor an installed model "
                             f"(`desktop-mt models list` shows them)")


def remove_model(name: str) -> Path:
    """Delete an installed model (and its staged partial download); the active setting falls back
    to the bundled model when it was this one. Returns the removed folder."""
    if not name or name.startswith(".") or Path(name).name != name:
        raise ModelNotFoundError(f"{name!r} is not a model name (`desktop-mt models list` shows them)")
    target, staged = models_dir() / name, staging_root() / name
    if name == BUNDLED and not target.is_dir() and not staged.is_dir():
        raise ModelNotFoundError("the bundled model ships with the app and cannot be removed; to stop using "
                                 "it, make another model the default: `desktop-mt models use NAME`")
    if not target.is_dir() and not staged.is_dir():
        raise ModelNotFoundError(f"no installed model {name!r} in {models_dir()}")
    for folder in (target, staged):
        if folder.is_dir():
            shutil.rmtree(folder)
    if get_active() in (name, str(target)):
        set_active("")
    return target


# -- settings shared with the GUI -------------------------------------------------------------

def settings_path() -> Path:
    return paths.config_dir() / SETTINGS_FILE


def _load_settings() -> dict[str, Any]:
    try:
        data = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_settings(data: dict[str, Any]) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def get_active() -> str:
    """The active model: "" (bundled), an installed model's name, or a folder path."""
    value = _load_settings().get("active", "")
    return value if isinstance(value, str) else ""


def set_active(name_or_path: str) -> None:
    """Make a model active ("" = the bundled one). The model must resolve now."""
    if name_or_path:
        inspect_model_dir(resolve_model(name_or_path))
    _save_settings({**_load_settings(), "active": name_or_path})


def active_model_dir() -> Path | None:
    """The active model's folder, or None for the bundled model. A model that no longer
    resolves (removed, moved) raises :class:`ModelNotFoundError` naming the fix."""
    active = get_active()
    if not active:
        return None
    try:
        return resolve_model(active)
    except ModelNotFoundError as exc:
        raise ModelNotFoundError(f"the active model is unavailable: {exc}; choose another with "
                                 f"`desktop-mt models use NAME` (or '' for the bundled model)") from exc


def get_endpoint_setting() -> str:
    value = _load_settings().get("endpoint", "")
    return value if isinstance(value, str) else ""


def set_endpoint_setting(url: str) -> None:
    """The Hub mirror chosen in the app ("" = none: ``HF_ENDPOINT`` or the Hub itself)."""
    url = url.strip().rstrip("/")
    if url and not url.startswith(("http://", "https://")):
        raise DesktopMTError(f"endpoint {url!r} must start with http:// or https:// (e.g. {MIRROR_HINT})")
    _save_settings({**_load_settings(), "endpoint": url})


def resolve_endpoint(explicit: str | None = None) -> str:
    """The Hub endpoint to use: the explicit argument, else the app's mirror setting, else
    ``HF_ENDPOINT``, else huggingface.co (read at call time, unlike huggingface_hub's constant)."""
    for value in (explicit, get_endpoint_setting(), os.environ.get("HF_ENDPOINT")):
        if value and value.strip():
            return value.strip().rstrip("/")
    return DEFAULT_ENDPOINT


def manifest_path(name: str) -> Path:
    return models_dir() / name / MANIFEST
