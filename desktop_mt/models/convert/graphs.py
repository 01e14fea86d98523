"""The three graphs of the step layout (``engine.runtime.StepDecoder``), assembled from ``blocks``.

- ``encoder``: ``input_ids``, ``attention_mask`` -> ``last_hidden_state``;
- ``cross_kv``: ``encoder_hidden_states`` -> ``present.{i}.encoder.{key,value}`` ``[items, heads,
  src, head_dim]``, once per input;
- ``decoder_step``: ``input_ids`` ``[rows, 1]``, ``encoder_attention_mask``, ``past_length`` and
  per layer the caller's self-attention buffers ``past_key_values.{i}.decoder.*`` ``[rows, heads,
  capacity, head_dim]`` and the cross K/V ``past_key_values.{i}.encoder.*`` -> ``logits`` and the
  new position's ``new.{i}.decoder.{key,value}`` ``[rows, heads, 1, head_dim]``, which the caller
  writes into its buffer at ``past_length``. The first step is the same graph with
  ``past_length`` 0; an input's beams are consecutive rows.

Every weight is in exactly one graph, so it is loaded once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import blocks
from .builder import FLOOR, OPSET, GraphBuilder, value_info
from .spec import Dims, MarianDecoderWeights, MarianEncoderWeights

if TYPE_CHECKING:
    import onnx

__all__ = [
    "build_encoder",
    "build_cross_kv",
    "build_decoder_step",
]


def build_encoder(weights: MarianEncoderWeights, dims: Dims, int8: bool, opset: int = OPSET) -> onnx.ModelProto:
    """input_ids, attention_mask -> last_hidden_state: the post-norm Marian encoder."""
    b = GraphBuilder(int8, opset)
    tp = b.onnx.TensorProto
    length = b.op("Gather", [b.op("Shape", ["input_ids"]), b.const(np.int64(1))])
    positions = b.op("Range", [b.const(np.int64(0)), length, b.const(np.int64(1))])
    x = blocks.embed(b, weights.embed_tokens, "input_ids", dims.embed_scale, weights.embed_positions, positions)
    mask = blocks.padding_mask(b, "attention_mask")
    shapes = blocks.Shapes.of(b, dims)
    for i, layer in enumerate(weights.layers):
        x = blocks.self_attention(b, x, layer.self_attn, f"layers.{i}.self_attn", mask, shapes)
        x = blocks.feed_forward(b, x, layer.ffn, dims.activation, f"layers.{i}")
    b.op("Identity", [x], out="last_hidden_state")
    ids = ["batch_size", "sequence_length"]
    return b.model(
        "encoder",
        [value_info("input_ids", tp.INT64, ids), value_info("attention_mask", tp.INT64, ids)],
        [value_info("last_hidden_state", tp.FLOAT, [*ids, dims.d_model])],
    )


def build_cross_kv(weights: MarianDecoderWeights, dims: Dims, int8: bool, opset: int = OPSET) -> onnx.ModelProto:
    """Encoder hidden states -> every layer's cross-attention keys and values ``[batch, heads, src, head_dim]``."""
    b = GraphBuilder(int8, opset)
    float_t = b.onnx.TensorProto.FLOAT
    split = b.const(np.array([0, 0, dims.heads, dims.head_dim], np.int64))
    outputs = []
    for i, layer in enumerate(weights.layers):
        for kind, lin in (("key", layer.cross_attn.k), ("value", layer.cross_attn.v)):
            name = f"present.{i}.encoder.{kind}"
            blocks.split_heads(b, "encoder_hidden_states", lin, f"layers.{i}.encoder_attn.{kind}", split, out=name)
            outputs.append(
                value_info(name, float_t, ["batch_size", dims.heads, "encoder_sequence_length", dims.head_dim])
            )
    return b.model(
        "cross_kv",
        [value_info("encoder_hidden_states", float_t, ["batch_size", "encoder_sequence_length", dims.d_model])],
        outputs,
    )


def build_decoder_step(
    weights: MarianDecoderWeights,
    dims: Dims,
    int8: bool,
    fused_rows: bool = False,
    tail: bool = False,
    fp32_head: bool = False,
    opset: int = OPSET,
) -> onnx.ModelProto:
    """One decoder step over a caller-owned self-attention buffer (the module docstring).

    Two benchmark levers (``benchmarks/beam_levers.py``, issue 32; neither is installed): ``tail``:
    the graph also takes ``top_k`` (int64 [1]) and returns ``top_values`` / ``top_ids`` [rows,
    top_k], each row's TopK of its log-softmax (``runtime.row_top``'s two nodes, behind an ``If``
    so that ``top_k`` 0 computes nothing more): the same candidates, but 0.88x the speed of the
    step + ``row_top`` at 128 rows; ``fp32_head``: the lm_head stays fp32 in an int8 graph
    (0.61-0.63x, and not the same candidates)."""
    b = GraphBuilder(int8, opset, fused_rows=fused_rows)
    inputs, outputs = _step_inputs(b, dims), [value_info("logits", b.onnx.TensorProto.FLOAT, ["rows", 1, dims.vocab])]
    x = blocks.embed(b, weights.embed_tokens, "input_ids", dims.embed_scale, weights.embed_positions, "past_length")
    self_mask, capacity = _buffer_mask(b)
    cross_mask = blocks.padding_mask(b, "encoder_attention_mask")  # per input: the rows are its beams
    shapes = blocks.Shapes.of(b, dims)
    by_item = shapes.per_item(b, dims, "encoder_attention_mask")
    for i, layer in enumerate(weights.layers):
        buffer = _buffer(i, self_mask, capacity)
        x = blocks.buffered_self_attention(b, x, layer.self_attn, f"layers.{i}.self_attn", buffer, shapes)
        outputs += [_new_position(b, dims, buffer.new_keys), _new_position(b, dims, buffer.new_values)]
        keys, values = f"past_key_values.{i}.encoder.key", f"past_key_values.{i}.encoder.value"
        x = blocks.cross_attention(
            b, x, layer.cross_attn, f"layers.{i}.encoder_attn", keys, values, cross_mask, by_item
        )
        x = blocks.feed_forward(b, x, layer.ffn, dims.activation, f"layers.{i}")
    head_int8 = int8 and not fp32_head  # fp32_head: a benchmark lever
    logits = blocks.output_layer(b, x, weights.lm_head, weights.final_logits_bias, int8=head_int8)
    b.op("Identity", [logits], out="logits")
    if tail:
        _top_tail(b, logits, inputs, outputs)
    return b.model("decoder_step", inputs, outputs)


