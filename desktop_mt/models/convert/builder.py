"""The nodes and initializers of one ONNX graph, with its linear layers in fp32 or per-row int8.

Per-row int8 (``INT8_PER_ROW`` in the manifest): every linear layer's weight int8 per output
column in [-WEIGHT_MAX, WEIGHT_MAX] (7 bits: no int16 saturation on AVX2 CPUs), its input
quantized per row at run time (uint8, zero point 128), so a sentence's tokens do not depend on its
batch neighbours; embedding tables int8 per row. ``export_tools.quantize`` quantizes our own
exports with the same functions (:func:`column_quantized`, :func:`row_quantized_table`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .onnx_graph import onnx_module
from .spec import Linear, Norm

if TYPE_CHECKING:
    import onnx

__all__ = [
    "OPSET",
    "WEIGHT_MAX",
    "FLOOR",
    "PRODUCER",
    "GraphBuilder",
    "value_info",
    "column_quantized",
    "row_quantized_table",
]

OPSET = 17
# Linear weights use 7 of the 8 bits. ONNX Runtime's uint8 x int8 kernel on CPUs without VNNI
# (AVX2 only: Intel before Ice Lake, AMD before Zen 4) adds pairs of u8*s8 products in int16
# (VPMADDUBSW), which saturates above 32767: with activations centred on 128 and full-range
# weights it clipped most dot products there (logits off by 23% on a test graph; the same model
# was fine on an AVX-512 VNNI CPU). 2 * 255 * 63 = 32130 cannot saturate, so every CPU computes
# the exact int32 products (the same tokens everywhere, and batch-independent).
WEIGHT_MAX = 63
FLOOR = float(np.finfo(np.float32).min)  # transformers' mask value
PRODUCER = "desktop-mt convert"  # the producer_name of every graph built here (recover tells them by it)
_SHARED = (  # constants every graph may read, by name
    ("c_tiny", np.float32(1e-12)),
    ("c_127", np.float32(127.0)),
    ("c_128", np.float32(128.0)),
    ("c_one", np.float32(1.0)),
    ("c_zp", np.uint8(128)),
    ("c_axes_last", np.array([-1], np.int64)),
)


class GraphBuilder:
    """Nodes and initializers of one graph; ``linear`` is fp32 or per-row int8."""

    def __init__(self, int8: bool, opset: int = OPSET, fused_rows: bool = False):
        self.onnx = onnx_module()
        self.int8 = int8
        self.opset = opset
        # fused_rows: inputs are [rows, 1, K] (the decoder step); quantize them with one
        # QuantizeLinear per axis 0 instead of Div, Round, Add, Cast (the same bytes, fewer ops).
        self.fused_rows = fused_rows
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._count = 0
        self._quantized_rows: dict[str, tuple[str, str]] = {}
        for name, value in _SHARED:
            self.const(value, name)

    def fresh(self, base: str) -> str:
        self._count += 1
        return f"{base}_{self._count}"

    def const(self, value: np.ndarray | np.generic, name: str | None = None) -> str:
        name = name or self.fresh("const")
        self.inits.append(self.onnx.numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], domain: str = "", out: str | None = None, **attrs: Any) -> str:
        """A node's single output: ``out`` (a graph output's name) or a fresh name."""
        out = out or self.fresh(op_type.lower())
        self.nodes.append(
            self.onnx.helper.make_node(op_type, inputs, [out], name=self.fresh(op_type), domain=domain or None, **attrs)
        )
        return out

    def linear(self, x: str, layer: Linear, name: str, int8: bool | None = None) -> str:
        """``x @ weight + bias``; ``int8`` overrides the graph's choice for this layer."""
        if not (self.int8 if int8 is None else int8):
            weight = self.const(layer.weight, f"{name}.weight")
            return self.op("Add", [self.op("MatMul", [x, weight]), self.const(layer.bias, f"{name}.bias")])
        q, scale = self._fused_rows(x) if self.fused_rows else self.row_quantized(x)
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
        128, scale max|row| / 127: the bytes of :meth:`row_quantized`) and the scale [rows, 1]."""
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

    def row_quantized(self, x: str) -> tuple[str, str]:
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
        q, scale = row_quantized_table(table)
        rows = self.op(
            "Cast", [self.op("Gather", [self.const(q, f"{name}_int8"), ids])], to=self.onnx.TensorProto.FLOAT
        )
        return self.op("Mul", [rows, self.op("Gather", [self.const(scale, f"{name}_scale"), ids])])

    def layer_norm(self, x: str, norm: Norm, name: str) -> str:
        return self.op(
            "LayerNormalization",
            [x, self.const(norm.weight, f"{name}.weight"), self.const(norm.bias, f"{name}.bias")],
            axis=-1,
            epsilon=norm.epsilon,
        )

    def model(self, name: str, inputs: list[Any], outputs: list[Any]) -> onnx.ModelProto:
        helper = self.onnx.helper
        read = {i for node in self.nodes for i in node.input}  # the shared constants an fp32 graph never reads
        graph = helper.make_graph(self.nodes, name, inputs, outputs, [i for i in self.inits if i.name in read])
        opsets = [helper.make_opsetid("", self.opset)]
        if self.int8:
            opsets.append(helper.make_opsetid("com.microsoft", 1))
        model = helper.make_model(graph, opset_imports=opsets, producer_name=PRODUCER)
        model.ir_version = 8
        built: onnx.ModelProto = model
        return built


def value_info(name: str, elem: int, shape: list[Any]) -> Any:
    """A graph input's or output's name, element type and shape (names for the dynamic axes)."""
    return onnx_module().helper.make_tensor_value_info(name, elem, shape)


def column_quantized(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``weight`` [K, N] as int8 in [-WEIGHT_MAX, WEIGHT_MAX] with one float scale per output column."""
    scale = (np.abs(weight).max(axis=0) / float(WEIGHT_MAX)).astype(np.float32)
    scale[scale == 0] = 1.0
    return _rounded_int8(weight / scale, WEIGHT_MAX), scale


def row_quantized_table(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An embedding table [rows, K] as int8 in [-127, 127] with one float scale per row [rows, 1]:
    a gathered row is dequantized with its own scale, whatever else the batch gathers."""
    scale = np.abs(table).max(axis=1, keepdims=True) / 127.0
    scale[scale == 0] = 1.0
    return _rounded_int8(table / scale, 127), scale.astype(np.float32)


def _rounded_int8(scaled: np.ndarray, limit: int) -> np.ndarray:
    """``clip(rint(scaled))`` as int8, rounding and clipping in place: the lm_head and the token
    table of opus-mt are 133 MB each in float, and two more temporaries of that size were the
    conversion's peak."""
    np.rint(scaled, out=scaled)
    np.clip(scaled, -limit, limit, out=scaled)
    return scaled.astype(np.int8)
