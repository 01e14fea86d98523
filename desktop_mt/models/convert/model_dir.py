"""A downloaded Marian on the fast path, without torch (issue 32).

A Marian model installed from the Hub (Optimum's split decoders or transformers.js's merged one,
fp32) is rebuilt in our decoder-step layout (``engine.runtime.StepDecoder``: cross K/V once per
input, a KV buffer we own, only the new position returned) with per-row int8 (a sentence's tokens
do not depend on its batch neighbours), using ``onnx`` and numpy only:

1. Every weight is found in the downloaded fp32 decoder by graph structure, not by name
   (``graph_search``: the table gathered by ``input_ids``, each projection by its place in the
   attention / FFN pattern, the lm_head walking back from ``logits``), so the exports of any
   exporter (torch's legacy one, Optimum 1.x and 2.x, transformers.js, ours) are read alike.
   Layer norms may be one ``LayerNormalization`` node or its decomposition (opset < 17). Shapes
   are checked against ``config.json``; anything missing or unexpected refuses the conversion
   (:class:`ConversionRefused`) with what was not found, and the model stays usable as downloaded.
2. The step graphs are written from those weights (the math of ``export_tools.step_graphs``,
   which is transformers' eager attention), the encoder is the downloaded fp32 encoder. The int8
   variant quantizes every linear layer per output column (7-bit weights) with activations
   quantized per row at run time, and the embedding tables per row, as
   ``export_tools.quantize.per_row_int8`` does for our own exports.
3. Before anything is kept, the converted graphs are checked against the downloaded fp32 model:
   the fp32 step graph's logits over a teacher-forced decode must agree with the downloaded
   decoder's (a wrongly wired graph differs by whole units), and the int8 variant's greedy tokens are
   compared and recorded. The new files enter the manifest with their sha256 and size, so they are
   verified like any other; the downloaded files stay on disk and in the manifest's ``download``
   record.

Only Marian (post-layer-norm, sinusoidal positions, ``final_logits_bias``) is converted; other
families keep their downloaded layout.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import generation
from ..engine import model_format as mf
from ..engine.tokenizer import SentencePieceTokenizer
from ..engine.translator import decode_params
from .graph_search import Scope, find_decoder_weights
from .marian_weights import (
    ConversionRefused,
    Dims,
    GraphConstants,
    Linear,
    MarianDecoderWeights,
    Norm,
    _onnx,
    all_graphs,
    read_dims,
)

if TYPE_CHECKING:
    import onnx

CONVERTED_DIR = "converted"  # inside the model folder
# The fp32 step variant (tests, ``fp32_step=True``) reads the downloaded fp32 encoder.
FP32_FILES = {"cross_kv": "cross_kv_model.onnx", "decoder_step": "decoder_step_model.onnx"}
INT8_FILES = {
    "encoder": "encoder_model_quantized.onnx",
    "cross_kv": "cross_kv_model_quantized.onnx",
    "decoder_step": "decoder_step_model_quantized.onnx",
}
WEIGHT_MAX = 63  # 7-bit weights: no int16 saturation on AVX2 CPUs (see export_tools.quantize)
OPSET = 17
FLOOR = float(np.finfo(np.float32).min)  # transformers' mask value
LOGIT_TOLERANCE = 1e-3  # fp32 step graph vs downloaded fp32 decoder, relative to the logits' scale
SAMPLES = ("I love you.", "Where is the train station?", "The weather is nice today, so we went for a walk.")


@dataclasses.dataclass(frozen=True)
class Conversion:
    """What :func:`convert_model_dir` did."""

    files: dict[str, dict[str, str]]  # variant -> role -> path relative to the model folder
    seconds: float
    validation: dict[str, Any]


# -- writing the step graphs ----------------------------------------------------------------


class GraphBuilder:
    """Nodes and initializers of one graph; ``linear`` is fp32 or per-row int8."""

    def __init__(self, int8: bool, opset: int = OPSET, fused_rows: bool = False):
        self.onnx = _onnx()
        self.int8 = int8
        self.opset = opset
        # fused_rows: inputs are [rows, 1, K] (the decoder step); quantize them with one
        # QuantizeLinear per axis 0 instead of Div, Round, Add, Cast (the same bytes, fewer ops).
        self.fused_rows = fused_rows
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._count = 0
        self._quantized_rows: dict[str, tuple[str, str]] = {}
        for name, value in (
            ("c_tiny", np.float32(1e-12)),
            ("c_127", np.float32(127.0)),
            ("c_128", np.float32(128.0)),
            ("c_one", np.float32(1.0)),
            ("c_zp", np.uint8(128)),
            ("c_axes_last", np.array([-1], np.int64)),
        ):
            self.const(value, name)

    def fresh(self, base: str) -> str:
        self._count += 1
        return f"{base}_{self._count}"

    def const(self, value: np.ndarray | np.generic, name: str | None = None) -> str:
        name = name or self.fresh("const")
        self.inits.append(self.onnx.numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], domain: str = "", **attrs: Any) -> str:
        out = self.fresh(op_type.lower())
        self.nodes.append(
            self.onnx.helper.make_node(op_type, inputs, [out], name=self.fresh(op_type), domain=domain or None, **attrs)
        )
        return out

    def linear(self, x: str, layer: Linear, name: str) -> str:
        if not self.int8:
            return self.op(
                "Add",
                [
                    self.op("MatMul", [x, self.const(layer.weight, f"{name}.weight")]),
                    self.const(layer.bias, f"{name}.bias"),
                ],
            )
        q, scale = self._fused_rows(x) if self.fused_rows else self._row_quantized(x)
        w8, w_scale = column_quantized(layer.weight)
        product = self.op(
            "MatMulIntegerToFloat",
            [q, self.const(w8, f"{name}.weight_int8"), "c_one", self.const(w_scale, f"{name}.weight_scale"), "c_zp"],
            domain="com.microsoft",
        )
        out = self.op("Add", [self.op("Mul", [product, scale]), self.const(layer.bias, f"{name}.bias")])
        return self.op("Unsqueeze", [out, "c_axis1"]) if self.fused_rows else out

    def _fused_rows(self, x: str) -> tuple[str, str]:
        """``x`` [rows, 1, K] as uint8 [rows, K] by one ``QuantizeLinear`` along axis 0 (zero point
        128, scale max|row| / 127: the bytes of :meth:`_row_quantized`) and the scale [rows, 1]."""
        if x not in self._quantized_rows:
            if "c_axis1" not in {i.name for i in self.inits}:
                self.const(np.array([1], np.int64), "c_axis1")
                self.const(np.array([0, -1], np.int64), "c_rows_k")
            flat = self.op("Reshape", [x, "c_rows_k"])
            reduced = self.op("ReduceMax", [self.op("Abs", [flat])], axes=[-1], keepdims=0)
            scale = self.op("Div", [self.op("Max", [reduced, "c_tiny"]), "c_127"])
            zero = self.op("Expand", ["c_zp", self.op("Shape", [scale])])
            q = self.op("QuantizeLinear", [flat, scale, zero], axis=0)
            self._quantized_rows[x] = (q, self.op("Unsqueeze", [scale, "c_axes_last"]))
        return self._quantized_rows[x]

    def _row_quantized(self, x: str) -> tuple[str, str]:
        """``x`` as uint8 (zero point 128) with one scale per row; shared by the layers that read ``x``."""
        if x not in self._quantized_rows:
            magnitude = self.op("Abs", [x])
            if self.opset >= 18:
                reduced = self.op("ReduceMax", [magnitude, "c_axes_last"], keepdims=1)
            else:
                reduced = self.op("ReduceMax", [magnitude], axes=[-1], keepdims=1)
            peak = self.op("Max", [reduced, "c_tiny"])
            scale = self.op("Div", [peak, "c_127"])
            shifted = self.op("Add", [self.op("Round", [self.op("Div", [x, scale])]), "c_128"])
            self._quantized_rows[x] = (self.op("Cast", [shifted], to=self.onnx.TensorProto.UINT8), scale)
        return self._quantized_rows[x]

    def gather_rows(self, table: np.ndarray, ids: str, name: str) -> str:
        """``table[ids]``: int8 rows with one scale each for int8, else the float table."""
        if not self.int8:
            return self.op("Gather", [self.const(table, name), ids])
        scale = np.abs(table).max(axis=1, keepdims=True) / 127.0
        scale[scale == 0] = 1.0
        q = _rounded_int8(table / scale, 127)
        rows = self.op(
            "Cast", [self.op("Gather", [self.const(q, f"{name}_int8"), ids])], to=self.onnx.TensorProto.FLOAT
        )
        return self.op("Mul", [rows, self.op("Gather", [self.const(scale.astype(np.float32), f"{name}_scale"), ids])])

    def layer_norm(self, x: str, norm: Norm, name: str) -> str:
        return self.op(
            "LayerNormalization",
            [x, self.const(norm.weight, f"{name}.weight"), self.const(norm.bias, f"{name}.bias")],
            axis=-1,
            epsilon=norm.epsilon,
        )

    def model(self, name: str, inputs: list[Any], outputs: list[Any]) -> onnx.ModelProto:
        helper = self.onnx.helper
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        opsets = [helper.make_opsetid("", OPSET)]
        if self.int8:
            opsets.append(helper.make_opsetid("com.microsoft", 1))
        model = helper.make_model(graph, opset_imports=opsets, producer_name="desktop-mt convert")
        model.ir_version = 8
        built: onnx.ModelProto = model
        return built


def column_quantized(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``weight`` [K, N] as int8 in [-WEIGHT_MAX, WEIGHT_MAX] with one float scale per output column."""
    scale = (np.abs(weight).max(axis=0) / float(WEIGHT_MAX)).astype(np.float32)
    scale[scale == 0] = 1.0
    return _rounded_int8(weight / scale, WEIGHT_MAX), scale


