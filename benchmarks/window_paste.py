#!/usr/bin/env python3
"""A long paste through the window's translation worker (issue 49), in one run per model:

- **first text**: from the request leaving the UI thread to the worker's first ``delta`` arriving
  there (what the window shows first), median over pastes that start at different sentences;
  once with span-free first sentences, once with a first sentence that holds a number (a
  protected span: docs/ENGINE_API.md);
- **whole paste**: from the request to the worker's ``finished`` in the UI thread, the paste
  decoded with look-ahead (``translate_stream(look_ahead=True)``: what the window does), and
  the same paragraphs through ``translate_batch`` (the file job's path) on the same translator;
  ``--one-by-one`` adds the window's previous path (each sentence alone);
- **UI gap**: the longest wait of a 5 ms timer in the UI thread while the worker decodes (a
  keystroke's echo waits at most this long);
- whether the worker's text equals the one-by-one text (``--one-by-one``: the same request
  without look-ahead) and which batches it ran.

The worker runs in its own QThread as in the window; the window itself is not built. Models:
the bundled English->Chinese model, and ``--arch DIR`` (the opus-mt-en-zh architecture with
random weights, ``benchmarks/arch_model.py``'s ``onnx-step`` export: it decodes a fixed 32
tokens per sentence). Options as the window's defaults (the model's beams).

    python benchmarks/window_paste.py [--sentences 300] [--repeats 3] [--arch /tmp/dmt-bench/arch/onnx-step]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import (  # noqa: E402
    QCoreApplication,
    QElapsedTimer,
    QEventLoop,
    QObject,
    QThread,
    QTimer,
    Signal,
    Slot,
)

from desktop_mt.engine.options import GenerationOptions, SessionOptions  # noqa: E402
from desktop_mt.engine.testing import CountingSessions  # noqa: E402
from desktop_mt.engine.translator import Translator  # noqa: E402
from desktop_mt.gui.ports import EngineConfig  # noqa: E402
from desktop_mt.gui.workers.translation import TranslationWorker  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "flores200-dev.en-zh.tsv"
NUMBER = re.compile(r"\d")


class NoLookAhead:
    """The translator as the window used it before look-ahead: each sentence decoded alone."""

    def __init__(self, translator: Translator) -> None:
        self.translator = translator

    def __getattr__(self, name: str) -> Any:  # the rest of the face is the translator's
        return getattr(self.translator, name)

    def translate_stream(self, text: str, options: Any = None, cancel: Any = None, **_how: Any) -> Any:
        return self.translator.translate_stream(text, options, cancel)  # look_ahead dropped

    def close(self) -> None:
        pass


class StepCounting(CountingSessions):
    """The translator's sessions, counting decoder steps and rows x steps (the work, whatever
    the machine's load: the timings on a shared machine are noisy, these are not)."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.row_steps = 0

    def decode_first(self, input_ids: Any, encoder_mask: Any, encoder_hidden: Any, max_length: int = 0) -> Any:
        self.row_steps += int(input_ids.shape[0])
        return super().decode_first(input_ids, encoder_mask, encoder_hidden, max_length)

    def decode_next(self, input_ids: Any, cache: Any) -> Any:
        self.row_steps += int(input_ids.shape[0])
        return super().decode_next(input_ids, cache)

    def take(self) -> tuple[int, int]:
        """(steps, rows x steps) since the last take."""
        out = (self.steps, self.row_steps)
        self.steps = self.row_steps = 0
        return out


class Sender(QObject):
    """The UI thread's side of the worker, as the controller connects it (queued)."""

    translate = Signal(int, str, object, object)
    call = Signal(object)


class Caller(QObject):
    """Runs a callable in the worker's thread (as the file job runs ``translate_batch`` in its
    own) and says how long it took."""

    done = Signal(float)

    @Slot(object)
    def call(self, fn: Any) -> None:
        started = time.perf_counter()
        fn()
        self.done.emit(time.perf_counter() - started)


@dataclass
class Outcome:
    """One request seen from the UI thread."""

    first: float | None = None  # seconds to the first delta
    total: float = 0.0  # seconds to finished
    text: str = ""
    ui_gap: float = 0.0  # the longest wait of the UI thread's 5 ms timer beyond its interval
    deltas: list[str] = field(default_factory=list)


