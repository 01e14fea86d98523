"""int8 output independent of the batch (issue 20): the same sentence gives the same tokens at
batch 1, batch 64 and beside any neighbours; the manifest says which int8 kind a model has."""

from __future__ import annotations

import json
import random
import shutil

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from desktop_mt import GenerationOptions, Translator
from desktop_mt.engine import model_format as mf
from export_tools import train_demo as td
from export_tools.merge import merge_decoders
from export_tools.quantize import all_graphs, quantize_file, requantize_dir
from tests.model_factory import DATA

LINES = 400


@pytest.fixture(scope="module")
def lines() -> list[str]:
    """400 distinct English lines of the repository's test data, in a fixed shuffled order."""
    english = list(dict.fromkeys(en for en, _, _ in td.read_pairs(DATA)))
    return random.Random(20).sample(english, LINES)


def batch_differences(translator: Translator, lines: list[str], beams: int) -> dict[str, int]:
    """Lines whose output differs from the batch-1 output: at batch 64 (length-sorted batches,
    the file path) and in padded groups of 64 random neighbours (token ids)."""
    one = GenerationOptions(beams=beams)
    alone_text = translator.translate_batch(lines, one, batch_size=1)
    alone_ids = [translator.generate_ids([line], one)[0] for line in lines]
    at_64 = translator.translate_batch(lines, one, batch_size=64)
    order = list(range(len(lines)))
    random.Random(7).shuffle(order)
    mixed = 0
    for start in range(0, len(order), 64):
        group = order[start : start + 64]
        ids = translator.generate_ids([lines[i] for i in group], one)
        mixed += sum(out != alone_ids[i] for out, i in zip(ids, group))
    return {"batch 64": sum(a != b for a, b in zip(alone_text, at_64)), "random neighbours": mixed}


def nodes_of(path, op_type: str) -> list[onnx.NodeProto]:
    """``op_type`` nodes of a graph and of its subgraphs (merged decoders keep them in If branches)."""
    return [n for g in all_graphs(onnx.load(str(path)).graph) for n in g.node if n.op_type == op_type]


def attr(node: onnx.NodeProto, name: str) -> int:
    return next(a.i for a in node.attribute if a.name == name)


def quantized_lm_heads(path, vocab: int) -> list[onnx.TensorProto]:
    """int8 [d_model, vocab] weights of MatMulIntegerToFloat nodes (the output projection)."""
    model = onnx.load(str(path))
    inits = {i.name: i for i in model.graph.initializer}
    weights = [
        inits[n.input[1]] for g in all_graphs(model.graph) for n in g.node if n.op_type == "MatMulIntegerToFloat"
    ]
    return [w for w in weights if w.data_type == TensorProto.INT8 and list(w.dims)[-1] == vocab]


def op_types(path) -> set[str]:
    return {n.op_type for g in all_graphs(onnx.load(str(path)).graph) for n in g.node}


@pytest.mark.parametrize("fixture", ["tiny_marian_dir", "tiny_marian_step_dir"])
@pytest.mark.parametrize("beams", [1, 4])
def test_tiny_int8_same_tokens_at_any_batch(fixture, beams, lines, request):
    model_dir = request.getfixturevalue(fixture)
    translator = Translator(model_dir, variant="int8")
    assert translator.batch_invariant
    assert batch_differences(translator, lines, beams) == {"batch 64": 0, "random neighbours": 0}


def test_bundled_int8_same_tokens_at_any_batch(lines):
    translator = Translator(variant="int8")  # the bundled model
    assert translator.model_info.int8_kind == mf.INT8_PER_ROW and translator.batch_invariant
    assert batch_differences(translator, lines, beams=1) == {"batch 64": 0, "random neighbours": 0}


def test_export_writes_per_row_int8_and_says_so(tiny_marian_dir):
    manifest = json.loads((tiny_marian_dir / mf.MANIFEST).read_text())
    assert manifest["int8"]["kind"] == mf.INT8_PER_ROW
    info = mf.inspect_model_dir(tiny_marian_dir)
    assert info.int8_kind == mf.INT8_PER_ROW and info.batch_invariant("int8") and info.batch_invariant("fp32")
    for role, path in info.files["int8"].items():
        ops = op_types(path)
        assert "MatMulIntegerToFloat" in ops and "DynamicQuantizeLinear" not in ops, role
        weights = {i.name for i in onnx.load(str(path)).graph.initializer}
        assert not [n for n in nodes_of(path, "MatMul") if n.input[1] in weights], role  # only activation x activation
    # The tied output projection (the largest matrix) is quantized too, not left in fp32.
    assert quantized_lm_heads(info.files["int8"]["decoder_with_past"], info.config["vocab_size"])


def test_bundled_model_files_are_per_row_int8():
    info = mf.inspect_model_dir(mf.bundled_model_dir())
    mf.verify_files(info, "int8")
    for path in info.files["int8"].values():
        ops = op_types(path)
        assert "MatMulIntegerToFloat" in ops and "DynamicQuantizeLinear" not in ops
    assert quantized_lm_heads(info.files["int8"]["decoder_step"], info.config["vocab_size"])