def _rounded_int8(scaled: np.ndarray, limit: int) -> np.ndarray:
    """``clip(rint(scaled))`` as int8, rounding and clipping in place: the lm_head and the token
    table of opus-mt are 133 MB each in float, and two more temporaries of that size were the
    conversion's peak."""
    np.rint(scaled, out=scaled)
    np.clip(scaled, -limit, limit, out=scaled)
    return scaled.astype(np.int8)


def _io(name: str, elem: int, shape: list[Any]) -> Any:
    return _onnx().helper.make_tensor_value_info(name, elem, shape)


def build_cross_kv(weights: MarianDecoderWeights, dims: Dims, int8: bool) -> onnx.ModelProto:
    """Encoder hidden states -> every layer's cross-attention keys and values ``[batch, heads, src, head_dim]``."""
    b = GraphBuilder(int8)
    float_t = b.onnx.TensorProto.FLOAT
    split = b.const(np.array([0, 0, dims.heads, dims.head_dim], np.int64))
    outputs = []
    for i, layer in enumerate(weights.layers):
        for kind, lin in (("key", layer.cross_k), ("value", layer.cross_v)):
            heads = b.op("Reshape", [b.linear("encoder_hidden_states", lin, f"layers.{i}.encoder_attn.{kind}"), split])
            name = f"present.{i}.encoder.{kind}"
            b.nodes.append(b.onnx.helper.make_node("Transpose", [heads], [name], perm=[0, 2, 1, 3]))
            outputs.append(_io(name, float_t, ["batch_size", dims.heads, "encoder_sequence_length", dims.head_dim]))
    return b.model(
        "cross_kv",
        [_io("encoder_hidden_states", float_t, ["batch_size", "encoder_sequence_length", dims.d_model])],
        outputs,
    )


