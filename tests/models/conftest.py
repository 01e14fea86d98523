"""A tiny exported Marian served by a local fake Hub, and a catalog entry pointing at it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.models.fake_hub import FakeHub

REPO, COMMIT = "tiny-org/opus-mt-tiny", "0123456789abcdef0123456789abcdef01234567"
CHECKPOINT_REPO, CHECKPOINT_COMMIT = "tiny-org/opus-mt-tiny-checkpoint", "fedcba9876543210fedcba9876543210fedcba98"
ONNX = ("encoder_model", "decoder_model", "decoder_with_past_model")
TOKENIZER = ("source.spm", "target.spm", "vocab.json")


def repo_files(model_dir: Path, with_tokenizer: bool = True) -> dict[str, bytes]:
    """The exported tiny model laid out like a transformers.js repo (ONNX files under onnx/)."""
    files = {name: (model_dir / name).read_bytes() for name in ("config.json", "generation_config.json")}
    files["README.md"] = b"# tiny model\n"
    for stem in ONNX:
        files[f"onnx/{stem}.onnx"] = (model_dir / f"{stem}.onnx").read_bytes()
        files[f"onnx/{stem}_quantized.onnx"] = (model_dir / f"{stem}_quantized.onnx").read_bytes()
    if with_tokenizer:
        files.update({name: (model_dir / name).read_bytes() for name in TOKENIZER})
    return files


def catalog_entry(name: str = "tiny", repo: str = REPO, revision: str = COMMIT) -> dict:
    def roles(suffix: str) -> dict:
        return {
            "encoder": f"onnx/encoder_model{suffix}.onnx",
            "decoder": f"onnx/decoder_model{suffix}.onnx",
            "decoder_with_past": f"onnx/decoder_with_past_model{suffix}.onnx",
        }

    return {
        "name": name,
        "title": "Tiny test Marian",
        "repo": repo,
        "revision": revision,
        "architecture": "marian",
        "source_lang": "en",
        "target_lang": "zh",
        "licence": "CC-BY-4.0",
        "attribution": "tests",
        "tokenizer_fallback": {"repo": CHECKPOINT_REPO, "revision": CHECKPOINT_COMMIT},
        "variants": {
            "int8": {"files": roles("_quantized"), "approx_bytes": 1000, "int8_kind": "dynamic"},
            "fp32": {"files": roles(""), "approx_bytes": 3000},
        },
    }


def tiny_hub(model_dir: Path) -> FakeHub:
    """A started fake Hub serving the tiny model's repo and its checkpoint's tokenizer files."""
    server = FakeHub()
    server.add_repo(REPO, COMMIT, repo_files(model_dir))
    server.add_repo(CHECKPOINT_REPO, CHECKPOINT_COMMIT, {name: (model_dir / name).read_bytes() for name in TOKENIZER})
    return server.start()


def write_catalog(path: Path) -> Path:
    """A catalog file at ``path`` with the tiny entry only."""
    path.write_text(json.dumps({"models": [catalog_entry()]}), encoding="utf-8")
    return path


@pytest.fixture
def hub(tiny_marian_dir):
    server = tiny_hub(tiny_marian_dir)
    yield server
    server.stop()


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A fresh app home, a catalog with the tiny entries, no HF_ENDPOINT, Hub offline mode off."""
    import huggingface_hub.constants as hf_constants

    home = tmp_path / "home"
    catalog = write_catalog(tmp_path / "catalog.json")
    monkeypatch.setenv("DESKTOP_MT_HOME", str(home))
    monkeypatch.setenv("DESKTOP_MT_CATALOG", str(catalog))
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)  # tests/conftest.py sets it for transformers
    return home
