"""A downloaded Marian rebuilt in the decoder-step layout with per-row int8 (models.convert, issues 32, 44).

The tiny Marian is served by the stand-in Hub in Optimum's split layout and in transformers.js's
merged layout, also with the names and the tied token table of Optimum 2.x / transformers.js
exports (``exporter_names``); the fp32 download is converted at install. Parity: the converted
fp32 step graphs give the tokens of the downloaded fp32 model and of transformers' generate(),
greedy and beam 4. The weights are found by structure: a decoder that is not Marian's is refused
naming the parts not found, and stays usable as downloaded.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import onnx
import pytest

from desktop_mt import GenerationOptions, Translator
from desktop_mt.engine.model_format import inspect_model_dir, verify_files
from desktop_mt.models import download_model
from desktop_mt.models.convert import ConversionRefused, convert_model_dir
from tests.conftest import load_torch
from tests.engine.test_parity import NO_BOUND, SENTENCES, hf_generate
from tests.models.conftest import COMMIT, REPO, TOKENIZER
from tests.models.exporter_names import rename_like_optimum2, rewrite, without_final_norm
from tests.models.fake_hub import FakeHub

DECODERS = ("decoder_model.onnx", "decoder_with_past_model.onnx", "decoder_model_merged.onnx")


@pytest.fixture(scope="module")
def tiny_merged_export(tiny_marian_hf, tmp_path_factory):
    from tests.model_factory import export_model

    return export_model(tiny_marian_hf, tmp_path_factory.mktemp("marian_merged_for_convert"), layout="merged")


@pytest.fixture(scope="module")
def renamed_split(tiny_marian_dir, tmp_path_factory):
    """Our split export with Optimum 2.x's node and value names and a tied token table."""
    return renamed(tiny_marian_dir, tmp_path_factory.mktemp("renamed_split") / "model")


@pytest.fixture(scope="module")
def renamed_merged(tiny_merged_export, tmp_path_factory):
    """The transformers.js merged layout as today's exports name it (``model.shared.weight_merged_0``)."""
    return renamed(tiny_merged_export, tmp_path_factory.mktemp("renamed_merged") / "model")


def renamed(source: Path, out: Path) -> Path:
    shutil.copytree(source, out)
    rewrite(out, DECODERS, rename_like_optimum2)
    (out / "desktop_mt.json").unlink()  # as downloaded from elsewhere: no manifest, no recorded hashes
    return out


def merged_repo(model_dir: Path) -> dict[str, bytes]:
    """The tiny model as transformers.js lays it out: onnx/encoder_model*.onnx + onnx/decoder_model_merged*.onnx."""
    files = {name: (model_dir / name).read_bytes() for name in ("config.json", "generation_config.json", *TOKENIZER)}
    for stem in ("encoder_model", "decoder_model_merged"):
        for suffix in ("", "_quantized"):
            files[f"onnx/{stem}{suffix}.onnx"] = (model_dir / f"{stem}{suffix}.onnx").read_bytes()
    return files


def merged_entry() -> dict:
    def roles(suffix: str) -> dict:
        return {
            "encoder": f"onnx/encoder_model{suffix}.onnx",
            "decoder_merged": f"onnx/decoder_model_merged{suffix}.onnx",
        }

    return {
        "name": "tiny-merged",
        "title": "Tiny test Marian (transformers.js layout)",
        "repo": REPO,
        "revision": COMMIT,
        "architecture": "marian",
        "source_lang": "en",
        "target_lang": "zh",
        "licence": "CC-BY-4.0",
        "attribution": "tests",
        "variants": {
            "int8": {"files": roles("_quantized"), "approx_bytes": 1000, "int8_kind": "dynamic"},
            "fp32": {"files": roles(""), "approx_bytes": 3000},
        },
    }


def serve_merged(source: Path, home: Path) -> FakeHub:
    """A started stand-in Hub serving ``source`` in transformers.js's layout, with its catalog entry."""
    catalog = Path(str(home) + "-catalog.json")
    catalog.write_text(json.dumps({"models": [merged_entry()]}), encoding="utf-8")
    import os

    os.environ["DESKTOP_MT_CATALOG"] = str(catalog)  # the home fixture's monkeypatch restores it
    server = FakeHub()
    server.add_repo(REPO, COMMIT, merged_repo(source))
    return server.start()


