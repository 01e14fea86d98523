#!/usr/bin/env python3
"""The UI thread's work for a long paste in the window (issue 49): the real window and controller
(offscreen), a fast fake engine (``tests/gui/sentence_fake.py``: the worker's thread costs next to
nothing), and ``time.thread_time()`` of the UI thread from the paste to the request's end. Two
pastes of ``--sentences`` sentences: a plain one, and one whose every sentence the translation
memory has (a dotted mark each) with a glossary term the translations lack (a wavy mark each):
the case where every streamed sentence carries marks. Also the longest single event the UI
thread handled (CPU ms) while the paste ran.

    python benchmarks/window_ui_paste.py [--sentences 300] [--repeats 3] [--profile]

Compare two commits by running it in each (the figures are CPU time of one thread: they move
with the machine's load less than wall time, but still read them side by side in one session).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["DESKTOP_MT_HOME"] = tempfile.mkdtemp(prefix="dmt-ui-paste-")  # never the user's folders
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtCore import QEvent, QEventLoop, QObject
from PySide6.QtWidgets import QApplication

UI_THREAD = threading.get_ident()
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]


class TimedApp(QApplication):
    """Records the UI thread's CPU time of each event it handles (the longest is kept)."""

    longest = 0.0
    what = ""  # the receiver and event type of the longest

    def notify(self, receiver: QObject, event: QEvent) -> bool:
        if threading.get_ident() != UI_THREAD:  # the worker's thread handles its own events too
            return super().notify(receiver, event)
        start = time.thread_time()
        try:
            return super().notify(receiver, event)
        finally:
            spent = time.thread_time() - start
            if spent > TimedApp.longest:
                TimedApp.longest, TimedApp.what = spent, f"{type(receiver).__name__} {event.type().name}"


def paste_text(sentences: int) -> str:
    """``sentences`` English sentences of 6-14 words, 5 a paragraph, blank lines between."""
    made = [
        " ".join(WORDS[(k + j) % 12] for j in range(6 + k % 9)).capitalize() + f" number {k}." for k in range(sentences)
    ]
    return "\n\n".join(" ".join(made[i : i + 5]) for i in range(0, sentences, 5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile of the UI thread, last repeat")
    args = parser.parse_args()
    app = TimedApp([])

    from desktop_mt.engine.glossary import Glossary, Term
    from desktop_mt.gui.controller import Controller
    from desktop_mt.gui.dialogs.glossary_editor import glossary_path, save_glossary
    from desktop_mt.gui.settings import Settings
    from desktop_mt.gui.window.main import MainWindow
    from desktop_mt.tm.incremental import split_text
    from tests.gui.sentence_fake import sentence_factory

    text = paste_text(args.sentences)
    window = MainWindow()
    controller = Controller(
        window,
        Settings(),
        settings_path=Path(os.environ["DESKTOP_MT_HOME"]) / "s.json",
        translator_factory=sentence_factory(),
        hotkey=None,
    )
    loop = QEventLoop()
    controller.modelLoaded.connect(loop.quit)
    controller.start()
    loop.exec()
    window.show()

    def run(profile: cProfile.Profile | None = None) -> tuple[float, float, str]:
        done = QEventLoop()
        controller.requestFinished.connect(done.quit)
        TimedApp.longest = 0.0
        start = time.thread_time()
        if profile is not None:
            profile.enable()
        window.set_source(text)
        controller.translate(text)
        done.exec()
        app.processEvents()  # the repaint that shows the end (with every mark) counts too
        if profile is not None:
            profile.disable()
        controller.requestFinished.disconnect(done.quit)
        return time.thread_time() - start, TimedApp.longest, TimedApp.what

    for label in ("plain paste", "memory + missing glossary term marks"):
        if label != "plain paste":
            for k, (sentence, _gap) in enumerate(split_text(text)):
                controller.postedit.memory.add(sentence, f"记忆{k}。", "en-zh", "approved")
            save_glossary(Glossary((Term("alpha", "阿尔法"),)), glossary_path())
        run()  # warm-up (and the memory's plan: the second paste of the same text)
        figures = [run() for _ in range(args.repeats)]
        cpu = ", ".join(f"{c * 1000:.0f}" for c, _, _ in figures)
        longest = ", ".join(f"{b * 1000:.1f} ({what})" for _, b, what in figures)
        marks = len(window.target.extraSelections())
        print(f"{label}: {args.sentences} sentences, UI thread CPU ms {cpu}; longest event ms {longest}; marks {marks}")
    if args.profile:
        profile = cProfile.Profile()
        run(profile)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    controller.shutdown()
    app.quit()


if __name__ == "__main__":
    main()
