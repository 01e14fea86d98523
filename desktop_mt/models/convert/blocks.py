"""The blocks of a post-norm Marian as ONNX nodes: the one definition of its maths.

The encoder, the cross-K/V graph and the decoder step (``graphs``) are assembled from these, for a
downloaded model, a checkpoint and ``export_tools``' own step export alike. The maths is
transformers' eager attention (``MarianAttention``): ``softmax(q k^T * head_dim^-0.5 + mask) v``
with ``float32.min`` as the mask value, then the out projection, the residual and a layer norm;
the feed-forward block is ``fc2(act(fc1(x)))``, the residual and a layer norm. So the graphs give
``generate()``'s tokens (tests/engine/test_parity.py, tests/models/test_checkpoint.py).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .builder import FLOOR, GraphBuilder
from .spec import Attention, Dims, FeedForward, Linear, Norm

__all__ = [
    "Shapes",
    "embed",
    "padding_mask",
    "split_heads",
    "self_attention",
    "cross_attention",
    "Buffer",
    "buffered_self_attention",
    "feed_forward",
    "output_layer",
]

_HEADS_FIRST = (0, 2, 1, 3)  # [batch, len, heads, head_dim] <-> [batch, heads, len, head_dim]


@dataclasses.dataclass(frozen=True)
class Shapes:
    """The constants every layer of one graph reads: the attention scale and the reshape targets."""

    scaling: str  # head_dim ** -0.5
    heads: str  # [batch, len, d] -> [batch, len, heads, head_dim]
    flat: str  # and back

    @classmethod
    def of(cls, b: GraphBuilder, dims: Dims) -> Shapes:
        return cls(
            b.const(np.float32(dims.head_dim**-0.5)),
            b.const(np.array([0, -1, dims.heads, dims.head_dim], np.int64)),
            b.const(np.array([0, -1, dims.d_model], np.int64)),
        )

    def per_item(self, b: GraphBuilder, dims: Dims, mask: str) -> Shapes:
        """The reshapes of a cross attention: rows grouped by the items of ``mask`` ``[items, src]``."""
        items = b.op("Shape", [mask], start=0, end=1)
        by_item = b.op("Concat", [items, b.const(np.array([-1, dims.heads, dims.head_dim], np.int64))], axis=0)
        return Shapes(self.scaling, by_item, b.const(np.array([-1, 1, dims.d_model], np.int64)))


def embed(b: GraphBuilder, tokens: np.ndarray, ids: str, scale: float, positions: np.ndarray, at: str) -> str:
    """``tokens[ids] * scale + positions[at]``: the scaled token embedding plus the sinusoids."""
    x = b.op("Mul", [b.gather_rows(tokens, ids, "embed_tokens"), b.const(np.float32(scale))])
    return b.op("Add", [x, b.gather_rows(positions, at, "embed_positions")])


def padding_mask(b: GraphBuilder, mask: str) -> str:
    """An int64 ``[batch, len]`` attention mask as ``[batch, 1, 1, len]`` additive scores (0 or FLOOR)."""
    padding = b.op("Sub", [b.const(np.float32(1.0)), b.op("Cast", [mask], to=b.onnx.TensorProto.FLOAT)])
    return b.op(
        "Mul", [b.op("Reshape", [padding, b.const(np.array([0, 1, 1, -1], np.int64))]), b.const(np.float32(FLOOR))]
    )


def split_heads(
    b: GraphBuilder, x: str, lin: Linear, name: str, shape: str, perm: tuple[int, ...] = _HEADS_FIRST, out: str = ""
) -> str:
    """A projection of ``x`` split into heads: ``[batch, heads, len, head_dim]`` (or ``perm``'s order)."""
    return b.op("Transpose", [b.op("Reshape", [b.linear(x, lin, name), shape])], perm=list(perm), out=out or None)


def _scores(b: GraphBuilder, q: str, keys_t: str, mask: str, scaling: str) -> str:
    """``q keys_t * scaling + mask``, per head: the attention's logits."""
    return b.op("Add", [b.op("Mul", [b.op("MatMul", [q, keys_t]), scaling]), mask])


def _attend(b: GraphBuilder, q: str, keys_t: str, values: str, mask: str, scaling: str) -> str:
    """``softmax(q keys_t * scaling + mask) values``, per head."""
    return b.op("MatMul", [b.op("Softmax", [_scores(b, q, keys_t, mask, scaling)], axis=-1), values])


def _merge_heads(b: GraphBuilder, context: str, shape: str) -> str:
    """``[batch, heads, len, head_dim]`` back to ``[batch, len, d]`` (``shape``)."""
    return b.op("Reshape", [b.op("Transpose", [context], perm=list(_HEADS_FIRST)), shape])


def _residual_norm(b: GraphBuilder, x: str, update: str, norm: Norm, name: str) -> str:
    """Post-norm: ``layer_norm(x + update)``."""
    return b.layer_norm(b.op("Add", [x, update]), norm, name)


def _attention_output(b: GraphBuilder, x: str, context: str, attn: Attention, name: str) -> str:
    """The out projection of the merged heads, the residual and the layer norm."""
    return _residual_norm(b, x, b.linear(context, attn.out, f"{name}.out_proj"), attn.norm, f"{name}_layer_norm")


def self_attention(b: GraphBuilder, x: str, attn: Attention, name: str, mask: str, shapes: Shapes) -> str:
    """The encoder's attention of every position over every position of ``x`` (padding masked)."""
    q = split_heads(b, x, attn.q, f"{name}.q_proj", shapes.heads)
    keys_t = split_heads(b, x, attn.k, f"{name}.k_proj", shapes.heads, perm=(0, 2, 3, 1))
    values = split_heads(b, x, attn.v, f"{name}.v_proj", shapes.heads)
    context = _attend(b, q, keys_t, values, mask, shapes.scaling)
    return _attention_output(b, x, _merge_heads(b, context, shapes.flat), attn, name)


def cross_attention(
    b: GraphBuilder, x: str, attn: Attention, name: str, keys: str, values: str, mask: str, shapes: Shapes
) -> str:
    """The decoder's attention over the encoder's states, whose keys and values ``[items, heads,
    src, head_dim]`` were computed once per input (``cross_kv``). ``x`` is ``[rows, 1, d]`` with an
    input's beams on consecutive rows: they are the query positions of one attention over its
    source, so ``shapes`` reshape by items (:meth:`Shapes.per_item`)."""
    q = split_heads(b, x, attn.q, f"{name}.q_proj", shapes.heads)
    keys_t = b.op("Transpose", [keys], perm=[0, 1, 3, 2])
    context = _attend(b, q, keys_t, values, mask, shapes.scaling)
    return _attention_output(b, x, _merge_heads(b, context, shapes.flat), attn, name)


@dataclasses.dataclass(frozen=True)
class Buffer:
    """One decoder layer's self-attention cache in the step graph: the caller's buffers
    ``[rows, heads, capacity, head_dim]`` (inputs), the new position's keys and values (outputs),
    the mask that hides the buffer past ``past_length`` and the capacity."""

    keys: str
    values: str
    new_keys: str
    new_values: str
    mask: str
    capacity: str


def buffered_self_attention(b: GraphBuilder, x: str, attn: Attention, name: str, buffer: Buffer, shapes: Shapes) -> str:
    """The decoder step's self attention over the buffer (masked past ``past_length``) and the new
    position, as two score blocks joined before one softmax, so nothing is concatenated but scores.
    The new position's score is one dot product per row and head: elementwise, not a batch of 1x1
    matrix products (each of which would cost a GEMM call)."""
    q = split_heads(b, x, attn.q, f"{name}.q_proj", shapes.heads)
    new_keys = split_heads(b, x, attn.k, f"{name}.k_proj", shapes.heads, out=buffer.new_keys)
    new_values = split_heads(b, x, attn.v, f"{name}.v_proj", shapes.heads, out=buffer.new_values)
    past = _scores(b, q, b.op("Transpose", [buffer.keys], perm=[0, 1, 3, 2]), buffer.mask, shapes.scaling)
    new = b.op("Mul", [b.op("ReduceSum", [b.op("Mul", [q, new_keys]), "c_axes_last"], keepdims=1), shapes.scaling])
    probs = b.op("Softmax", [b.op("Concat", [past, new], axis=-1)], axis=-1)
    zero, minus_one = b.const(np.array([0], np.int64)), b.const(np.array([-1], np.int64))  # -1: last axis / position
    to_capacity = b.op("Unsqueeze", [buffer.capacity, zero])
    past_probs = b.op("Slice", [probs, zero, to_capacity, minus_one])
    new_prob = b.op("Slice", [probs, minus_one, b.const(np.array([np.iinfo(np.int64).max], np.int64)), minus_one])
    context = b.op("Add", [b.op("MatMul", [past_probs, buffer.values]), b.op("Mul", [new_prob, new_values])])
    return _attention_output(b, x, _merge_heads(b, context, shapes.flat), attn, name)


def feed_forward(b: GraphBuilder, x: str, ffn: FeedForward, activation: str, prefix: str) -> str:
    """``layer_norm(x + fc2(act(fc1(x))))``."""
    hidden = _activate(b, b.linear(x, ffn.fc1, f"{prefix}.fc1"), activation)
    return _residual_norm(b, x, b.linear(hidden, ffn.fc2, f"{prefix}.fc2"), ffn.norm, f"{prefix}.final_layer_norm")


def output_layer(b: GraphBuilder, x: str, lm_head: np.ndarray, bias: np.ndarray, int8: bool | None = None) -> str:
    """The logits, ``x @ lm_head + final_logits_bias`` (``int8`` overrides the graph's choice)."""
    return b.linear(x, Linear(lm_head, bias), "lm_head", int8=int8)


def _activate(b: GraphBuilder, x: str, name: str) -> str:
    """transformers' ACT2FN[name] for the activations Marian configs use."""
    if name in ("swish", "silu"):
        return b.op("Mul", [x, b.op("Sigmoid", [x])])
    if name == "relu":
        return b.op("Relu", [x])
    # transformers' "gelu" is the exact erf form
    inner = b.op("Erf", [b.op("Div", [x, b.const(np.float32(math.sqrt(2.0)))])])
    return b.op("Mul", [b.op("Mul", [x, b.op("Add", [inner, b.const(np.float32(1.0))])]), b.const(np.float32(0.5))])
