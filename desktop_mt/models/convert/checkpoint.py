"""A Marian checkpoint (``config.json`` + ``model.safetensors`` + tokenizer) installed without torch (issue 44).

The Hub holds 1,000+ OPUS-MT Marian checkpoints (Helsinki-NLP/opus-mt-*, opus-mt-tc-big-*) as
safetensors state dicts. Their weights are read by name (``find_checkpoint``) and the encoder,
cross-K/V and decoder-step graphs written from them (``graphs``), fp32 and per-row int8, as
``convert_model_dir`` writes them for a downloaded ONNX model.

A ``pytorch_model.bin`` is a pickle: it is never loaded (it can run code), and a folder that has
only that is refused with what to do instead. Configurations the step graphs do not compute
(pre-norm, other activations, separate source and target vocabularies, bfloat16 weights) are
refused by name.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...engine import model_format as mf
from ...engine.tokenizer import vocab_target_tokens
from .files import CONVERTED_DIR, FILES, INT8_ENTRY, file_entry, save_mapped
from .find_checkpoint import INDEX, WEIGHTS, StateDict, check_config, read_weights
from .graphs import build_cross_kv, build_decoder_step, build_encoder
from .spec import ConversionRefused, encoder_dims, read_dims

__all__ = [
    "Progress",
    "is_checkpoint",
    "install_checkpoint",
]

_PICKLES = ("pytorch_model.bin", "pytorch_model.bin.index.json")
_TOKENIZER = ("source.spm", "target.spm", "vocab.json")
Progress = Callable[[str], None]


def is_checkpoint(folder: Path) -> bool:
    """A folder with a transformers ``config.json`` and weights in a state dict, no ONNX files."""
    folder = Path(folder)
    has_weights = any((folder / name).is_file() for name in (WEIGHTS, INDEX, *_PICKLES))
    has_onnx = any(folder.glob("*.onnx")) or any(folder.glob("onnx/*.onnx"))
    return (folder / "config.json").is_file() and has_weights and not has_onnx


def _check_folder(folder: Path) -> dict[str, Any]:
    """config.json of a checkpoint folder this module converts; ConversionRefused saying why not."""
    folder = Path(folder)
    if not (folder / WEIGHTS).is_file() and not (folder / INDEX).is_file():
        if any((folder / name).is_file() for name in _PICKLES):
            raise ConversionRefused(
                f"{folder} has its weights only in pytorch_model.bin, a Python pickle, which desktop-mt never "
                f"loads (loading one can run any code); use a revision of the model that has {WEIGHTS} "
                "(most Hub repos have one), or export it with `python -m export_tools export` where torch is installed"
            )
        raise ConversionRefused(f"{folder} has no {WEIGHTS}")
    missing = [name for name in _TOKENIZER if not (folder / name).is_file()]
    if missing:
        raise ConversionRefused(f"{folder} lacks the Marian tokenizer files {', '.join(missing)}")
    config = mf.read_json(folder / "config.json")
    check_config(config)
    return config


def _write_graphs(folder: Path, out: Path, progress: Progress | None = None) -> dict[str, dict[str, str]]:
    """Read the checkpoint in ``folder`` and write the fp32 and int8 step-layout graphs into ``out``;
    returns variant -> role -> file name. Each graph is written (its weights in a ``.data`` file)
    before the next is built, so the peak is the weights once plus one graph."""
    say = progress or (lambda _text: None)
    config = _check_folder(folder)
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
    config = _check_folder(folder)
    staging.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "generation_config.json", "tokenizer_config.json", *_TOKENIZER):
        if (folder / name).is_file() and folder.resolve() != staging.resolve():
            shutil.copy2(folder / name, staging / name)
    made = _write_graphs(folder, staging / CONVERTED_DIR, progress)
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
            variant: {"files": {role: file_entry(staging, f"{CONVERTED_DIR}/{name}") for role, name in roles.items()}}
            for variant, roles in made.items()
        },
        "target_tokens": list(vocab_target_tokens(staging / "vocab.json")),
        "int8": dict(INT8_ENTRY),
        "converted": {
            "by": "desktop_mt.models.convert.checkpoint",
            "layout": "step",
            "from": WEIGHTS,
            "seconds": round(time.perf_counter() - started, 1),
        },
    }
    mf.write_manifest(staging, manifest)
    return manifest
