"""The process's shared ONNX Runtime pool against a pool per session, for ``translate_batch`` (issue 49).

Interleaved pairs of fresh processes (the pool is process-wide and cannot be undone), each
translating the same paste as the window benchmark (FLORES dev English, 5 sentences a
paragraph) with the bundled translator, ``--repeats`` times after a warm-up; prints each
process's seconds and the medians' ratio. The shared pool is what ``desktop-mt`` (``cli.entry``)
and the window use (``runtime.share_thread_pool``)::

    python benchmarks/pool_batch.py --pairs 3 --words 3000
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "flores200-dev.en-zh.tsv"


def paste(data: Path, words: int) -> list[str]:
    """The paste of benchmarks/window_user_paste.py: 5 FLORES sentences a paragraph, ``words`` words."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from window_user_paste import paste_text

    return paste_text(data, words)


def child(args: argparse.Namespace) -> None:
    """One process: the pool as asked, the paste through ``translate_batch``; JSON seconds out."""
    sys.path.insert(0, str(ROOT))
    from desktop_mt import Translator
    from desktop_mt.engine.runtime import share_thread_pool

    if args.mode == "shared":
        share_thread_pool(args.threads)
    paragraphs = paste(args.data, args.words)
    translator = Translator()
    translator.translate_batch(paragraphs[:2])  # warm up
    seconds = []
    for _ in range(args.repeats):
        began = time.perf_counter()
        translator.translate_batch(paragraphs)
        seconds.append(time.perf_counter() - began)
    print(json.dumps(seconds))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--words", type=int, default=3000)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="the shared pool's threads (0: ORT's choice)")
    ap.add_argument("--mode", choices=("shared", "own"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.mode:
        child(args)
        return
    runs: dict[str, list[float]] = {"own": [], "shared": []}
    for pair in range(args.pairs):
        for mode in ("own", "shared") if pair % 2 == 0 else ("shared", "own"):
            command = [sys.executable, __file__, "--mode", mode, "--data", str(args.data)]
            command += ["--words", str(args.words), "--repeats", str(args.repeats), "--threads", str(args.threads)]
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            seconds = json.loads(out.strip().splitlines()[-1])
            runs[mode].extend(seconds)
            print(f"pair {pair + 1} {mode:6}: " + ", ".join(f"{s:.2f}" for s in seconds) + " s", flush=True)
    own, shared = statistics.median(runs["own"]), statistics.median(runs["shared"])
    print(f"medians: a pool per session {own:.2f} s, shared pool {shared:.2f} s: shared / own {shared / own:.2f}x")


if __name__ == "__main__":
    main()
