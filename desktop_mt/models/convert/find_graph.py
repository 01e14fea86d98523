"""Every Marian decoder weight found by the graph's structure, not its names (issue 44).

Exporters name things differently (the torch exporter's ``/model/decoder/layers.3/fc1/MatMul``,
Optimum 2.x's ``node_MatMul_45`` and ``val_12``, transformers.js's tied
``model.shared.weight_merged_0``), so the search follows the data flow of the post-norm Marian
decoder instead:

- the token embedding is the ``[vocab, d]`` table gathered by ``input_ids``; an optional scalar
  ``Mul`` (the embedding scale) follows; the positions are the ``[max, d]`` table gathered for
  the ``Add`` that makes the first hidden state ``h``;
- a layer starts with the three ``[d, d]`` linear layers reading ``h``: the query is the one that
  reaches an attention ``MatMul`` as its left operand, the key its right operand, the value the
  right operand of the ``MatMul`` after the softmax; the output projection reads that product;
  the residual ``Add`` with ``h`` feeds a layer norm (one node, or its decomposition);
- the cross attention is the same with the key and value reading the encoder's states, then the
  feed-forward block (``[d, ffn]`` then ``[ffn, d]``);
- the lm_head is found by walking back from ``logits`` (through the bias ``Add``, which gives
  ``final_logits_bias``) to the linear layer that reads the last hidden state.

A "linear layer" is a ``MatMul`` by a constant (fp32, possibly a ``Transpose`` of a tied table), an
ORT dynamic int8 ``MatMulInteger`` or our per-row ``MatMulIntegerToFloat``, the last two
dequantized. A merged decoder is searched branch by branch (the branch without a cache holds the
cross-attention projections). Names are never needed; a refusal names the parts not found.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from .marian_weights import (
    ConversionRefused,
    DecoderLayer,
    Dims,
    GraphConstants,
    Linear,
    MarianDecoderWeights,
    Norm,
    all_graphs,
)

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


class _Search:
    """The walk over one scope; ``missing`` collects what was not found."""

    def __init__(self, scope: Scope, dims: Dims):
        self.s = scope
        self.dims = dims
        self.missing: list[str] = []

    def linear(self, found: Found | None, what: str, n_in: int, n_out: int) -> Linear:
        if found is None or found.weight.shape != (n_in, n_out):
            self.missing.append(what)
            return Linear(np.zeros((n_in, n_out), np.float32), np.zeros(n_out, np.float32))
        bias = found.bias if found.bias is not None else np.zeros(n_out, np.float32)
        return Linear(found.weight, bias)

    def embeddings(self) -> tuple[np.ndarray | None, np.ndarray | None, str | None]:
        """The token table, the positions table and the first hidden state."""
        d, s = self.dims.d_model, self.s
        token = None
        for node in s.nodes:
            found = s.gathered_table(node) if node.op_type == "Gather" and self._from_ids(node.input[1]) else None
            if found is not None and found[0].shape == (self.dims.vocab, d):
                token = found
                break
        if token is None:
            return None, None, None
        table, x = token
        scale_mul = next((u for u in s.users(x) if u.op_type == "Mul"), None)
        if scale_mul is not None:
            value = next((v for v in (s.c.const(i) for i in scale_mul.input if i != x) if v is not None), None)
            if value is None or value.size != 1 or not np.isclose(float(value.reshape(-1)[0]), self.dims.embed_scale):
                self.missing.append("decoder.embed_scale (config.json's scale_embedding)")
            x = scale_mul.output[0]
        elif self.dims.embed_scale != 1.0:
            self.missing.append("decoder.embed_scale (config.json's scale_embedding)")
        for add in (u for u in s.users(x) if u.op_type == "Add"):
            other = next(i for i in add.input if i != x) if len(set(add.input)) == 2 else None
            positions = self._positions(other) if other else None
            if positions is not None:
                return table, positions, add.output[0]
        return table, None, None

    def _from_ids(self, name: str) -> bool:
        for _ in range(DEPTH):
            if name == "input_ids":
                return True
            node = self.s.producer.get(name)
            if node is None or node.op_type not in ("Cast", "Identity", "Reshape", "Unsqueeze", "Squeeze", "Flatten"):
                return False
            name = node.input[0]
        return False

    def _positions(self, name: str) -> np.ndarray | None:
        frontier = [name]
        for _ in range(DEPTH):
            nxt = []
            for item in frontier:
                node = self.s.producer.get(item)
                if node is None:
                    continue
                if node.op_type == "Gather":
                    found = self.s.gathered_table(node)
                    if found is not None and found[0].shape[1] == self.dims.d_model:
                        return found[0]
                if node.op_type in PASS | {"Gather", "Slice", "DequantizeLinear"}:
                    nxt.append(node.input[0])
            frontier = nxt
        return None

    def attention(self, h: str, name: str, cross: bool) -> tuple[list[Linear], Norm, str | None]:
        """q, k, v, out projections of the attention whose query reads ``h``, its norm and output."""
        s, d = self.s, self.dims.d_model
        q = scores = None
        for lin in s.by_data.get(s.alias(h), []):
            hits = [m for m, i in s.reached_matmuls(lin.out, PASS) if i == 0]
            if lin.weight.shape == (d, d) and hits:
                q, scores = lin, hits[0]
                break
        k = v = out = None
        if scores is not None:
            k = s.source_linear(scores.input[1], PASS)
            context = next((m for m, i in s.reached_matmuls(scores.output[0], BETWEEN) if i == 0), None)
            if context is not None:
                v = s.source_linear(context.input[1], PASS)
                out = s.reached_linear(context.output[0], PASS)
        if k is not None and v is not None and (s.alias(k.data) == s.alias(h)) == cross:
            k = v = None  # a self attention's k and v read h; a cross attention's the encoder's states
        linears = [
            self.linear(lin, f"{name}.{part}", d, d)
            for lin, part in ((q, "q_proj"), (k, "k_proj"), (v, "v_proj"), (out, "out_proj"))
        ]
        return linears, *self.norm(out, h, name.replace("_attn", "_attn_layer_norm"))

    def norm(self, out: Found | None, residual: str, name: str) -> tuple[Norm, str | None]:
        found = self.s.residual_norm(out.out, residual) if out is not None else None
        if found is None:
            self.missing.append(name)
            return Norm(np.ones(self.dims.d_model, np.float32), np.zeros(self.dims.d_model, np.float32), 1e-5), None
        return found

    def layer(self, i: int, h: str) -> tuple[DecoderLayer, str | None]:
        d, f = self.dims.d_model, self.dims.ffn
        (sq, sk, sv, so), self_norm, h1 = self.attention(h, f"layers.{i}.self_attn", cross=False)
        if h1 is None:
            return self._rest(i, "encoder_attn"), None
        (cq, ck, cv, co), cross_norm, h2 = self.attention(h1, f"layers.{i}.encoder_attn", cross=True)
        if h2 is None:
            return self._rest(i, "fc1"), None
        fc1_found = next((x for x in self.s.by_data.get(self.s.alias(h2), []) if x.weight.shape == (d, f)), None)
        fc2_found = self.s.reached_linear(fc1_found.out, BETWEEN) if fc1_found is not None else None
        fc1 = self.linear(fc1_found, f"layers.{i}.fc1", d, f)
        fc2 = self.linear(fc2_found, f"layers.{i}.fc2", f, d)
        final_norm, h3 = self.norm(fc2_found, h2, f"layers.{i}.final_layer_norm")
        return DecoderLayer(sq, sk, sv, so, self_norm, cq, ck, cv, co, cross_norm, fc1, fc2, final_norm), h3

    def _rest(self, i: int, first: str) -> DecoderLayer:
        self.missing.append(f"(layers.{i}.{first} and after: not searched)")
        raise _Stop

    def head(self, h: str | None) -> tuple[np.ndarray | None, np.ndarray]:
        """lm_head and final_logits_bias, walking back from ``logits``."""
        s, d, vocab = self.s, self.dims.d_model, self.dims.vocab
        name = "logits" if "logits" in s.outputs else (s.outputs[0] if s.outputs else "")
        name = s.alias(name)
        lin = s.by_out.get(name)
        if lin is None:  # the bias is not an Add right after the product: walk back one Add
            node = s.producer.get(name)
            if node is not None and node.op_type == "Add":
                lin = next((s.by_out[i] for i in node.input if i in s.by_out), None)
        if lin is None or lin.weight.shape != (d, vocab) or (h is not None and s.alias(lin.data) != s.alias(h)):
            self.missing.append("lm_head")
            return None, np.zeros(vocab, np.float32)
        return lin.weight, lin.bias if lin.bias is not None else np.zeros(vocab, np.float32)


class _Stop(Exception):
    """The walk cannot go on (a part it follows was not found)."""


def search(scope: Scope, dims: Dims) -> tuple[MarianDecoderWeights | None, list[str], int]:
    """The weights found in ``scope``, the parts not found, and how far the walk got."""
    walk = _Search(scope, dims)
    embed, positions, h = walk.embeddings()
    if embed is None:
        walk.missing.append("decoder.embed_tokens (a [vocab, d_model] table gathered by input_ids)")
    elif positions is None:
        walk.missing.append("decoder.embed_positions")
    layers: list[DecoderLayer] = []
    try:
        while h is not None and len(layers) < dims.layers:
            layer, h = walk.layer(len(layers), h)
            layers.append(layer)
    except _Stop:
        h = None
    if h is not None and len(layers) == dims.layers and not _ends(scope, h, dims):
        walk.missing.append(f"(the graph has more than the {dims.layers} decoder layers of config.json)")
    head, bias = walk.head(h)
    if walk.missing or embed is None or positions is None or head is None:
        return None, walk.missing, len(layers)
    return MarianDecoderWeights(embed, positions, tuple(layers), head, bias), [], len(layers)


def _ends(scope: Scope, h: str, dims: Dims) -> bool:
    """After the last layer of config.json, ``h`` goes to the lm_head (not to another layer)."""
    return not any(lin.weight.shape == (dims.d_model, dims.d_model) for lin in scope.by_data.get(scope.alias(h), []))


def find_decoder_weights(graph: GraphConstants, dims: Dims) -> MarianDecoderWeights:
    """Every decoder weight by graph structure; ConversionRefused naming the parts not found."""
    best: tuple[int, list[str]] = (-1, [])
    for scope in scopes(graph, graph.model):
        if not scope.linears:
            continue
        weights, missing, progress = search(scope, dims)
        if weights is not None:
            return weights
        if progress > best[0]:
            best = (progress, missing)
    missing = best[1] or ["any linear layer"]
    raise ConversionRefused(
        "the decoder graph does not have the expected Marian structure (not found: "
        + ", ".join(missing[:8])
        + (", ..." if len(missing) > 8 else "")
        + ")"
    )
