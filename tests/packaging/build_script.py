"""``packaging/build.py`` loaded as the module ``build`` (it is a script, not a package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BUILD_PY = Path(__file__).resolve().parents[2] / "packaging" / "build.py"


def _load():
    spec = importlib.util.spec_from_file_location("desktop_mt_packaging_build", BUILD_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _load()
