"""Per-sentence confirmation (issue 46, defect 5): Ctrl+Shift+Enter confirms the sentence at
the cursor only (before, it approved every pair on screen, unreviewed machine output
included); Confirm all asks with a count and can be undone; each sentence shows its status."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from desktop_mt.gui.features.postedit_confirm import SentenceStatus

from .test_postedit import OUT, _put_cursor, _type_over, make_ready


def _statuses(controller) -> list[str]:
    view, confirmation = controller.alignment.view, controller.postedit.confirmation
    return [confirmation.status(p).value for p in sorted(view.alignment.pairs, key=lambda p: p.tgt)]


def test_ctrl_shift_enter_confirms_only_the_sentence_at_the_cursor(qtbot, make_controller):
    window, controller, _fake = make_ready(qtbot, make_controller)
    memory = controller.postedit.memory
    _put_cursor(window, OUT.index("HOW") + 2)
    qtbot.keyClick(
        window.target, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert memory.count() == 1
    entry = memory.exact("How are you?", "en-zh").entry
    assert (entry.target, entry.origin) == ("HOW ARE YOU?", "approved")
    assert _statuses(controller) == ["machine translation", "confirmed", "machine translation"]
    assert window.target.textCursor().position() == OUT.index("FINE")  # on to the next one
    assert "1 of 3" in window.statusBar().currentMessage()
    assert [p.source for p in controller.alignment.view.confirmed_pairs()] == ["How are you?"]


def test_an_edit_is_not_approved_until_it_is_confirmed(qtbot, make_controller):
    window, controller, _fake = make_ready(qtbot, make_controller)
    start = OUT.index("FINE")
    _type_over(qtbot, window, start, start + len("FINE."), "fine.")
    assert _statuses(controller)[2] == SentenceStatus.EDITED.value
    controller.postedit.before_new_text()  # the text moves on: the edit goes in, unapproved
    assert controller.postedit.memory.exact("Fine.", "en-zh").entry.origin == "edited"
    _put_cursor(window, start + 1)
    assert controller.postedit.confirmation.confirm_current()
    assert controller.postedit.memory.exact("Fine.", "en-zh").entry.origin == "approved"
    assert _statuses(controller)[2] == SentenceStatus.CONFIRMED.value


def test_confirm_all_asks_with_a_count_and_can_be_undone(qtbot, make_controller, monkeypatch):
    window, controller, _fake = make_ready(qtbot, make_controller)
    memory = controller.postedit.memory
    memory.add("Fine.", "好。", "en-zh", origin="edited")  # an earlier edit: put back by the undo
    _put_cursor(window, 1)
    controller.postedit.confirmation.confirm_current()  # one confirmed already
    asked: list[str] = []

    def question(_parent, _title, text, *args):
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", question)
    controller.postedit.confirmation.confirm_all_action.trigger()
    assert len(asked) == 1 and "Confirm 2 sentences?" in asked[0]
    assert "2 of them are the machine's translation, not reviewed" in asked[0]
    assert _statuses(controller) == ["confirmed"] * 3
    assert controller.postedit.confirmation.undo_action.isEnabled()
    controller.postedit.confirmation.undo_action.trigger()
    assert _statuses(controller) == ["confirmed", "machine translation", "machine translation"]
    assert memory.exact("How are you?", "en-zh") is None
    assert (memory.exact("Fine.", "en-zh").entry.target, memory.exact("Fine.", "en-zh").entry.origin) == (
        "好。",
        "edited",
    )
    assert not controller.postedit.confirmation.undo_action.isEnabled()


def test_confirm_all_answered_no_writes_nothing(qtbot, make_controller, monkeypatch):
    window, controller, _fake = make_ready(qtbot, make_controller)
    monkeypatch.setattr(QMessageBox, "question", lambda *_a: QMessageBox.StandardButton.No)
    assert controller.postedit.confirmation.confirm_all(ask=True) == 0
    assert controller.postedit.memory.count() == 0


def test_help_lists_the_confirm_shortcut():
    from desktop_mt.gui.window.chrome import SHORTCUTS

    described = dict(SHORTCUTS)
    assert "Confirm the sentence at the cursor" in described["Ctrl+Shift+Enter"]
