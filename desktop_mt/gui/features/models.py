"""Which models the settings offer: the bundled one, the user's models folder, and folders
the user added. Uses the engine's ``model_format`` helpers (no onnxruntime import)."""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import desktop_mt.models as model_manager
from desktop_mt.app import settings as app_settings
from desktop_mt.base.errors import DesktopMTError, ModelNotFoundError
from desktop_mt.engine.direction import DIRECTIONS, model_direction
from desktop_mt.engine.model_format import ModelInfo, bundled_model_dir, check_variant, find_models, inspect_model_dir
from desktop_mt.models import DownloadProgress
from desktop_mt.models.installed import folder_size

from .. import paths
from ..i18n import translate

__all__ = [
    "CatalogItem",
    "InstalledItem",
    "ModelChoice",
    "StoreBackend",
    "available_models",
    "inspect",
    "is_bundled",
]


_logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class ModelChoice:
    """One entry of the model list. ``path`` "" is the bundled model."""

    path: str
    label: str
    variants: tuple[str, ...] = ("int8", "fp32")


@dataclasses.dataclass(frozen=True)
class CatalogItem:
    """A model the app can download. ``sizes`` maps variant -> approximate bytes;
    ``credits`` is the attribution its licence asks for."""

    name: str
    languages: str
    licence: str
    description: str
    sizes: dict[str, int]
    title: str = ""
    credits: str = ""
    direction: str | None = None  # "en-zh" / "zh-en" (None: another language pair)


@dataclasses.dataclass(frozen=True)
class InstalledItem:
    """A model on disk. ``demo`` marks the bundled demo (it cannot be removed)."""

    name: str
    path: str
    languages: str
    variants: tuple[str, ...]
    size: int
    demo: bool = False
    removable: bool = True
    direction: str | None = None  # "en-zh" / "zh-en" (None: another language pair)
    layout: str = ""  # how its decoder is laid out (e.g. "step", "merged"), "" when not known


def _label(info: Any, fallback: str) -> str:
    name = getattr(info, "name", None) or fallback
    src, tgt = getattr(info, "source_lang", None), getattr(info, "target_lang", None)
    return f"{name} ({src}→{tgt})" if src and tgt else str(name)


def inspect(path: str | Path) -> ModelInfo:
    """Validate a model folder; raises the engine's ModelNotFoundError/ModelFormatError."""
    return inspect_model_dir(Path(path))


def _bundled_choice() -> ModelChoice:
    """The bundled model (listed even if broken: loading it then explains the problem)."""
    try:
        info = inspect(bundled_model_dir())
        label = translate("Models", "Bundled: {model}").format(model=_label(info, translate("Models", "bundled model")))
        return ModelChoice("", label, tuple(info.variants))
    except Exception as exc:  # noqa: BLE001 - engine not installed/model missing
        _logger.warning("bundled model unavailable: %s", type(exc).__name__)
        return ModelChoice("", translate("Models", "Bundled model"))


def _user_folder_choices() -> list[ModelChoice]:
    folder = paths.user_models_dir()
    if not folder.is_dir():
        return []
    try:
        infos = find_models(folder)
    except Exception as exc:  # noqa: BLE001
        _logger.warning("cannot scan %s: %s", folder, type(exc).__name__)
        return []
    return [ModelChoice(str(i.path), _label(i, Path(i.path).name), tuple(i.variants)) for i in infos]


def available_models(extra_dirs: list[str]) -> list[ModelChoice]:
    """Bundled first, then the user's models folder, then added folders that still validate."""
    choices = [_bundled_choice(), *_user_folder_choices()]
    seen = {c.path for c in choices}
    for folder in extra_dirs:
        if folder in seen:
            continue
        try:
            info = inspect(folder)
        except Exception:  # noqa: BLE001 - a folder that was moved/deleted is just skipped
            continue
        choices.append(ModelChoice(folder, _label(info, Path(folder).name), tuple(info.variants)))
        seen.add(folder)
    return choices


