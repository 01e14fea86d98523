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
