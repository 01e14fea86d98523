#!/usr/bin/env python3
"""Where the time of a post-editing completion goes (issue 49), engine level, bundled model:
for each keystroke (10 FLORES dev sentences, the machine translation cut at 1/6 ... 5/6 of its
length, as ``benchmarks/postedit.py`` types them), from the call
``translate_stream(sentence, prefix=typed)`` to its first ``TextDelta`` (the hint's first
text), split into: planning the prefix (tokenizing it, the constraint), the encoder, the
decoder's first step, the steps that feed the typed prefix's tokens one at a time (teacher
forcing), the steps that spell out the word being typed (constrained, nothing shown yet), the
search's own work between the steps, and the first free token. Each keystroke is timed
twice, interleaved: as the app runs it (the encoder's output of the sentence kept from the
keystroke before: ``engine.prefix.EncoderMemo``) and on a runner that kept nothing.

    python benchmarks/completion_latency.py [--data FLORES.tsv] [--keystrokes 50]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from desktop_mt import GenerationOptions, Translator  # noqa: E402
from desktop_mt.engine import prefix as prefix_mod  # noqa: E402
from desktop_mt.engine.events import TextDelta  # noqa: E402
from desktop_mt.engine.testing import CountingSessions  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "flores200-dev.en-zh.tsv"


class TimedSessions(CountingSessions):
    """Real sessions that time each call: ``calls`` is ``[(kind, seconds)]``."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.calls: list[tuple[str, float]] = []

    def _timed(self, kind: str, fn: Any, *args: Any) -> Any:
        started = time.perf_counter()
        out = fn(*args)
        self.calls.append((kind, time.perf_counter() - started))
        return out

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        return self._timed("encode", super().encode, input_ids, attention_mask)

    def decode_first(
        self, input_ids: np.ndarray, encoder_mask: np.ndarray, encoder_hidden: np.ndarray, max_length: int = 0
    ) -> Any:
        return self._timed("first", super().decode_first, input_ids, encoder_mask, encoder_hidden, max_length)

    def decode_next(self, input_ids: np.ndarray, cache: Any) -> np.ndarray:
        return self._timed("next", super().decode_next, input_ids, cache)


def one_keystroke(
    translator: Translator, timed: TimedSessions, sentence: str, typed: str, opts: GenerationOptions
) -> dict[str, float]:
    """One completion's first text, split as the module docstring says (seconds)."""
    timed.calls.clear()
    started = time.perf_counter()
    plan = prefix_mod.plan_prefix(translator.tokenizer, typed, spaced=translator.text.sentence_gap != "")
    planned = time.perf_counter() - started
    stream = translator.translate_stream(sentence, opts, prefix=typed)
    for event in stream:
        if isinstance(event, TextDelta) and event.text:
            break
    total = time.perf_counter() - started
    stream.close()
    forced = len(plan.prefix.forced)
    kinds = [k for k, _ in timed.calls]
    seconds = [s for _, s in timed.calls]
    nexts = [s for k, s in timed.calls if k == "next"]
    spelled = max(0, len(nexts) - forced - 1)  # the last step gave the first free token
    return {
        "total": total,
        "plan": planned,  # the stream plans it again: counted once here, inside total too
        "encode": sum(s for k, s in timed.calls if k == "encode"),
        "first_step": sum(s for k, s in timed.calls if k == "first"),
        "forced_steps": sum(nexts[:forced]),
        "spelling_steps": sum(nexts[forced : forced + spelled]),
        "free_step": sum(nexts[forced + spelled :]),
        "python": total - sum(seconds),
        "n_forced": float(forced),
        "n_spelled": float(spelled),
        "n_calls": float(len(kinds)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--keystrokes", type=int, default=50)
    args = parser.parse_args()
    english = [line.split("\t")[0] for line in args.data.read_text(encoding="utf-8").splitlines()][:10]
    translator = Translator()
    sessions = translator.runner()
    timed = TimedSessions(sessions)
    translator.sessions = timed
    opts = GenerationOptions(beams=1)  # the window's completions are greedy
    translations = [translator.translate(s, opts) for s in english]  # also warms the sessions up
    rows, fresh = [], []
    for sentence, translation in zip(english, translations):
        for j in range(1, 6):
            typed = translation[: max(1, len(translation) * j // 6)]
            rows.append(one_keystroke(translator, timed, sentence, typed, opts))
            # The same keystroke on a runner that kept nothing (engine.prefix.EncoderMemo: per runner).
            translator.sessions = other = TimedSessions(sessions)
            fresh.append(one_keystroke(translator, other, sentence, typed, opts)["total"])
            translator.sessions = timed
    rows, fresh = rows[: args.keystrokes], fresh[: args.keystrokes]
    med = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    print(f"{len(rows)} keystrokes, bundled model, greedy: medians")
    print(
        f"  keystroke -> first completion text: {med['total'] * 1000:.1f} ms "
        f"(p90 {sorted(r['total'] for r in rows)[int(len(rows) * 0.9)] * 1000:.1f} ms); "
        f"the same keystrokes with nothing kept from the one before: {statistics.median(fresh) * 1000:.1f} ms"
    )
    for key, label in (
        ("plan", "planning the typed prefix"),
        ("encode", "encoder"),
        ("first_step", "decoder's first step"),
        ("forced_steps", f"feeding the typed tokens (median {med['n_forced']:.0f} steps)"),
        ("spelling_steps", f"spelling the word being typed (median {med['n_spelled']:.0f} steps)"),
        ("free_step", "the first free token's step"),
        ("python", "search, decoding and text between the calls"),
    ):
        print(f"  {label}: {med[key] * 1000:.1f} ms")
    per_step = statistics.median(r["forced_steps"] / r["n_forced"] for r in rows if r["n_forced"])
    print(f"  one decoder step: {per_step * 1000:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