def build_decoder_step(
    weights: MarianDecoderWeights,
    dims: Dims,
    int8: bool,
    fused_rows: bool = False,
    tail: bool = False,
    fp32_head: bool = False,
) -> onnx.ModelProto:
    """One decoder step over a caller-owned self-attention buffer (``export_tools.step_graphs``' math).

    Two benchmark levers (``benchmarks/beam_levers.py``, issue 32; neither is installed): ``tail``:
    the graph also takes ``top_k`` (int64 [1]) and returns ``top_values`` / ``top_ids`` [rows,
    top_k], each row's TopK of its log-softmax (``runtime.row_top``'s two nodes, behind an ``If``
    so that ``top_k`` 0 computes nothing more): the same candidates, but 0.88x the speed of the
    step + ``row_top`` at 128 rows; ``fp32_head``: the lm_head stays fp32 in an int8 graph
    (0.61-0.63x, and not the same candidates)."""
    b = GraphBuilder(int8, fused_rows=fused_rows)
    tp = b.onnx.TensorProto
    h, hd, d = dims.heads, dims.head_dim, dims.d_model
    scaling = b.const(np.float32(hd**-0.5))
    inputs = [
        _io("input_ids", tp.INT64, ["rows", 1]),
        _io("encoder_attention_mask", tp.INT64, ["batch_size", "encoder_sequence_length"]),
        _io("past_length", tp.INT64, []),
    ]
    for i in range(dims.layers):
        for kv in ("key", "value"):
            inputs.append(_io(f"past_key_values.{i}.decoder.{kv}", tp.FLOAT, ["rows", h, "buffer_capacity", hd]))
        for kv in ("key", "value"):
            inputs.append(
                _io(f"past_key_values.{i}.encoder.{kv}", tp.FLOAT, ["batch_size", h, "encoder_sequence_length", hd])
            )
    x = b.op(
        "Mul", [b.gather_rows(weights.embed_tokens, "input_ids", "embed_tokens"), b.const(np.float32(dims.embed_scale))]
    )
    # int8: the position table too, per row, as export_tools.quantize does (the same tokens as our exports)
    position = b.gather_rows(weights.embed_positions, "past_length", "embed_positions")
    x = b.op("Add", [x, position])  # [rows, 1, d] + [d]
    # The buffer past past_length holds nothing yet: masked. Cross mask per input (the rows are its beams).
    capacity = b.op("Gather", [b.op("Shape", ["past_key_values.0.decoder.key"]), b.const(np.int64(2))])
    positions = b.op("Range", [b.const(np.int64(0)), capacity, b.const(np.int64(1))])
    self_mask = b.op(
        "Reshape",
        [
            b.op(
                "Where",
                [b.op("Less", [positions, "past_length"]), b.const(np.float32(0.0)), b.const(np.float32(FLOOR))],
            ),
            b.const(np.array([1, 1, 1, -1], np.int64)),
        ],
    )
    enc_mask = b.op("Cast", ["encoder_attention_mask"], to=tp.FLOAT)
    cross_mask = b.op(
        "Mul",
        [
            b.op(
                "Reshape",
                [b.op("Sub", [b.const(np.float32(1.0)), enc_mask]), b.const(np.array([0, 1, 1, -1], np.int64))],
            ),
            b.const(np.float32(FLOOR)),
        ],
    )
    row_heads = b.const(np.array([0, 1, h, hd], np.int64))
    item_count = b.op("Shape", ["encoder_attention_mask"], start=0, end=1)
    flat = b.const(np.array([0, 1, d], np.int64))
    rows_flat = b.const(np.array([-1, 1, d], np.int64))
    outputs = [_io("logits", tp.FLOAT, ["rows", 1, dims.vocab])]
    for i, layer in enumerate(weights.layers):
        p = f"layers.{i}"
        k_buf, v_buf = f"past_key_values.{i}.decoder.key", f"past_key_values.{i}.decoder.value"
        k_cross, v_cross = f"past_key_values.{i}.encoder.key", f"past_key_values.{i}.encoder.value"
        # self attention over the buffer (masked past past_length) and the new position
        q = b.op(
            "Transpose",
            [b.op("Reshape", [b.linear(x, layer.self_q, f"{p}.self_attn.q_proj"), row_heads])],
            perm=[0, 2, 1, 3],
        )
        k_name, v_name = f"new.{i}.decoder.key", f"new.{i}.decoder.value"
        k_heads = b.op("Reshape", [b.linear(x, layer.self_k, f"{p}.self_attn.k_proj"), row_heads])
        v_heads = b.op("Reshape", [b.linear(x, layer.self_v, f"{p}.self_attn.v_proj"), row_heads])
        b.nodes.append(b.onnx.helper.make_node("Transpose", [k_heads], [k_name], perm=[0, 2, 1, 3]))
        b.nodes.append(b.onnx.helper.make_node("Transpose", [v_heads], [v_name], perm=[0, 2, 1, 3]))
        outputs += [_io(k_name, tp.FLOAT, ["rows", h, 1, hd]), _io(v_name, tp.FLOAT, ["rows", h, 1, hd])]
        past_scores = b.op(
            "Add",
            [b.op("Mul", [b.op("MatMul", [q, b.op("Transpose", [k_buf], perm=[0, 1, 3, 2])]), scaling]), self_mask],
        )
        new_score = b.op("Mul", [b.op("ReduceSum", [b.op("Mul", [q, k_name]), "c_axes_last"], keepdims=1), scaling])
        probs = b.op("Softmax", [b.op("Concat", [past_scores, new_score], axis=-1)], axis=-1)
        past_probs = b.op(
            "Slice",
            [
                probs,
                b.const(np.array([0], np.int64)),
                b.op("Unsqueeze", [capacity, b.const(np.array([0], np.int64))]),
                b.const(np.array([-1], np.int64)),
            ],
        )
        new_prob = b.op(
            "Slice",
            [
                probs,
                b.const(np.array([-1], np.int64)),
                b.const(np.array([np.iinfo(np.int64).max], np.int64)),
                b.const(np.array([-1], np.int64)),
            ],
        )
        attn = b.op("Add", [b.op("MatMul", [past_probs, v_buf]), b.op("Mul", [new_prob, v_name])])
        attn = b.op("Reshape", [b.op("Transpose", [attn], perm=[0, 2, 1, 3]), flat])
        x = b.layer_norm(
            b.op("Add", [x, b.linear(attn, layer.self_out, f"{p}.self_attn.out_proj")]),
            layer.self_norm,
            f"{p}.self_attn_layer_norm",
        )
        # cross attention: an input's beams are the query positions of one attention over its source
        cq = b.linear(x, layer.cross_q, f"{p}.encoder_attn.q_proj")
        cq = b.op(
            "Transpose",
            [b.op("Reshape", [cq, b.op("Concat", [item_count, b.const(np.array([-1, h, hd], np.int64))], axis=0)])],
            perm=[0, 2, 1, 3],
        )
        scores = b.op(
            "Add",
            [b.op("Mul", [b.op("MatMul", [cq, b.op("Transpose", [k_cross], perm=[0, 1, 3, 2])]), scaling]), cross_mask],
        )
        ctx = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v_cross])
        ctx = b.op("Reshape", [b.op("Transpose", [ctx], perm=[0, 2, 1, 3]), rows_flat])
        x = b.layer_norm(
            b.op("Add", [x, b.linear(ctx, layer.cross_out, f"{p}.encoder_attn.out_proj")]),
            layer.cross_norm,
            f"{p}.encoder_attn_layer_norm",
        )
        hidden = _activation(b, b.linear(x, layer.fc1, f"{p}.fc1"), dims.activation)
        x = b.layer_norm(
            b.op("Add", [x, b.linear(hidden, layer.fc2, f"{p}.fc2")]), layer.final_norm, f"{p}.final_layer_norm"
        )
    head = Linear(weights.lm_head, weights.final_logits_bias)
    b.int8 = int8 and not fp32_head  # fp32_head: a benchmark lever (the lm_head in fp32)
    logits = b.linear(x, head, "lm_head")
    b.int8 = int8
    b.nodes.append(b.onnx.helper.make_node("Identity", [logits], ["logits"]))
    if tail:
        _top_tail(b, logits, inputs, outputs)
    return b.model("decoder_step", inputs, outputs)


