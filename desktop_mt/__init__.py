"""desktop-mt: offline English->Chinese translation that streams, on ONNX Runtime.

    from desktop_mt import Translator
    translator = Translator()                    # the bundled model, int8
    print(translator.translate("I love you."))
    for event in translator.translate_stream("Where is the train station?"):
        ...                                      # TextDelta, SegmentDone, Finished

Importing it sets ORT_DISABLE_TELEMETRY=1 (unless already set) before onnxruntime is loaded:
ONNX Runtime's telemetry stays off. See desktop_mt.engine and the README's "Privacy".
"""

from . import engine  # noqa: F401 - first: switches ONNX Runtime's telemetry off
from .engine.events import Alternative, Finished, SegmentDone, TextDelta, TranslationStats
from .engine.glossary import Glossary, GlossaryError, Term
from .engine.langcheck import is_mostly_cjk
from .engine.options import GenerationOptions, SessionOptions
from .engine.pasted import join_lines
from .engine.translator import Translator
from .errors import (
    DesktopMTError,
    ModelFormatError,
    ModelNotFoundError,
    ProviderUnavailableError,
    TranslationCancelled,
    UnsupportedModelError,
)

__all__ = [
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
    "ModelFormatError",
    "UnsupportedModelError",
    "ProviderUnavailableError",
    "TranslationCancelled",
    "join_lines",
    "is_mostly_cjk",
]
__version__ = "0.1.0"
