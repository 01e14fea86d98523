"""Our exported decoder graphs rewritten as other exporters name and share things (issue 44).

Optimum 2.x (the torch dynamo exporter, via optimum-onnx) names nodes ``node_<Op>_<n>`` and
intermediate values ``val_<n>``; transformers.js's merged decoders keep one tied token table
named ``model.shared.weight_merged_0`` that both the embedding ``Gather`` and the lm_head (through
a ``Transpose``) read. The graphs compute exactly what they did: only names and the sharing change.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

SHARED = "model.shared.weight_merged_0"


def _graphs(graph: onnx.GraphProto):
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from _graphs(attr.g)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for sub in attr.graphs:
                    yield from _graphs(sub)


def rename_like_optimum2(model: onnx.ModelProto) -> onnx.ModelProto:
    """Every node ``node_<Op>_<n>``, every initializer and inner value ``val_<n>`` (the model's
    inputs and outputs keep their names: the runtime feeds them), the token table tied."""
    _tie_token_table(model)
    keep = {i.name for i in model.graph.input} | {o.name for o in model.graph.output} | {SHARED, ""}
    names: dict[str, str] = {}

    def new(name: str) -> str:
        if name in keep:
            return name
        return names.setdefault(name, f"val_{len(names)}")

    count = 0
    for graph in _graphs(model.graph):
        for init in graph.initializer:
            init.name = new(init.name)
        for node in graph.node:
            count += 1
            node.name = f"node_{node.op_type}_{count}"
            node.input[:] = [new(i) for i in node.input]
            node.output[:] = [new(o) for o in node.output]
        if graph is not model.graph:
            for value in graph.output:
                value.name = new(value.name)
            for value in graph.input:
                value.name = new(value.name)
    del model.graph.value_info[:]
    return model


def _tie_token_table(model: onnx.ModelProto) -> None:
    """The embedding table as one [vocab, d] initializer ``SHARED`` gathered directly, the lm_head
    reading its Transpose (our exporter keeps the [d, vocab] lm_head weight and transposes that)."""
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    head_name = None
    for g in _graphs(graph):
        for node in list(g.node):
            if node.op_type != "Transpose" or node.input[0] not in inits:
                continue
            head = numpy_helper.to_array(inits[node.input[0]])
            if head.ndim != 2 or head.shape[1] < 4 * head.shape[0]:
                continue  # not the [d, vocab] lm_head
            if head_name is None:
                head_name = node.input[0]
                graph.initializer.append(numpy_helper.from_array(np.ascontiguousarray(head.T), SHARED))
            table_name = node.output[0]
            g.node.remove(node)
            for other in (n for sub in _graphs(g) for n in sub.node):  # also in its branches
                other.input[:] = [SHARED if i == table_name else i for i in other.input]
    assert head_name is not None, "no transposed lm_head weight found to tie"
    graph.initializer.remove(inits[head_name])
    transposed = f"{SHARED}_transposed"
    for g in _graphs(graph):
        for node in g.node:
            node.input[:] = [transposed if i == head_name else i for i in node.input]
    graph.node.insert(0, onnx.helper.make_node("Transpose", [SHARED], [transposed]))


def rewrite(folder: Path, names: tuple[str, ...], change) -> None:
    """Apply ``change`` to each named ONNX file of ``folder`` in place."""
    for name in names:
        path = folder / name
        if path.is_file():
            onnx.save(change(onnx.load(str(path))), str(path))


def without_final_norm(model: onnx.ModelProto, layer: int = 0) -> onnx.ModelProto:
    """Layer ``layer``'s last layer norm taken out (an Identity in its place): a decoder that still
    runs but is not Marian's structure."""
    for graph in _graphs(model.graph):
        for node in graph.node:
            if node.op_type == "LayerNormalization" and f"layers.{layer}/final_layer_norm" in node.name:
                x, out = node.input[0], node.output[0]
                node.Clear()
                node.op_type, node.name = "Identity", f"no_norm_{layer}"
                node.input.append(x)
                node.output.append(out)
    return model
