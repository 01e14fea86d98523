"""Installed models: folders in :func:`desktop_mt.base.paths.user_models_dir` (one per name), what
``--model`` names (:func:`resolve_model`), and the Hub endpoint's defaults.

Which model is active per direction, and the Hub mirror chosen in the app, are the application's
settings (:mod:`desktop_mt.app.settings`): this module records no choice.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any

from ..base import paths
from ..base.errors import ModelFormatError, ModelNotFoundError
from ..engine.direction import DIRECTIONS
from ..engine.model_format import MANIFEST, ModelInfo, inspect_model_dir
from ..engine.tokenizer import target_tokens
from .catalog import load_catalog

__all__ = [
    "DEFAULT_ENDPOINT",
    "MIRROR_HINT",
    "InstalledModel",
    "decoder_layout",
    "models_dir",
    "staging_root",
    "folder_size",
    "list_installed",
    "installed",
    "resolve_model",
    "delete_model",
    "default_endpoint",
]

DEFAULT_ENDPOINT = "https://huggingface.co"
MIRROR_HINT = "https://hf-mirror.com"
_BUNDLED = "bundled"  # the name of the model shipped inside the app (`models use bundled`)
_STAGING_DIR = ".downloads"  # partial downloads, never offered as a model (no config.json in it)


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
    def direction(self) -> str | None:
        """``"en-zh"`` or ``"zh-en"`` (None for another language pair): the Models dialog's group."""
        return self.info.direction

    @property
    def layout(self) -> str:
        """How the decoder of its default variant (int8 if it has one) is laid out: ``step``
        (desktop-mt's decoder-step graphs, the fastest), ``merged`` (one decoder with an
        if-branch for the cache, transformers.js/Optimum), ``split`` (decoder and
        decoder_with_past), "" when none of these."""
        return decoder_layout(self.info)

    @property
    def layout_text(self) -> str:
        """The layout with how it came about: ``step (built at install)`` when ``models.convert``
        rebuilt the download, ``merged, as downloaded (not converted: why)`` when it refused."""
        converted = (self.info.manifest or {}).get("converted")
        if not self.layout or not isinstance(converted, dict):
            return self.layout
        if converted.get("layout") == self.layout:
            return f"{self.layout} (built at install from the downloaded weights)"
        if converted.get("refused"):
            return f"{self.layout}, as downloaded (not converted: {converted['refused']})"
        return self.layout

    @property
    def target_tokens(self) -> tuple[str, ...]:
        return target_tokens(self.info)

    @property
    def source(self) -> dict[str, Any]:
        """Where it was downloaded from (repo, revision, endpoint), {} for a hand-placed folder."""
        return dict((self.info.manifest or {}).get("download", {}))


def decoder_layout(info: ModelInfo, variant: str | None = None) -> str:
    """The decoder layout of ``variant`` (default: int8 if the model has it): see ``layout``."""
    variant = variant or ("int8" if "int8" in info.files else next(iter(info.files), ""))
    roles = info.files.get(variant, {})
    if "decoder_step" in roles:
        return "step"
    if "decoder_merged" in roles:
        return "merged"
    if "decoder_with_past" in roles:
        return "split"
    return ""


def models_dir() -> Path:
    return paths.user_models_dir()


def staging_root() -> Path:
    return models_dir() / _STAGING_DIR


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
        if any(e.name == name_or_path for e in load_catalog()):
            raise ModelNotFoundError(
                f"model {name_or_path!r} is not installed in {models_dir()}; "
                f"run `desktop-mt models download {name_or_path}`"
            )
    raise ModelNotFoundError(
        f"{name_or_path!r} is neither a model folder nor an installed model (`desktop-mt models list` shows them)"
    )


def delete_model(name: str) -> Path:
    """Delete an installed model's folder (and its staged partial download); returns the
    removed folder. The model choice is the caller's (``app.settings.remove_model``)."""
    if not name or name.startswith(".") or Path(name).name != name:
        raise ModelNotFoundError(f"{name!r} is not a model name (`desktop-mt models list` shows them)")
    target, staged = models_dir() / name, staging_root() / name
    if name == _BUNDLED and not target.is_dir() and not staged.is_dir():
        raise ModelNotFoundError(
            "the bundled model ships with the app and cannot be removed; to stop using "
            "it, make another model the default: `desktop-mt models use NAME`"
        )
    if not target.is_dir() and not staged.is_dir():
        raise ModelNotFoundError(f"no installed model {name!r} in {models_dir()}")
    for folder in (target, staged):
        if folder.is_dir():
            shutil.rmtree(folder)
    return target


def _check_direction(direction: str) -> str:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
    return direction


def default_endpoint(explicit: str | None = None) -> str:
    """The Hub endpoint without the app's mirror setting: ``explicit``, else ``HF_ENDPOINT``,
    else huggingface.co (read at call time, unlike huggingface_hub's constant)."""
    for value in (explicit, os.environ.get("HF_ENDPOINT")):
        if value and value.strip():
            return value.strip().rstrip("/")
    return DEFAULT_ENDPOINT


def _manifest_path(name: str) -> Path:
    return models_dir() / name / MANIFEST
