"""Long texts: progress by sentence in the status bar, no stale figures during a new run, and
after Esc a visible "stopped here" mark and a status that says it stopped (not "idle")."""

from __future__ import annotations

import threading

from PySide6.QtGui import QGuiApplication

from desktop_mt.gui.window.progress import STOP_MARK, count_sentences

from ..fakes import wait_emitted
from ..sentence_fake import sentence_factory

TEXT = "One apple. Two boats. Three cats. Four dogs."


def test_sentences_are_counted_as_the_engine_splits_them():
    assert count_sentences(TEXT) == 4
    assert count_sentences("Dr. Smith came.\nHe left. Then\n\nsilence") == 4
    assert count_sentences("no end") == 1


def test_a_long_text_shows_progress_and_a_stop_leaves_a_mark(qtbot, make_controller):
    gate = threading.Event()  # every sentence after the first waits for it: never set here
    window, controller = make_controller(factory=sentence_factory(gate=gate))
    with wait_emitted(qtbot, controller.worker.segmentDone, timeout=10_000):
        controller.translate(TEXT)
    qtbot.waitUntil(lambda: window.state_label.text() == "translating: 1 of 4 sentences", timeout=10_000)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.stop_action.trigger()  # Esc
    assert window.state() == "stopped"
    assert window.state_label.text().startswith("stopped: 1 of 4 sentences translated")
    assert window.target.toPlainText() == "<One><apple.> " + STOP_MARK
    assert window.target_text() == "<One><apple.> "  # the mark is not part of the translation
    window.copy_result()
    assert QGuiApplication.clipboard().text() == "<One><apple.> "
    gate.set()
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(TEXT)
    assert STOP_MARK not in window.target.toPlainText() and window.state() == "idle"


def test_the_last_runs_figures_go_when_a_new_run_starts(qtbot, make_controller):
    gate = threading.Event()  # the second text waits after its first sentence until set
    window, controller = make_controller(factory=sentence_factory(gate=gate))
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("Short one.")
    assert "tok/s" in window.stats_label.text()
    with wait_emitted(qtbot, controller.worker.segmentDone, timeout=10_000):
        controller.translate(TEXT)
    assert window.stats_label.text() == ""  # not the figures of "Short one."
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        gate.set()
    assert "tok/s" in window.stats_label.text()


def test_the_last_runs_figures_go_when_a_kept_translation_is_opened(qtbot, make_controller):
    """History > Open and the popup's Open in main window put a kept translation in the panes:
    the figures of the run before described another text (seen in the real window)."""
    window, controller = make_controller(factory=sentence_factory())
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("Short one.")
    assert "tok/s" in window.stats_label.text()
    controller.show_entry("Kept text.", "<Kept><text.>")
    assert window.target_text() == "<Kept><text.>"
    assert window.stats_label.text() == "" and controller.last_stats is None
