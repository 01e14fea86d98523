"""``export_tools.recover``: the HF checkpoint is rebuilt from the fp32 ONNX files, exactly."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")


def _assert_same_weights(original_dir, recovered_dir):
    import torch
    from transformers import MarianMTModel

    original = MarianMTModel.from_pretrained(str(original_dir)).state_dict()
    recovered = MarianMTModel.from_pretrained(str(recovered_dir)).state_dict()
    assert set(original) == set(recovered)
    for name, tensor in original.items():
        assert torch.equal(tensor, recovered[name]), name


@pytest.mark.parametrize("layout", ["split", "merged", "step"])
def test_recovered_weights_equal_the_originals(layout, tiny_marian_hf, tiny_marian_dir, tiny_marian_step_dir, tmp_path):
    from export_tools.recover import recover
    from tests.model_factory import export_model

    model_dir = {"split": tiny_marian_dir, "step": tiny_marian_step_dir}.get(layout)
    if model_dir is None:
        model_dir = export_model(tiny_marian_hf, tmp_path / "merged", int8=False, layout="merged")
    report = recover(model_dir, tmp_path / "hf")
    assert report["layout"] == layout
    assert report["verified_initializers"] > 0
    _assert_same_weights(tiny_marian_hf, tmp_path / "hf")
    for name in ("source.spm", "target.spm", "vocab.json", "generation_config.json"):
        assert (tmp_path / "hf" / name).read_bytes() == (tiny_marian_hf / name).read_bytes()
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tmp_path / "hf"))
    assert tok("I love you.").input_ids == AutoTokenizer.from_pretrained(str(tiny_marian_hf))("I love you.").input_ids


def test_a_step_export_with_a_traced_encoder_is_recovered_and_verified(tiny_marian_hf, tiny_marian_step_dir, tmp_path):
    """Step exports made before the exporter built the encoder from blocks (the bundled demo
    models) have a traced encoder: recovery reads it against a traced reference, and the
    re-export check traces it again."""
    import shutil

    from export_tools.export import load_checkpoint
    from export_tools.recover import export_like, recover, traced_encoder

    old = tmp_path / "old"
    shutil.copytree(tiny_marian_step_dir, old)
    assert not traced_encoder(old / "encoder_model.onnx")
    model, _ = load_checkpoint(str(tiny_marian_hf))
    (tmp_path / "traced").mkdir()
    traced = export_like(model, tmp_path / "traced", "step", traced_encoder=True)["encoder"]
    shutil.copy2(traced, old / "encoder_model.onnx")
    assert traced_encoder(old / "encoder_model.onnx")
    report = recover(old, tmp_path / "hf")
    assert (report["layout"], report["encoder"]) == ("step", "traced") and report["verified_initializers"] > 0
    _assert_same_weights(tiny_marian_hf, tmp_path / "hf")
    assert recover(tiny_marian_step_dir, tmp_path / "hf-new", verify=False)["encoder"] == "blocks"


def test_a_changed_weight_fails_the_reexport_check(tiny_marian_dir, tmp_path):
    import shutil

    import numpy as np
    import onnx
    from onnx import numpy_helper

    from desktop_mt.base.errors import UnsupportedModelError
    from export_tools.recover import recover, verify_reexport

    recover(tiny_marian_dir, tmp_path / "hf", verify=False)
    broken = tmp_path / "broken"
    shutil.copytree(tiny_marian_dir, broken)
    model = onnx.load(str(broken / "encoder_model.onnx"))
    init = next(i for i in model.graph.initializer if i.name.endswith("fc1.bias"))
    init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init) + np.float32(1e-3), init.name))
    onnx.save(model, str(broken / "encoder_model.onnx"))
    fp32_files = json.loads((broken / "desktop_mt.json").read_text())["variants"]["fp32"]["files"]
    roles = {r: e["file"] for r, e in fp32_files.items()}
    with pytest.raises(UnsupportedModelError, match="another value"):
        verify_reexport(tmp_path / "hf", broken, roles, "split")


def test_cli_refuses_a_non_marian_model(tiny_m2m_hf, tmp_path, capsys):
    from export_tools.recover import main

    assert main([str(tiny_m2m_hf), str(tmp_path / "hf")]) == 1
    assert "Marian" in capsys.readouterr().err
