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

from typing import Any

import numpy as np

from ...base.errors import DesktopMTError
from .graph_scope import BETWEEN, DEPTH, PASS, Found, Scope, scopes
from .onnx_graph import GraphConstants
from .spec import Attention, ConversionRefused, DecoderLayer, Dims, FeedForward, Linear, MarianDecoderWeights, Norm

__all__ = [
    "find_decoder_weights",
    "find_step_weights",
]


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

    def attention(self, h: str, name: str, cross: bool) -> tuple[Attention, str | None]:
        """The attention whose query reads ``h``: its q, k, v, out projections and norm, and its output."""
        s = self.s
        q, scores = self.query(h)
        k = v = out = None
        if scores is not None:
            k = s.source_linear(scores.input[1], PASS)
            context = next((m for m, i in s.reached_matmuls(scores.output[0], BETWEEN) if i == 0), None)
            if context is not None:
                v = s.source_linear(context.input[1], PASS)
                out = s.reached_linear(context.output[0], PASS)
        if k is not None and v is not None and (s.alias(k.data) == s.alias(h)) == cross:
            k = v = None  # a self attention's k and v read h; a cross attention's the encoder's states
        return self.found_attention(h, name, (q, k, v, out))

    def query(self, h: str, others: tuple[Found | None, ...] = ()) -> tuple[Found | None, Any]:
        """The ``[d, d]`` projection of ``h`` (not one of ``others``) that reaches an attention
        ``MatMul`` as its left operand, and that MatMul (the scores)."""
        s, d = self.s, self.dims.d_model
        for lin in s.by_data.get(s.alias(h), []):
            hits = [m for m, i in s.reached_matmuls(lin.out, PASS) if i == 0]
            if lin.weight.shape == (d, d) and hits and not any(lin is other for other in others):
                return lin, hits[0]
        return None, None

    def found_attention(
        self, h: str, name: str, parts: tuple[Found | None, Found | None, Found | None, Found | None]
    ) -> tuple[Attention, str | None]:
        """The q, k, v, out projections found (or noted missing), the layer norm after the residual
        with ``h``, and its output."""
        d = self.dims.d_model
        q, k, v, out = (
            self.linear(lin, f"{name}.{part}", d, d)
            for lin, part in zip(parts, ("q_proj", "k_proj", "v_proj", "out_proj"))
        )
        norm, after = self.norm(parts[3], h, name.replace("_attn", "_attn_layer_norm"))
        return Attention(q, k, v, out, norm), after

    def norm(self, out: Found | None, residual: str, name: str) -> tuple[Norm, str | None]:
        found = self.s.residual_norm(out.out, residual) if out is not None else None
        if found is None:
            self.missing.append(name)
            return Norm(np.ones(self.dims.d_model, np.float32), np.zeros(self.dims.d_model, np.float32), 1e-5), None
        return found

    def layer(self, i: int, h: str) -> tuple[DecoderLayer, str | None]:
        self_attn, h1 = self.attention(h, f"layers.{i}.self_attn", cross=False)
        if h1 is None:
            return self._rest(i, "encoder_attn"), None
        cross_attn, h2 = self.attention(h1, f"layers.{i}.encoder_attn", cross=True)
        if h2 is None:
            return self._rest(i, "fc1"), None
        ffn, h3 = self.feed_forward(i, h2)
        return DecoderLayer(self_attn, cross_attn, ffn), h3

    def feed_forward(self, i: int, h: str) -> tuple[FeedForward, str | None]:
        """fc1 ([d, ffn]) reading ``h``, fc2 ([ffn, d]) after the activation, the norm and its output."""
        d, f = self.dims.d_model, self.dims.ffn
        fc1_found = next((x for x in self.s.by_data.get(self.s.alias(h), []) if x.weight.shape == (d, f)), None)
        fc2_found = self.s.reached_linear(fc1_found.out, BETWEEN) if fc1_found is not None else None
        fc1 = self.linear(fc1_found, f"layers.{i}.fc1", d, f)
        fc2 = self.linear(fc2_found, f"layers.{i}.fc2", f, d)
        norm, after = self.norm(fc2_found, h, f"layers.{i}.final_layer_norm")
        return FeedForward(fc1, fc2, norm), after

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


class _StepSearch(_Search):
    """The walk over our own step layout (:mod:`.graphs`, and ``export_tools``' traced graphs
    before it): the self attention reads the caller's buffer, so its key and value projections
    are those whose heads are the graph's outputs ``new.{i}.decoder.*``; the cross attention's are
    in the ``cross_kv`` graph, whose outputs ``present.{i}.encoder.*`` are their heads."""

    def __init__(self, scope: Scope, dims: Dims, cross_kv: Scope):
        super().__init__(scope, dims)
        self.kv = cross_kv

    def attention(self, h: str, name: str, cross: bool) -> tuple[Attention, str | None]:
        s, i = self.s, int(name.split(".")[1])
        keys, prefix = (self.kv, f"present.{i}.encoder") if cross else (s, f"new.{i}.decoder")
        k, v = (keys.source_linear(f"{prefix}.{kind}", PASS) for kind in ("key", "value"))
        q, scores = self.query(h, (k, v))
        out = None
        if cross and scores is not None:
            context = next((m for m, j in s.reached_matmuls(scores.output[0], BETWEEN) if j == 0), None)
            out = s.reached_linear(context.output[0], PASS) if context is not None else None
        elif not cross and v is not None:  # the new position's value, weighted, joins the buffer's context
            out = s.reached_linear(v.out, PASS | BETWEEN)
        return self.found_attention(h, name, (q, k, v, out))


class _Stop(DesktopMTError):
    """The walk cannot go on (a part it follows was not found)."""


def _search(
    scope: Scope, dims: Dims, walk: _Search | None = None
) -> tuple[MarianDecoderWeights | None, list[str], int]:
    """The weights found in ``scope`` (by ``walk``), the parts not found, and how far the walk got."""
    walk = walk or _Search(scope, dims)
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
        weights, missing, progress = _search(scope, dims)
        if weights is not None:
            return weights
        if progress > best[0]:
            best = (progress, missing)
    raise _refused("the decoder graph does", best[1] or ["any linear layer"])


def find_step_weights(step: GraphConstants, cross_kv: GraphConstants, dims: Dims) -> MarianDecoderWeights:
    """Every decoder weight of a model in the step layout (its fp32 ``decoder_step`` and
    ``cross_kv`` graphs) by structure; ConversionRefused naming the parts not found."""
    scope, kv = (Scope(g, list(g.model.graph.node), [o.name for o in g.model.graph.output]) for g in (step, cross_kv))
    weights, missing, _ = _search(scope, dims, _StepSearch(scope, dims, kv))
    if weights is None:
        raise _refused("the step graphs do", missing)
    return weights


def _refused(subject: str, missing: list[str]) -> ConversionRefused:
    shown = ", ".join(missing[:8]) + (", ..." if len(missing) > 8 else "")
    return ConversionRefused(f"{subject} not have the expected Marian structure (not found: {shown})")