@pytest.fixture
def merged_hub(tiny_merged_export, home):
    server = serve_merged(tiny_merged_export, home)
    yield server
    server.stop()


@pytest.fixture
def renamed_merged_hub(renamed_merged, home):
    """The merged layout as today's transformers.js / Optimum 2.x exports name it."""
    server = serve_merged(renamed_merged, home)
    yield server
    server.stop()


def check_converted(path: Path) -> dict:
    """The installed folder holds the step layout with per-row int8, verified by hash like any other."""
    manifest = json.loads((path / "desktop_mt.json").read_text(encoding="utf-8"))
    assert manifest["int8"]["kind"] == "dynamic-per-row", manifest.get("converted")
    assert manifest["converted"]["layout"] == "step"
    assert manifest["converted"]["validation"]["fp32_step_greedy_same"] == "3/3"
    info = inspect_model_dir(path)
    assert set(info.files["int8"]) == {"encoder", "cross_kv", "decoder_step"}
    verify_files(info, "int8")
    for spec in manifest["variants"]["int8"]["files"].values():
        assert spec["sha256"] and spec["file"].startswith("converted/")
    translator = Translator(path, variant="int8")
    assert translator.sessions is not None and translator.sessions.layout == "step"
    assert translator.batch_invariant
    return manifest


def test_an_fp32_split_download_is_installed_in_the_step_layout(hub, home, tiny_marian_dir):
    path = download_model("tiny", "fp32", endpoint=hub.url)
    manifest = check_converted(path)
    assert manifest["converted"]["from"] == "onnx/decoder_model.onnx"
    # The downloaded files stay, verified by the Hub's hashes.
    assert "onnx/decoder_model.onnx" in manifest["download"]["files"] and (path / "onnx/decoder_model.onnx").is_file()
    verify_files(inspect_model_dir(path), "fp32")
    # The converted int8 is what our exporter writes (per-row int8 of the same weights): the same tokens.
    opts = GenerationOptions(**NO_BOUND)
    ours = Translator(path, variant="int8").generate_ids(SENTENCES, opts)
    assert ours == Translator(tiny_marian_dir, variant="int8").generate_ids(SENTENCES, opts)


@pytest.mark.parametrize("served", ["merged_hub", "renamed_merged_hub"])
def test_an_fp32_merged_download_is_installed_in_the_step_layout(served, home, capsys, request):
    """Also when the graph is named as transformers.js / Optimum 2.x name it (the issue-44 case:
    ``model.shared.weight_merged_0``, ``node_Gather_2``): ``models list`` says ``layout step``."""
    from desktop_mt.cli.main import main

    server = request.getfixturevalue(served)
    path = download_model("tiny-merged", "fp32", endpoint=server.url)
    manifest = check_converted(path)
    assert manifest["converted"]["from"] == "onnx/decoder_model_merged.onnx"
    assert main(["models", "list"]) == 0
    assert "layout step" in capsys.readouterr().out


def test_a_second_variant_download_keeps_the_model_loadable(hub, home):
    """int8 downloaded after the fp32 one was converted: the old converted variant entry does not
    point at files the new install lacks; the install converts again."""
    download_model("tiny", "fp32", endpoint=hub.url)
    path = download_model("tiny", "int8", endpoint=hub.url)
    check_converted(path)
    assert Translator(path, variant="fp32").translate("I love you.")


@pytest.fixture(scope="module")
def tiny_opset14_export(tiny_marian_hf, tmp_path_factory):
    """Merged, opset 14: layer norms decomposed (ReduceMean, Sub, Pow, ..., Mul, Add), as older
    Optimum exports (opset 11-14) publish them."""
    from export_tools.export import export

    out = tmp_path_factory.mktemp("marian_opset14") / "model"
    export(str(tiny_marian_hf), str(out), int8=False, opset=14, layout="merged")
    return out