def _top_tail(b: GraphBuilder, logits: str, inputs: list[Any], outputs: list[Any]) -> None:
    """``top_values``, ``top_ids`` = TopK(LogSoftmax(logits[:, -1]), top_k) when top_k > 0."""
    helper, tp = b.onnx.helper, b.onnx.TensorProto
    inputs.append(_io("top_k", tp.INT64, [1]))
    wanted = b.op("Greater", ["top_k", b.const(np.array([0], np.int64))])
    rows_vocab = b.op("Reshape", [logits, b.const(np.array([0, -1], np.int64))])
    then = helper.make_graph(
        [
            helper.make_node("LogSoftmax", [rows_vocab], ["tail_lsm"], axis=-1),
            helper.make_node("TopK", ["tail_lsm", "top_k"], ["tail_values", "tail_ids"], axis=-1, largest=1, sorted=1),
        ],
        "top",
        [],
        [_io("tail_values", tp.FLOAT, ["rows", "n"]), _io("tail_ids", tp.INT64, ["rows", "n"])],
    )
    empty = helper.make_graph(
        [
            helper.make_node("Constant", [], ["no_values"], value=helper.make_tensor("e_v", tp.FLOAT, [0, 0], [])),
            helper.make_node("Constant", [], ["no_ids"], value=helper.make_tensor("e_i", tp.INT64, [0, 0], [])),
        ],
        "none",
        [],
        [_io("no_values", tp.FLOAT, [0, 0]), _io("no_ids", tp.INT64, [0, 0])],
    )
    b.nodes.append(
        helper.make_node("If", [wanted], ["top_values", "top_ids"], then_branch=then, else_branch=empty, name="tail")
    )
    outputs += [_io("top_values", tp.FLOAT, ["rows", "n"]), _io("top_ids", tp.INT64, ["rows", "n"])]


