"""desktop-mt: offline English->Chinese translation that streams, on ONNX Runtime.

    from desktop_mt import Translator
    translator = Translator()                    # the bundled model, int8
    print(translator.translate("I love you."))
    for event in translator.translate_stream("Where is the train station?"):
        ...                                      # TextDelta, SegmentDone, Finished
"""

from .engine.events import Finished, SegmentDone, TextDelta, TranslationStats
from .engine.options import GenerationOptions, SessionOptions
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
    "Translator", "GenerationOptions", "SessionOptions",
    "TextDelta", "SegmentDone", "Finished", "TranslationStats",
    "DesktopMTError", "ModelNotFoundError", "ModelFormatError", "UnsupportedModelError",
    "ProviderUnavailableError", "TranslationCancelled",
]
__version__ = "0.1.0"
