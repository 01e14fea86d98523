"""The glossary's guarantee in the window (issue 46): a sentence whose source holds a term
shows the term's target, or is marked (a wavy underline, its tooltip and the status bar name
the term). The engine is the real one around a "model" that drops every Chinese character it
is given, so each term is rendered by cutting the sentence around it."""

from __future__ import annotations

import re

import pytest
from PySide6.QtGui import QTextCursor

from desktop_mt.engine.glossary import Glossary, Term
from desktop_mt.engine.testing import FakeModelTranslator
from desktop_mt.gui.dialogs.glossary_editor import glossary_path, save_glossary
from desktop_mt.tm import TranslationMemory


def _drops_chinese(source: str) -> str:
    return re.sub(r"[^\x00-\x7f]", "", source).upper().strip()


@pytest.fixture
def window_with_terms(qtbot, make_controller, app_home):
    glossary_path().parent.mkdir(parents=True, exist_ok=True)
    save_glossary(Glossary((Term("train station", "火车站"), Term("manual", "手册"))))
    fakes: list[FakeModelTranslator] = []

    def factory(_config):
        fakes.append(FakeModelTranslator(_drops_chinese))
        return fakes[-1]

    window, controller = make_controller(factory=factory)
    controller.postedit.use_memory(TranslationMemory(":memory:"))
    window.show()
    return window, controller, fakes


def _translate(qtbot, window, controller, text: str) -> None:
    window.set_source(text)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(text)


def test_a_term_at_a_sentences_start_stays_when_a_sentence_is_added(qtbot, window_with_terms):
    window, controller, fakes = window_with_terms
    _translate(qtbot, window, controller, "Train station is near.")
    assert window.target_text() == "火车站IS NEAR."
    fakes[-1].received.clear()
    _translate(qtbot, window, controller, "Train station is near. I love you.")
    assert window.target_text() == "火车站IS NEAR.I LOVE YOU."
    assert fakes[-1].received == ["I love you."]  # the first sentence was kept, with its term
    assert controller.alignment.view.term_pairs() == []


def test_a_memory_entry_without_the_term_is_marked_and_named(qtbot, window_with_terms):
    window, controller, _fakes = window_with_terms
    controller.postedit.memory.add("Read the manual.", "读说明书。", "en-zh", origin="approved")
    _translate(qtbot, window, controller, "Read the manual. Hello.")
    view = controller.alignment.view
    assert [p.source for p in view.term_pairs()] == ["Read the manual."]
    assert window.statusBar().currentMessage() == "1 sentence without a glossary term (wavy underline)"
    marks = [s for s in window.target.extraSelections() if s.format.toolTip()]
    assert any("manual → 手册" in s.format.toolTip() for s in marks)
    # Editing the sentence to hold the term clears the mark.
    pair = view.term_pairs()[0]
    cursor = window.target.textCursor()
    cursor.setPosition(pair.tgt[0] + 1)
    cursor.setPosition(pair.tgt[0] + 4, QTextCursor.MoveMode.KeepAnchor)
    with window.target.user_edit():  # as typing it (an input method commits the word at once)
        cursor.insertText("手册")
    assert window.target_text().startswith("读手册。")
    assert view.term_pairs() == []
