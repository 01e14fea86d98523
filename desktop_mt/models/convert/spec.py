"""What the converter builds: a post-norm Marian's sizes and weights, block by block.

The finders fill these (``find_graph`` from a downloaded ONNX decoder, ``find_checkpoint`` from a
safetensors state dict, ``export_tools.step_graphs`` from a torch model) and ``blocks`` / ``graphs``
write ONNX from them; nothing here depends on where the weights came from.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from ...base.errors import ModelFormatError

__all__ = [
    "ConversionRefused",
    "Linear",
    "Norm",
    "Attention",
    "FeedForward",
    "EncoderLayer",
    "DecoderLayer",
    "MarianEncoderWeights",
    "MarianDecoderWeights",
    "Dims",
    "read_dims",
    "encoder_dims",
]

_ACTIVATIONS = ("swish", "silu", "relu", "gelu")


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
class Attention:
    """One attention block: its projections and the layer norm after its residual."""

    q: Linear
    k: Linear
    v: Linear
    out: Linear
    norm: Norm


@dataclasses.dataclass(frozen=True)
class FeedForward:
    """fc1, the activation, fc2 and the layer norm after the residual."""

    fc1: Linear
    fc2: Linear
    norm: Norm


@dataclasses.dataclass(frozen=True)
class EncoderLayer:
    self_attn: Attention
    ffn: FeedForward


@dataclasses.dataclass(frozen=True)
class DecoderLayer:
    self_attn: Attention
    cross_attn: Attention
    ffn: FeedForward


@dataclasses.dataclass(frozen=True)
class MarianEncoderWeights:
    embed_tokens: np.ndarray  # [vocab, d]
    embed_positions: np.ndarray  # [positions, d]
    layers: tuple[EncoderLayer, ...]


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


def read_dims(config: dict[str, Any]) -> Dims:
    """The decoder's sizes from config.json (Marian only)."""
    if config.get("model_type") != "marian":
        raise ConversionRefused(f"only Marian models are converted, not {config.get('model_type')!r}")
    if config.get("normalize_before") or config.get("add_final_layer_norm") or config.get("layernorm_embedding"):
        raise ConversionRefused("this Marian variant normalizes before its layers; only post-norm Marian is converted")
    activation = str(config.get("activation_function", "swish"))
    if activation not in _ACTIVATIONS:
        raise ConversionRefused(f"activation {activation!r} is not one of {', '.join(_ACTIVATIONS)}")
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


def encoder_dims(config: dict[str, Any]) -> Dims:
    """The encoder's sizes from config.json (its own heads, layers and feed-forward width)."""
    return dataclasses.replace(
        read_dims(config),
        heads=int(config["encoder_attention_heads"]),
        layers=int(config["encoder_layers"]),
        ffn=int(config["encoder_ffn_dim"]),
    )