@pytest.mark.parametrize("layout", ["split", "merged", "merged-opset14", "renamed-split", "renamed-merged"])
@pytest.mark.parametrize("beams", [1, 4])
def test_the_converted_fp32_step_graphs_match_the_download_and_generate(
    layout, beams, tiny_marian_hf, tmp_path, request
):
    fixture = {
        "split": "tiny_marian_dir",
        "merged": "tiny_merged_export",
        "merged-opset14": "tiny_opset14_export",
        "renamed-split": "renamed_split",
        "renamed-merged": "renamed_merged",
    }
    source = request.getfixturevalue(fixture[layout])
    folder = tmp_path / "model"
    shutil.copytree(source, folder)
    if not (folder / "desktop_mt.json").is_file():
        from desktop_mt.models.install import install_folder

        folder = install_folder(source, tmp_path / "installed")  # a folder without a manifest: as `models add`
    convert_model_dir(folder, fp32_step=True)
    converted = Translator(folder, variant="fp32")
    assert converted.sessions is not None and converted.sessions.layout == "step"
    opts = GenerationOptions(beams=beams, **NO_BOUND)
    downloaded = Translator(source, variant="fp32").generate_ids(SENTENCES, opts)
    assert converted.generate_ids(SENTENCES, opts) == downloaded
    model, tokenizer = load_torch(tiny_marian_hf)
    assert downloaded == hf_generate(model, tokenizer, SENTENCES, num_beams=beams)
    # and one by one (batch independence of the step graphs)
    for text, ids in zip(SENTENCES, downloaded, strict=True):
        assert converted.generate_ids([text], opts) == [ids]