class Harness:
    """A worker in its own QThread and a UI-thread event loop that waits for its signals."""

    def __init__(self, translator: Any) -> None:
        self.worker = TranslationWorker(lambda _config: translator)
        self.worker.load(EngineConfig())
        self.thread = QThread()
        self.worker.moveToThread(self.thread)
        self.sender = Sender()
        self.sender.translate.connect(self.worker.translate)
        self.caller = Caller()
        self.caller.moveToThread(self.thread)
        self.sender.call.connect(self.caller.call)
        self.thread.start()
        self.next_id = 0

    def in_thread(self, fn: Any) -> float:
        """Run ``fn`` in the worker's thread; its seconds."""
        loop, took = QEventLoop(), []
        self.caller.done.connect(lambda seconds: (took.append(seconds), loop.quit()))
        self.sender.call.emit(fn)
        if not took:
            loop.exec()
        self.caller.done.disconnect()
        return took[0]

    def run(self, text: str, options: GenerationOptions, first_only: bool = False) -> Outcome:
        """Send ``text`` and wait for ``finished`` (``first_only``: cancel at the first delta)."""
        self.next_id += 1
        req, out, cancel, loop = self.next_id, Outcome(), threading.Event(), QEventLoop()
        clock, tick = QElapsedTimer(), QElapsedTimer()
        timer = QTimer()
        timer.setInterval(5)

        def on_tick() -> None:
            out.ui_gap = max(out.ui_gap, tick.restart() / 1000 - 0.005)

        def on_delta(i: int, chunk: str) -> None:
            if i != req:
                return
            if out.first is None:
                out.first = clock.nsecsElapsed() / 1e9
                if first_only:
                    cancel.set()
            out.deltas.append(chunk)

        def on_finished(i: int, _stats: object) -> None:
            if i == req:
                out.total = clock.nsecsElapsed() / 1e9
                loop.quit()

        timer.timeout.connect(on_tick)
        self.worker.delta.connect(on_delta)
        self.worker.finished.connect(on_finished)
        self.worker.failed.connect(lambda i, message: (print(message, file=sys.stderr), loop.quit()))
        clock.start()
        tick.start()
        timer.start()
        self.sender.translate.emit(req, text, options, cancel)
        loop.exec()
        timer.stop()
        self.worker.delta.disconnect(on_delta)
        self.worker.finished.disconnect(on_finished)
        out.text = "".join(out.deltas)
        return out

    def close(self) -> None:
        self.thread.quit()
        self.thread.wait()


def paste(sentences: list[str], per_paragraph: int = 5) -> tuple[str, list[str]]:
    """The sentences as paragraphs (blank line between): the pasted text and its paragraphs."""
    paragraphs = [" ".join(sentences[i : i + per_paragraph]) for i in range(0, len(sentences), per_paragraph)]
    return "\n\n".join(paragraphs), paragraphs


def first_text(harness: Harness, starts: list[str], options: GenerationOptions) -> list[float]:
    """Seconds to the first delta of pastes that begin with each of ``starts`` (then cancelled)."""
    out = []
    for sentence in starts:
        got = harness.run(sentence + " " + " ".join(starts[:4]), options, first_only=True)
        out.append(got.first if got.first is not None else float("nan"))
    return out


def measure(name: str, translator: Translator, english: list[str], args: argparse.Namespace) -> dict[str, Any]:
    options = GenerationOptions()  # the window's defaults: the model's beams
    text, paragraphs = paste(english[: args.sentences])
    words = len(text.split())
    harness = Harness(translator)
    translator.translate_batch(paragraphs[:2], options)  # warm the sessions up
    plain = [s for s in english[args.sentences :] if not NUMBER.search(s)][: args.firsts]
    numbered = [s for s in english[args.sentences :] if NUMBER.search(s)][: args.firsts]
    row: dict[str, Any] = {"model": name, "sentences": args.sentences, "words": words, "rows": translator.batch_size}
    row["first_text_ms"] = [t * 1000 for t in first_text(harness, plain, options)]
    row["first_text_number_ms"] = [t * 1000 for t in first_text(harness, numbered, options)]
    window, batch, batch_main, gaps = [], [], [], []
    text_seen = ""
    counting = StepCounting(translator.runner())
    translator.sessions = counting
    for _ in range(args.repeats):
        counting.take()
        got = harness.run(text, options)
        row["window_steps"], row["window_row_steps"] = counting.take()
        window.append(got.total)
        gaps.append(got.ui_gap)
        text_seen = got.text
        batch.append(harness.in_thread(lambda: translator.translate_batch(paragraphs, options)))
        row["batch_steps"], row["batch_row_steps"] = counting.take()
        started = time.perf_counter()  # the same in the UI thread (a script's main thread)
        translator.translate_batch(paragraphs, options)
        batch_main.append(time.perf_counter() - started)
    harness.close()
    row.update(window_s=window, batch_s=batch, batch_main_thread_s=batch_main, ui_gap_ms=[g * 1000 for g in gaps])
    row["ratio"] = [w / b for w, b in zip(window, batch)]
    if args.one_by_one:
        old = Harness(NoLookAhead(translator))
        row["first_text_one_by_one_ms"] = [t * 1000 for t in first_text(old, plain, options)]
        row["first_text_number_one_by_one_ms"] = [t * 1000 for t in first_text(old, numbered, options)]
        counting.take()
        got = old.run(text, options)
        old.close()
        row["one_by_one_s"] = got.total
        row["one_by_one_steps"] = counting.take()[0]
        row["same_text_as_one_by_one"] = got.text == text_seen
    return row