def one_matmul(path, x_rows: int = 50, k: int = 64, n: int = 300, opset: int = 17):
    """A one-MatMul graph and inputs whose rows differ in magnitude by up to 50x."""
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((k, n)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["rows", k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", n])],
        [numpy_helper.from_array(weight, "w")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), str(path))
    x = rng.standard_normal((x_rows, k)).astype(np.float32) * np.linspace(1, 50, x_rows, dtype=np.float32)[:, None]
    return x, x @ weight


@pytest.mark.parametrize(
    "kind, opset", [(mf.INT8_PER_ROW, 17), (mf.INT8_PER_ROW, 18), (mf.INT8_WEIGHT_ONLY, 17), (mf.INT8_DYNAMIC, 17)]
)
def test_each_row_alone_equals_the_row_in_a_batch(kind, opset, tmp_path):
    """Batch-independent kinds: bit for bit; the old dynamic kind: not (its scale spans the batch).
    Opset 18 moved ReduceMax's axes from an attribute to an input: both graphs must work."""
    import onnxruntime as ort  # after desktop_mt (imported above), which switches its telemetry off

    x, expected = one_matmul(tmp_path / "fp32.onnx", opset=opset)
    quantize_file(tmp_path / "fp32.onnx", tmp_path / "int8.onnx", kind)
    session = ort.InferenceSession(str(tmp_path / "int8.onnx"), providers=["CPUExecutionProvider"])
    batch = session.run(None, {"x": x})[0]
    alone = np.concatenate([session.run(None, {"x": x[i : i + 1]})[0] for i in range(len(x))])
    assert np.abs(batch - expected).max() < 0.02 * np.abs(expected).max()  # int8 error, not garbage
    assert np.array_equal(alone, batch) == (kind != mf.INT8_DYNAMIC)


def test_weight_only_kind_is_batch_independent_too(tiny_marian_dir, lines, tmp_path):
    other = tmp_path / "nbits"
    shutil.copytree(tiny_marian_dir, other)
    manifest = requantize_dir(other, mf.INT8_WEIGHT_ONLY)
    decoder = other / manifest["variants"]["int8"]["files"]["decoder_with_past"]["file"]
    heads = [
        n
        for n in nodes_of(decoder, "MatMulNBits")
        if attr(n, "N") == json.loads((other / "config.json").read_text())["vocab_size"]
    ]
    assert heads and all(attr(n, "bits") == 8 for n in heads)  # the lm_head is int8 too
    translator = Translator(other, variant="int8")
    assert translator.batch_invariant
    assert batch_differences(translator, lines, beams=1) == {"batch 64": 0, "random neighbours": 0}


def test_dynamic_int8_dirs_still_load_and_are_not_batch_invariant(tiny_marian_dir, tmp_path):
    old = tmp_path / "dynamic"
    shutil.copytree(tiny_marian_dir, old)
    manifest = requantize_dir(old, mf.INT8_DYNAMIC)
    assert manifest["int8"]["kind"] == mf.INT8_DYNAMIC
    assert "DynamicQuantizeLinear" in op_types(old / manifest["variants"]["int8"]["files"]["encoder"]["file"])
    translator = Translator(old, variant="int8")
    assert not translator.batch_invariant and translator.translate("I love you.")
    assert Translator(old, variant="fp32").batch_invariant
    # An export from before the manifest had an "int8" entry: unknown kind counts as dynamic.
    data = json.loads((old / mf.MANIFEST).read_text())
    del data["int8"]
    (old / mf.MANIFEST).write_text(json.dumps(data))
    assert mf.inspect_model_dir(old).int8_kind == mf.INT8_DYNAMIC
    assert not Translator(old, variant="int8").batch_invariant
    # No manifest at all (an Optimum / transformers.js download).
    (old / mf.MANIFEST).unlink()
    assert not Translator(old, variant="int8").batch_invariant


def test_requantize_a_merged_dir_from_its_fp32_files(tiny_marian_dir, lines, tmp_path):
    """Re-quantizing needs only the directory (the bundled model has no checkpoint in the repo);
    a merged decoder keeps one copy of each quantized weight for both branches."""
    merged = tmp_path / "merged"
    shutil.copytree(tiny_marian_dir, merged)
    data = json.loads((merged / mf.MANIFEST).read_text())
    merge_decoders(
        merged / "decoder_model.onnx", merged / "decoder_with_past_model.onnx", merged / "decoder_model_merged.onnx"
    )
    data["variants"] = {
        "fp32": {
            "files": {
                "encoder": data["variants"]["fp32"]["files"]["encoder"],
                "decoder_merged": {"file": "decoder_model_merged.onnx"},
            }
        }
    }
    data.pop("int8")
    for name in (
        "decoder_model",
        "decoder_with_past_model",
        "decoder_model_quantized",
        "decoder_with_past_model_quantized",
    ):
        (merged / f"{name}.onnx").unlink()
    (merged / mf.MANIFEST).write_text(json.dumps(data))
    manifest = requantize_dir(merged)
    assert manifest["int8"]["kind"] == mf.INT8_PER_ROW
    info = mf.inspect_model_dir(merged)
    mf.verify_files(info, "int8")
    decoder = onnx.load(str(info.files["int8"]["decoder_merged"]))
    names = [i.name for i in decoder.graph.initializer]
    assert len(names) == len(set(names))
    matmuls = nodes_of(info.files["int8"]["decoder_merged"], "MatMulIntegerToFloat")
    assert len(matmuls) > len({n.input[1] for n in matmuls})  # both branches use the same int8 weights
    expected = Translator(tiny_marian_dir, variant="int8").translate_batch(lines[:50], GenerationOptions(beams=1))
    got = Translator(merged, variant="int8").translate_batch(lines[:50], GenerationOptions(beams=1))
    assert got == expected