def test_a_graph_without_the_marian_structure_is_refused_and_the_model_is_unchanged(tiny_marian_dir, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(tiny_marian_dir, folder)
    rewrite(folder, DECODERS, without_final_norm)  # runs, but layer 0 has no last layer norm
    before = (folder / "desktop_mt.json").read_bytes()
    with pytest.raises(ConversionRefused, match=r"expected Marian structure \(not found: layers.0.final_layer_norm"):
        convert_model_dir(folder)
    assert (folder / "desktop_mt.json").read_bytes() == before and not (folder / "converted").exists()


def test_names_play_no_part_in_finding_the_weights(tiny_marian_dir, renamed_split):
    """The weights read from the renamed graph (no module name anywhere, tied table) are those of
    our export, array for array."""
    import numpy as np

    from desktop_mt.models import convert as cv

    dims = cv.read_dims(inspect_model_dir(tiny_marian_dir).config)
    ours, renamed_weights = (
        cv.find_decoder_weights(cv.GraphConstants(onnx.load(str(folder / "decoder_model.onnx"))), dims)
        for folder in (tiny_marian_dir, renamed_split)
    )
    assert not [n for n in onnx.load(str(renamed_split / "decoder_model.onnx")).graph.node if "layers" in n.name]
    for a, b in zip(_arrays(ours), _arrays(renamed_weights), strict=True):
        np.testing.assert_array_equal(a, b)


def _arrays(weights) -> list:
    import dataclasses

    def flat(value) -> list:
        return [a for item in value for a in flat(item)] if isinstance(value, tuple) else [value]

    out = [weights.embed_tokens, weights.embed_positions, weights.lm_head, weights.final_logits_bias]
    for layer in weights.layers:
        out.extend(flat(dataclasses.astuple(layer)))
    return out


@pytest.fixture(scope="module")
def tiny_dynamic_export(tiny_marian_hf, tmp_path_factory):
    """The tiny Marian as transformers.js publishes int8: merged decoder, ORT dynamic int8."""
    from desktop_mt.engine import model_format as mf
    from export_tools.export import export

    out = tmp_path_factory.mktemp("marian_dynamic") / "model"
    export(str(tiny_marian_hf), str(out), int8=True, layout="merged", int8_kind=mf.INT8_DYNAMIC)
    return out


def test_published_dynamic_int8_weights_are_read_back(tiny_dynamic_export):
    """The re-quantizing path (benchmarks/requant.py): the decoder weights found in ORT's dynamic
    int8 graph are the fp32 weights within its rounding, and the dequantized encoder computes what
    the int8 one does within activation rounding."""
    import numpy as np
    import onnxruntime as ort

    from desktop_mt.models import convert as cv

    info = inspect_model_dir(tiny_dynamic_export)
    dims = cv.read_dims(info.config)
    exact = cv.find_decoder_weights(cv.GraphConstants(onnx.load(str(info.files["fp32"]["decoder_merged"]))), dims)
    read = cv.find_decoder_weights(cv.GraphConstants(onnx.load(str(info.files["int8"]["decoder_merged"]))), dims)
    for a, b in ((exact.lm_head, read.lm_head), (exact.layers[1].ffn.fc2.weight, read.layers[1].ffn.fc2.weight)):
        assert a.shape == b.shape and np.abs(a - b).max() <= np.abs(a).max() / 60
    np.testing.assert_array_equal(exact.final_logits_bias, read.final_logits_bias)
    encoder = cv.dequantize_graph(onnx.load(str(info.files["int8"]["encoder"])))
    assert not [n for n in encoder.graph.node if n.op_type in ("MatMulInteger", "DynamicQuantizeLinear")]
    feed = {"input_ids": np.array([[5, 17, 33, 99, 4, 0]], np.int64), "attention_mask": np.ones((1, 6), np.int64)}
    got = ort.InferenceSession(encoder.SerializeToString()).run(None, feed)[0]
    want = ort.InferenceSession(str(info.files["int8"]["encoder"])).run(None, feed)[0]
    assert np.abs(got - want).max() < 0.1 * np.abs(want).max()


def test_the_converted_weights_are_verified_by_hash(tiny_marian_dir, tmp_path):
    """Most converted bytes are in external data files: a damaged one is refused by name, like a graph file."""
    from desktop_mt.base.errors import ModelFormatError

    folder = tmp_path / "model"
    shutil.copytree(tiny_marian_dir, folder)
    convert_model_dir(folder)
    data = folder / "converted" / "decoder_step_model_quantized.onnx.data"
    raw = bytearray(data.read_bytes())
    raw[100:103] = bytes(b ^ 0xFF for b in raw[100:103])
    data.write_bytes(bytes(raw))
    with pytest.raises(ModelFormatError, match=r"decoder_step_model_quantized\.onnx\.data is damaged"):
        Translator(folder, variant="int8")


def test_a_download_the_converter_refuses_installs_as_downloaded(tiny_marian_dir, home, tmp_path):
    """A decoder that is not Marian's structure (a layer norm missing): the install goes on with
    the downloaded layout, and the manifest says why it was not converted."""
    from tests.models.conftest import tiny_hub

    folder = tmp_path / "not-marian"
    shutil.copytree(tiny_marian_dir, folder)
    rewrite(folder, DECODERS, without_final_norm)
    server = tiny_hub(folder)
    try:
        path = download_model("tiny", "fp32", endpoint=server.url)
    finally:
        server.stop()
    manifest = json.loads((path / "desktop_mt.json").read_text(encoding="utf-8"))
    assert "layers.0.final_layer_norm" in manifest["converted"]["refused"] and not (path / "converted").exists()
    translator = Translator(path, variant="fp32")
    assert translator.sessions is not None and translator.sessions.layout == "split"
    assert translator.translate("I love you.")


def test_our_step_layout_is_read_back_by_structure(tiny_marian_hf, tiny_marian_step_dir):
    """The step graphs (cross_kv + decoder_step: the buffer's keys and values are graph inputs, not
    projections) give back the checkpoint's decoder, array for array; export_tools.recover reads
    step exports so, whichever version of the exporter wrote them."""
    import numpy as np

    from desktop_mt.models import convert as cv
    from desktop_mt.models.convert import find_checkpoint
    from desktop_mt.models.convert.find_graph import find_step_weights

    config = json.loads((tiny_marian_hf / "config.json").read_text(encoding="utf-8"))
    _, want = find_checkpoint.read_weights(find_checkpoint.StateDict(tiny_marian_hf), config)
    step, cross_kv = (
        cv.GraphConstants(onnx.load(str(tiny_marian_step_dir / f"{role}_model.onnx")))
        for role in ("decoder_step", "cross_kv")
    )
    got = find_step_weights(step, cross_kv, cv.read_dims(config))
    for a, b in zip(_arrays(want), _arrays(got), strict=True):
        np.testing.assert_array_equal(np.asarray(a, np.float32), np.asarray(b, np.float32))  # epsilon: a float32 there
