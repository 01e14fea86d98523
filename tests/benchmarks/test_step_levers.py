"""``benchmarks/step_levers.py``: the graph variants it times compute what they claim."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import step_levers  # noqa: E402

from tests.models.test_convert import tiny_merged_export  # noqa: E402,F401 - fixture used by name


@pytest.fixture(scope="module")
def variants(tiny_merged_export, tmp_path_factory):  # noqa: F811 - the imported fixture
    import onnxruntime as ort

    from desktop_mt.engine.model_format import inspect_model_dir

    paths = step_levers.build(tiny_merged_export, tmp_path_factory.mktemp("step_levers"))
    sessions = {name: ort.InferenceSession(str(p), providers=["CPUExecutionProvider"]) for name, p in paths.items()}
    return sessions, paths, inspect_model_dir(tiny_merged_export).config


def _feed(config):
    return step_levers.feed_for(config, 8, 2, past=3)  # 2 inputs x 4 beams


def _logits(variants, name, **runner):
    sessions, _paths, config = variants
    return step_levers.Runner(sessions[name], **runner)(_feed(config))


def test_the_exact_variants_give_the_same_bytes(variants):
    base = _logits(variants, "base")
    assert np.array_equal(_logits(variants, "fused-quant"), base)
    assert np.array_equal(_logits(variants, "k-transposed", transposed_keys=True), base)
    assert np.array_equal(_logits(variants, "base", iobinding=True), base)


def test_head_outside_leaves_out_only_the_row_scale_and_bias(variants):
    import onnx

    _sessions, paths, _config = variants
    initializers = onnx.load(str(paths["base"])).graph.initializer
    bias = next(onnx.numpy_helper.to_array(i) for i in initializers if i.name == "lm_head.bias")
    base, raw = _logits(variants, "base")[:, 0], _logits(variants, "head-outside")[:, 0]
    assert not np.allclose(base, raw)
    column = np.abs(raw).argmax(axis=1)
    rows = np.arange(len(raw))
    scale = (base[rows, column] - bias[column]) / raw[rows, column]  # each row's own activation scale
    np.testing.assert_allclose(raw * scale[:, None] + bias, base, rtol=1e-4, atol=1e-5)


def test_nbits_is_close_to_fp32_and_independent_of_the_batch(variants):
    fp32, nbits = _logits(variants, "fp32"), _logits(variants, "nbits-256")
    assert 0 < np.abs(nbits - fp32).max() < 0.05 * np.abs(fp32).max()
    sessions, _paths, config = variants
    feed = _feed(config)
    first = {  # the first input alone: its 4 rows, its cross K/V and mask
        k: v if k == "past_length" else v[:4] if k == "input_ids" or ".decoder." in k else v[:1]
        for k, v in feed.items()
    }
    alone = step_levers.Runner(sessions["nbits-256"])(first)
    assert np.array_equal(alone, nbits[:4])


def test_the_upper_bounds_run_as_described(variants, tmp_path):
    import onnx
    import onnxruntime as ort

    _sessions, paths, config = variants
    ops = [n.op_type for n in onnx.load(str(paths["static-scales"])).graph.node]
    assert "ReduceMax" not in ops and "Round" not in ops and ops.count("QuantizeLinear") > 0
    static, base = _logits(variants, "static-scales"), _logits(variants, "base")
    assert static.shape == base.shape and np.isfinite(static).all() and not np.array_equal(static, base)
    n = base.shape[-1] // 2  # the tiny model's vocabulary is smaller than the variant's 8,000
    onnx.save(step_levers.shortlist(onnx.load(str(paths["base"])), n), str(tmp_path / "short.onnx"))
    session = ort.InferenceSession(str(tmp_path / "short.onnx"), providers=["CPUExecutionProvider"])
    short = step_levers.Runner(session)(_feed(config))
    assert short.shape[-1] == n and np.array_equal(short, base[..., :n])
