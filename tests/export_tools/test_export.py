"""The exporter: manifest contents, merged decoder, parity failure and unsupported models."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from desktop_mt import GenerationOptions, Translator
from desktop_mt.engine.model_format import MANIFEST, inspect_model_dir, sha256_file
from export_tools.validate import ParityError, raise_if_broken

TEXT = "I love you. Where is the train station?\nTom is here."


def test_manifest_records_files_hashes_validation_and_versions(tiny_marian_dir):
    manifest = json.loads((tiny_marian_dir / MANIFEST).read_text())
    assert manifest["architecture"] == "marian" and manifest["format_version"] == 1
    assert (manifest["source_lang"], manifest["target_lang"]) == ("en", "zh")
    for variant in ("fp32", "int8"):
        for spec in manifest["variants"][variant]["files"].values():
            assert sha256_file(tiny_marian_dir / spec["file"]) == spec["sha256"]
    assert manifest["validation"]["fp32"]["greedy_tokens_match_all"] is True
    assert {"torch", "transformers", "onnx", "onnxruntime"} <= set(manifest["exporter"])
    for name in ("source.spm", "target.spm", "vocab.json", "config.json", "generation_config.json"):
        assert (tiny_marian_dir / name).is_file()


def test_parity_failure_names_the_graph_and_the_difference(tiny_marian_dir):
    report = json.loads((tiny_marian_dir / MANIFEST).read_text())["validation"]
    with pytest.raises(ParityError, match=r"encoder_model\.onnx: fp32 output differs from PyTorch by [0-9.e-]+"):
        raise_if_broken(report, 0.0, tiny_marian_dir)
    raise_if_broken(report, 1e-3, tiny_marian_dir)  # the real export is within tolerance


def test_merged_decoder_is_smaller_and_translates_the_same(tiny_marian_hf, tiny_marian_dir, tmp_path):
    from export_tools.export import export

    merged_dir = tmp_path / "merged"
    manifest = export(str(tiny_marian_hf), str(merged_dir), merge=True)
    info = inspect_model_dir(merged_dir)
    assert set(info.files["fp32"]) == {"encoder", "decoder_merged"}
    assert not (merged_dir / "decoder_with_past_model.onnx").exists()
    split = json.loads((tiny_marian_dir / MANIFEST).read_text())
    size = lambda m, v: sum(f["bytes"] for f in m["variants"][v]["files"].values())  # noqa: E731
    assert size(manifest, "fp32") < 0.85 * size(split, "fp32")
    for variant in ("fp32", "int8"):
        opts = GenerationOptions(beams=4)
        ours = Translator(merged_dir, variant=variant).translate(TEXT, opts)
        assert ours == Translator(tiny_marian_dir, variant=variant).translate(TEXT, opts)


def test_unsupported_architecture_fails_with_the_supported_list(tmp_path):
    from transformers import BertConfig

    BertConfig(
        vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=8
    ).save_pretrained(str(tmp_path / "bert"))
    result = subprocess.run(
        [sys.executable, "-m", "export_tools", "export", str(tmp_path / "bert"), str(tmp_path / "out")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "'bert' is not supported" in result.stderr and "marian" in result.stderr


def test_step_layout_files_validation_and_no_duplicate_weights(tiny_marian_step_dir, tiny_marian_dir):
    """cross_kv + decoder_step: every weight in one graph (smaller than the split layout), validated."""
    manifest = json.loads((tiny_marian_step_dir / MANIFEST).read_text())
    info = inspect_model_dir(tiny_marian_step_dir)
    assert set(info.files["fp32"]) == set(info.files["int8"]) == {"encoder", "cross_kv", "decoder_step"}
    assert manifest["validation"]["fp32"]["graph_files"]["later"] == "decoder_step_model.onnx"
    assert manifest["validation"]["fp32"]["greedy_tokens_match_all"] is True
    split = json.loads((tiny_marian_dir / MANIFEST).read_text())
    size = lambda m, v: sum(f["bytes"] for f in m["variants"][v]["files"].values())  # noqa: E731
    assert size(manifest, "fp32") < 0.85 * size(split, "fp32")
    with pytest.raises(ParityError, match=r"decoder_step_model\.onnx: fp32 output differs"):
        report = json.loads(json.dumps(manifest["validation"]))
        report["fp32"]["encoder_max_abs_diff"] = 0.0
        raise_if_broken(report, 0.0, tiny_marian_step_dir)


def test_step_layout_refuses_other_families(tiny_m2m_hf, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "export_tools", "export", str(tiny_m2m_hf), str(tmp_path / "out"), "--layout", "step"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "step layout is written for Marian" in result.stderr and "--layout split" in result.stderr
    assert not (tmp_path / "out" / MANIFEST).exists()


def test_validation_samples_are_in_the_models_source_language():
    from types import SimpleNamespace

    from export_tools.export import DEFAULT_SAMPLES, DEFAULT_SAMPLES_ZH, default_samples

    assert default_samples(SimpleNamespace(source_lang="zh")) == DEFAULT_SAMPLES_ZH
    assert default_samples(SimpleNamespace(source_lang="en")) == DEFAULT_SAMPLES
    assert default_samples(SimpleNamespace()) == DEFAULT_SAMPLES  # a tokenizer that does not say
    assert all(any("\u4e00" <= c <= "\u9fff" for c in s) for s in DEFAULT_SAMPLES_ZH)


def test_the_step_graphs_are_the_converters(tiny_marian_hf, tiny_marian_step_dir, tmp_path):
    """``export --layout step`` writes the graphs of ``desktop_mt.models.convert`` (the one
    definition of the step layout's maths, which the app also builds at install): the exported
    decoder step computes what the converter's, built from the checkpoint, does, bit for bit."""
    from collections import Counter

    import numpy as np
    import onnx
    import onnxruntime as ort

    from desktop_mt.models.convert import build_decoder_step, find_checkpoint, read_dims

    config = json.loads((tiny_marian_hf / "config.json").read_text(encoding="utf-8"))
    _, weights = find_checkpoint.read_weights(find_checkpoint.StateDict(tiny_marian_hf), config)
    dims = read_dims(config)
    built = tmp_path / "decoder_step.onnx"
    built.write_bytes(build_decoder_step(weights, dims, int8=False).SerializeToString())
    rng = np.random.default_rng(0)
    rows, items, src, capacity = 6, 2, 5, 4
    feed = {
        "input_ids": rng.integers(0, dims.vocab, (rows, 1)),
        "encoder_attention_mask": np.array([[1] * src, [1] * (src - 2) + [0, 0]]),
        "past_length": np.array(2),
    }
    for i in range(dims.layers):
        for kv in ("key", "value"):
            feed[f"past_key_values.{i}.decoder.{kv}"] = rng.standard_normal((rows, dims.heads, capacity, dims.head_dim))
            feed[f"past_key_values.{i}.encoder.{kv}"] = rng.standard_normal((items, dims.heads, src, dims.head_dim))
    feed = {k: v.astype(np.float32 if v.dtype.kind == "f" else np.int64) for k, v in feed.items()}
    path = tiny_marian_step_dir / "decoder_step_model.onnx"
    ops = [Counter(n.op_type for n in onnx.load(str(p)).graph.node) for p in (path, built)]
    assert ops[0] - ops[1] == Counter(Transpose=1)  # the tied lm_head, stored once (retie_transposed_copies)
    assert not ops[1] - ops[0]
    exported = ort.InferenceSession(str(path)).run(None, feed)
    for want, got in zip(exported, ort.InferenceSession(str(built)).run(None, feed), strict=True):
        np.testing.assert_array_equal(want, got)


def test_the_step_encoder_is_the_converters(tiny_marian_hf, tiny_marian_step_dir):
    """The step export's encoder is the converter's, built from the checkpoint: the same file,
    byte for byte (tests/export_tools/test_step_encoder.py: it computes what the traced one did)."""
    from desktop_mt.models.convert import build_encoder, find_checkpoint
    from desktop_mt.models.convert.spec import encoder_dims

    config = json.loads((tiny_marian_hf / "config.json").read_text(encoding="utf-8"))
    weights, _ = find_checkpoint.read_weights(find_checkpoint.StateDict(tiny_marian_hf), config)
    built = build_encoder(weights, encoder_dims(config), int8=False).SerializeToString()
    assert (tiny_marian_step_dir / "encoder_model.onnx").read_bytes() == built
