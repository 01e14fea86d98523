"""Post-editing in the real window (issue 28), on the bundled model, offscreen:

1. Keystroke -> first completion token: a key typed in the translation pane (``QTest.keyClick``
   on the pane, in a sentence whose rest was deleted) until the pane's completion hint shows
   the first text of the model's completion (``PostEditFeature.completionShown``), median over
   50 keystrokes: 10 FLORES dev sentences, 5 cut points each (the machine translation kept up
   to 1/6 ... 5/6 of its length, its rest deleted, then its next character typed). This is the
   whole path: the key event, the alignment update, the queued request to the worker thread,
   the prefix-constrained decoding, the queued delta back to the UI thread. Split (issue 49) at
   the request the pane sends (``Completion._completeRequested``, UI thread), the worker's call
   of ``translate_stream(prefix=...)`` (worker thread) and its first ``completionDelta`` emit:
   the UI's share (key event, alignment, request), the queue to the worker, the engine, and the
   queue back with the hint's update.
2. Model calls while typing 20 FLORES dev sentences: the source is set to what a typist has
   typed at each as-you-type pause (``tm.incremental.simulate_typing``'s pauses: 600 ms without
   a key, longer after a sentence end or a comma) and translated by the window; the window
   counts the sentences of each request and those sent to the model (``PostEditFeature.figures``).

    QT_QPA_PLATFORM=offscreen python benchmarks/postedit_window.py [--data FLORES.tsv] [--completion-only]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "flores200-dev.en-zh.tsv"


def typed_states(text: str, debounce_ms: int = 600, keystroke_ms: int = 200) -> list[str]:
    """The source text at each as-you-type request while ``text`` is typed key by key
    (the pauses of ``tm.incremental.simulate_typing``)."""
    pause = {".": 1500, "?": 1500, "!": 1500, ",": 700, "\n": 1500}
    return [
        text[: i + 1] for i, c in enumerate(text) if pause.get(c, keystroke_ms) >= debounce_ms or i == len(text) - 1
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--completion-only", action="store_true", help="part 1 only")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("DESKTOP_MT_HOME", tempfile.mkdtemp(prefix="desktop-mt-bench-"))
    from PySide6.QtCore import QEvent, QEventLoop, Qt, QTimer
    from PySide6.QtGui import QKeyEvent, QTextCursor
    from PySide6.QtWidgets import QApplication

    from desktop_mt.gui import qtcompat
    from desktop_mt.gui.controller import Controller
    from desktop_mt.gui.settings import Settings
    from desktop_mt.gui.window.main import MainWindow
    from desktop_mt.gui.workers.translation import default_translator_factory

    rows = [line.split("\t") for line in args.data.read_text(encoding="utf-8").splitlines()]
    english = [r[0] for r in rows[:20]]
    app = QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()
    window = MainWindow()
    settings = Settings(translate_as_you_type=False, keep_history=False)
    controller = Controller(
        window,
        settings,
        settings_path=Path(tempfile.mkdtemp()) / "s.json",
        translator_factory=default_translator_factory,
    )
    window.show()

    def wait(signal, timeout_ms: int = 120_000) -> list[object]:
        got: list[object] = []
        loop = QEventLoop()

        def done(*values: object) -> None:
            got.extend(values)
            loop.quit()

        signal.connect(done)
        QTimer.singleShot(timeout_ms, loop.quit)
        loop.exec()
        signal.disconnect(done)
        if not got and signal is not controller.modelLoaded:
            raise TimeoutError("no signal")
        return got

    controller.start()
    wait(controller.modelLoaded)
    feature = controller.postedit
    text = " ".join(english[:10])
    window.set_source(text)
    controller.translate(text)
    wait(controller.requestFinished)
    pairs = list(controller.alignment.view.alignment.pairs)
    print(f"model {controller.model_info.name}; {len(pairs)} sentences translated", flush=True)
    pane = window.target
    pane.setFocus()
    finished: set[int] = set()
    shown_at: list[float] = []
    feature.completionFinished.connect(finished.add)
    feature.completionShown.connect(lambda _text: shown_at.append(time.perf_counter()))
    marks: dict[str, float] = {}  # the keystroke's way: request sent, engine called, first delta emitted
    direct = Qt.ConnectionType.DirectConnection  # run in the emitting thread, at the emit
    feature.completion._completeRequested.connect(lambda *_a: marks.setdefault("request", time.perf_counter()), direct)
    controller.worker.completionDelta.connect(lambda *_a: marks.setdefault("delta", time.perf_counter()), direct)
    engine = controller.worker.translator
    streaming = engine.translate_stream

    def timed_stream(*args, **kwargs):  # the worker thread calls the face
        marks.setdefault("engine", time.perf_counter())
        return streaming(*args, **kwargs)

    engine.translate_stream = timed_stream  # type: ignore[method-assign]
    parts: list[tuple[float, float, float, float]] = []

    def until(predicate, timeout_s: float = 120.0) -> None:
        end = time.monotonic() + timeout_s
        while not predicate():
            if time.monotonic() > end:
                raise TimeoutError("the window did not answer")
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)

    def settle() -> None:
        """Let the completion asked for last end (the worker is then free)."""
        if feature.completion.pending is not None:
            rid = feature.completion.pending[0]
            until(lambda: rid in finished)

    times: list[float] = []
    for pair in pairs[:10]:
        for j in range(1, 6):
            current = next(p for p in controller.alignment.view.alignment.pairs if p.segment == pair.segment)
            machine = current.machine
            keep = max(1, len(machine) * j // 6)
            if keep >= len(machine):
                continue
            cursor = pane.textCursor()  # the sentence cut after its kept part, minus one character
            cursor.setPosition(current.tgt[0])
            cursor.setPosition(current.tgt[1], QTextCursor.MoveMode.KeepAnchor)
            with pane.user_edit():
                cursor.insertText(machine[: keep - 1])
            pane.setTextCursor(cursor)
            settle()
            shown_at.clear()
            marks.clear()
            started = time.perf_counter()
            # The keystroke: the next character, as a key event with its text (an input method's
            # Chinese character too), delivered to the pane as the keyboard delivers it.
            QApplication.sendEvent(
                pane, QKeyEvent(QEvent.Type.KeyPress, 0, Qt.KeyboardModifier.NoModifier, machine[keep - 1])
            )
            until(lambda: bool(shown_at))
            times.append(shown_at[0] - started)
            if {"request", "engine", "delta"} <= marks.keys():
                request, called, delta = marks["request"], marks["engine"], marks["delta"]
                parts.append((request - started, called - request, delta - called, shown_at[0] - delta))
            settle()
            feature.cancel()
            current = next(p for p in controller.alignment.view.alignment.pairs if p.segment == pair.segment)
            cursor = pane.textCursor()  # the machine's sentence back for the next cut
            cursor.setPosition(current.tgt[0])
            cursor.setPosition(current.tgt[1], QTextCursor.MoveMode.KeepAnchor)
            with pane.user_edit():
                cursor.insertText(machine)
            settle()
            feature.cancel()
    ms = sorted(t * 1000 for t in times)
    p90 = ms[int(len(ms) * 0.9) - 1]
    print(
        f"keystroke -> first completion token: median {statistics.median(ms):.1f} ms, p90 {p90:.1f} ms, "
        f"{len(ms)} keystrokes",
        flush=True,
    )
    for k, label in enumerate(
        (
            "UI thread: key event, alignment update, the request sent",
            "queued to the worker thread, until it calls the engine",
            "engine: the call to the first completion text (encoder, the typed tokens, the first free one)",
            "queued back to the UI thread, the hint shown",
        )
    ):
        print(f"  {label}: median {statistics.median(p[k] for p in parts) * 1000:.1f} ms", flush=True)
    if args.completion_only:
        controller.shutdown()
        app.quit()
        return 0

    # 2. Typing 20 sentences: the window's requests at each pause.
    controller.clear()
    feature.figures.sentences = feature.figures.to_model = 0
    states = typed_states(" ".join(english))
    for state in states:
        window.set_source(state)
        if controller.translate(state) is not None:
            wait(controller.requestFinished)
    f = feature.figures
    print(
        f"typing 20 sentences ({len(' '.join(english))} keys, {len(states)} requests): {f.sentences} sentence "
        f"translations if each request translated the whole text, {f.to_model} sent to the model "
        f"({f.saved} saved, {100 * f.saved / f.sentences:.0f} %, {f.sentences / max(1, f.to_model):.1f}x fewer)",
        flush=True,
    )
    controller.shutdown()
    app.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
