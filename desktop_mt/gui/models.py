"""Which models the settings offer: the bundled one, the user's models folder, and folders
the user added. Uses the engine's ``model_format`` helpers (no onnxruntime import)."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from . import paths

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class ModelChoice:
    """One entry of the model list. ``path`` "" is the bundled model."""

    path: str
    label: str
    variants: tuple[str, ...] = ("int8", "fp32")


def _label(info, fallback: str) -> str:
    name = getattr(info, "name", None) or fallback
    src, tgt = getattr(info, "source_lang", None), getattr(info, "target_lang", None)
    return f"{name} ({src}→{tgt})" if src and tgt else str(name)


def inspect(path: str | Path):
    """Validate a model folder; raises the engine's ModelNotFoundError/ModelFormatError."""
    from desktop_mt.engine.model_format import inspect_model_dir

    return inspect_model_dir(Path(path))


def bundled_choice() -> ModelChoice:
    """The bundled model (listed even if broken: loading it then explains the problem)."""
    try:
        from desktop_mt.engine.model_format import bundled_model_dir

        info = inspect(bundled_model_dir())
        return ModelChoice("", "Bundled: " + _label(info, "bundled model"), tuple(info.variants))
    except Exception as exc:  # noqa: BLE001 - engine not installed/model missing
        log.warning("bundled model unavailable: %s", type(exc).__name__)
        return ModelChoice("", "Bundled model")


def _user_folder_choices() -> list[ModelChoice]:
    folder = paths.user_models_dir()
    if not folder.is_dir():
        return []
    try:
        from desktop_mt.engine.model_format import find_models

        infos = find_models(folder)
    except Exception as exc:  # noqa: BLE001
        log.warning("cannot scan %s: %s", folder, type(exc).__name__)
        return []
    return [ModelChoice(str(i.path), _label(i, Path(i.path).name), tuple(i.variants)) for i in infos]


def available_models(extra_dirs: list[str]) -> list[ModelChoice]:
    """Bundled first, then the user's models folder, then added folders that still validate."""
    choices = [bundled_choice(), *_user_folder_choices()]
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
