"""Shared fixtures: tiny random checkpoints (Marian, M2M100) and their ONNX exports.

Built once per test session (about a minute); nothing is downloaded.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# The machine has 2 cores: one intra-op thread per test process keeps parallel jobs from thrashing.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# The window and the command line speak the locale's language (issue 48): the tests read their
# English words whatever the developer's locale (LANG=zh_CN...); a test of another language sets it.
os.environ.setdefault("LANGUAGE", "en")
# The user's real settings (e.g. an active model chosen with `desktop-mt models use`) and models
# folder must not leak into tests, nor tests write there: one throwaway home for the session.
if "DESKTOP_MT_HOME" not in os.environ:
    import tempfile

    os.environ["DESKTOP_MT_HOME"] = tempfile.mkdtemp(prefix="desktop-mt-test-home-")


# Modules whose tests open network clients: the garbage they leave is collected when the module
# ends, so an unclosed client (a socket in a reference cycle) is reported there, on the module
# that leaked it, and not in whatever later test the collector happens to run (issue 25: an
# OpenAI client of the compat API tests failed the fuzz test so). Per module: a collection of
# this session's heap takes about half a second on a loaded machine.
NETWORK_TEST_FOLDERS = ("server", "models")


@pytest.fixture(autouse=True)
def _no_shared_thread_pool():
    """The shared ONNX Runtime thread pool is for the process's owner (the ``desktop-mt`` command,
    a benchmark's engine process): once on, ORT refuses sessions with pools of their own, so a
    test that turned it on here would fail later tests that make such sessions. Checked after each
    test, so the one that does it is named."""
    yield
    runtime = sys.modules.get("desktop_mt.engine.runtime")
    if runtime is not None:
        assert runtime.shared_thread_pool() is None, "this test turned the process-wide ORT thread pool on"


@pytest.fixture(scope="module", autouse=True)
def _collect_network_garbage(request):
    yield
    if request.path.parent.name in NETWORK_TEST_FOLDERS and request.path.parent.parent.name == "tests":
        gc.collect()


@pytest.fixture(scope="session")
def tiny_marian_hf(tmp_path_factory) -> Path:
    from tests.model_factory import make_marian

    return make_marian(tmp_path_factory.mktemp("marian_hf"))


@pytest.fixture(scope="session")
def tiny_marian_dir(tiny_marian_hf, tmp_path_factory) -> Path:
    """The tiny Marian exported by our exporter (fp32 + int8, validated)."""
    from tests.model_factory import export_model

    return export_model(tiny_marian_hf, tmp_path_factory.mktemp("marian_onnx"))


@pytest.fixture(scope="session")
def tiny_marian_step_dir(tiny_marian_hf, tmp_path_factory) -> Path:
    """The tiny Marian in the decoder-step layout (cross_kv + decoder_step over a KV buffer)."""
    from tests.model_factory import export_model

    return export_model(tiny_marian_hf, tmp_path_factory.mktemp("marian_step_onnx"), layout="step")


@pytest.fixture(scope="session")
def tiny_m2m_hf(tmp_path_factory) -> Path:
    from tests.model_factory import make_m2m100

    return make_m2m100(tmp_path_factory.mktemp("m2m_hf"))


@pytest.fixture(scope="session")
def tiny_m2m_dir(tiny_m2m_hf, tmp_path_factory) -> Path:
    from tests.model_factory import export_model

    return export_model(tiny_m2m_hf, tmp_path_factory.mktemp("m2m_onnx"))


def load_torch(src: Path):
    from export_tools.export import load_checkpoint

    return load_checkpoint(str(src))
