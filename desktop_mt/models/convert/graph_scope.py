"""One ONNX graph seen as data flow: its linear layers (whatever their quantization) and walks
between them, for :mod:`.find_graph`'s structural search and :mod:`.quantize`'s rewrites.

A "linear layer" is a ``MatMul`` by a constant (fp32, possibly a ``Transpose`` of a tied table), an
ORT dynamic int8 ``MatMulInteger`` or our per-row ``MatMulIntegerToFloat``, the last two
dequantized. Names are never read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from .onnx_graph import GraphConstants, all_graphs
from .spec import Norm

__all__ = [
    "PASS",
    "BETWEEN",
    "DEPTH",
    "Found",
    "Scope",
    "scopes",
]

# Ops a head reshuffle or a scale puts between a projection and the attention MatMul.
PASS = frozenset(
    {"Reshape", "Transpose", "Mul", "Div", "Identity", "Cast", "Unsqueeze", "Squeeze", "Concat", "Expand", "Flatten"}
)
# Ops between the scores MatMul and the context MatMul (scale, mask, softmax) and between fc1 and fc2.
BETWEEN = frozenset(
    {
        "Mul",
        "Div",
        "Add",
        "Sub",
        "Softmax",
        "Where",
        "Cast",
        "Identity",
        "Reshape",
        "Sigmoid",
        "Relu",
        "Erf",
        "Tanh",
        "Pow",
        "Gelu",
        "FastGelu",
        "Dropout",
        "Transpose",
    }
)
DEPTH = 12


@dataclasses.dataclass(frozen=True)
class Found:
    """One linear layer of the graph: where its input comes from, its float weight, its output."""

    data: str  # the float activation it reads
    weight: np.ndarray  # [in, out]
    bias: np.ndarray | None
    out: str  # after the bias (or the product when there is none)


class Scope:
    """One graph (the outer graph, or a branch with the outer graph's nodes as context)."""

    def __init__(self, consts: GraphConstants, nodes: list[Any], outputs: list[str]):
        self.c = consts
        self.nodes = nodes
        self.outputs = outputs
        self.producer: dict[str, Any] = {}
        self.consumers: dict[str, list[Any]] = {}
        for node in nodes:
            for out in node.output:
                self.producer[out] = node
            for name in node.input:
                self.consumers.setdefault(name, []).append(node)
        self.linears = [f for f in (self._linear(n) for n in nodes) if f is not None]
        self.by_data: dict[str, list[Found]] = {}
        for lin in self.linears:
            self.by_data.setdefault(self.alias(lin.data), []).append(lin)
        self.by_out = {lin.out: lin for lin in self.linears}

    def alias(self, name: str) -> str:
        """``name`` through Identity nodes back to the tensor they copy."""
        node = self.producer.get(name)
        while node is not None and node.op_type == "Identity":
            name = node.input[0]
            node = self.producer.get(name)
        return name

    def users(self, name: str) -> list[Any]:
        return self.consumers.get(name, [])

    # -- linear layers --------------------------------------------------------------------------

    def _linear(self, node: Any) -> Found | None:
        found = self._product(node)
        if found is None:
            return None
        data, weight, product = found
        bias = None
        out = product
        for user in self.users(product):
            if user.op_type != "Add":
                continue
            other = [v for v in (self.c.const(i) for i in user.input if i != product) if v is not None]
            if len(other) == 1 and other[0].size == weight.shape[1] and other[0].ndim <= 2:
                bias, out = other[0].reshape(-1).astype(np.float32), user.output[0]
                break
        return Found(data, weight.astype(np.float32), bias, out)

    def _product(self, node: Any) -> tuple[str, np.ndarray, str] | None:
        """(input, [in, out] float weight, product tensor) of a MatMul-like node by a constant."""
        if node.op_type == "MatMul":
            weight = self.c.const(node.input[1])
            if weight is None or weight.ndim != 2 or weight.dtype != np.float32:
                return None
            return node.input[0], weight, node.output[0]
        if node.op_type == "MatMulInteger":
            return self.dynamic_int8(node)
        if node.op_type == "MatMulIntegerToFloat":
            return self._row_int8(node)
        return None

    def dynamic_int8(self, node: Any) -> tuple[str, np.ndarray, str] | None:
        """ORT ``quantize_dynamic``: DynamicQuantizeLinear(x) -> MatMulInteger(W8) -> Cast -> Mul by
        (x scale x the weight's scale)."""
        w8 = self.c.const(node.input[1])
        quantizer = self.producer.get(node.input[0])
        if w8 is None or w8.ndim != 2 or quantizer is None or quantizer.op_type != "DynamicQuantizeLinear":
            return None
        cast = next(iter(self.users(node.output[0])), None)
        mul = None if cast is None or cast.op_type != "Cast" else next(iter(self.users(cast.output[0])), None)
        if cast is None or mul is None or mul.op_type != "Mul":
            return None
        scales = [i for i in mul.input if i != cast.output[0]]
        scale_node = self.producer.get(scales[0]) if scales else None
        scale = None
        if scale_node is not None and scale_node.op_type == "Mul":
            scale = next((v for v in (self.c.const(i) for i in scale_node.input) if v is not None), None)
        if scale is None:
            return None
        zero = self.c.const(node.input[3]) if len(node.input) > 3 and node.input[3] else None
        offset = 0.0 if zero is None else zero.astype(np.float32)
        weight = (w8.astype(np.float32) - offset) * scale.astype(np.float32)
        return quantizer.input[0], np.asarray(weight, np.float32), mul.output[0]

    def _row_int8(self, node: Any) -> tuple[str, np.ndarray, str] | None:
        """Our per-row int8: uint8 rows (x / row scale, rounded, + 128) x int8 columns x column
        scales, then a Mul by the row scale."""
        w8 = self.c.const(node.input[1])
        column = self.c.const(node.input[3]) if len(node.input) > 3 else None
        if w8 is None or column is None or w8.ndim != 2:
            return None
        zero = self.c.const(node.input[5]) if len(node.input) > 5 and node.input[5] else None
        offset = 0.0 if zero is None else zero.astype(np.float32)
        weight = np.asarray((w8.astype(np.float32) - offset) * column.astype(np.float32), np.float32)
        data = self._quantized_source(node.input[0])
        users = self.users(node.output[0])
        product = users[0].output[0] if len(users) == 1 and users[0].op_type == "Mul" else node.output[0]
        return (data, weight, product) if data else None

    def _quantized_source(self, name: str) -> str | None:
        """The float tensor a row-quantized uint8 input was made from (Cast <- Add <- Round <- Div(x),
        or QuantizeLinear(x))."""
        for _ in range(DEPTH):
            node = self.producer.get(name)
            if node is None:
                return None
            if node.op_type in ("Div", "QuantizeLinear", "DynamicQuantizeLinear"):
                return str(node.input[0])
            if node.op_type not in ("Cast", "Add", "Round", "Clip"):
                return None
            name = node.input[0]
        return None

    # -- walking the data flow ------------------------------------------------------------------

    def reached_matmuls(self, start: str, through: frozenset[str]) -> list[tuple[Any, int]]:
        """The (MatMul of two activations, input index) pairs reached forward from ``start``
        through ``through`` ops."""
        found: list[tuple[Any, int]] = []
        seen = {start}
        frontier = [start]
        for _ in range(DEPTH):
            nxt = []
            for name in frontier:
                for user in self.users(name):
                    if user.op_type == "MatMul" and self.c.const(user.input[1]) is None:
                        found.extend((user, i) for i, x in enumerate(user.input) if x == name)
                    elif user.op_type in through:
                        for out in user.output:
                            if out not in seen:
                                seen.add(out)
                                nxt.append(out)
            frontier = nxt
        return found

    def reached_linear(self, start: str, through: frozenset[str]) -> Found | None:
        """The first linear layer reached forward from ``start`` through ``through`` ops."""
        seen = {start}
        frontier = [start]
        for _ in range(DEPTH):
            nxt = []
            for name in frontier:
                if self.alias(name) in self.by_data:
                    return self.by_data[self.alias(name)][0]
                for user in self.users(name):
                    if user.op_type in through:
                        for out in user.output:
                            if out not in seen:
                                seen.add(out)
                                nxt.append(out)
            frontier = nxt
        return None

    def source_linear(self, name: str, through: frozenset[str]) -> Found | None:
        """The linear layer whose output reaches ``name`` backward through ``through`` ops."""
        frontier = [name]
        for _ in range(DEPTH):
            nxt: list[str] = []
            for item in frontier:
                if item in self.by_out:
                    return self.by_out[item]
                node = self.producer.get(item)
                if node is not None and node.op_type in through:
                    nxt.extend(i for i in node.input if i and self.c.const(i) is None)
            frontier = nxt
        return None

    def residual_norm(self, out: str, residual: str) -> tuple[Norm, str] | None:
        """The layer norm of ``out + residual``: its parameters and output."""
        for user in self.users(out):
            if user.op_type == "Add" and {self.alias(i) for i in user.input} == {self.alias(out), self.alias(residual)}:
                return self.norm_at(user.output[0])
        return None

    def norm_at(self, x: str) -> tuple[Norm, str] | None:
        """A LayerNormalization of ``x``, or its decomposition: Sub(x, mean) -> Div by sqrt(var + eps)
        -> Mul(weight) -> Add(bias)."""
        for user in self.users(x):
            if user.op_type == "LayerNormalization" and len(user.input) >= 3:
                weight, bias = self.c.const(user.input[1]), self.c.const(user.input[2])
                eps = next((float(a.f) for a in user.attribute if a.name == "epsilon"), 1e-5)
                if weight is not None and bias is not None:
                    return Norm(weight.astype(np.float32), bias.astype(np.float32), eps), user.output[0]
        for sub in (u for u in self.users(x) if u.op_type == "Sub" and u.input[0] == x):
            for div in (u for u in self.users(sub.output[0]) if u.op_type == "Div" and u.input[0] == sub.output[0]):
                found = self._affine(div.output[0])
                epsilon = self._epsilon(div.input[1])
                if found is not None and epsilon is not None:
                    weight, bias, out = found
                    return Norm(weight, bias, epsilon), out
        return None

    def _affine(self, x: str) -> tuple[np.ndarray, np.ndarray, str] | None:
        mul = next((u for u in self.users(x) if u.op_type == "Mul"), None)
        weight = None if mul is None else next((self.c.const(i) for i in mul.input if i != x), None)
        if mul is None:
            return None
        add = next((u for u in self.users(mul.output[0]) if u.op_type == "Add"), None)
        bias = None if add is None else next((self.c.const(i) for i in add.input if i != mul.output[0]), None)
        if weight is None or bias is None or add is None or weight.ndim != 1 or bias.shape != weight.shape:
            return None
        return weight.astype(np.float32), bias.astype(np.float32), add.output[0]

    def _epsilon(self, std: str) -> float | None:
        node = self.producer.get(std)
        if node is not None and node.op_type == "Sqrt":
            add = self.producer.get(node.input[0])
            if add is not None and add.op_type == "Add":
                value = next((v for v in (self.c.const(i) for i in add.input) if v is not None and v.size == 1), None)
                return None if value is None else float(value.reshape(-1)[0])
        return None

    def gathered_table(self, node: Any) -> tuple[np.ndarray, str] | None:
        """A Gather of a constant 2-D table: the float table and the tensor holding its rows (fp32;
        int8 + DequantizeLinear; or int8 rows x gathered row scales)."""
        if node.op_type != "Gather" or next((a.i for a in node.attribute if a.name == "axis"), 0) != 0:
            return None
        table = self.c.const(node.input[0])
        if table is None or table.ndim != 2:
            return None
        if table.dtype == np.float32:
            return table, node.output[0]
        for user in self.users(node.output[0]):
            if user.op_type == "DequantizeLinear":
                scale = self.c.const(user.input[1])
                zero = self.c.const(user.input[2]) if len(user.input) > 2 and user.input[2] else None
                if scale is not None and scale.size == 1:
                    offset = 0.0 if zero is None else float(zero.reshape(-1)[0])
                    rows = (table.astype(np.float32) - offset) * float(scale.reshape(-1)[0])
                    return np.asarray(rows, np.float32), user.output[0]
            if user.op_type == "Cast":
                mul = next((u for u in self.users(user.output[0]) if u.op_type == "Mul"), None)
                other = None if mul is None else next((i for i in mul.input if i != user.output[0]), None)
                gather = self.producer.get(other) if other else None
                scales = None if gather is None or gather.op_type != "Gather" else self.c.const(gather.input[0])
                if mul is not None and scales is not None and scales.shape == (len(table), 1):
                    return np.asarray(table.astype(np.float32) * scales.astype(np.float32), np.float32), mul.output[0]
        return None


def scopes(consts: GraphConstants, model: Any) -> Iterator[Scope]:
    """A scope per graph: the outer graph, then each branch with the outer nodes as context."""
    outer = list(model.graph.node)
    yield Scope(consts, outer, [o.name for o in model.graph.output])
    for graph in list(all_graphs(model.graph))[1:]:
        context = [n for n in outer if n.op_type not in ("If", "Loop", "Scan")]
        yield Scope(consts, context + list(graph.node), [o.name for o in graph.output])
