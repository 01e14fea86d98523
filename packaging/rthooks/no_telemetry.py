"""PyInstaller run-time hook: ONNX Runtime's telemetry off in the bundle, before any bundled code.

Runs before the entry script, so ``ORT_DISABLE_TELEMETRY`` is set even if some bundled module
imported onnxruntime ahead of ``desktop_mt`` (whose package import sets it too). ``setdefault``:
a user who set the variable (``0`` opts back in) keeps their value. Linux/macOS builds read it
when they initialise; Windows builds ignore it and the engine calls
``onnxruntime.disable_telemetry_events()`` instead (README, "Privacy").
"""

import os

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
