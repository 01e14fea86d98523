"""The KV-buffer decoder layout: one decoder-step graph that reads a preallocated self cache.

Optimum's ``decoder_with_past`` concatenates the past self-attention keys/values with the new
ones inside the graph and returns the grown cache: every step copies the whole cache (at batch
32 x 4 beams that Concat was 23% of a step) and allocates it anew. Here the caller owns one
buffer per layer, ``[rows, heads, capacity, head_dim]``, and the graph

- attends over the buffer's first ``past_length`` positions (the rest is masked) plus the new
  position, as two score blocks joined before one softmax, so nothing is concatenated;
- attends over each input's cross K/V once for all its beams (cross K/V and the encoder mask
  are per input: ``[items, ...]``; the rows are the inputs' beams in order);
- returns only the new position's keys/values (``new.{i}.decoder.{key,value}``,
  ``[rows, heads, 1, head_dim]``), which the caller writes into the buffer at ``past_length``.

The first step runs the same graph with ``past_length`` 0. Cross-attention keys/values come
from ``cross_kv_model.onnx`` (encoder hidden states -> ``present.{i}.encoder.{key,value}``),
once per input. Every weight is in exactly one graph, so it is loaded once.

None of the three graphs (the encoder included) is traced from torch: the model's weights are
read from its state dict by transformers' names and the graphs written by
``desktop_mt.models.convert`` (``blocks``, ``graphs``), the one definition of this layout's
maths, which the app also uses for downloaded models and checkpoints. Written for Marian
(post-layer-norm, sinusoidal positions, ``final_logits_bias``); the maths is transformers' eager
attention, so outputs match ``generate()`` (validated on export against the torch model). Step
exports made before the encoder was built here have a traced encoder (the bundled demo models):
``export_tools.recover`` still reads those.
"""

from __future__ import annotations

from pathlib import Path

import onnx

from desktop_mt.models.convert import find_checkpoint, graphs, spec

MIN_OPSET = 17  # LayerNormalization


def step_supported(model) -> bool:
    """Marian only: other families keep the Optimum layout."""
    return model.config.model_type == "marian"


STEP_ROLES = ("encoder", "cross_kv", "decoder_step")


def model_weights(model) -> tuple[spec.MarianEncoderWeights, spec.MarianDecoderWeights]:
    """The encoder's and decoder's weights of a torch Marian, as numpy (``ConversionRefused`` for a
    configuration the step graphs do not compute: pre-norm, separate vocabularies...)."""
    config = model.config.to_dict()
    find_checkpoint.check_config(config)
    state = find_checkpoint.ArrayDict({k: v.detach().cpu().float().numpy() for k, v in model.state_dict().items()})
    return find_checkpoint.read_weights(state, config)


def export_step_graphs(model, out: Path, opset: int, file_names: dict, roles: tuple[str, ...] = STEP_ROLES) -> dict:
    """Write ``roles`` of the step layout (by default all three: encoder, cross_kv, decoder_step)
    as fp32 ONNX files in ``out``; returns role -> path."""
    if opset < MIN_OPSET:
        raise ValueError(f"the step layout needs opset {MIN_OPSET} or later (LayerNormalization), not {opset}")
    encoder, decoder = model_weights(model)
    config = model.config.to_dict()
    enc_dims, dec_dims = spec.encoder_dims(config), spec.read_dims(config)
    build = {
        "encoder": lambda: graphs.build_encoder(encoder, enc_dims, int8=False, opset=opset),
        "cross_kv": lambda: graphs.build_cross_kv(decoder, dec_dims, int8=False, opset=opset),
        "decoder_step": lambda: graphs.build_decoder_step(decoder, dec_dims, int8=False, opset=opset),
    }
    paths = {}
    for role in roles:  # one graph at a time: the peak is the weights once plus one graph
        paths[role] = out / file_names[role]
        onnx.save(build[role](), str(paths[role]))
    return paths
