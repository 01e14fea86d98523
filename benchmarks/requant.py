#!/usr/bin/env python3
"""Which files should the catalog download (issue 32)? fp32 (then ``models.convert``) or the
published int8 re-quantized per row? Token agreement with fp32, conversion time, disk.

    python benchmarks/requant.py DOWNLOAD_DIR [--lines 400] [--beam-lines 100] [--out FILE.json]

DOWNLOAD_DIR: a Marian in the transformers.js layout with fp32 and ORT dynamic int8 files (what
the Hub serves), e.g. the bundled model's recovered checkpoint exported with
``export(..., layout="merged", int8_kind="dynamic")``. Four models on the first N English lines
of ``tests/data/tatoeba-sample.tsv`` (greedy, batches of 16; beam 4 on the first M):

- ``fp32``: the download's fp32 graphs (the reference);
- ``int8-as-shipped``: its dynamic int8 graphs (batch-dependent);
- ``convert-from-fp32``: ``models.convert`` (step layout, per-row int8 from the fp32 weights);
- ``requant-from-int8``: the same layout and int8 kind built from the published int8 weights
  (dequantized, then quantized per column again: every weight rounded twice).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "tests" / "data" / "tatoeba-sample.tsv"


def folder_bytes(paths: list[Path]) -> int:
    return sum(
        p.stat().st_size
        + (p.with_name(p.name + ".data").stat().st_size if p.with_name(p.name + ".data").exists() else 0)
        for p in paths
    )


def build_requant(download: Path, converted: Path, out: Path) -> float:
    """``converted`` with its int8 files rebuilt from the download's int8 graphs; returns seconds."""
    import onnx

    from desktop_mt.engine import model_format as mf
    from desktop_mt.models import convert as cv

    started = time.perf_counter()
    shutil.copytree(converted, out)
    info = mf.inspect_model_dir(download)
    dims = cv.read_dims(info.config)
    int8 = info.files["int8"]
    decoder = int8.get("decoder_merged") or int8["decoder"]
    weights = cv.find_decoder_weights(cv.GraphConstants(onnx.load(str(decoder))), dims)
    target = out / cv.CONVERTED_DIR
    cv.save_mapped(cv.build_cross_kv(weights, dims, int8=True), target / cv.INT8_FILES["cross_kv"])
    cv.save_mapped(cv.build_decoder_step(weights, dims, int8=True), target / cv.INT8_FILES["decoder_step"])
    encoder = cv.quantize_encoder(cv.dequantize_graph(onnx.load(str(int8["encoder"]))))
    cv.save_mapped(encoder, target / cv.INT8_FILES["encoder"])
    manifest = mf.read_json(out / mf.MANIFEST)
    for spec in manifest["variants"]["int8"]["files"].values():
        spec.pop("sha256", None)
        spec.pop("bytes", None)
    mf.write_manifest(out, manifest)
    return time.perf_counter() - started


def main() -> int:
    from desktop_mt import GenerationOptions, Translator
    from desktop_mt.models.convert import convert_model_dir

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("download", type=Path)
    ap.add_argument("--lines", type=int, default=400)
    ap.add_argument("--beam-lines", type=int, default=100)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    lines = [ln.split("\t")[0] for ln in SAMPLE.read_text(encoding="utf-8").splitlines() if ln.strip()][: args.lines]
    work = Path(tempfile.mkdtemp(prefix="dmt-requant-"))
    converted = work / "converted"
    shutil.copytree(args.download, converted)
    t0 = time.perf_counter()
    convert_model_dir(converted)
    convert_s = time.perf_counter() - t0
    requant_s = build_requant(args.download, converted, work / "requant")
    models = {
        "fp32": (args.download, "fp32"),
        "int8-as-shipped": (args.download, "int8"),
        "convert-from-fp32": (converted, "int8"),
        "requant-from-int8": (work / "requant", "int8"),
    }
    no_bound = dict(max_length_ratio=0, repetition_guard=False, chinese_punctuation=False)
    out: dict[str, Any] = {"lines": len(lines), "beam_lines": args.beam_lines, "models": {}}
    ref: dict[int, list[list[int]]] = {}
    for name, (folder, variant) in models.items():
        t = Translator(folder, variant=variant, batch_size=16)
        row: dict[str, Any] = {}
        for beams, subset in ((1, lines), (4, lines[: args.beam_lines])):
            ids: list[list[int]] = []
            for i in range(0, len(subset), 16):
                ids += t.generate_ids(subset[i : i + 16], GenerationOptions(beams=beams, **no_bound))
            if name == "fp32":
                ref[beams] = ids
            row[f"beam{beams}_same_as_fp32"] = round(
                sum(a == b for a, b in zip(ids, ref[beams], strict=True)) / len(ids), 4
            )
        files = list(t.model_info.files[variant].values())
        row["bytes"] = folder_bytes(files)
        out["models"][name] = row
        print(name, json.dumps(row), flush=True)
    out["convert_from_fp32_s"] = round(convert_s, 1)
    out["requant_from_int8_s"] = round(requant_s, 1)
    print(json.dumps(out, indent=1))
    if args.out:
        args.out.write_text(json.dumps(out, indent=1))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
