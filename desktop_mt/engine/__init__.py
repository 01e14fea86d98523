"""The translation engine: ONNX Runtime sessions, generation, tokenizer and streaming events.

Importing this package turns ONNX Runtime's telemetry off, before anything can import
``onnxruntime``: every import of ``desktop_mt`` (library, CLI, GUI, the PyInstaller bundle)
runs this first. Official ONNX Runtime builds 1.29+ on Linux and macOS start an uploader (1DS)
when they initialise: it writes ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/`` (a persistent
``deviceid`` and an ``onnxruntime.db`` of events) and, about 9 s after the import, begins
uploading to ``mobile.events.data.microsoft.com``. Only the environment variable
``ORT_DISABLE_TELEMETRY`` read at that moment stops it; ``onnxruntime.disable_telemetry_events()``
does not. So ``ORT_DISABLE_TELEMETRY`` defaults to ``1`` here, and a value the user set
(``0`` to opt back in) is kept. Windows builds log ETW events instead and ignore the variable:
``runtime`` calls ``disable_telemetry_events()`` there (see ``runtime.apply_telemetry_switch``).
"""

import os
import sys
import warnings

__all__ = [
    "TELEMETRY_SWITCH",
    "TelemetryWarning",
    "telemetry_disabled",
]

TELEMETRY_SWITCH = "ORT_DISABLE_TELEMETRY"
# The values ONNX Runtime reads as "off", after trimming whitespace and lowering case
# (IsTelemetryDisabledByEnvironment in onnxruntime/core/platform/telemetry_environment.h).
_OFF_VALUES = frozenset({"1", "true", "yes", "on", "y"})


class TelemetryWarning(UserWarning):
    """ONNX Runtime was imported before desktop_mt, so its telemetry could not be switched off."""


def telemetry_disabled() -> bool:
    """Whether ``ORT_DISABLE_TELEMETRY`` says "off", read the way ONNX Runtime reads it."""
    return os.environ.get(TELEMETRY_SWITCH, "").strip().lower() in _OFF_VALUES


def _switch_off_ort_telemetry() -> None:
    """Default ``ORT_DISABLE_TELEMETRY`` to ``1``; warn when that comes too late."""
    user_value = os.environ.get(TELEMETRY_SWITCH)
    os.environ.setdefault(TELEMETRY_SWITCH, "1")
    # An onnxruntime imported earlier has read the variable already (its uploader, if any,
    # is running). A user who set the variable before that import got what they asked for.
    if "onnxruntime" in sys.modules and user_value is None:
        warnings.warn(
            f"onnxruntime was imported before desktop_mt, so {TELEMETRY_SWITCH}=1 came too late: "
            "on Linux and macOS ONNX Runtime's telemetry uploader runs in this process. Import "
            f"desktop_mt first, or set {TELEMETRY_SWITCH}=1 in the environment before starting "
            "Python",
            TelemetryWarning,
            stacklevel=2,
        )


_switch_off_ort_telemetry()
