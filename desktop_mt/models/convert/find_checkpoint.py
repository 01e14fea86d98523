"""Every Marian weight from a state dict by transformers' module names (issue 44).

The names (``model.decoder.layers.3.self_attn.k_proj.weight``, ...) are stable across
transformers versions, so no graph search is needed. The tensors come from ``model.safetensors``
(:class:`StateDict`, read with the ``safetensors`` package into numpy: a ``pytorch_model.bin`` is a
pickle and is never loaded) or from any mapping of names to arrays (:class:`ArrayDict`:
``export_tools`` passes a torch model's). The sinusoidal position tables, which newer
transformers do not save, are computed as ``MarianSinusoidalPositionalEmbedding`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from safetensors import safe_open

from ...engine import model_format as mf
from .spec import (
    Attention,
    ConversionRefused,
    DecoderLayer,
    Dims,
    EncoderLayer,
    FeedForward,
    Linear,
    MarianDecoderWeights,
    MarianEncoderWeights,
    Norm,
    encoder_dims,
    read_dims,
)

__all__ = [
    "WEIGHTS",
    "INDEX",
    "Tensors",
    "ArrayDict",
    "StateDict",
    "check_config",
    "sinusoids",
    "read_weights",
]

WEIGHTS = "model.safetensors"
INDEX = "model.safetensors.index.json"


class Tensors:
    """Named arrays read as float32 by transformers' names, ``model.``-prefixed or not."""

    source = "the state dict"  # for a refusal: "{source} has no {name}"

    def read(self, key: str) -> np.ndarray | None:
        """The array stored under exactly ``key``, or None."""
        raise NotImplementedError

    def get(self, *names: str) -> np.ndarray | None:
        """The first of ``names`` present, as float32."""
        for name in names:
            for key in (name, name.removeprefix("model.")):
                value = self.read(key)
                if value is not None:
                    return np.ascontiguousarray(value, dtype=np.float32)
        return None

    def need(self, *names: str) -> np.ndarray:
        """As :meth:`get`, ConversionRefused naming ``names[0]`` when none is present."""
        value = self.get(*names)
        if value is None:
            raise ConversionRefused(f"{self.source} has no {names[0]}")
        return value


class ArrayDict(Tensors):
    """A mapping of names to arrays (``export_tools``: a torch model's state dict as numpy)."""

    def __init__(self, arrays: Mapping[str, np.ndarray]):
        self._arrays = arrays

    def read(self, key: str) -> np.ndarray | None:
        return self._arrays.get(key)


class StateDict(Tensors):
    """The tensors of ``model.safetensors`` (or its shards), read one at a time."""

    source = WEIGHTS

    def __init__(self, folder: Path):
        index = Path(folder) / INDEX
        shards = sorted(set(mf.read_json(index).get("weight_map", {}).values())) if index.is_file() else [WEIGHTS]
        self._handles = [safe_open(str(Path(folder) / shard), framework="np") for shard in shards]
        self._where = {key: h for h in self._handles for key in h.keys()}  # type: ignore[no-untyped-call]  # noqa: SIM118

    def read(self, key: str) -> np.ndarray | None:
        handle = self._where.get(key)
        if handle is None:
            return None
        try:
            return np.asarray(handle.get_tensor(key))  # type: ignore[no-untyped-call]
        except (TypeError, ValueError) as exc:  # numpy has no bfloat16
            raise ConversionRefused(f"{key} is stored in a dtype numpy cannot read ({exc})") from exc


def check_config(config: dict[str, Any]) -> None:
    """ConversionRefused naming what of ``config`` the step graphs do not compute."""
    read_dims(config)  # model type, normalization order, activation
    if config.get("share_encoder_decoder_embeddings") is False:
        raise ConversionRefused(
            "share_encoder_decoder_embeddings is false in config.json (separate source and target vocabularies): "
            "not supported yet"
        )
    if int(config.get("decoder_vocab_size") or config["vocab_size"]) != int(config["vocab_size"]):
        raise ConversionRefused("decoder_vocab_size differs from vocab_size in config.json: not supported yet")
    if config.get("tie_word_embeddings") is False:
        raise ConversionRefused("tie_word_embeddings is false in config.json: not supported yet")


