"""Export a HuggingFace seq2seq checkpoint to a desktop-mt model directory (ONNX fp32 + int8).

    python -m export_tools export SRC OUT_DIR [--no-int8] [--opset N] [--samples FILE]

Files and tensor names follow the Optimum convention (``encoder_model.onnx``,
``decoder_model.onnx``, ``decoder_with_past_model.onnx``, ``*_quantized.onnx``), so the
runtime loads Optimum and transformers.js directories too.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from desktop_mt.base.errors import UnsupportedModelError
from desktop_mt.engine import model_format as mf

from .graphs import DecoderGraph, DecoderWithPastGraph, EncoderGraph, past_names
from .quantize import quantize_file

SUPPORTED = mf.SUPPORTED_ARCHITECTURES  # one list: what the runtime can load is what we export
DEFAULT_SAMPLES = [
    "I love you.",
    "Where is the train station?",
    "Tom doesn't know what he should do now, but he will ask his teacher tomorrow morning.",
    "It's raining.",
    "Can you help me carry these boxes upstairs?",
]
# For a model that reads Chinese (a zh->en export): the same kinds of sentence, short to long.
DEFAULT_SAMPLES_ZH = [
    "我爱你。",
    "火车站在哪里？",
    "汤姆现在不知道该做什么，但他明天早上会问他的老师。",
    "下雨了。",
    "你能帮我把这些箱子搬到楼上吗？",
]
TOKENIZER_FILES = (
    "source.spm",
    "target.spm",
    "vocab.json",
    "target_vocab.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "sentencepiece.bpe.model",
    "spm.model",
    "tokenizer.json",
)


def load_checkpoint(src: str):
    """Load model + tokenizer with ``from_pretrained`` (a Hub id or a local directory)."""
    from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoTokenizer

    config = AutoConfig.from_pretrained(src)
    if config.model_type not in SUPPORTED:
        raise UnsupportedModelError(
            f"{src}: architecture {config.model_type!r} is not supported; supported: {', '.join(SUPPORTED)}"
        )
    model = AutoModelForSeq2SeqLM.from_pretrained(src, attn_implementation="eager")
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(src)
    return model, tokenizer


def dummy_inputs(model, batch: int = 2, src_len: int = 5, past_len: int = 3):
    """Trace-time inputs with a padded row, so the attention-mask branch is traced, not skipped."""
    import torch

    cfg = model.config
    ids = torch.randint(4, min(cfg.vocab_size, 100), (batch, src_len))
    mask = torch.ones((batch, src_len), dtype=torch.long)
    mask[1, -2:] = 0
    heads = cfg.decoder_attention_heads
    head_dim = cfg.d_model // heads
    past = []
    for _ in range(cfg.decoder_layers):
        past += [
            torch.randn(batch, heads, past_len, head_dim),
            torch.randn(batch, heads, past_len, head_dim),
            torch.randn(batch, heads, src_len, head_dim),
            torch.randn(batch, heads, src_len, head_dim),
        ]
    return ids, mask, past


def export_graphs(model, out: Path, opset: int, layout: str = "split") -> dict[str, Path]:
    """Write the fp32 ONNX graphs of ``layout`` to ``out``; returns role -> path.

    ``split`` (and ``merged``, merged later): Optimum's encoder, decoder and decoder_with_past,
    traced from torch (any supported family); ``step`` (Marian): encoder, cross_kv and
    decoder_step built from ``desktop_mt.models.convert``'s blocks, nothing traced
    (``export_tools.step_graphs``); ``encoder-only``: the traced encoder alone, as step exports
    made before their encoder was built from blocks have it (``export_tools.recover`` reads those).
    """
    import torch

    if layout == "step":
        from .step_graphs import export_step_graphs

        return export_step_graphs(model, out, opset, mf.FILE_NAMES)

    n = model.config.decoder_layers
    ids, mask, past = dummy_inputs(model)
    hidden = torch.randn(ids.shape[0], ids.shape[1], model.config.d_model)
    dec_ids = torch.full((ids.shape[0], 1), model.config.decoder_start_token_id)
    b, s, t, p = "batch_size", "encoder_sequence_length", "decoder_sequence_length", "past_decoder_sequence_length"
    kv_axes = {}
    for name in past_names(n, "present"):
        kv_axes[name] = {0: b, 2: s if ".encoder." in name else t}
    paths = {
        "encoder": out / mf.FILE_NAMES["encoder"],
        "decoder": out / mf.FILE_NAMES["decoder"],
        "decoder_with_past": out / mf.FILE_NAMES["decoder_with_past"],
    }
    with torch.no_grad():
        torch.onnx.export(
            EncoderGraph(model).eval(),
            (ids, mask),
            str(paths["encoder"]),
            input_names=["input_ids", "attention_mask"],
            output_names=["last_hidden_state"],
            opset_version=opset,
            dynamo=False,
            dynamic_axes={"input_ids": {0: b, 1: s}, "attention_mask": {0: b, 1: s}, "last_hidden_state": {0: b, 1: s}},
        )
    if layout == "encoder-only":
        return {"encoder": paths["encoder"]}
    with torch.no_grad():
        torch.onnx.export(
            DecoderGraph(model).eval(),
            (dec_ids, mask, hidden),
            str(paths["decoder"]),
            input_names=["input_ids", "encoder_attention_mask", "encoder_hidden_states"],
            output_names=["logits", *past_names(n, "present")],
            opset_version=opset,
            dynamo=False,
            dynamic_axes={
                "input_ids": {0: b, 1: t},
                "encoder_attention_mask": {0: b, 1: s},
                "encoder_hidden_states": {0: b, 1: s},
                "logits": {0: b, 1: t},
                **kv_axes,
            },
        )
        with_past_in = {
            name.replace("present", "past_key_values"): {0: b, 2: s if ".encoder." in name else p}
            for name in past_names(n, "present")
        }
        with_past_out = {
            k: {0: b, 2: "past_decoder_sequence_length + 1"} for k in past_names(n, "present", with_encoder=False)
        }
        torch.onnx.export(
            DecoderWithPastGraph(model).eval(),
            (dec_ids, mask, *past),
            str(paths["decoder_with_past"]),
            input_names=["input_ids", "encoder_attention_mask", *with_past_in],
            output_names=["logits", *with_past_out],
            opset_version=opset,
            dynamo=False,
            dynamic_axes={
                "input_ids": {0: b},
                "encoder_attention_mask": {0: b, 1: s},
                "logits": {0: b},
                **with_past_in,
                **with_past_out,
            },
        )
    model.eval()  # torch.onnx.export restores the wrappers' mode; never leave dropout on
    return paths


def retie_transposed_copies(path: Path) -> int:
    """Replace an initializer that is the transpose of another by a ``Transpose`` node.

    The TorchScript exporter folds the tied lm_head into its own pre-transposed copy of the
    embedding matrix: on disk that is a second [d_model x vocab] matrix. ONNX Runtime folds the
    Transpose back at load time, so the file shrinks and nothing else changes. Returns the
    number of bytes saved.
    """
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    by_shape: dict[tuple, list] = {}
    for init in graph.initializer:
        if len(init.dims) == 2 and init.dims[0] != init.dims[1]:
            by_shape.setdefault(tuple(init.dims), []).append(init)
    saved, drop = 0, []
    for shape, inits in by_shape.items():
        for copy in inits:
            for source in by_shape.get(shape[::-1], []):
                if source.name in drop or copy.name in drop:
                    continue
                if np.array_equal(numpy_helper.to_array(copy), numpy_helper.to_array(source).T):
                    graph.node.insert(0, helper.make_node("Transpose", [source.name], [copy.name], perm=[1, 0]))
                    drop.append(copy.name)
                    saved += copy.ByteSize()
    for init in [i for i in graph.initializer if i.name in drop]:
        graph.initializer.remove(init)
    if drop:
        onnx.save(model, str(path))
    return saved


def copy_tokenizer_files(src_dir: Path, out: Path) -> list[str]:
    copied = []
    for name in TOKENIZER_FILES:
        if (src_dir / name).exists():
            shutil.copy2(src_dir / name, out / name)
            copied.append(name)
    return copied


def merge_variant(staging: Path, roles: dict[str, str]) -> dict[str, str]:
    """Replace a variant's two decoder files by one merged decoder (half the decoder bytes)."""
    from .merge import merge_decoders

    first, past = staging / roles["decoder"], staging / roles["decoder_with_past"]
    merged = first.name.replace("decoder_model", "decoder_model_merged")
    merge_decoders(first, past, staging / merged)
    first.unlink()
    past.unlink()
    return {"encoder": roles["encoder"], "decoder_merged": merged}