def _step_inputs(b: GraphBuilder, dims: Dims) -> list[Any]:
    tp = b.onnx.TensorProto
    h, hd = dims.heads, dims.head_dim
    inputs = [
        value_info("input_ids", tp.INT64, ["rows", 1]),
        value_info("encoder_attention_mask", tp.INT64, ["batch_size", "encoder_sequence_length"]),
        value_info("past_length", tp.INT64, []),
    ]
    for i in range(dims.layers):
        for kv in ("key", "value"):
            inputs.append(value_info(f"past_key_values.{i}.decoder.{kv}", tp.FLOAT, ["rows", h, "buffer_capacity", hd]))
        for kv in ("key", "value"):
            shape = ["batch_size", h, "encoder_sequence_length", hd]
            inputs.append(value_info(f"past_key_values.{i}.encoder.{kv}", tp.FLOAT, shape))
    return inputs


def _buffer_mask(b: GraphBuilder) -> tuple[str, str]:
    """The buffer past ``past_length`` holds nothing yet: masked (``[1, 1, 1, capacity]``); and the capacity."""
    capacity = b.op("Gather", [b.op("Shape", ["past_key_values.0.decoder.key"]), b.const(np.int64(2))])
    positions = b.op("Range", [b.const(np.int64(0)), capacity, b.const(np.int64(1))])
    held = b.op("Less", [positions, "past_length"])
    scores = b.op("Where", [held, b.const(np.float32(0.0)), b.const(np.float32(FLOOR))])
    return b.op("Reshape", [scores, b.const(np.array([1, 1, 1, -1], np.int64))]), capacity


def _buffer(i: int, mask: str, capacity: str) -> blocks.Buffer:
    past, new = f"past_key_values.{i}.decoder", f"new.{i}.decoder"
    return blocks.Buffer(f"{past}.key", f"{past}.value", f"{new}.key", f"{new}.value", mask, capacity)


def _new_position(b: GraphBuilder, dims: Dims, name: str) -> Any:
    return value_info(name, b.onnx.TensorProto.FLOAT, ["rows", dims.heads, 1, dims.head_dim])


def _top_tail(b: GraphBuilder, logits: str, inputs: list[Any], outputs: list[Any]) -> None:
    """``top_values``, ``top_ids`` = TopK(LogSoftmax(logits[:, -1]), top_k) when top_k > 0."""
    helper, tp = b.onnx.helper, b.onnx.TensorProto
    inputs.append(value_info("top_k", tp.INT64, [1]))
    wanted = b.op("Greater", ["top_k", b.const(np.array([0], np.int64))])
    rows_vocab = b.op("Reshape", [logits, b.const(np.array([0, -1], np.int64))])
    then = helper.make_graph(
        [
            helper.make_node("LogSoftmax", [rows_vocab], ["tail_lsm"], axis=-1),
            helper.make_node("TopK", ["tail_lsm", "top_k"], ["tail_values", "tail_ids"], axis=-1, largest=1, sorted=1),
        ],
        "top",
        [],
        [value_info("tail_values", tp.FLOAT, ["rows", "n"]), value_info("tail_ids", tp.INT64, ["rows", "n"])],
    )
    empty = helper.make_graph(
        [
            helper.make_node("Constant", [], ["no_values"], value=helper.make_tensor("e_v", tp.FLOAT, [0, 0], [])),
            helper.make_node("Constant", [], ["no_ids"], value=helper.make_tensor("e_i", tp.INT64, [0, 0], [])),
        ],
        "none",
        [],
        [value_info("no_values", tp.FLOAT, [0, 0]), value_info("no_ids", tp.INT64, [0, 0])],
    )
    b.nodes.append(
        helper.make_node("If", [wanted], ["top_values", "top_ids"], then_branch=then, else_branch=empty, name="tail")
    )
    outputs += [value_info("top_values", tp.FLOAT, ["rows", "n"]), value_info("top_ids", tp.INT64, ["rows", "n"])]
