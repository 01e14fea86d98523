"""The weights of a Marian decoder as arrays, its sizes, and the constants of an ONNX graph.

Shared by ``graph_search`` (weights found in a downloaded graph), ``checkpoint`` (weights read
from a safetensors state dict) and ``convert`` (the step graphs written from them).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelFormatError

if TYPE_CHECKING:
    import onnx

ACTIVATIONS = ("swish", "silu", "relu", "gelu")


class ConversionRefused(ModelFormatError):
    """The downloaded graphs are not a Marian this converter understands; the model is unchanged."""


@dataclasses.dataclass(frozen=True)
class Linear:
    weight: np.ndarray  # [in, out], as the MatMul reads it
    bias: np.ndarray  # [out]


@dataclasses.dataclass(frozen=True)
class Norm:
    weight: np.ndarray
    bias: np.ndarray
    epsilon: float


@dataclasses.dataclass(frozen=True)
class DecoderLayer:
    self_q: Linear
    self_k: Linear
    self_v: Linear
    self_out: Linear
    self_norm: Norm
    cross_q: Linear
    cross_k: Linear
    cross_v: Linear
    cross_out: Linear
    cross_norm: Norm
    fc1: Linear
    fc2: Linear
    final_norm: Norm


@dataclasses.dataclass(frozen=True)
class MarianDecoderWeights:
    embed_tokens: np.ndarray  # [vocab, d]
    embed_positions: np.ndarray  # [positions, d]
    layers: tuple[DecoderLayer, ...]
    lm_head: np.ndarray  # [d, vocab]
    final_logits_bias: np.ndarray  # [vocab]


@dataclasses.dataclass(frozen=True)
class Dims:
    d_model: int
    heads: int
    layers: int
    ffn: int
    vocab: int
    embed_scale: float
    activation: str

    @property
    def head_dim(self) -> int:
        return self.d_model // self.heads


# -- reading the downloaded graph -----------------------------------------------------------


def _onnx() -> Any:
    try:
        import onnx
    except ImportError as exc:  # the packaged app must ship onnx for this
        raise ConversionRefused(f"converting a downloaded model needs the onnx package ({exc})") from exc
    return onnx


class GraphConstants:
    """The nodes of a decoder graph (outer graph and every branch) and its constant values."""

    def __init__(self, model: onnx.ModelProto):
        module = _onnx()
        self.model = model
        self._numpy = module.numpy_helper
        self._attr = module.helper.get_attribute_value
        self.initializers = {i.name: i for i in model.graph.initializer}
        self.nodes: list[onnx.NodeProto] = []
        self.producer: dict[str, onnx.NodeProto] = {}
        for graph in all_graphs(model.graph):
            self.initializers.update({i.name: i for i in graph.initializer})
            for node in graph.node:
                self.nodes.append(node)
                for out in node.output:
                    self.producer.setdefault(out, node)
        self._cache: dict[str, np.ndarray | None] = {}

    def const(self, name: str) -> np.ndarray | None:
        """The value of ``name`` when it is a constant (through Identity, Transpose, Cast), else None."""
        if name not in self._cache:
            self._cache[name] = self._const(name)
        return self._cache[name]

    def _const(self, name: str) -> np.ndarray | None:
        if name in self.initializers:
            return np.asarray(self._numpy.to_array(self.initializers[name]))
        node = self.producer.get(name)
        if node is None:
            return None
        if node.op_type == "Constant":
            attr = next((a for a in node.attribute if a.name == "value"), None)
            return None if attr is None else np.asarray(self._numpy.to_array(attr.t))
        if node.op_type in ("Identity", "Transpose", "Cast") and node.input:
            value = self.const(node.input[0])
            if value is None:
                return None
            if node.op_type == "Transpose":
                perm = next((list(self._attr(a)) for a in node.attribute if a.name == "perm"), None)
                return np.ascontiguousarray(value.transpose(perm) if perm else value.T)
            return value
        return None

    def const_inputs(self, node: onnx.NodeProto) -> list[np.ndarray]:
        return [v for v in (self.const(i) for i in node.input if i) if v is not None]


def read_dims(config: dict[str, Any]) -> Dims:
    """The decoder's sizes from config.json (Marian only)."""
    if config.get("model_type") != "marian":
        raise ConversionRefused(f"only Marian models are converted, not {config.get('model_type')!r}")
    if config.get("normalize_before") or config.get("add_final_layer_norm") or config.get("layernorm_embedding"):
        raise ConversionRefused("this Marian variant normalizes before its layers; only post-norm Marian is converted")
    activation = str(config.get("activation_function", "swish"))
    if activation not in ACTIVATIONS:
        raise ConversionRefused(f"activation {activation!r} is not one of {', '.join(ACTIVATIONS)}")
    d_model = int(config["d_model"])
    return Dims(
        d_model=d_model,
        heads=int(config["decoder_attention_heads"]),
        layers=int(config["decoder_layers"]),
        ffn=int(config["decoder_ffn_dim"]),
        vocab=int(config["vocab_size"]),
        embed_scale=math.sqrt(d_model) if config.get("scale_embedding") else 1.0,
        activation=activation,
    )


def all_graphs(graph: onnx.GraphProto) -> Iterator[onnx.GraphProto]:
    onnx = _onnx()
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from all_graphs(attr.g)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for sub in attr.graphs:
                    yield from all_graphs(sub)
