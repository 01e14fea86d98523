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

Importing it sets ORT_DISABLE_TELEMETRY=1 (unless already set) before onnxruntime is loaded:
ONNX Runtime's telemetry stays off. See desktop_mt.engine and the README's "Privacy".
"""

from . import engine  # noqa: F401 - first: switches ONNX Runtime's telemetry off
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
