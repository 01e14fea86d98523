"""``export --layout step`` builds its encoder from the converter's blocks, not by tracing torch:
nothing is traced, and the built encoder computes what the traced one and transformers' encoder
do, in fp32 and after each int8 quantizer."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_mt.engine import model_format as mf

pytest.importorskip("torch")

SENTENCES = {
    "en": ["I love you.", "Tom doesn't know what he should do now, but he will ask his teacher."],
    "zh": ["我爱你。", "汤姆说他明天会回来，但是没有人相信他。"],
}
FP32_TOLERANCE = 1e-5  # the block-built and traced graphs run the same operations: observed 0.0
TORCH_TOLERANCE = 1e-4  # ONNX Runtime's kernels against torch's: observed under 1e-6


@pytest.fixture(scope="module")
def tiny_zh_en_hf(tmp_path_factory):
    """The tiny Chinese->English Marian of the engine's tests (its source side is Chinese)."""
    from tests.engine.zh_en_model import make_marian_zh_en

    return make_marian_zh_en(tmp_path_factory.mktemp("zh_en_hf"))


@pytest.fixture(scope="module", params=["en-zh", "zh-en"])
def encoders(request, tmp_path_factory):
    """(torch model, padded batch, traced encoder path, block-built encoder path) of a tiny Marian."""
    from export_tools.export import export_graphs, load_checkpoint
    from export_tools.step_graphs import export_step_graphs

    hf = request.getfixturevalue("tiny_marian_hf" if request.param == "en-zh" else "tiny_zh_en_hf")
    model, tokenizer = load_checkpoint(str(hf))
    traced_dir, built_dir = tmp_path_factory.mktemp("traced"), tmp_path_factory.mktemp("built")
    traced = export_graphs(model, traced_dir, 17, "encoder-only")["encoder"]
    built = export_step_graphs(model, built_dir, 17, mf.FILE_NAMES, ("encoder",))["encoder"]
    batch = tokenizer(SENTENCES[request.param[:2]], return_tensors="np", padding=True)
    feed = {name: batch[name].astype(np.int64) for name in ("input_ids", "attention_mask")}
    assert not feed["attention_mask"].all()  # a padded row: the mask is computed, not skipped
    return model, feed, traced, built


def _run(path, feed) -> np.ndarray:
    import onnxruntime as ort

    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feed)[0]


def test_the_step_export_traces_nothing(tiny_marian_hf, tmp_path, monkeypatch):
    import torch

    from desktop_mt.models.convert.builder import PRODUCER
    from export_tools.export import export_graphs, load_checkpoint
    from export_tools.recover import traced_encoder

    model, _ = load_checkpoint(str(tiny_marian_hf))

    def no_tracing(*_args, **_kwargs):
        raise AssertionError("the step layout traced a graph")

    monkeypatch.setattr(torch.onnx, "export", no_tracing)
    paths = export_graphs(model, tmp_path, 17, "step")
    assert set(paths) == {"encoder", "cross_kv", "decoder_step"}
    import onnx

    assert {onnx.load(str(path)).producer_name for path in paths.values()} == {PRODUCER}
    assert not traced_encoder(paths["encoder"])


def test_the_built_encoder_equals_the_traced_one_and_transformers(encoders):
    import torch

    model, feed, traced, built = encoders
    ours = _run(built, feed)
    np.testing.assert_allclose(ours, _run(traced, feed), rtol=0, atol=FP32_TOLERANCE)
    with torch.no_grad():
        hidden = model.get_encoder()(
            input_ids=torch.from_numpy(feed["input_ids"]), attention_mask=torch.from_numpy(feed["attention_mask"])
        ).last_hidden_state.numpy()
    np.testing.assert_allclose(ours, hidden, rtol=0, atol=TORCH_TOLERANCE)


@pytest.mark.parametrize("kind", [mf.INT8_PER_ROW, mf.INT8_WEIGHT_ONLY, mf.INT8_DYNAMIC])
def test_the_quantized_built_encoder_equals_the_quantized_traced_one(encoders, kind, tmp_path):
    """The exporter quantizes every fp32 file with ``quantize_file``: each kind treats the built
    encoder's layers as it treated the traced one's (the same int8 outputs), and per row it is the
    converter's own int8 encoder (``build_encoder(int8=True)``)."""
    from export_tools.quantize import quantize_file

    _model, feed, traced, built = encoders
    for path in (traced, built):
        quantize_file(path, tmp_path / f"{path.parent.name}.onnx", kind)
    ours = _run(tmp_path / f"{built.parent.name}.onnx", feed)
    np.testing.assert_allclose(ours, _run(tmp_path / f"{traced.parent.name}.onnx", feed), rtol=0, atol=FP32_TOLERANCE)
    assert np.abs(ours - _run(built, feed)).max() > FP32_TOLERANCE  # int8 was computed, not fp32 again
    if kind == mf.INT8_PER_ROW:
        np.testing.assert_array_equal(ours, _run(_converters_int8_encoder(_model, tmp_path), feed))


def _converters_int8_encoder(model, folder):
    from desktop_mt.models.convert import build_encoder
    from desktop_mt.models.convert.spec import encoder_dims
    from export_tools.step_graphs import model_weights

    encoder, _ = model_weights(model)
    path = folder / "converter_int8.onnx"
    path.write_bytes(build_encoder(encoder, encoder_dims(model.config.to_dict()), int8=True).SerializeToString())
    return path