def _activation(b: GraphBuilder, x: str, name: str) -> str:
    if name in ("swish", "silu"):
        return b.op("Mul", [x, b.op("Sigmoid", [x])])
    if name == "relu":
        return b.op("Relu", [x])
    # transformers' "gelu" is the exact erf form
    inner = b.op("Erf", [b.op("Div", [x, b.const(np.float32(math.sqrt(2.0)))])])
    return b.op("Mul", [b.op("Mul", [x, b.op("Add", [inner, b.const(np.float32(1.0))])]), b.const(np.float32(0.5))])


def dequantize_graph(model: onnx.ModelProto) -> onnx.ModelProto:
    """ORT dynamic int8 (``quantize_dynamic``) back to float: each ``MatMulInteger`` by a constant
    weight, with its ``Cast`` and output-scale ``Mul``, becomes a float ``MatMul`` by the
    dequantized weight, and each ``Gather`` + ``DequantizeLinear`` of a constant table a float
    ``Gather``; the activation quantizers left unused are dropped. For re-quantizing a published
    int8 model per row (its weights rounded twice: see docs/BENCHMARKS.md). Found by structure
    (``graph_search``), whatever the nodes are named."""
    onnx = _onnx()
    graph = model.graph
    scope = Scope(GraphConstants(model), list(graph.node), [o.name for o in graph.output])
    replace: dict[int, Any] = {}
    drop: set[int] = set()
    count = 0
    for node in graph.node:
        if node.op_type == "MatMulInteger":
            found = scope.dynamic_int8(node)
            if found is None:
                continue
            data, weight, product = found
            count += 1
            name = f"dequantized_weight_{count}"
            graph.initializer.append(onnx.numpy_helper.from_array(weight, name))
            replace[id(node)] = onnx.helper.make_node("MatMul", [data, name], [product], name=node.name or name)
            cast = scope.users(node.output[0])[0]
            drop |= {id(cast), id(scope.producer[product])}
        elif node.op_type == "Gather":
            table = scope.gathered_table(node)
            dq = scope.producer.get(table[1]) if table is not None else None
            if table is None or dq is None or dq.op_type != "DequantizeLinear":
                continue
            name = f"dequantized_table_{len(replace)}"
            graph.initializer.append(onnx.numpy_helper.from_array(table[0], name))
            replace[id(node)] = onnx.helper.make_node("Gather", [name, node.input[1]], list(dq.output), name=node.name)
            drop.add(id(dq))
    nodes = [replace.get(id(n), n) for n in graph.node if id(n) not in drop]
    _drop_dead(graph, nodes)
    if not count:
        raise ConversionRefused("no ORT dynamic int8 MatMulInteger found to dequantize")
    return model


