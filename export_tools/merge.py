"""Merge the first-step and with-past decoders into one ``decoder_model_merged.onnx``.

Both graphs hold the same weights; shipping them separately doubles the decoder on disk. The
merged graph (Optimum's and transformers.js' layout) keeps one copy of every initializer in
the outer graph and picks the branch with an ``If`` on the bool input ``use_cache_branch``:
true runs the with-past body, false the first-step body. The with-past branch passes the
cross-attention cache through, so both branches return the same outputs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import onnx
from onnx import TensorProto, helper


def _content_key(init: onnx.TensorProto) -> str:
    raw = init.raw_data if init.HasField("raw_data") else init.SerializeToString()
    return hashlib.sha256(bytes(init.data_type.to_bytes(2, "little")) + str(list(init.dims)).encode() + raw).hexdigest()


def _rename_graph_values(graph: onnx.GraphProto, mapping: dict[str, str]) -> None:
    for node in graph.node:
        node.input[:] = [mapping.get(n, n) for n in node.input]
        node.output[:] = [mapping.get(n, n) for n in node.output]
    for out in graph.output:
        out.name = mapping.get(out.name, out.name)


def _hoist_initializers(graph: onnx.GraphProto, shared: dict[str, onnx.TensorProto]) -> None:
    """Move a branch's initializers into ``shared`` (deduplicated by content) and rename uses."""
    mapping = {}
    for init in graph.initializer:
        key = _content_key(init)
        if key not in shared:
            copy = onnx.TensorProto()
            copy.CopyFrom(init)
            copy.name = f"shared_{len(shared)}"
            shared[key] = copy
        mapping[init.name] = shared[key].name
    del graph.initializer[:]
    _rename_graph_values(graph, mapping)


def _branch(model: onnx.ModelProto, prefix: str, outputs: list[str], passthrough: dict[str, str]) -> onnx.GraphProto:
    """The model's graph as an If branch: no inputs, outputs renamed ``prefix + name``."""
    graph = onnx.GraphProto()
    graph.CopyFrom(model.graph)
    graph.name = prefix.rstrip("_")
    del graph.input[:]
    del graph.value_info[:]
    produced = {o for node in graph.node for o in node.output}
    mapping = {name: prefix + name for name in produced}
    _rename_graph_values(graph, mapping)
    for out_name, source in passthrough.items():  # e.g. present.0.encoder.key <- past_key_values.0.encoder.key
        graph.node.append(helper.make_node("Identity", [source], [prefix + out_name]))
    del graph.output[:]
    for name in outputs:
        graph.output.append(helper.make_tensor_value_info(prefix + name, TensorProto.FLOAT, None))
    return graph


def merge_decoders(first_step: Path, with_past: Path, out: Path) -> None:
    """Write ``out`` from the two decoder files (fp32 or int8 alike)."""
    m0, m1 = onnx.load(str(first_step)), onnx.load(str(with_past))
    outputs = [o.name for o in m0.graph.output]  # logits + present self + present cross
    passthrough = {name: name.replace("present", "past_key_values") for name in outputs if ".encoder." in name}
    shared: dict[str, onnx.TensorProto] = {}
    then_branch = _branch(m1, "with_past_", outputs, passthrough)
    else_branch = _branch(m0, "first_step_", outputs, {})
    _hoist_initializers(then_branch, shared)
    _hoist_initializers(else_branch, shared)
    inputs = {i.name: i for i in list(m0.graph.input) + list(m1.graph.input)}
    inputs["use_cache_branch"] = helper.make_tensor_value_info("use_cache_branch", TensorProto.BOOL, [1])
    if_node = helper.make_node("If", ["use_cache_branch"], outputs, then_branch=then_branch, else_branch=else_branch)
    graph = helper.make_graph(
        [if_node],
        "decoder_merged",
        list(inputs.values()),
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        initializer=list(shared.values()),
    )
    merged = helper.make_model(graph, opset_imports=m0.opset_import, producer_name="desktop-mt export_tools")
    merged.ir_version = m0.ir_version
    onnx.save(merged, str(out))