def sinusoids(positions: int, dim: int) -> np.ndarray:
    """``MarianSinusoidalPositionalEmbedding.create_weight``: sin in the first half, cos in the second."""
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(positions)])
    out = np.empty((positions, dim), np.float32)
    sentinel = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out[:, 0:sentinel] = np.sin(enc[:, 0::2]).astype(np.float32)
    out[:, sentinel:] = np.cos(enc[:, 1::2]).astype(np.float32)
    return out


def read_weights(state: Tensors, config: dict[str, Any]) -> tuple[MarianEncoderWeights, MarianDecoderWeights]:
    """The encoder's and the decoder's weights, shapes checked against config.json."""
    dec, enc = read_dims(config), encoder_dims(config)
    shared = state.need("model.shared.weight", "model.decoder.embed_tokens.weight", "model.encoder.embed_tokens.weight")
    if shared.shape != (dec.vocab, dec.d_model):
        raise ConversionRefused(f"the token table is {shared.shape}, config.json says ({dec.vocab}, {dec.d_model})")
    table = sinusoids(int(config.get("max_position_embeddings", 512)), dec.d_model)
    enc_pos = state.get("model.encoder.embed_positions.weight")
    dec_pos = state.get("model.decoder.embed_positions.weight")
    enc_layers = tuple(_encoder_layer(state, f"model.encoder.layers.{i}") for i in range(enc.layers))
    dec_layers = tuple(_decoder_layer(state, f"model.decoder.layers.{i}") for i in range(dec.layers))
    head = state.get("lm_head.weight")
    bias = state.get("final_logits_bias")
    encoder = MarianEncoderWeights(shared, table if enc_pos is None else enc_pos, enc_layers)
    decoder = MarianDecoderWeights(
        shared,
        table if dec_pos is None else dec_pos,
        dec_layers,
        np.ascontiguousarray((shared if head is None else head).T),
        np.zeros(dec.vocab, np.float32) if bias is None else bias.reshape(-1),
    )
    _check_shapes(encoder, decoder, enc, dec)
    return encoder, decoder


def _linear(state: Tensors, name: str) -> Linear:
    weight = state.need(f"{name}.weight")  # torch's [out, in]
    bias = state.get(f"{name}.bias")
    return Linear(np.ascontiguousarray(weight.T), bias if bias is not None else np.zeros(len(weight), np.float32))


def _norm(state: Tensors, name: str, eps: float = 1e-5) -> Norm:
    return Norm(state.need(f"{name}.weight"), state.need(f"{name}.bias"), eps)


def _attention(state: Tensors, name: str) -> Attention:
    """``{name}.{q,k,v,out}_proj`` and ``{name}_layer_norm``."""
    q, k, v, out = (_linear(state, f"{name}.{part}_proj") for part in ("q", "k", "v", "out"))
    return Attention(q, k, v, out, _norm(state, f"{name}_layer_norm"))


def _feed_forward(state: Tensors, layer: str) -> FeedForward:
    return FeedForward(
        _linear(state, f"{layer}.fc1"), _linear(state, f"{layer}.fc2"), _norm(state, f"{layer}.final_layer_norm")
    )


def _encoder_layer(state: Tensors, p: str) -> EncoderLayer:
    return EncoderLayer(_attention(state, f"{p}.self_attn"), _feed_forward(state, p))


def _decoder_layer(state: Tensors, p: str) -> DecoderLayer:
    return DecoderLayer(
        _attention(state, f"{p}.self_attn"), _attention(state, f"{p}.encoder_attn"), _feed_forward(state, p)
    )


def _check_shapes(encoder: MarianEncoderWeights, decoder: MarianDecoderWeights, enc: Dims, dec: Dims) -> None:
    d = dec.d_model
    wrong = []
    sides: tuple[tuple[str, tuple[EncoderLayer | DecoderLayer, ...], Dims], ...] = (
        ("encoder", encoder.layers, enc),
        ("decoder", decoder.layers, dec),
    )
    for side, layers, dims in sides:
        for i, layer in enumerate(layers):
            fc1, fc2 = layer.ffn.fc1.weight.shape, layer.ffn.fc2.weight.shape
            if fc1 != (d, dims.ffn) or fc2 != (dims.ffn, d):
                wrong.append(f"{side}.layers.{i}.fc1/fc2 {fc1}/{fc2}")
    if decoder.lm_head.shape != (d, dec.vocab):
        wrong.append(f"lm_head {decoder.lm_head.T.shape}")
    if wrong:
        raise ConversionRefused(f"{WEIGHTS} does not match config.json: " + ", ".join(wrong))
