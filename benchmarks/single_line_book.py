#!/usr/bin/env python3
"""A book on one line: seconds and peak RSS of ``desktop-mt translate`` by size, one line vs
the same text one sentence per line, side by side in one run.

    python benchmarks/single_line_book.py                         # 1, 10, 50 MB
    python benchmarks/single_line_book.py --sizes 1 10 --distinct 400 --json out.json

The text: ``--distinct`` distinct English Tatoeba sentences (a fixed sample) repeated in a
fixed shuffled order up to each size, written (a) as ONE line, as a book exported without
line breaks, and (b) one sentence per line. Each file is translated by the CLI's own code
(``desktop_mt.cli.main.main(["translate", ...])``) in a fresh process with the bundled model, so
the figures include model load, decoding, segmentation, planning, de-duplication, the
journal and the output; the model translates each distinct sentence once, which keeps a
50 MB run within minutes on a laptop while every other stage sees the full size. Peak RSS
is that process's own (``ru_maxrss``).

``--plan-only`` also times the engine's planning of the whole one-line text
(``segment.plan_text`` with the model's tokenizer, the path the window's translate box
takes), with no decoding.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "tatoeba-cmn-eng.tsv"
MB = 1_000_000


def make_sentences(data: Path, distinct: int, total_chars: int, seed: int = 2024) -> list[str]:
    """Sentences adding up to ``total_chars`` (with one space each), from ``distinct`` ones."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from run import tatoeba_english

    pool = random.Random(seed).sample(tatoeba_english(data), distinct)
    rng, out, size = random.Random(seed + 1), [], 0
    while size < total_chars:
        order = pool[:]
        rng.shuffle(order)
        for sentence in order:
            out.append(sentence)
            size += len(sentence) + 1
            if size >= total_chars:
                break
    return out


def child(mode: str, src: Path, out: Path) -> dict:
    """In the measuring process: one translation (or one plan), its seconds and peak RSS."""
    started = time.perf_counter()
    if mode == "plan":
        from desktop_mt import Translator

        translator = Translator()
        text = src.read_text("utf-8")
        loaded = time.perf_counter()
        plan = translator.text.plan(text, translator.options)  # the engine's planning, no decoding
        seconds = time.perf_counter() - loaded
        extra = {"plan_items": len(plan)}
    else:
        from desktop_mt.cli import main as cli

        code = cli.main(["translate", str(src), "-o", str(out)])
        if code:
            raise SystemExit(f"translate failed with exit code {code}")
        seconds = time.perf_counter() - started
        extra = {}
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    return {"mode": mode, "seconds": round(seconds, 2), "peak_rss_mb": round(peak_mb), **extra}


def measure(mode: str, src: Path, out: Path) -> dict:
    """Run :func:`child` in a fresh interpreter, so the peak RSS is this run's alone."""
    proc = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(src), str(out)], capture_output=True, text=True, check=False
    )
    if proc.returncode:
        raise SystemExit(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 10, 50], help="sizes in MB")
    parser.add_argument("--distinct", type=int, default=400, help="distinct sentences in the text")
    parser.add_argument("--plan-only", action="store_true", help="also time the engine's plan of the line")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "SRC", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, src, out = args.child
        print(json.dumps(child(mode, Path(src), Path(out))))
        return 0

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            sentences = make_sentences(args.data, args.distinct, int(size * MB))
            row: dict = {"mb": size, "sentences": len(sentences)}
            for layout, sep in (("one_line", " "), ("lines", "\n")):
                src = Path(tmp) / f"{layout}.txt"
                src.write_text(sep.join(sentences) + "\n", "utf-8")
                row[layout] = measure("translate", src, Path(tmp) / f"{layout}.zh.txt")
            if args.plan_only:
                row["plan_one_line"] = measure("plan", Path(tmp) / "one_line.txt", Path(tmp) / "x")
            row["one_line_vs_lines"] = round(row["one_line"]["seconds"] / row["lines"]["seconds"], 2)
            results.append(row)
            print(json.dumps(row), flush=True)
    print(
        f"\n{'MB':>5} {'sentences':>10} {'one line s':>11} {'RSS MB':>7} {'lines s':>8} {'RSS MB':>7} "
        f"{'ratio':>6}" + (f" {'plan s':>7} {'RSS MB':>7}" if args.plan_only else "")
    )
    for r in results:
        line = (
            f"{r['mb']:>5g} {r['sentences']:>10} {r['one_line']['seconds']:>11.1f} "
            f"{r['one_line']['peak_rss_mb']:>7} {r['lines']['seconds']:>8.1f} {r['lines']['peak_rss_mb']:>7} "
            f"{r['one_line_vs_lines']:>6.2f}"
        )
        if args.plan_only:
            line += f" {r['plan_one_line']['seconds']:>7.1f} {r['plan_one_line']['peak_rss_mb']:>7}"
        print(line)
    if args.json:
        args.json.write_text(json.dumps({"distinct": args.distinct, "runs": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
