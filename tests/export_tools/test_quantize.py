"""``python -m export_tools.quantize``: re-quantizing a model directory from its fp32 files."""

from __future__ import annotations

import json
import shutil

import pytest

from desktop_mt.base.errors import ModelFormatError
from desktop_mt.engine import model_format as mf
from export_tools.quantize import main, quantize_file


def test_cli_switches_the_int8_kind_and_keeps_the_manifest_true(tiny_marian_dir, tmp_path, capsys):
    model = tmp_path / "model"
    shutil.copytree(tiny_marian_dir, model)
    before = json.loads((model / mf.MANIFEST).read_text())
    assert main([str(model), "--kind", "dynamic"]) == 0
    assert "int8 kind: dynamic" in capsys.readouterr().out
    after = json.loads((model / mf.MANIFEST).read_text())
    assert after["int8"]["kind"] == "dynamic" and after["variants"]["fp32"] == before["variants"]["fp32"]
    for role, spec in after["variants"]["int8"]["files"].items():
        assert spec["sha256"] == mf.sha256_file(model / spec["file"]), role
        assert spec["sha256"] != before["variants"]["int8"]["files"][role]["sha256"], role
    validation = after["validation"]["int8"]
    assert validation["reference"].startswith("fp32 ONNX") and 0 < validation["max_abs_logit_diff"] < 1.0
    assert not list(model.glob(".*.tmp")) and not list(model.glob("untied-*"))
    assert main([str(model)]) == 0  # back to the default kind
    assert json.loads((model / mf.MANIFEST).read_text())["int8"]["kind"] == mf.INT8_PER_ROW


def test_a_manifest_without_fp32_files_is_refused_with_its_name(tmp_path):
    (tmp_path / mf.MANIFEST).write_text(json.dumps({"format_version": 1, "variants": {}}))
    with pytest.raises(ModelFormatError, match=mf.MANIFEST):
        main([str(tmp_path)])


def test_unknown_kind_is_refused(tiny_marian_dir, tmp_path):
    with pytest.raises(ValueError, match="dynamic-per-row"):
        quantize_file(tiny_marian_dir / "encoder_model.onnx", tmp_path / "x.onnx", "int4")


def _int8_matmul_weights(path) -> list:
    import onnx
    from onnx import numpy_helper

    from export_tools.quantize import all_graphs

    model = onnx.load(str(path))  # a merged decoder's MatMuls sit in its If branches
    names = {
        n.input[1]
        for g in all_graphs(model.graph)
        for n in g.node
        if n.op_type in ("MatMulIntegerToFloat", "MatMulInteger")
    }
    return [numpy_helper.to_array(t) for t in model.graph.initializer if t.name in names]


@pytest.mark.parametrize("kind", [mf.INT8_PER_ROW, mf.INT8_DYNAMIC])
def test_int8_matmul_weights_cannot_saturate_avx2_int16_pairs(tiny_marian_dir, tmp_path, kind):
    """ONNX Runtime's uint8 x int8 kernel on CPUs without VNNI adds two u8*s8 products in int16:
    weights in [-63, 63] keep 2 * 255 * 63 below 32767 on every CPU (the 8-bit range gave other
    logits on AVX2 than on AVX-512 VNNI)."""
    spec = json.loads((tiny_marian_dir / mf.MANIFEST).read_text())["variants"]["fp32"]["files"]["encoder"]
    quantize_file(tiny_marian_dir / spec["file"], tmp_path / "int8.onnx", kind)
    weights = _int8_matmul_weights(tmp_path / "int8.onnx")
    assert weights and all(w.dtype.itemsize == 1 for w in weights)
    worst = max(int(abs(w.astype(int) - (128 if w.dtype.kind == "u" else 0)).max()) for w in weights)
    assert 2 * 255 * worst <= 32767, worst
    assert worst >= 60  # the range is used, not squeezed further


def test_the_bundled_model_ships_weights_in_the_safe_range():
    folder = mf.bundled_model_dir()
    files = json.loads((folder / mf.MANIFEST).read_text())["variants"]["int8"]["files"]
    for role, spec in files.items():
        weights = _int8_matmul_weights(folder / spec["file"])
        assert weights and max(int(abs(w.astype(int)).max()) for w in weights) <= 63, role
