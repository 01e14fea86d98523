"""A long paste through the window's worker with look-ahead (issue 49): the status bar counts
the sentences as they fill in, one more each time, in the order of the text, and says when all
are done."""

from __future__ import annotations

from typing import Any

from desktop_mt.engine.events import TranslationStats
from tests.engine.scripted_model import ScriptedModelTranslator
from tests.engine.test_lookahead import PASTE, SENTENCES


def test_a_long_paste_counts_its_sentences_in_order_and_says_when_all_are_done(qtbot, make_controller, monkeypatch):
    engine = ScriptedModelTranslator(lambda source: source.upper())
    engine.batch_size = 16  # the first sentence alone, then batches of 16
    window, controller = make_controller(factory=lambda _config: engine)
    shown: list[str] = []
    set_state = window.set_state

    def record(state: Any, detail: str = "") -> None:
        set_state(state, detail)
        shown.append(window.state_label.text())

    monkeypatch.setattr(window, "set_state", record)
    spans: list[str] = []
    controller.worker.segmentDone.connect(lambda _i, span: spans.append(span.source))
    ends: list[TranslationStats | None] = []
    controller.worker.finished.connect(lambda _i, stats: ends.append(stats))
    with qtbot.waitSignal(controller.requestFinished, timeout=20_000):
        controller.translate(PASTE)
    total = len(SENTENCES)
    assert engine.decoder.batches[:2] == [1, 16]  # the look-ahead ran: the paste went in batches
    assert spans == SENTENCES  # filled in from the top, in order
    counting = [text for text in shown if text.startswith("translating: ")]
    assert counting == [f"translating: {done} of {total} sentences" for done in range(total + 1)]
    assert shown[-1] == f"idle: all {total} sentences translated" and window.state() == "idle"
    assert window.target_text() == engine.translate(PASTE)


def test_a_paste_cut_short_by_an_edit_does_not_say_all_are_done(qtbot, make_controller):
    engine = ScriptedModelTranslator(lambda source: source.upper())
    window, controller = make_controller(factory=lambda _config: engine)
    engine.decoder.on_step = lambda _steps: controller.session.interrupt()  # as a keystroke does
    with qtbot.waitSignal(controller.requestFinished, timeout=20_000):
        controller.translate(PASTE)
    assert window.state() == "idle" and "all" not in window.state_label.text()
