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
    from .engine.direction import DirectionUnavailableError
    from .engine.events import Alternative, Finished, SegmentDone, TextDelta, TranslationStats
    from .engine.glossary import Glossary, GlossaryError, Term
    from .engine.langcheck import is_mostly_cjk
    from .engine.options import GenerationOptions, SessionOptions
    from .engine.router import TwoWayTranslator
    from .engine.translator import Translator
    from .errors import (
        DesktopMTError,
        ModelFormatError,
        ModelNotFoundError,
        ProviderUnavailableError,
        TranslationCancelled,
        UnsupportedModelError,
    )
    from .pasted import join_lines
    from .version import __version__

# Each public name and the module (relative to this package) that defines it.
_HOMES: dict[str, str] = {
    "__version__": ".version",
    "build_translator": ".app.factory",
    "TwoWayTranslator": ".engine.router",
    "Translator": ".engine.translator",
    "GenerationOptions": ".engine.options",
    "SessionOptions": ".engine.options",
    "TextDelta": ".engine.events",
    "SegmentDone": ".engine.events",
    "Finished": ".engine.events",
    "TranslationStats": ".engine.events",
    "Alternative": ".engine.events",
    "Glossary": ".engine.glossary",
    "Term": ".engine.glossary",
    "GlossaryError": ".engine.glossary",
    "DesktopMTError": ".errors",
    "ModelNotFoundError": ".errors",
    "DirectionUnavailableError": ".engine.direction",
    "ModelFormatError": ".errors",
    "UnsupportedModelError": ".errors",
    "ProviderUnavailableError": ".errors",
    "TranslationCancelled": ".errors",
    "join_lines": ".pasted",
    "is_mostly_cjk": ".engine.langcheck",
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
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
