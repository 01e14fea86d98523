#!/usr/bin/env python3
"""Segments per second of file translation: batched vs one-by-one, side by side.

    python benchmarks/batch_throughput.py                  # bundled model, 2,000 lines
    python benchmarks/batch_throughput.py --model DIR --lines 500 --batch-sizes 32 1

Builds a realistic English text file from distinct English sentences of the Tatoeba pairs
(a fixed random sample, so every run translates the same file), then translates it with
:func:`desktop_mt.batch.translate_file` (the path ``desktop-mt translate`` takes) once per
batch size, with one Translator loaded per run (load time is not counted). Prints segments
per second, the speed-up over the last batch size given (default: 32 vs 1), and how many
output lines differ between the runs (batching must not change the translation).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without relying on the installed copy
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "tatoeba-cmn-eng.tsv"


def make_text(data: Path, lines: int, seed: int = 2024) -> list[str]:
    """``lines`` distinct English sentences (3+ words: real prose, not "Hi."), fixed sample."""
    from run import tatoeba_english  # the harness's own reader (this folder)

    pool = tatoeba_english(data)
    if len(pool) < lines:
        raise SystemExit(f"{data} has only {len(pool)} usable sentences")
    return random.Random(seed).sample(pool, lines)


def run(
    model: str | None, variant: str, batch_size: int, threads: int, src: Path, out: Path, beams: int | None = None
) -> dict:
    """Translate ``src`` with one batch size; returns the figures."""
    from desktop_mt import GenerationOptions, SessionOptions, Translator
    from desktop_mt.batch import translate_file

    translator = Translator(
        model_dir=model,
        variant=variant,
        session_options=SessionOptions(intra_op_threads=threads),
        options=GenerationOptions(beams=beams),
        batch_size=batch_size,
    )
    total = [0]
    started = time.perf_counter()
    translate_file(src, out, translator, progress=lambda done, n: total.__setitem__(0, n))
    seconds = time.perf_counter() - started
    translator.close()
    return {
        "batch_size": batch_size,
        "segments": total[0],
        "seconds": round(seconds, 2),
        "segments_per_second": round(total[0] / seconds, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="model directory (default: the bundled model)")
    parser.add_argument("--variant", default="int8", choices=("int8", "fp32"))
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[32, 1])
    parser.add_argument("--threads", type=int, default=0, help="intra-op threads (0 = auto)")
    parser.add_argument("--beams", type=int, help="beam size (default: the model's)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "english.txt"
        src.write_text("\n".join(make_text(args.data, args.lines)) + "\n", encoding="utf-8")
        results, outputs = [], []
        for size in args.batch_sizes:
            out = Path(tmp) / f"out-{size}.txt"
            results.append(run(args.model, args.variant, size, args.threads, src, out, args.beams))
            outputs.append(out.read_text(encoding="utf-8").splitlines())
            print(
                f"batch size {size:>3}: {results[-1]['segments']} segments in "
                f"{results[-1]['seconds']:.1f} s = {results[-1]['segments_per_second']:.2f} "
                f"segments/s",
                flush=True,
            )
    base = results[-1]["segments_per_second"]
    for result, lines in zip(results, outputs):
        result["speedup_vs_last"] = round(result["segments_per_second"] / base, 2) if base else None
        result["lines_differing_from_last"] = sum(a != b for a, b in zip(lines, outputs[-1]))
    print(f"\n{'batch size':>10} {'segments/s':>11} {'speed-up':>9} {'lines differing':>16}")
    for r in results:
        print(
            f"{r['batch_size']:>10} {r['segments_per_second']:>11.2f} "
            f"{r['speedup_vs_last']:>8.2f}x {r['lines_differing_from_last']:>16}"
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "lines": args.lines,
                    "variant": args.variant,
                    "beams": args.beams,
                    "model": args.model or "bundled",
                    "runs": results,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
