"""The shipped catalog's opus-mt-en-zh entry, served by the stand-in Hub with a tiny model's bytes
under its real file names (issue 32): the default int8 download fetches the fp32 files only and
ends in the step layout with per-row int8; fp32 is the same download."""

from __future__ import annotations

import json

from desktop_mt import Translator
from desktop_mt.models import catalog_entry, download_model, load_catalog
from tests.engine.test_parity import SENTENCES
from tests.models.conftest import TOKENIZER
from tests.models.fake_hub import FakeHub
from tests.models.test_convert import tiny_merged_export  # noqa: F401 - fixture used by name


def test_the_shipped_catalog_int8_is_built_from_the_fp32_download(tiny_merged_export, monkeypatch, home):  # noqa: F811
    monkeypatch.delenv("DESKTOP_MT_CATALOG")
    real = catalog_entry("opus-mt-en-zh")
    assert [e.name for e in load_catalog()] == ["opus-mt-en-zh", "opus-mt-zh-en"]
    files = {
        name: (tiny_merged_export / name).read_bytes() for name in ("config.json", "generation_config.json", *TOKENIZER)
    }
    for variant in real.variants.values():
        for role, path in variant.files.items():
            local = {"encoder": "encoder_model", "decoder_merged": "decoder_model_merged"}[role]
            assert "quantized" not in path
            files[path] = (tiny_merged_export / f"{local}.onnx").read_bytes()
    server = FakeHub()
    server.add_repo(real.repo, real.revision, files)
    server.start()
    try:
        path = download_model("opus-mt-en-zh", "int8", endpoint=server.url)
    finally:
        server.stop()
    manifest = json.loads((path / "desktop_mt.json").read_text(encoding="utf-8"))
    assert manifest["download"]["licence"] == "CC-BY-4.0"
    assert manifest["int8"]["kind"] == "dynamic-per-row" and manifest["converted"]["layout"] == "step"
    assert set(manifest["download"]["files"]) == set(files)
    expected = Translator(tiny_merged_export, variant="fp32").translate_batch(SENTENCES)
    assert Translator(path, variant="fp32").translate_batch(SENTENCES) == expected
    int8 = Translator(path, variant="int8")
    assert int8.sessions is not None and int8.sessions.layout == "step" and int8.batch_invariant
    assert len(int8.translate_batch(SENTENCES)) == len(SENTENCES)
