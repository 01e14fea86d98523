"""Post-editing figures (issue 28), in one run on the bundled model:

1. Time from a keystroke in a translated sentence to the first token of the model's completion
   (engine level: the call ``translate_stream(sentence, prefix=typed)`` until its first
   ``TextDelta``), median over 50 keystrokes: 10 FLORES dev sentences, 5 prefixes each (the
   machine translation cut at 1/6 ... 5/6 of its length, as a translator who keeps its start
   and types on). Beside it, in the same run, the time to the first delta of the plain
   translation of the same sentences (the ratio is what the prefix costs).
2. The model calls sentence-level incremental translation saves while typing a 20-sentence
   text key by key, with the window's as-you-type pause (600 ms; ``tm.incremental``).

    python benchmarks/postedit.py [--data FLORES.tsv] [--variant int8] [--beams 1]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from desktop_mt import GenerationOptions, Translator
from desktop_mt.engine.events import TextDelta
from desktop_mt.tm.incremental import simulate_typing

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "flores200-dev.en-zh.tsv"


def first_delta_seconds(
    translator: Translator, sentence: str, opts: GenerationOptions, prefix: str | None = None
) -> float:
    """Seconds from the call to the first shown text (the stream is then closed: cancelled)."""
    started = time.perf_counter()
    stream = translator.translate_stream(sentence, opts, prefix=prefix)
    for event in stream:
        if isinstance(event, TextDelta) and event.text:
            stream.close()
            break
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--variant", default="int8")
    parser.add_argument("--beams", type=int, default=1, help="1: greedy, as a completion while typing")
    args = parser.parse_args()
    rows = [line.split("\t") for line in args.data.read_text(encoding="utf-8").splitlines()]
    english = [r[0] for r in rows[:20]]
    translator = Translator(variant=args.variant)
    opts = GenerationOptions(beams=args.beams)
    translations = [translator.translate(s, opts) for s in english[:10]]  # also warms the sessions up
    completion, plain = [], []
    for sentence, translation in zip(english[:10], translations):
        for j in range(1, 6):
            typed = translation[: max(1, len(translation) * j // 6)]
            completion.append(first_delta_seconds(translator, sentence, opts, prefix=typed))
            plain.append(first_delta_seconds(translator, sentence, opts))
    c_ms, p_ms = statistics.median(completion) * 1000, statistics.median(plain) * 1000
    print(f"model {translator.model_info.name} ({args.variant}), beams {args.beams}, {len(completion)} keystrokes")
    print(
        f"keystroke -> first completion token: median {c_ms:.1f} ms (p90 "
        f"{sorted(completion)[int(len(completion) * 0.9)] * 1000:.1f} ms)"
    )
    print(f"plain translation -> first token:    median {p_ms:.1f} ms; completion / plain = {c_ms / p_ms:.2f}")
    text = " ".join(english)
    figures = simulate_typing(text)
    print(
        f"typing {len(english)} sentences ({figures.keystrokes} keys, {figures.requests} as-you-type requests): "
        f"{figures.whole} sentence translations when each request translates the whole text, "
        f"{figures.incremental} with sentence-level incremental translation "
        f"({figures.saved:.0%} saved, {figures.whole / max(figures.incremental, 1):.1f}x fewer)"
    )


if __name__ == "__main__":
    main()
