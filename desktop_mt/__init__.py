"""desktop-mt: offline English<->Chinese translation that streams, on ONNX Runtime.

    from desktop_mt import build_translator
    translator = build_translator()              # a model per direction (active, else bundled), int8
    print(translator.translate("I love you."))   # English -> Chinese
    print(translator.translate("我爱你。"))       # Chinese -> English
    for event in translator.translate_stream("Where is the train station?"):
        ...                                      # TextDelta, SegmentDone, Finished

``build_translator`` gives a :class:`TwoWayTranslator` (``.directions``: the directions it has a
model for); text that needs a missing one raises :class:`DirectionUnavailableError`, naming the
model to download. ``GenerationOptions(target="en" | "zh" | "auto")`` says where text goes.
``Translator(model_dir)`` is one model, one direction.

The names below are loaded when first used (PEP 562 module ``__getattr__``): ``import
desktop_mt.engine.direction`` costs the direction rule, not the model catalog, the settings or
the download client that ``build_translator`` needs. ``tests/test_architecture.py`` holds that.

Importing it sets ORT_DISABLE_TELEMETRY=1 (unless already set) before onnxruntime is loaded:
ONNX Runtime's telemetry stays off. See desktop_mt.engine and the README's "Privacy".
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import engine  # noqa: F401 - first: switches ONNX Runtime's telemetry off (a few stdlib imports)

if TYPE_CHECKING:
    from .app.factory import build_translator
    from .base.errors import (
        DesktopMTError,
        ModelFormatError,
        ModelNotFoundError,
        ProviderUnavailableError,
        TranslationCancelled,
        UnsupportedModelError,
    )
    from .base.version import __version__
    from .engine.direction import DirectionUnavailableError
    from .engine.events import Alternative, Finished, SegmentDone, TextDelta, TranslationStats
    from .engine.glossary import Glossary, GlossaryError, Term
    from .engine.langcheck import is_mostly_cjk
    from .engine.options import GenerationOptions, SessionOptions
    from .engine.pasted import join_lines
    from .engine.router import TwoWayTranslator
    from .engine.translator import Translator

# Each public name and the module that defines it (absolute names: tools/relayout.py rewrites them).
_HOMES: dict[str, str] = {
    "__version__": "desktop_mt.base.version",
    "build_translator": "desktop_mt.app.factory",
    "TwoWayTranslator": "desktop_mt.engine.router",
    "Translator": "desktop_mt.engine.translator",
    "GenerationOptions": "desktop_mt.engine.options",
    "SessionOptions": "desktop_mt.engine.options",
    "TextDelta": "desktop_mt.engine.events",
    "SegmentDone": "desktop_mt.engine.events",
    "Finished": "desktop_mt.engine.events",
    "TranslationStats": "desktop_mt.engine.events",
    "Alternative": "desktop_mt.engine.events",
    "Glossary": "desktop_mt.engine.glossary",
    "Term": "desktop_mt.engine.glossary",
    "GlossaryError": "desktop_mt.engine.glossary",
    "DesktopMTError": "desktop_mt.base.errors",
    "ModelNotFoundError": "desktop_mt.base.errors",
    "DirectionUnavailableError": "desktop_mt.engine.direction",
    "ModelFormatError": "desktop_mt.base.errors",
    "UnsupportedModelError": "desktop_mt.base.errors",
    "ProviderUnavailableError": "desktop_mt.base.errors",
    "TranslationCancelled": "desktop_mt.base.errors",
    "join_lines": "desktop_mt.engine.pasted",
    "is_mostly_cjk": "desktop_mt.engine.langcheck",
}

__all__ = [
    "__version__",
    "build_translator",
    "TwoWayTranslator",
    "Translator",
    "GenerationOptions",
    "SessionOptions",
    "TextDelta",
    "SegmentDone",
    "Finished",
    "TranslationStats",
    "Alternative",
    "Glossary",
    "Term",
    "GlossaryError",
    "DesktopMTError",
    "ModelNotFoundError",
    "DirectionUnavailableError",
    "ModelFormatError",
    "UnsupportedModelError",
    "ProviderUnavailableError",
    "TranslationCancelled",
    "join_lines",
    "is_mostly_cjk",
]


def __getattr__(name: str) -> Any:
    """Load a public name's module on first use and keep the name here (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