def report(row: dict[str, Any]) -> None:
    med = statistics.median
    print(f"\n{row['model']}: {row['sentences']} sentences, {row['words']} words, batches of {row['rows']} rows")
    print(
        f"  first text (span-free first sentence): median {med(row['first_text_ms']):.0f} ms "
        f"({min(row['first_text_ms']):.0f}-{max(row['first_text_ms']):.0f}, {len(row['first_text_ms'])} pastes)"
    )
    print(
        f"  first text (first sentence with a number): median {med(row['first_text_number_ms']):.0f} ms "
        f"({min(row['first_text_number_ms']):.0f}-{max(row['first_text_number_ms']):.0f})"
    )
    print(
        "  whole paste through the worker: "
        + ", ".join(f"{w:.2f}" for w in row["window_s"])
        + " s; translate_batch in the worker's thread: "
        + ", ".join(f"{b:.2f}" for b in row["batch_s"])
        + " s (in the main thread: "
        + ", ".join(f"{b:.2f}" for b in row["batch_main_thread_s"])
        + " s); ratio "
        + ", ".join(f"{r:.2f}x" for r in row["ratio"])
    )
    print(
        f"  decoder steps: worker {row['window_steps']} ({row['window_row_steps']} rows x steps), "
        f"translate_batch {row['batch_steps']} ({row['batch_row_steps']}): "
        f"{row['window_steps'] / row['batch_steps']:.2f}x"
    )
    print(f"  longest UI-thread wait while it ran: {max(row['ui_gap_ms']):.1f} ms")
    if "one_by_one_s" in row:
        print(
            f"  one by one (the window before): first text median {med(row['first_text_one_by_one_ms']):.0f} ms, "
            f"with a number first {med(row['first_text_number_one_by_one_ms']):.0f} ms"
        )
        print(
            f"  one by one (the window before): {row['one_by_one_s']:.2f} s, "
            f"{row['one_by_one_steps']} decoder steps "
            f"({row['one_by_one_s'] / med(row['window_s']):.2f}x the look-ahead); "
            f"same text as one by one: {row['same_text_as_one_by_one']}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="English<TAB>Chinese lines (FLORES dev)")
    parser.add_argument("--sentences", type=int, default=300)
    parser.add_argument("--arch-sentences", type=int, default=60, help="for --arch: fewer (10x the compute)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--firsts", type=int, default=10, help="pastes timed for the first text")
    parser.add_argument("--one-by-one", action="store_true", help="also the window's previous path (slow)")
    parser.add_argument("--arch", type=Path, help="the opus-mt architecture's export (benchmarks/arch_model.py)")
    parser.add_argument("--threads", type=int, default=0, help="intra-op threads (0: ORT's choice)")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--arch-only", action="store_true", help="with --arch: that model alone")
    args = parser.parse_args()
    app = QCoreApplication.instance() or QCoreApplication(sys.argv[:1])  # noqa: F841 - the UI thread's loop
    rows = [line.split("\t")[0] for line in args.data.read_text(encoding="utf-8").splitlines()]
    sessions = SessionOptions(intra_op_threads=args.threads)
    results = []
    models: list[tuple[str, Path | None, int]] = [] if args.arch_only else [("bundled en-zh", None, args.sentences)]
    if args.arch:
        models.append(("opus-mt architecture (random weights)", args.arch, args.arch_sentences))
    for name, directory, count in models:
        translator = Translator(directory, session_options=sessions)
        run_args = argparse.Namespace(**{**vars(args), "sentences": count})
        row = measure(name, translator, rows, run_args)
        report(row)
        results.append(row)
        translator.close()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
