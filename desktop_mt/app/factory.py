"""The one place front ends get a translator from (the application layer's one Translator factory
and ``--model`` resolver): the model choice -> a two-way translator.

```python
from desktop_mt.app.factory import build_translator
translator = build_translator()                                   # active (else bundled) model per direction
translator = build_translator(["opus-mt-en-zh", "/models/zh-en"])  # --model, each to its own direction
translator = build_translator({"zh-en": "opus-mt-zh-en"})         # one direction chosen, the other default
translator.translate("今天天气很好。")                              # -> English; English -> Chinese
```

For each direction (``"en-zh"``, ``"zh-en"``) the model is, in order: the one given for it (a
folder or an installed model's name), the active model of that direction
(``app.settings.active_models``), the bundled model of that direction. A list of models (the command
line's ``--model``, once or twice) is sorted by each model's own language pair and is all that is
loaded: the model(s) the user named, no default for the other direction. A direction with no
model is left out: text that needs it raises ``DirectionUnavailableError`` naming the catalog model
to download (``engine.router``). Both are loaded at once (errors surface here, not mid-text).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..base.errors import ModelFormatError, ModelNotFoundError
from ..engine.direction import DIRECTIONS, EN_ZH, Direction, check_direction, model_direction
from ..engine.model_format import Variant, bundled_model_dir, inspect_model_dir
from ..engine.options import GenerationOptions, SessionOptions
from ..engine.router import TwoWayTranslator
from ..engine.translator import DEFAULT_BATCH_SIZE, Translator
from ..models.catalog import load_catalog
from ..models.installed import resolve_model
from .settings import active_model_dir

__all__ = [
    "ModelChoice",
    "Models",
    "build_translator",
    "model_folders",
    "catalog_model_for",
]

ModelChoice = str | Path
Models = Iterable[ModelChoice] | Mapping[str, ModelChoice | None] | None


def build_translator(
    models: Models = None,
    *,
    variant: Variant = "int8",
    session_options: SessionOptions = SessionOptions(),
    options: GenerationOptions = GenerationOptions(),
    batch_size: int = DEFAULT_BATCH_SIZE,
    target_token: str | None = None,
) -> TwoWayTranslator:
    """A :class:`TwoWayTranslator` with a model per direction (see the module docstring).

    ``models``: None (the defaults), a list of folders / installed names (each goes to the
    direction of its language pair; two for one direction is an error), or ``{direction: folder
    or name or None}``. ``target_token`` is for the English->Chinese model (multi-target opus-mt).
    Raises ``ModelNotFoundError`` when no direction has a model, ``ModelFormatError`` for a model
    that is not English<->Chinese, and what ``Translator`` raises for a broken one.
    """
    folders = model_folders(models)
    translators: dict[Direction, Translator | None] = {}
    for name in DIRECTIONS:
        folder = folders.get(name)
        translators[name] = (
            None
            if folder is None
            else Translator(
                folder,
                variant=variant,
                session_options=session_options,
                options=options,
                target_token=target_token if name == EN_ZH else None,
                batch_size=batch_size,
            )
        )
    missing = {name: catalog_model_for(name) for name, t in translators.items() if t is None}
    return TwoWayTranslator(translators, missing, options)


def model_folders(models: Models = None) -> dict[Direction, Path | None]:
    """The model folder of each direction for ``models`` (None: no model for it)."""
    chosen = _chosen(models)
    only_chosen = models is not None and not isinstance(models, Mapping)
    folders: dict[Direction, Path | None] = {}
    for name in DIRECTIONS:
        folders[name] = chosen.get(name) or (None if only_chosen else active_model_dir(name) or _bundled(name))
    if not any(folders.values()):
        raise ModelNotFoundError(
            "no English->Chinese or Chinese->English model is installed or bundled; "
            "download one with `desktop-mt models download opus-mt-en-zh`"
        )
    return folders


def _chosen(models: Models) -> dict[Direction, Path]:
    """The explicitly chosen folders by direction."""
    out: dict[Direction, Path] = {}
    if models is None:
        return out
    if isinstance(models, Mapping):
        for name, value in models.items():
            direction = check_direction(name)
            if value:
                out[direction] = _folder_for(value, direction)
        return out
    for value in models:
        folder = _folder_for(value, None)
        own = inspect_model_dir(folder).direction
        assert own is not None  # _folder_for checked it
        if own in out:
            raise ModelFormatError(f"two {own} models were given ({out[own]} and {folder}); give one per direction")
        out[own] = folder
    return out


def _folder_for(value: ModelChoice, direction: Direction | None) -> Path:
    """A folder (or installed name) checked to translate English<->Chinese (in ``direction`` if given)."""
    folder = resolve_model(str(value))
    info = inspect_model_dir(folder)
    own = model_direction(info.source_lang, info.target_lang)
    if own is None:
        raise ModelFormatError(
            f"{value}: {info.name} translates {info.source_lang}->{info.target_lang}; "
            f"desktop-mt needs an English->Chinese or Chinese->English model"
        )
    if direction is not None and own != direction:
        raise ModelFormatError(f"{value}: {info.name} translates {own}, not {direction}")
    return folder


def _bundled(name: Direction) -> Path | None:
    try:
        return bundled_model_dir(name)
    except ModelNotFoundError:
        return None


def catalog_model_for(name: str) -> str:
    """The catalog model that translates in direction ``name`` ("" when the catalog has none)."""
    try:
        entries = load_catalog()
    except (ModelFormatError, ModelNotFoundError):
        return ""
    return next((e.name for e in entries if model_direction(e.source_lang, e.target_lang) == name), "")