def _drop_dead(graph: Any, nodes: list[Any]) -> None:
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


def quantize_encoder(model: onnx.ModelProto) -> onnx.ModelProto:
    """The downloaded fp32 encoder with per-row int8: every MatMul by a constant 2-D weight and
    every Gather of a constant table, as :class:`GraphBuilder` writes them."""
    graph = model.graph
    consts = GraphConstants(model)
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), OPSET)
    b = GraphBuilder(int8=True, opset=opset)
    nodes = []
    for node in graph.node:
        weight = consts.const(node.input[1]) if node.op_type == "MatMul" else None
        table = consts.const(node.input[0]) if node.op_type == "Gather" else None
        axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
        if weight is not None and weight.ndim == 2 and weight.dtype == np.float32:
            b.nodes = []
            q, scale = b._row_quantized(node.input[0])
            w8, w_scale = column_quantized(weight)
            b.nodes.append(
                b.onnx.helper.make_node(
                    "MatMulIntegerToFloat",
                    [q, b.const(w8), "c_one", b.const(w_scale), "c_zp"],
                    [node.output[0] + "_rowq"],
                    domain="com.microsoft",
                )
            )
            b.nodes.append(b.onnx.helper.make_node("Mul", [node.output[0] + "_rowq", scale], list(node.output)))
            nodes.extend(b.nodes)
        elif table is not None and table.ndim == 2 and table.dtype == np.float32 and axis == 0:
            b.nodes = []
            out = b.gather_rows(table, node.input[1], b.fresh("table"))
            b.nodes.append(b.onnx.helper.make_node("Identity", [out], list(node.output)))
            nodes.extend(b.nodes)
        else:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(b.inits)
    used = {i for n in graph.node for i in n.input} | {o.name for o in graph.output}
    keep = [i for i in graph.initializer if i.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(b.onnx.helper.make_opsetid("com.microsoft", 1))
    return model


# -- the model folder -----------------------------------------------------------------------


def decoder_file(info: mf.ModelInfo) -> Path:
    """The downloaded fp32 decoder that holds every weight (first-step or merged)."""
    files = info.files.get("fp32", {})
    for role in ("decoder", "decoder_merged"):
        if role in files:
            return files[role]
    if "decoder_step" in files:
        raise ConversionRefused(f"{info.path} is already in the step layout")
    raise ConversionRefused(f"{info.path} has no fp32 decoder to convert (only int8 was downloaded)")


def convertible(info: mf.ModelInfo) -> bool:
    """Whether :func:`convert_model_dir` applies: a Marian with fp32 Optimum/transformers.js decoders
    whose int8 is not already our step layout."""
    fp32 = info.files.get("fp32", {})
    int8 = info.files.get("int8", {})
    has_decoder = "decoder" in fp32 or "decoder_merged" in fp32
    return info.architecture == "marian" and has_decoder and "decoder_step" not in int8


def convert_model_dir(model_dir: Path, fp32_step: bool = False) -> Conversion:
    """Convert an installed Marian (with a manifest) in place: write ``converted/`` and point the
    manifest's int8 variant (and with ``fp32_step`` its fp32 variant) at it.

    Raises :class:`ConversionRefused` (a ``ModelFormatError``) without changing the manifest when
    the graphs do not match or the check against the downloaded fp32 model fails.
    """
    onnx = _onnx()
    started = time.perf_counter()
    info = mf.inspect_model_dir(model_dir)
    if info.manifest is None:
        raise ConversionRefused(f"{model_dir} has no {mf.MANIFEST}: install it before converting")
    dims = read_dims(info.config)
    source = decoder_file(info)
    weights = find_decoder_weights(GraphConstants(onnx.load(str(source))), dims)
    out = Path(model_dir) / CONVERTED_DIR
    staging = Path(model_dir) / f".{CONVERTED_DIR}.tmp"
    _remove_tree(staging)
    staging.mkdir(parents=True)
    try:
        made = _write_graphs(staging, info, weights, dims, fp32_step)
        del weights  # ~300 MB of float arrays for opus-mt: not needed for the checks
        validation = validate(info, staging, made)
        _remove_tree(out)
        staging.rename(out)
    except BaseException:
        _remove_tree(staging)
        raise
    manifest = dict(info.manifest)
    variants = dict(manifest.get("variants", {}))
    for variant, roles in made.items():
        entries = {r: _file_entry(model_dir, f"{CONVERTED_DIR}/{n}") for r, n in roles.items()}
        if "encoder" not in entries:  # the fp32 step variant reads the downloaded encoder
            entries = {
                "encoder": _file_entry(model_dir, _relative(info.files[variant]["encoder"], model_dir)),
                **entries,
            }
        variants[variant] = {"files": entries}
    manifest["variants"] = variants
    manifest["int8"] = {
        "kind": mf.INT8_PER_ROW,
        "weights": f"int8 symmetric per output column in [-{WEIGHT_MAX}, {WEIGHT_MAX}]; embeddings int8 per row",
        "weight_max": WEIGHT_MAX,
        "activations": "uint8 symmetric (zero point 128), one scale per row",
    }
    seconds = time.perf_counter() - started
    manifest["converted"] = {
        "by": "desktop_mt.models.convert",
        "layout": "step",
        "from": _relative(source, model_dir),
        "seconds": round(seconds, 1),
        "validation": validation,
    }
    mf.write_manifest(Path(model_dir), manifest)
    files = {v: {r: spec["file"] for r, spec in variants[v]["files"].items()} for v in made}
    return Conversion(files, seconds, validation)


def _write_graphs(
    staging: Path, info: mf.ModelInfo, weights: MarianDecoderWeights, dims: Dims, fp32_step: bool
) -> dict[str, dict[str, str]]:
    onnx = _onnx()
    made: dict[str, dict[str, str]] = {"int8": {}}
    names = INT8_FILES
    save_mapped(build_cross_kv(weights, dims, int8=True), (staging / str(names["cross_kv"])))
    save_mapped(build_decoder_step(weights, dims, int8=True), (staging / str(names["decoder_step"])))
    save_mapped(quantize_encoder(onnx.load(str(info.files["fp32"]["encoder"]))), (staging / str(names["encoder"])))
    made["int8"] = {role: str(name) for role, name in names.items()}
    # The fp32 step graphs are always built to check the conversion; kept only when asked.
    fp32 = FP32_FILES
    save_mapped(build_cross_kv(weights, dims, int8=False), (staging / str(fp32["cross_kv"])))
    save_mapped(build_decoder_step(weights, dims, int8=False), (staging / str(fp32["decoder_step"])))
    made["fp32-check"] = {"cross_kv": str(fp32["cross_kv"]), "decoder_step": str(fp32["decoder_step"])}
    if fp32_step:
        made["fp32"] = dict(made["fp32-check"])
    return made


def validate(info: mf.ModelInfo, staging: Path, made: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The converted graphs against the downloaded fp32 model, on a few sentences: the fp32 step
    graph's teacher-forced logits (must agree, else ConversionRefused) and the int8 greedy tokens."""
    from ..engine.runtime import Seq2SeqSessions  # onnxruntime: loaded when a model is checked

    encoder = info.files["fp32"]["encoder"]
    check = {"encoder": encoder, **{r: staging / n for r, n in made["fp32-check"].items()}}
    int8 = {r: staging / n for r, n in made["int8"].items()}
    view = dataclasses.replace(
        info, files={"fp32": dict(info.files["fp32"]), "check": check, "int8": int8}, manifest=None
    )
    params = dataclasses.replace(decode_params(info), beams=1)
    tokenizer = SentencePieceTokenizer(info)
    samples = [tokenizer.encode(sample) for sample in SAMPLES]
    # One model loaded at a time (the reference's logits kept: a few MB), so the install's peak
    # memory is one fp32 model, not three.
    downloaded = Seq2SeqSessions(view, "fp32")
    refs = [_greedy(generation, downloaded, ids, params) for ids in samples]
    ref_logits = [
        _teacher_logits(downloaded, ids, ref, params.decoder_start) for ids, ref in zip(samples, refs, strict=True)
    ]
    del downloaded
    converted = Seq2SeqSessions(view, "check")
    worst = max(
        _relative_difference(want, _teacher_logits(converted, ids, ref, params.decoder_start))
        for ids, ref, want in zip(samples, refs, ref_logits, strict=True)
    )
    same = sum(_greedy(generation, converted, ids, params) == ref for ids, ref in zip(samples, refs, strict=True))
    del converted
    quantized = Seq2SeqSessions(view, "int8")
    same8 = sum(_greedy(generation, quantized, ids, params) == ref for ids, ref in zip(samples, refs, strict=True))
    del quantized
    del made["fp32-check"]
    if not made.get("fp32"):
        for name in FP32_FILES.values():
            (staging / name).unlink(missing_ok=True)
            (staging / f"{name}.data").unlink(missing_ok=True)
    if worst > LOGIT_TOLERANCE:
        raise ConversionRefused(
            f"the step graphs built from {info.path.name}'s decoder do not reproduce it "
            f"(relative logit difference {worst:.2g} > {LOGIT_TOLERANCE}); the model is used as downloaded"
        )
    return {
        "reference": "the downloaded fp32 graphs",
        "samples": len(SAMPLES),
        "fp32_step_max_relative_logit_diff": float(f"{worst:.3g}"),
        "fp32_step_greedy_same": f"{same}/{len(SAMPLES)}",
        "int8_greedy_same": f"{same8}/{len(SAMPLES)}",
    }


def _greedy(generation: Any, sessions: Any, ids: list[int], params: Any) -> list[int]:
    for event in generation.greedy(sessions, [ids], [48], params):
        if isinstance(event, generation.ItemDone):
            return list(event.ids)
    return []


def _teacher_logits(sessions: Any, ids: list[int], tokens: list[int], start: int) -> list[np.ndarray]:
    """The last-position logits of each step of a teacher-forced decode of ``tokens``."""
    batch = np.array([ids], dtype=np.int64)
    mask = np.ones_like(batch)
    hidden = sessions.encode(batch, mask)
    out, cache = sessions.decode_first(np.array([[start]], np.int64), mask, hidden, len(tokens) + 2)
    logits = [np.array(out[:, -1])]
    for token in tokens:
        logits.append(np.array(sessions.decode_next(np.array([[token]], np.int64), cache)[:, -1]))
    return logits


def _relative_difference(want: list[np.ndarray], got: list[np.ndarray]) -> float:
    """Largest |logit difference| of the steps, relative to each step's logit range."""
    return max(float(np.abs(w - g).max()) / max(float(np.abs(w).max()), 1.0) for w, g in zip(want, got, strict=True))


ALIGN = 65536  # external data offsets: Windows' allocation granularity, a multiple of the page size
EXTERNAL_THRESHOLD = 4096


def save_mapped(model: onnx.ModelProto, path: Path) -> None:
    """Save ``model`` with every initializer of 4 KiB or more in ``path.data`` at 64 KiB-aligned
    offsets (as ``export_tools.external_data`` writes them): ONNX Runtime maps the weights instead
    of copying them out of the protobuf, so the load peak is lower and embedding rows nobody
    gathers never become resident."""
    onnx = _onnx()
    data_path = path.with_name(path.name + ".data")
    moved = 0
    with open(data_path, "wb") as f:
        for graph in all_graphs(model.graph):
            for init in graph.initializer:
                # raw_data holds the little-endian bytes already (numpy_helper.from_array): one copy, not two
                raw = init.raw_data if init.HasField("raw_data") else onnx.numpy_helper.to_array(init).tobytes()
                if len(raw) < EXTERNAL_THRESHOLD:
                    continue
                f.write(b"\0" * ((-f.tell()) % ALIGN))
                offset, length = f.tell(), len(raw)
                f.write(raw)
                del raw
                name, dims, dtype = init.name, list(init.dims), init.data_type
                init.Clear()
                init.name, init.data_type = name, dtype
                init.dims.extend(dims)
                init.data_location = onnx.TensorProto.EXTERNAL
                for key, value in (("location", data_path.name), ("offset", str(offset)), ("length", str(length))):
                    entry = init.external_data.add()
                    entry.key, entry.value = key, value
                moved += 1
    if not moved:
        data_path.unlink()
    onnx.save(model, str(path))


def _file_entry(model_dir: Path, rel: str) -> dict[str, Any]:
    path = Path(model_dir) / rel
    entry: dict[str, Any] = {"file": rel, "sha256": mf.sha256_file(path), "bytes": path.stat().st_size}
    data = path.with_name(path.name + ".data")
    if data.is_file():
        entry["external_data"] = {"file": data.name, "bytes": data.stat().st_size, "sha256": mf.sha256_file(data)}
    return entry


def _relative(path: Path, root: Path) -> str:
    return str(Path(path).resolve().relative_to(Path(root).resolve()).as_posix())


def _remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