LAYOUTS = ("split", "merged", "step")


def default_samples(tokenizer: Any) -> list[str]:
    """Validation sentences in the model's source language (Chinese for a zh->en model)."""
    source = str(getattr(tokenizer, "source_lang", None) or "")
    return DEFAULT_SAMPLES_ZH if source.startswith("zh") else DEFAULT_SAMPLES


def export(
    src: str,
    out_dir: str,
    int8: bool = True,
    opset: int = 17,
    samples: list[str] | None = None,
    validate: bool = True,
    tolerance: float = 1e-3,
    merge: bool = False,
    layout: str | None = None,
    int8_kind: str = mf.INT8_PER_ROW,
) -> dict:
    """Export ``src`` into ``out_dir``; returns the manifest. Raises on broken fp32 parity.

    ``int8_kind``: how the int8 variant is quantized (``export_tools.quantize.KINDS``): per-row
    activation scales (the default; output independent of the batch), weight-only
    ``MatMulNBits``, or ORT's ``dynamic`` (batch-dependent).

    ``layout``: ``split`` (Optimum's two decoder files, the default), ``merged`` (one
    ``decoder_model_merged*.onnx``; ``merge=True`` means the same) or ``step`` (Marian only:
    ``cross_kv`` + ``decoder_step`` over a caller-owned KV buffer, the fastest on CPU).
    """
    from . import validate as val
    from .step_graphs import step_supported

    layout = layout or ("merged" if merge else "split")
    if layout not in LAYOUTS:
        raise ValueError(f"layout {layout!r}: choose one of {', '.join(LAYOUTS)}")
    t0 = time.time()
    model, tokenizer = load_checkpoint(src)
    if layout == "step" and not step_supported(model):
        raise UnsupportedModelError(
            f"{src}: the step layout is written for Marian models, not "
            f"{model.config.model_type!r}; export it with --layout split or merged"
        )
    if model.config.model_type == "m2m_100" and getattr(tokenizer, "tgt_lang", None):
        # generate() gets the target language as forced_bos_token_id: keep it with the model.
        model.generation_config.forced_bos_token_id = tokenizer.get_lang_id(tokenizer.tgt_lang)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(out_dir) / ".export-tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    tokenizer.save_pretrained(str(staging))
    model.config.save_pretrained(str(staging))
    model.generation_config.save_pretrained(str(staging))
    paths = export_graphs(model, staging, opset, "step" if layout == "step" else "split")
    variants = {"fp32": {role: path.name for role, path in paths.items()}}
    int8_entry = None
    if int8:
        variants["int8"] = {}
        for role, path in paths.items():
            q = staging / mf.quantized_name(path.name)
            int8_entry = quantize_file(path, q, int8_kind)
            variants["int8"][role] = q.name
    if layout == "merged":
        variants = {v: merge_variant(staging, roles) for v, roles in variants.items()}
    for name in variants["fp32"].values():
        retie_transposed_copies(staging / name)
    # The manifest goes first (the runtime needs its tokenizer facts to validate), then the figures.
    manifest = mf.build_manifest(staging, model.config, tokenizer, variants, {}, exporter_versions())
    if int8_entry is not None:
        manifest["int8"] = int8_entry
    mf.write_manifest(staging, manifest)
    samples = samples or default_samples(tokenizer)
    report = val.validate_directory(model, tokenizer, staging, variants, samples) if validate else {}
    manifest["validation"] = report
    manifest["name"] = out.name
    manifest["export_seconds"] = round(time.time() - t0, 1)
    mf.write_manifest(staging, manifest)
    if validate:  # a broken export stays in the staging folder (for inspection), never in out
        val.raise_if_broken(report, tolerance, staging)
    for item in staging.iterdir():  # replace the old export only once the new one is complete
        target = out / item.name
        if target.exists():
            target.unlink()
        item.replace(target)
    staging.rmdir()
    return manifest


def exporter_versions() -> dict[str, str]:
    import onnx
    import onnxruntime
    import torch
    import transformers

    return {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "onnx": onnx.__version__,
        "onnxruntime": onnxruntime.__version__,
    }


def sizes(manifest: dict) -> dict[str, int]:
    """Bytes on disk per variant, as the manifest records them."""
    return {v: sum(f["bytes"] for f in entry["files"].values()) for v, entry in manifest["variants"].items()}


def print_summary(out: Path, manifest: dict) -> None:
    print(f"exported {manifest['architecture']} to {out} in {manifest['export_seconds']} s")
    sz = sizes(manifest)
    for variant, nbytes in sz.items():
        print(f"  {variant}: {nbytes / 1e6:.1f} MB")
    if "fp32" in sz and "int8" in sz:
        print(f"  int8/fp32 size ratio: {sz['int8'] / sz['fp32']:.3f}")
    print(json.dumps(manifest.get("validation", {}), indent=2))
