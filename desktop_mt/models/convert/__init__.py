"""Marian models rebuilt in our decoder-step layout with per-row int8, without torch (issues 32, 44).

The step layout (``engine.runtime.StepDecoder``: cross K/V once per input, a KV buffer the caller
owns, only the new position returned) with per-row int8 (a sentence's tokens do not depend on its
batch neighbours), written with ``onnx`` and numpy only, in five steps, one module each:

1. **Find the weights** into :mod:`.spec`'s dataclasses (a Marian's sizes and its weights block by
   block): :mod:`.find_graph` from a downloaded fp32 decoder by graph structure, not by name (the
   exports of torch's legacy exporter, Optimum 1.x and 2.x, transformers.js and ours are read
   alike; a decoder that is not Marian's is refused naming the parts not found);
   :mod:`.find_checkpoint` from a safetensors state dict (or a torch model's, for
   ``export_tools``) by transformers' names. Shapes are checked against ``config.json``.
2. **Build per block** (:mod:`.blocks`: embeddings, attention, feed-forward, layer norm, on
   :mod:`.builder`'s fp32 or per-row int8 linear layers): the one definition of the maths,
   transformers' eager attention.
3. **Assemble** the encoder, cross-K/V and decoder-step graphs from the blocks (:mod:`.graphs`);
   ``export_tools.step_graphs`` writes its step layout, encoder included, with the same functions
   (nothing of it is traced from torch).
4. **Quantize** what is not rebuilt (:mod:`.quantize`: the downloaded encoder per row; ORT's
   dynamic int8 back to float for re-quantizing).
5. **Validate** (:mod:`.validate`): the fp32 step graph's teacher-forced logits must agree with
   the downloaded decoder's, the int8 tokens are compared and recorded; then :mod:`.model_dir`
   (a downloaded folder) or :mod:`.checkpoint` (a checkpoint) writes the manifest.

Only Marian (post-layer-norm, sinusoidal positions, ``final_logits_bias``) is converted; other
families keep their downloaded layout.
"""

from __future__ import annotations

from .files import CONVERTED_DIR, FILES, save_mapped
from .find_graph import find_decoder_weights
from .graphs import build_cross_kv, build_decoder_step, build_encoder
from .model_dir import Conversion, convert_model_dir, convertible, decoder_file
from .onnx_graph import GraphConstants, all_graphs
from .quantize import dequantize_graph, drop_dead, quantize_encoder
from .spec import ConversionRefused, Dims, MarianDecoderWeights, MarianEncoderWeights, read_dims

INT8_FILES = FILES["int8"]

__all__ = [
    "CONVERTED_DIR",
    "FILES",
    "INT8_FILES",
    "Conversion",
    "ConversionRefused",
    "Dims",
    "GraphConstants",
    "MarianDecoderWeights",
    "MarianEncoderWeights",
    "all_graphs",
    "build_cross_kv",
    "build_decoder_step",
    "build_encoder",
    "convert_model_dir",
    "convertible",
    "decoder_file",
    "dequantize_graph",
    "drop_dead",
    "find_decoder_weights",
    "quantize_encoder",
    "read_dims",
    "save_mapped",
]
