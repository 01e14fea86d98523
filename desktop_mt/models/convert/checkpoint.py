"""A Marian checkpoint (``config.json`` + ``model.safetensors`` + tokenizer) installed without torch (issue 44).

The Hub holds 1,000+ OPUS-MT Marian checkpoints (Helsinki-NLP/opus-mt-*, opus-mt-tc-big-*) as
safetensors state dicts. The state dict's names are transformers' module names
(``model.decoder.layers.3.self_attn.k_proj.weight``, ...), stable across versions, so no graph
search is needed: the weights are read with the ``safetensors`` package into numpy, and the
encoder, cross-K/V and decoder-step graphs are written with ``onnx`` (the math of
``export_tools.step_graphs``, transformers' eager attention), fp32 and per-row int8, as
``models.convert`` writes them for a downloaded ONNX model.

A ``pytorch_model.bin`` is a pickle: it is never loaded (it can run code), and a folder that has
only that is refused with what to do instead. Configurations the step graphs do not compute
(pre-norm, other activations, separate source and target vocabularies, bfloat16 weights) are
refused by name. The sinusoidal position tables, which newer transformers do not save, are
computed as ``MarianSinusoidalPositionalEmbedding`` does.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from safetensors import safe_open

from ..engine import model_format as mf
from ..engine.tokenizer import vocab_target_tokens
from .convert import (
    FLOOR,
    GraphBuilder,
    _activation,
    _file_entry,
    _io,
    build_cross_kv,
    build_decoder_step,
    save_mapped,
)
from .marian_weights import ConversionRefused, DecoderLayer, Dims, Linear, MarianDecoderWeights, Norm, read_dims

WEIGHTS = "model.safetensors"
INDEX = "model.safetensors.index.json"
PICKLES = ("pytorch_model.bin", "pytorch_model.bin.index.json")
TOKENIZER = ("source.spm", "target.spm", "vocab.json")
CONVERTED_DIR = "converted"
FILES = {
    "fp32": {
        "encoder": "encoder_model.onnx",
        "cross_kv": "cross_kv_model.onnx",
        "decoder_step": "decoder_step_model.onnx",
    },
    "int8": {
        "encoder": "encoder_model_quantized.onnx",
        "cross_kv": "cross_kv_model_quantized.onnx",
        "decoder_step": "decoder_step_model_quantized.onnx",
    },
}
Progress = Callable[[str], None]


@dataclasses.dataclass(frozen=True)
class EncoderLayer:
    q: Linear
    k: Linear
    v: Linear
    out: Linear
    attn_norm: Norm
    fc1: Linear
    fc2: Linear
    final_norm: Norm


@dataclasses.dataclass(frozen=True)
class MarianEncoderWeights:
    embed_tokens: np.ndarray  # [vocab, d]
    embed_positions: np.ndarray  # [positions, d]
    layers: tuple[EncoderLayer, ...]


def is_checkpoint(folder: Path) -> bool:
    """A folder with a transformers ``config.json`` and weights in a state dict, no ONNX files."""
    folder = Path(folder)
    has_weights = any((folder / name).is_file() for name in (WEIGHTS, INDEX, *PICKLES))
    has_onnx = any(folder.glob("*.onnx")) or any(folder.glob("onnx/*.onnx"))
    return (folder / "config.json").is_file() and has_weights and not has_onnx


def check_folder(folder: Path) -> dict[str, Any]:
    """config.json of a checkpoint folder this module converts; ConversionRefused saying why not."""
    folder = Path(folder)
    if not (folder / WEIGHTS).is_file() and not (folder / INDEX).is_file():
        if any((folder / name).is_file() for name in PICKLES):
            raise ConversionRefused(
                f"{folder} has its weights only in pytorch_model.bin, a Python pickle, which desktop-mt never "
                f"loads (loading one can run any code); use a revision of the model that has {WEIGHTS} "
                "(most Hub repos have one), or export it with `python -m export_tools export` where torch is installed"
            )
        raise ConversionRefused(f"{folder} has no {WEIGHTS}")
    missing = [name for name in TOKENIZER if not (folder / name).is_file()]
    if missing:
        raise ConversionRefused(f"{folder} lacks the Marian tokenizer files {', '.join(missing)}")
    config = mf.read_json(folder / "config.json")
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
    return config


class StateDict:
    """The tensors of ``model.safetensors`` (or its shards) as float32 numpy arrays, read one at a time."""

    def __init__(self, folder: Path):
        index = Path(folder) / INDEX
        shards = sorted(set(mf.read_json(index).get("weight_map", {}).values())) if index.is_file() else [WEIGHTS]
        self._handles = [safe_open(str(Path(folder) / shard), framework="np") for shard in shards]
        self._where = {key: h for h in self._handles for key in h.keys()}  # type: ignore[no-untyped-call]  # noqa: SIM118

    def keys(self) -> set[str]:
        return set(self._where)

    def get(self, *names: str) -> np.ndarray | None:
        """The first of ``names`` present (``model.``-prefixed or not), as float32."""
        for name in names:
            for key in (name, name.removeprefix("model.")):
                handle = self._where.get(key)
                if handle is None:
                    continue
                try:
                    value = handle.get_tensor(key)  # type: ignore[no-untyped-call]
                except (TypeError, ValueError) as exc:  # numpy has no bfloat16
                    raise ConversionRefused(f"{key} is stored in a dtype numpy cannot read ({exc})") from exc
                return np.ascontiguousarray(value, dtype=np.float32)
        return None

    def need(self, *names: str) -> np.ndarray:
        value = self.get(*names)
        if value is None:
            raise ConversionRefused(f"{WEIGHTS} has no {names[0]}")
        return value


def sinusoids(positions: int, dim: int) -> np.ndarray:
    """``MarianSinusoidalPositionalEmbedding.create_weight``: sin in the first half, cos in the second."""
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(positions)])
    out = np.empty((positions, dim), np.float32)
    sentinel = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out[:, 0:sentinel] = np.sin(enc[:, 0::2]).astype(np.float32)
    out[:, sentinel:] = np.cos(enc[:, 1::2]).astype(np.float32)
    return out


def _linear(state: StateDict, name: str) -> Linear:
    weight = state.need(f"{name}.weight")  # torch's [out, in]
    bias = state.get(f"{name}.bias")
    return Linear(np.ascontiguousarray(weight.T), bias if bias is not None else np.zeros(len(weight), np.float32))


def _norm(state: StateDict, name: str, eps: float = 1e-5) -> Norm:
    return Norm(state.need(f"{name}.weight"), state.need(f"{name}.bias"), eps)


def encoder_dims(config: dict[str, Any]) -> Dims:
    d_model = int(config["d_model"])
    decoder = read_dims(config)
    return dataclasses.replace(
        decoder,
        heads=int(config["encoder_attention_heads"]),
        layers=int(config["encoder_layers"]),
        ffn=int(config["encoder_ffn_dim"]),
        embed_scale=math.sqrt(d_model) if config.get("scale_embedding") else 1.0,
    )


def read_weights(state: StateDict, config: dict[str, Any]) -> tuple[MarianEncoderWeights, MarianDecoderWeights]:
    """The encoder's and the decoder's weights, shapes checked against config.json."""
    dec, enc = read_dims(config), encoder_dims(config)
    shared = state.need("model.shared.weight", "model.decoder.embed_tokens.weight", "model.encoder.embed_tokens.weight")
    if shared.shape != (dec.vocab, dec.d_model):
        raise ConversionRefused(f"the token table is {shared.shape}, config.json says ({dec.vocab}, {dec.d_model})")
    positions = int(config.get("max_position_embeddings", 512))
    table = sinusoids(positions, dec.d_model)
    enc_pos = state.get("model.encoder.embed_positions.weight")
    dec_pos = state.get("model.decoder.embed_positions.weight")
    enc_layers = tuple(
        EncoderLayer(
            _linear(state, f"model.encoder.layers.{i}.self_attn.q_proj"),
            _linear(state, f"model.encoder.layers.{i}.self_attn.k_proj"),
            _linear(state, f"model.encoder.layers.{i}.self_attn.v_proj"),
            _linear(state, f"model.encoder.layers.{i}.self_attn.out_proj"),
            _norm(state, f"model.encoder.layers.{i}.self_attn_layer_norm"),
            _linear(state, f"model.encoder.layers.{i}.fc1"),
            _linear(state, f"model.encoder.layers.{i}.fc2"),
            _norm(state, f"model.encoder.layers.{i}.final_layer_norm"),
        )
        for i in range(enc.layers)
    )
    dec_layers = tuple(_decoder_layer(state, i) for i in range(dec.layers))
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


def _decoder_layer(state: StateDict, i: int) -> DecoderLayer:
    p = f"model.decoder.layers.{i}"
    return DecoderLayer(
        _linear(state, f"{p}.self_attn.q_proj"),
        _linear(state, f"{p}.self_attn.k_proj"),
        _linear(state, f"{p}.self_attn.v_proj"),
        _linear(state, f"{p}.self_attn.out_proj"),
        _norm(state, f"{p}.self_attn_layer_norm"),
        _linear(state, f"{p}.encoder_attn.q_proj"),
        _linear(state, f"{p}.encoder_attn.k_proj"),
        _linear(state, f"{p}.encoder_attn.v_proj"),
        _linear(state, f"{p}.encoder_attn.out_proj"),
        _norm(state, f"{p}.encoder_attn_layer_norm"),
        _linear(state, f"{p}.fc1"),
        _linear(state, f"{p}.fc2"),
        _norm(state, f"{p}.final_layer_norm"),
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
            fc1, fc2 = layer.fc1.weight.shape, layer.fc2.weight.shape
            if fc1 != (d, dims.ffn) or fc2 != (dims.ffn, d):
                wrong.append(f"{side}.layers.{i}.fc1/fc2 {fc1}/{fc2}")
    if decoder.lm_head.shape != (d, dec.vocab):
        wrong.append(f"lm_head {decoder.lm_head.T.shape}")
    if wrong:
        raise ConversionRefused(f"{WEIGHTS} does not match config.json: " + ", ".join(wrong))


def build_encoder(weights: MarianEncoderWeights, dims: Dims, int8: bool) -> Any:
    """input_ids, attention_mask -> last_hidden_state: the post-norm Marian encoder (eager attention)."""
    b = GraphBuilder(int8)
    tp = b.onnx.TensorProto
    h, hd, d = dims.heads, dims.head_dim, dims.d_model
    scaling = b.const(np.float32(hd**-0.5))
    x = b.op(
        "Mul", [b.gather_rows(weights.embed_tokens, "input_ids", "embed_tokens"), b.const(np.float32(dims.embed_scale))]
    )
    length = b.op("Gather", [b.op("Shape", ["input_ids"]), b.const(np.int64(1))])
    ids = b.op("Range", [b.const(np.int64(0)), length, b.const(np.int64(1))])
    x = b.op("Add", [x, b.gather_rows(weights.embed_positions, ids, "embed_positions")])
    padding = b.op("Sub", [b.const(np.float32(1.0)), b.op("Cast", ["attention_mask"], to=tp.FLOAT)])
    mask = b.op(
        "Reshape", [b.op("Mul", [padding, b.const(np.float32(FLOOR))]), b.const(np.array([0, 1, 1, -1], np.int64))]
    )
    heads = b.const(np.array([0, -1, h, hd], np.int64))
    flat = b.const(np.array([0, -1, d], np.int64))
    for i, layer in enumerate(weights.layers):
        p = f"layers.{i}"
        q, k, v = (
            b.op("Transpose", [b.op("Reshape", [b.linear(x, lin, f"{p}.self_attn.{n}"), heads])], perm=perm)
            for lin, n, perm in (
                (layer.q, "q_proj", [0, 2, 1, 3]),
                (layer.k, "k_proj", [0, 2, 3, 1]),
                (layer.v, "v_proj", [0, 2, 1, 3]),
            )
        )
        scores = b.op("Add", [b.op("Mul", [b.op("MatMul", [q, k]), scaling]), mask])
        ctx = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v])
        ctx = b.op("Reshape", [b.op("Transpose", [ctx], perm=[0, 2, 1, 3]), flat])
        x = b.layer_norm(
            b.op("Add", [x, b.linear(ctx, layer.out, f"{p}.self_attn.out_proj")]),
            layer.attn_norm,
            f"{p}.self_attn_layer_norm",
        )
        hidden = _activation(b, b.linear(x, layer.fc1, f"{p}.fc1"), dims.activation)
        x = b.layer_norm(
            b.op("Add", [x, b.linear(hidden, layer.fc2, f"{p}.fc2")]), layer.final_norm, f"{p}.final_layer_norm"
        )
    b.nodes.append(b.onnx.helper.make_node("Identity", [x], ["last_hidden_state"]))
    return b.model(
        "encoder",
        [
            _io("input_ids", tp.INT64, ["batch_size", "sequence_length"]),
            _io("attention_mask", tp.INT64, ["batch_size", "sequence_length"]),
        ],
        [_io("last_hidden_state", tp.FLOAT, ["batch_size", "sequence_length", d])],
    )


def write_graphs(folder: Path, out: Path, progress: Progress | None = None) -> dict[str, dict[str, str]]:
    """Read the checkpoint in ``folder`` and write the fp32 and int8 step-layout graphs into ``out``;
    returns variant -> role -> file name. Each graph is written (its weights in a ``.data`` file)
    before the next is built, so the peak is the weights once plus one graph."""
    say = progress or (lambda _text: None)
    config = check_folder(folder)
    say("reading the weights")
    encoder, decoder = read_weights(StateDict(folder), config)
    enc_dims, dec_dims = encoder_dims(config), read_dims(config)
    out.mkdir(parents=True, exist_ok=True)
    for variant, int8 in (("fp32", False), ("int8", True)):
        names = FILES[variant]
        say(f"writing the {variant} encoder")
        save_mapped(build_encoder(encoder, enc_dims, int8), out / names["encoder"])
        say(f"writing the {variant} cross-attention keys and values")
        save_mapped(build_cross_kv(decoder, dec_dims, int8), out / names["cross_kv"])
        say(f"writing the {variant} decoder step")
        save_mapped(build_decoder_step(decoder, dec_dims, int8), out / names["decoder_step"])
    return {variant: dict(names) for variant, names in FILES.items()}


def install_checkpoint(folder: Path, staging: Path, progress: Progress | None = None) -> dict[str, Any]:
    """Build the model of the checkpoint ``folder`` into ``staging`` (its config, tokenizer and
    generation files copied, the graphs under ``converted/``, a manifest with every file's sha256);
    returns the manifest. ``staging`` may be ``folder`` itself (a downloaded checkpoint).
    ConversionRefused (nothing useful left in ``staging``) when it cannot."""
    started = time.perf_counter()
    folder = Path(folder)
    config = check_folder(folder)
    staging.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "generation_config.json", "tokenizer_config.json", *TOKENIZER):
        if (folder / name).is_file() and folder.resolve() != staging.resolve():
            shutil.copy2(folder / name, staging / name)
    made = write_graphs(folder, staging / CONVERTED_DIR, progress)
    source_lang, target_lang = mf.language_pair(folder, None, config)
    manifest: dict[str, Any] = {
        "format": "desktop-mt-model",
        "format_version": mf.FORMAT_VERSION,
        "name": staging.name,
        "architecture": "marian",
        "source_lang": source_lang,
        "target_lang": target_lang,
        "tokenizer": mf.marian_tokenizer_spec(int(config.get("eos_token_id", 0))),
        "variants": {
            variant: {"files": {role: _file_entry(staging, f"{CONVERTED_DIR}/{name}") for role, name in roles.items()}}
            for variant, roles in made.items()
        },
        "target_tokens": list(vocab_target_tokens(staging / "vocab.json")),
        "int8": {
            "kind": mf.INT8_PER_ROW,
            "weights": "int8 symmetric per output column in [-63, 63]; embeddings int8 per row",
            "weight_max": 63,
            "activations": "uint8 symmetric (zero point 128), one scale per row",
        },
        "converted": {
            "by": "desktop_mt.models.checkpoint",
            "layout": "step",
            "from": WEIGHTS,
            "seconds": round(time.perf_counter() - started, 1),
        },
    }
    mf.write_manifest(staging, manifest)
    return manifest
