"""Installed models, the active model and the download endpoint (shared by the CLI and the GUI).

Installed models are folders in :func:`desktop_mt.paths.user_models_dir` (one per name). The
active model of each direction ("" for the bundled model of that direction, an installed model's
name, or a model folder's absolute path) and the Hub mirror chosen in the app ("" = none) are the
``models`` section of the app's one settings file (:mod:`desktop_mt.app.settings`, which also
migrates the ``models.json`` this module wrote before).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any

from .. import paths
from ..engine.direction import DIRECTIONS, EN_ZH
from ..engine.model_format import MANIFEST, ModelInfo, inspect_model_dir
from ..engine.tokenizer import target_tokens
from ..errors import DesktopMTError, ModelFormatError, ModelNotFoundError
from .catalog import load_catalog

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
        if any(e.name == name_or_path for e in load_catalog()):
            raise ModelNotFoundError(
                f"model {name_or_path!r} is not installed in {models_dir()}; "
                f"run `desktop-mt models download {name_or_path}`"
            )
    raise ModelNotFoundError(
        f"{name_or_path!r} is neither a model folder nor an installed model (`desktop-mt models list` shows them)"
    )


def remove_model(name: str) -> Path:
    """Delete an installed model (and its staged partial download); the active setting falls back
    to the bundled model when it was this one. Returns the removed folder."""
    if not name or name.startswith(".") or Path(name).name != name:
        raise ModelNotFoundError(f"{name!r} is not a model name (`desktop-mt models list` shows them)")
    target, staged = models_dir() / name, staging_root() / name
    if name == BUNDLED and not target.is_dir() and not staged.is_dir():
        raise ModelNotFoundError(
            "the bundled model ships with the app and cannot be removed; to stop using "
            "it, make another model the default: `desktop-mt models use NAME`"
        )
    if not target.is_dir() and not staged.is_dir():
        raise ModelNotFoundError(f"no installed model {name!r} in {models_dir()}")
    for folder in (target, staged):
        if folder.is_dir():
            shutil.rmtree(folder)
    for direction, active in active_models().items():
        if active in (name, str(target)):
            set_active("", direction)
    return target


# -- the model choice and the mirror: the models section of the one settings file -------------
# They live in desktop_mt.app.settings (settings.json, "models"); these functions keep their
# names for the command line, the server and the factory. The import is at call time: the app
# layer sits above this package, and app.settings imports nothing from it.


def settings_path() -> Path:
    """The file that holds the model choice (the app's ``settings.json``)."""
    from ..app import settings as app_settings

    return app_settings.settings_path()


def active_models() -> dict[str, str]:
    """The active model of each direction (``{"en-zh": ..., "zh-en": ...}``): "" (bundled), an
    installed model's name, or a folder path. Files from before version 3 (``models.json`` with
    only ``active``: the English->Chinese model) are migrated when read."""
    from ..app import settings as app_settings

    active = app_settings.load_models().active
    return {d: active.get(d, "") for d in DIRECTIONS}


def get_active(direction: str = EN_ZH) -> str:
    """The active model of ``direction``: "" (bundled), an installed model's name, or a folder path."""
    return active_models()[_check_direction(direction)]


def set_active(name_or_path: str, direction: str | None = None) -> str:
    """Make a model the active one of its direction ("" = the bundled one); returns the direction.

    ``direction`` None takes the model's own (its language pair; English->Chinese for "").
    The model must resolve now, and translate in ``direction`` when one is given. A folder in
    the models folder is recorded by its name."""
    from ..app import settings as app_settings

    if name_or_path:
        info = inspect_model_dir(resolve_model(name_or_path))
        own = info.direction
        if own is None:
            raise ModelFormatError(
                f"{name_or_path!r} translates {info.source_lang}->{info.target_lang}; "
                f"desktop-mt needs an English->Chinese or Chinese->English model"
            )
        if direction is not None and _check_direction(direction) != own:
            raise ModelFormatError(f"{name_or_path!r} translates {own}, not {direction}")
        direction = own
        if "/" in name_or_path or "\\" in name_or_path:
            name_or_path = app_settings.model_value(name_or_path)
    chosen = _check_direction(direction or EN_ZH)

    def change(models: app_settings.ModelSettings) -> None:
        models.active[chosen] = name_or_path

    app_settings.update_models(change)
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


def _check_direction(direction: str) -> str:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
    return direction


def get_endpoint_setting() -> str:
    """The Hub mirror saved in the settings ("" = none)."""
    from ..app import settings as app_settings

    return app_settings.load_models().endpoint


def set_endpoint_setting(url: str) -> None:
    """The Hub mirror chosen in the app ("" = none: ``HF_ENDPOINT`` or the Hub itself)."""
    from ..app import settings as app_settings

    url = url.strip().rstrip("/")
    if url and not url.startswith(("http://", "https://")):
        raise DesktopMTError(f"endpoint {url!r} must start with http:// or https:// (e.g. {MIRROR_HINT})")

    def change(models: app_settings.ModelSettings) -> None:
        models.endpoint = url

    app_settings.update_models(change)


def resolve_endpoint(explicit: str | None = None) -> str:
    """The Hub endpoint to use: the explicit argument, else the app's mirror setting, else
    ``HF_ENDPOINT``, else huggingface.co (read at call time, unlike huggingface_hub's constant)."""
    for value in (explicit, get_endpoint_setting(), os.environ.get("HF_ENDPOINT")):
        if value and value.strip():
            return value.strip().rstrip("/")
    return DEFAULT_ENDPOINT


def manifest_path(name: str) -> Path:
    return models_dir() / name / MANIFEST
