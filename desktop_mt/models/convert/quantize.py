"""Rewriting a downloaded graph's linear layers: to per-row int8 (the downloaded encoder), or from
ORT's dynamic int8 back to float (re-quantizing a published int8 model, ``benchmarks/requant.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .builder import OPSET, GraphBuilder, column_quantized
from .graph_scope import Scope
from .onnx_graph import GraphConstants, onnx_module
from .spec import ConversionRefused

if TYPE_CHECKING:
    import onnx

__all__ = [
    "quantize_encoder",
    "dequantize_graph",
    "drop_dead",
]


def quantize_encoder(model: onnx.ModelProto) -> onnx.ModelProto:
    """The downloaded fp32 encoder with per-row int8: every MatMul by a constant 2-D weight and
    every Gather of a constant table, as :class:`GraphBuilder` writes them."""
    graph = model.graph
    consts = GraphConstants(model)
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), OPSET)
    b = GraphBuilder(int8=True, opset=opset)
    nodes = []
    for node in graph.node:
        nodes.extend(_quantized_node(b, consts, node) or [node])
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(b.inits)
    _keep_used_initializers(graph)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(b.onnx.helper.make_opsetid("com.microsoft", 1))
    return model


def _quantized_node(b: GraphBuilder, consts: GraphConstants, node: Any) -> list[Any] | None:
    """The per-row int8 nodes that compute ``node``'s output, or None to keep ``node``."""
    weight = consts.const(node.input[1]) if node.op_type == "MatMul" else None
    table = consts.const(node.input[0]) if node.op_type == "Gather" else None
    axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
    b.nodes = []
    if weight is not None and weight.ndim == 2 and weight.dtype == np.float32:
        q, scale = b.row_quantized(node.input[0])
        w8, w_scale = column_quantized(weight)
        product = node.output[0] + "_rowq"
        inputs = [q, b.const(w8), "c_one", b.const(w_scale), "c_zp"]
        b.nodes.append(b.onnx.helper.make_node("MatMulIntegerToFloat", inputs, [product], domain="com.microsoft"))
        b.nodes.append(b.onnx.helper.make_node("Mul", [product, scale], list(node.output)))
        return b.nodes
    if table is not None and table.ndim == 2 and table.dtype == np.float32 and axis == 0:
        out = b.gather_rows(table, node.input[1], b.fresh("table"))
        b.nodes.append(b.onnx.helper.make_node("Identity", [out], list(node.output)))
        return b.nodes
    return None


def _keep_used_initializers(graph: Any) -> None:
    used = {i for n in graph.node for i in n.input} | {o.name for o in graph.output}
    keep = [i for i in graph.initializer if i.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)


def dequantize_graph(model: onnx.ModelProto) -> onnx.ModelProto:
    """ORT dynamic int8 (``quantize_dynamic``) back to float: each ``MatMulInteger`` by a constant
    weight, with its ``Cast`` and output-scale ``Mul``, becomes a float ``MatMul`` by the
    dequantized weight, and each ``Gather`` + ``DequantizeLinear`` of a constant table a float
    ``Gather``; the activation quantizers left unused are dropped. For re-quantizing a published
    int8 model per row (its weights rounded twice: see docs/BENCHMARKS.md). Found by structure
    (``find_graph``), whatever the nodes are named."""
    graph = model.graph
    scope = Scope(GraphConstants(model), list(graph.node), [o.name for o in graph.output])
    replace: dict[int, Any] = {}
    drop: set[int] = set()
    count = 0
    for node in graph.node:
        if node.op_type == "MatMulInteger" and _float_matmul(
            scope, node, f"dequantized_weight_{count + 1}", replace, drop
        ):
            count += 1
        elif node.op_type == "Gather":
            _float_gather(scope, node, f"dequantized_table_{len(replace)}", replace, drop)
    drop_dead(graph, [replace.get(id(n), n) for n in graph.node if id(n) not in drop])
    if not count:
        raise ConversionRefused("no ORT dynamic int8 MatMulInteger found to dequantize")
    return model


def _float_matmul(scope: Scope, node: Any, name: str, replace: dict[int, Any], drop: set[int]) -> bool:
    """Replace ORT's int8 ``node`` (and its Cast and scale Mul) by a float MatMul; False if it is not one."""
    onnx = onnx_module()
    found = scope.dynamic_int8(node)
    if found is None:
        return False
    data, weight, product = found
    scope.c.model.graph.initializer.append(onnx.numpy_helper.from_array(weight, name))
    replace[id(node)] = onnx.helper.make_node("MatMul", [data, name], [product], name=node.name or name)
    cast = scope.users(node.output[0])[0]
    drop |= {id(cast), id(scope.producer[product])}
    return True


def _float_gather(scope: Scope, node: Any, name: str, replace: dict[int, Any], drop: set[int]) -> None:
    """Replace a Gather of an int8 table + its DequantizeLinear by a Gather of the float table."""
    onnx = onnx_module()
    table = scope.gathered_table(node)
    dq = scope.producer.get(table[1]) if table is not None else None
    if table is None or dq is None or dq.op_type != "DequantizeLinear":
        return
    scope.c.model.graph.initializer.append(onnx.numpy_helper.from_array(table[0], name))
    replace[id(node)] = onnx.helper.make_node("Gather", [name, node.input[1]], list(dq.output), name=node.name)
    drop.add(id(dq))


def drop_dead(graph: Any, nodes: list[Any]) -> None:
    """Set ``graph``'s nodes to ``nodes`` minus those whose outputs nothing reads; drop unused initializers."""
    wanted = {o.name for o in graph.output}
    while True:
        used = wanted | {i for n in nodes for i in n.input}
        alive = [n for n in nodes if any(o in used for o in n.output)]
        if len(alive) == len(nodes):
            break
        nodes = alive
    del graph.node[:]
    graph.node.extend(nodes)
    used = {i for n in nodes for i in n.input}
    keep = [i for i in graph.initializer if i.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)