def is_bundled(path: str | Path | None) -> bool:
    """Whether ``path`` is the bundled demo model's folder."""
    if not path:
        return False
    try:
        return Path(path).resolve() == bundled_model_dir().resolve()
    except OSError:
        return False


def _languages(source: str | None, target: str | None) -> str:
    return f"{source}→{target}" if source and target else ""


class StoreBackend:
    """The Models dialog's backend on the app's model manager (:mod:`desktop_mt.models`):
    its catalog, its downloader and installer, the user's models folder, and the active
    model / mirror settings it shares with the command line."""

    def catalog(self) -> list[CatalogItem]:
        """The shipped catalog (plus ``DESKTOP_MT_CATALOG``), as the dialog shows it."""
        return [
            CatalogItem(
                e.name,
                _languages(e.source_lang, e.target_lang),
                e.licence,
                e.description,
                {v: e.approx_bytes(v) for v in e.variants},
                e.title,
                " ".join(p for p in (e.attribution, e.licence_note) if p),
                model_direction(e.source_lang, e.target_lang),
            )
            for e in model_manager.load_catalog()
        ]

    def installed(self) -> list[InstalledItem]:
        """The bundled demo model of each direction first, then every valid folder in the
        user's models folder."""
        items = _bundled_items()
        for m in model_manager.list_installed():
            langs = _languages(m.info.source_lang, m.info.target_lang)
            items.append(
                InstalledItem(
                    m.name,
                    str(m.path),
                    langs,
                    tuple(m.variants),
                    m.size_bytes,
                    direction=m.direction,
                    layout=m.layout_text,
                )
            )
        return items

    def download(
        self, name: str, variant: str, progress: Callable[[DownloadProgress], None], cancel: threading.Event
    ) -> Path:
        """Blocking download + atomic install (the dialog runs it in its thread)."""
        return model_manager.download_model(
            name, check_variant(variant), progress=progress, cancel=cancel, endpoint=app_settings.resolve_endpoint()
        )

    def remove(self, name: str) -> None:
        """Delete an installed model (the store resets the active one if it was this)."""
        app_settings.remove_model(name)

    def set_active(self, name_or_path: str) -> None:
        """Make the model the active one of its direction, for the app and the command line
        (a model in the models folder is recorded by name, as `desktop-mt models list` shows)."""
        app_settings.set_active(name_or_path)

    def active_folders(self) -> dict[str, str | None]:
        """The active model folder of each direction ("" = bundled; None: the chosen one is gone)."""
        folders: dict[str, str | None] = {}
        for direction in DIRECTIONS:
            try:
                folder = app_settings.active_model_dir(direction)
            except DesktopMTError as exc:
                _logger.warning("active %s model unavailable: %s", direction, type(exc).__name__)
                folders[direction] = None
                continue
            folders[direction] = str(folder) if folder is not None else ""
        return folders

    def endpoint(self) -> str:
        """The endpoint a download would use now."""
        return app_settings.resolve_endpoint()

    def endpoint_setting(self) -> str:
        """The mirror saved in the app ("" = none)."""
        return app_settings.get_endpoint_setting()

    def set_endpoint_setting(self, url: str) -> None:
        """Save the mirror; the store rejects URLs that are not http(s)."""
        app_settings.set_endpoint_setting(url)


def _bundled_items() -> list[InstalledItem]:
    """The demo model shipped for each direction (none where the app ships none)."""
    items: list[InstalledItem] = []
    seen: set[Path] = set()
    for direction in DIRECTIONS:
        try:
            info = inspect(bundled_model_dir(direction))
        except ModelNotFoundError:
            continue
        except Exception as exc:  # noqa: BLE001 - a broken install still lists the downloadable models
            _logger.warning("bundled %s model unavailable: %s", direction, type(exc).__name__)
            continue
        if Path(info.path) in seen:
            continue
        seen.add(Path(info.path))
        items.append(
            InstalledItem(
                info.name,
                str(info.path),
                _languages(info.source_lang, info.target_lang),
                tuple(info.variants),
                folder_size(Path(info.path)),
                demo=True,
                removable=False,
                direction=info.direction,
            )
        )
    return items
