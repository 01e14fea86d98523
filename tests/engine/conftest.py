"""Fixtures shared by the engine's parity tests: the tiny Marian checkpoint in PyTorch and the
same checkpoint exported, in both decoder layouts."""

from __future__ import annotations

import pytest

from desktop_mt import Translator
from tests.conftest import load_torch


@pytest.fixture(scope="module")
def marian(tiny_marian_hf):
    return load_torch(tiny_marian_hf)


@pytest.fixture(scope="module", params=["split", "step"])
def marian_fp32(request):
    """The same checkpoint in both decoder layouts: each must match generate() on its own."""
    directory = request.getfixturevalue("tiny_marian_dir" if request.param == "split" else "tiny_marian_step_dir")
    return Translator(directory, variant="fp32")


@pytest.fixture(scope="session")
def tiny_zh_en_hf(tmp_path_factory):
    """A tiny Chinese->English Marian checkpoint (seeded; tests/engine/zh_en_model.py)."""
    from tests.engine.zh_en_model import make_marian_zh_en

    return make_marian_zh_en(tmp_path_factory.mktemp("marian_zh_en_hf"))


@pytest.fixture(scope="session")
def tiny_zh_en_dir(tiny_zh_en_hf, tmp_path_factory):
    """The tiny Chinese->English Marian exported (fp32 + int8)."""
    from tests.engine.zh_en_model import export_zh_en

    return export_zh_en(tiny_zh_en_hf, tmp_path_factory.mktemp("marian_zh_en_onnx"))


@pytest.fixture(scope="module")
def marian_zh_en(tiny_zh_en_hf):
    return load_torch(tiny_zh_en_hf)
