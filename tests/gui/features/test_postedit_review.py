"""Post-editing defects a user test under Xvfb found (issue 28): a stray keystroke never rewrites
an approved memory entry, and an undone edit writes nothing; the status bar has no model figures
when nothing went to the model; the highlight and the suggestion follow the cursor's sentence
(the cursor at a sentence's end belongs to it); the completion hint is at the cursor."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from desktop_mt.engine.testing import FakeModelTranslator
from desktop_mt.tm import TranslationMemory

from .test_postedit import OUT, TEXT, _put_cursor, _retranslate, make_ready


@pytest.fixture
def ready(qtbot, make_controller):
    return make_ready(qtbot, make_controller)


def _key(qtbot, window, pos: int, key: Qt.Key) -> None:
    _put_cursor(window, pos)
    qtbot.keyClick(window.target, key)


# ---- 1: the memory keeps what was approved ----------------------------------------------------
def test_a_stray_keystroke_never_replaces_an_approved_entry(qtbot, ready):
    window, controller, fake = ready
    memory = controller.postedit.memory
    assert controller.postedit.approve() == 3
    end = OUT.index("HOW")  # after "HELLO WORLD."
    _key(qtbot, window, end, Qt.Key.Key_Backspace)
    qtbot.keyClick(window.target, Qt.Key.Key_Escape)
    assert window.target_text().startswith("HELLO WORLDHOW")
    _retranslate(qtbot, window, controller, "Something else.")  # the text moves on: edits are kept
    match = memory.exact("Hello world.", "en-zh")
    assert match is not None and (match.entry.target, match.entry.origin) == ("HELLO WORLD.", "approved")
    fake.translated.clear()
    _retranslate(qtbot, window, controller, "Hello world.")
    assert window.target_text() == "HELLO WORLD." and fake.translated == []  # the approved entry, as it was


def test_an_edited_sentence_approved_replaces_the_entry(qtbot, ready):
    window, controller, _fake = ready
    controller.postedit.approve()
    _key(qtbot, window, OUT.index("HOW"), Qt.Key.Key_Backspace)
    controller.postedit.approve()
    match = controller.postedit.memory.exact("Hello world.", "en-zh")
    assert match is not None and (match.entry.target, match.entry.origin) == ("HELLO WORLD", "approved")


def test_an_undone_edit_writes_nothing(qtbot, ready):
    window, controller, _fake = ready
    _key(qtbot, window, OUT.index("HOW"), Qt.Key.Key_Backspace)
    qtbot.keyClick(window.target, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.target_text() == OUT
    _retranslate(qtbot, window, controller, "Something else.")
    assert controller.postedit.memory.count() == 0


# ---- 4: the status bar when nothing went to the model -----------------------------------------
def test_no_model_figures_when_nothing_went_to_the_model(qtbot, ready):
    window, controller, fake = ready
    assert "tok/s" in window.stats_label.text() or "tok/s" in window.stats_label.toolTip()
    controller.postedit.memory.add("Good day.", "日安。", "en-zh", origin="approved")
    fake.translated.clear()
    said: list[str] = []
    window.statusBar().messageChanged.connect(said.append)
    _retranslate(qtbot, window, controller, TEXT + " Good day.")
    assert fake.translated == []
    assert "tok/s" not in window.stats_label.text()
    assert "3 sentences kept, 1 from the translation memory (underlined)" in said
    assert not [m for m in said if "0 translated" in m]


def test_the_summary_reads_naturally():
    from desktop_mt.gui.features.postedit import planned_summary

    assert planned_summary(1, 0, 0) == "1 sentence kept"
    assert planned_summary(0, 1, 2) == "1 sentence from the translation memory (underlined), 2 translated by the model"
    assert planned_summary(2, 2, 1) == (
        "2 sentences kept, 2 from the translation memory (underlined), 1 translated by the model"
    )


# ---- 5: the highlight and the suggestion follow the cursor's sentence ------------------------
def test_the_cursor_at_a_sentences_end_belongs_to_it(qtbot, ready):
    window, controller, _fake = ready
    controller.postedit.memory.add("Fine, thanks.", "很好，谢谢。", "en-zh")
    _retranslate(qtbot, window, controller, TEXT + " Fine, thanks!")
    view = controller.alignment.view
    pairs = view.alignment.pairs
    assert pairs[3].suggestion is not None
    _put_cursor(window, pairs[2].tgt[1])  # the end of sentence 3 = the start of sentence 4
    assert view.pair is pairs[2] and not window.suggestion_bar.isVisible()
    _put_cursor(window, pairs[3].tgt[0] + 1)
    assert view.pair is pairs[3] and window.suggestion_bar.isVisible()


def test_after_a_translation_the_highlight_is_the_cursors_not_a_stale_pointers(qtbot, ready):
    window, controller, _fake = ready
    view = controller.alignment.view
    view.hover("target", 1)  # the pointer rested on sentence 1 of the translation shown
    assert view.pair is view.alignment.pairs[0]
    text = TEXT.replace("Fine.", "Fine thanks.")
    window.set_source(text)
    window.source.setFocus()
    cursor = window.source.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    window.source.setTextCursor(cursor)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        qtbot.keyClick(window.source, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert view.pair is view.alignment.pairs[2]  # the cursor is at the end of sentence 3


# ---- 2: the completion hint is at the cursor ----------------------------------------------------
LONG = (
    "I will be late for school. We decided to walk to the old library. Where is the train station? "
    "I love you. Tom is here. I am hungry."
)


def _chinese(sentence: str) -> str:
    """A Chinese-looking translation: no spaces, so the pane wraps it anywhere."""
    return "".join(chr(0x4E00 + (ord(c) * 7) % 500) for c in sentence if c.isalpha())[:12] + "。"


def test_the_completion_hint_is_placed_from_the_cursor_when_the_chinese_wraps(qtbot, make_controller):
    window, controller = make_controller(factory=lambda _c: FakeModelTranslator(_chinese))
    controller.postedit.use_memory(TranslationMemory(":memory:"))
    window.resize(700, 500)
    window.show()
    _retranslate(qtbot, window, controller, LONG)
    pane = window.target
    pairs = controller.alignment.view.alignment.pairs
    assert pane.document().firstBlock().layout().lineCount() > 2  # it wraps
    for pos in (pairs[1].tgt[0] + 3, pairs[1].tgt[1] - 1, pairs[4].tgt[0] + 3):
        _put_cursor(window, pos)
        with qtbot.waitSignal(controller.postedit.completionFinished, timeout=10_000):
            qtbot.keyClick(pane, Qt.Key.Key_Backspace)
        qtbot.waitUntil(pane.hint.isVisible, timeout=10_000)
        rect, hint = pane.cursorRect(), pane.hint.geometry()
        inline = hint.top() == rect.top() and hint.left() > rect.left()  # after the cursor, on its line
        under = hint.top() > rect.top() and hint.left() <= rect.left() <= hint.right()  # under the cursor
        assert inline or under, (pos, rect, hint)
        assert pane.viewport().rect().contains(hint)
        if under and rect.left() + hint.width() < pane.viewport().width() - 4:
            assert hint.left() == rect.left()  # room enough: it starts under the cursor, not at the margin
