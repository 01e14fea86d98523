#!/usr/bin/env python3
"""Build the benchmark model (a): the opus-mt-en-zh architecture with random weights.

    python benchmarks/arch_model.py --work /tmp/dmt-bench      # -> hf/, onnx/, ct2/ under it

MarianConfig as opus-mt-en-zh (6+6 layers, d_model 512, 8 heads, FFN 2048, vocab 65001,
sinusoidal positions, scale_embedding, shared/tied embeddings, final_logits_bias, swish).
The tokenizer is a real SentencePiece pair trained on Tatoeba (so inputs have realistic
English token counts); its joint vocabulary is padded with filler pieces to 65,000 entries
plus ``<pad>`` = 65000, as in opus-mt. Weights are random (seeded): the model never wants to
stop by itself, and decoding is forced to a fixed length in every engine
(``min_length == max_length`` in generation_config, ``min/max_decoding_length`` in CTranslate2).

Each step is skipped when its output exists, so the large export runs once per work folder.
Nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VOCAB = 65001
PAD = VOCAB - 1
DECODE_TOKENS = 32  # generated tokens per sentence (the final one is the forced EOS)


def build_checkpoint(out: Path, seed: int = 0) -> Path:
    import torch
    from transformers import GenerationConfig, MarianConfig, MarianMTModel, MarianTokenizer

    from export_tools import train_demo as td

    if (out / "config.json").exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    pairs = td.read_pairs(td.DEFAULT_DATA)
    step = max(1, len(pairs) // 20000)
    train = [(en, zh) for en, zh, _ in pairs[::step]]
    cfg = td.TrainConfig(source_vocab=8000, target_vocab=8000, max_positions=512)
    td.write_tokenizer(out, train, cfg)
    vocab = json.loads((out / "vocab.json").read_text(encoding="utf-8"))
    vocab.pop("<pad>")
    i = 0
    while len(vocab) < PAD:
        vocab.setdefault(f"<filler_{i}>", len(vocab))
        i += 1
    vocab["<pad>"] = PAD
    (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    torch.manual_seed(seed)
    config = MarianConfig(
        vocab_size=VOCAB,
        d_model=512,
        encoder_layers=6,
        decoder_layers=6,
        encoder_attention_heads=8,
        decoder_attention_heads=8,
        encoder_ffn_dim=2048,
        decoder_ffn_dim=2048,
        max_position_embeddings=512,
        dropout=0.1,
        attention_dropout=0.0,
        activation_dropout=0.0,
        activation_function="swish",
        scale_embedding=True,
        pad_token_id=PAD,
        eos_token_id=0,
        decoder_start_token_id=PAD,
        forced_eos_token_id=0,
        share_encoder_decoder_embeddings=True,
        tie_word_embeddings=True,
    )
    model = MarianMTModel(config)
    with torch.no_grad():  # opus-mt has a non-zero bias; keep it in the graph honestly
        model.final_logits_bias.normal_(0.0, 0.1)
        model.final_logits_bias[0, PAD] = 0.0
    model.generation_config = GenerationConfig(
        decoder_start_token_id=PAD,
        eos_token_id=0,
        pad_token_id=PAD,
        forced_eos_token_id=0,
        bad_words_ids=[[PAD]],
        num_beams=4,
        max_length=DECODE_TOKENS + 1,
        min_length=DECODE_TOKENS + 1,
    )
    model.save_pretrained(str(out))
    tok = MarianTokenizer.from_pretrained(str(out))
    tok.save_pretrained(str(out))
    return out


def export_onnx(hf: Path, out: Path, layout: str = "step") -> Path:
    """``step`` is what we benchmark (our fastest layout); ``split`` (Optimum's) is a lever A/B."""
    from export_tools.export import export

    if (out / "desktop_mt.json").exists():
        return out
    export(str(hf), str(out), int8=True, layout=layout)
    return out


def convert_ct2(hf: Path, out: Path, quantization: str = "int8") -> Path:
    """CTranslate2's own converter, from the same checkpoint."""
    import ctranslate2

    if (out / "model.bin").exists():
        return out
    ctranslate2.converters.TransformersConverter(str(hf)).convert(str(out), quantization=quantization, force=True)
    return out


def external_copy(onnx_dir: Path, out: Path) -> Path:
    """The export with its weights moved to page-aligned external data (``export_tools.external_data``)."""
    from export_tools.external_data import convert_directory

    if (out / "desktop_mt.json").exists():
        return out
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(onnx_dir, tmp)
    convert_directory(tmp)
    tmp.rename(out)
    return out


def requantized_copy(onnx_dir: Path, out: Path, kind: str) -> Path:
    """The export with its int8 variant re-quantized as ``kind`` (``export_tools.quantize``)."""
    from export_tools.quantize import requantize_dir

    if (out / "desktop_mt.json").exists():
        return out
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(onnx_dir, tmp)
    requantize_dir(tmp, kind)
    tmp.rename(out)
    return out


def download_copy(hf: Path, out: Path) -> Path:
    """What a user downloads from the Hub for this model (transformers.js): the merged decoder
    with ORT's dynamic int8 (fp32 files beside it)."""
    from desktop_mt.engine import model_format as mf
    from export_tools.export import export

    if (out / "desktop_mt.json").exists():
        return out
    export(str(hf), str(out), int8=True, layout="merged", int8_kind=mf.INT8_DYNAMIC)
    return out


def converted_copy(download: Path, out: Path) -> Path:
    """The download after ``desktop_mt.models.convert`` (what the app installs, issue 32)."""
    from desktop_mt.models.convert import convert_model_dir

    if (out / "converted").is_dir():
        return out
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(download, tmp)
    convert_model_dir(tmp)
    tmp.rename(out)
    return out


def build_all(work: Path) -> dict[str, Path]:
    paths = {
        "hf": work / "hf",
        "onnx": work / "onnx-step",
        "ct2": work / "ct2",
        "onnx_ext": work / "onnx-step-ext",
        "onnx_split": work / "onnx",
        "onnx_split_ext": work / "onnx-ext",
        "onnx_dynamic": work / "onnx-step-dynamic",
        "onnx_dynamic_ext": work / "onnx-step-dynamic-ext",
        "onnx_nbits": work / "onnx-step-nbits",
        "onnx_nbits_ext": work / "onnx-step-nbits-ext",
        "onnx_download": work / "onnx-merged",
        "onnx_converted": work / "onnx-converted",
    }
    for name, fn in (
        ("hf", lambda: build_checkpoint(paths["hf"])),
        ("onnx", lambda: export_onnx(paths["hf"], paths["onnx"])),
        ("onnx_ext", lambda: external_copy(paths["onnx"], paths["onnx_ext"])),
        # The other int8 kinds, for the A/B rows: the old dynamic one and weight-only MatMulNBits.
        ("onnx_dynamic", lambda: requantized_copy(paths["onnx"], paths["onnx_dynamic"], "dynamic")),
        ("onnx_dynamic_ext", lambda: external_copy(paths["onnx_dynamic"], paths["onnx_dynamic_ext"])),
        ("onnx_nbits", lambda: requantized_copy(paths["onnx"], paths["onnx_nbits"], "weight-only-matmulnbits-8bit")),
        ("onnx_nbits_ext", lambda: external_copy(paths["onnx_nbits"], paths["onnx_nbits_ext"])),
        ("onnx_split", lambda: export_onnx(paths["hf"], paths["onnx_split"], layout="split")),
        ("onnx_split_ext", lambda: external_copy(paths["onnx_split"], paths["onnx_split_ext"])),
        ("ct2", lambda: convert_ct2(paths["hf"], paths["ct2"])),
        ("onnx_download", lambda: download_copy(paths["hf"], paths["onnx_download"])),
        ("onnx_converted", lambda: converted_copy(paths["onnx_download"], paths["onnx_converted"])),
    ):
        t0 = time.time()
        fn()
        print(f"{name}: {paths[name]} ({time.time() - t0:.0f} s)", file=sys.stderr)
    return paths


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", default="/tmp/dmt-bench/arch")
    ap.add_argument("--rebuild", action="store_true")
    args = ap.parse_args()
    work = Path(args.work)
    if args.rebuild:
        shutil.rmtree(work, ignore_errors=True)
    build_all(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
