"""Every change the app makes to the source text is one step Ctrl+Z takes back."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication


def test_clipboard_translate_can_be_undone_to_the_draft(qtbot, make_controller):
    window, controller = make_controller()
    qtbot.keyClicks(window.source, "my draft")
    QGuiApplication.clipboard().setText("from the clipboard")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate_clipboard()
    assert window.source_text() == "from the clipboard"
    window.source.setFocus()
    qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.source_text() == "my draft"
    qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.source_text() == "from the clipboard"  # and redo goes forward again


def test_clear_of_a_long_text_is_one_undo_step(qtbot, make_controller):
    window, controller = make_controller()
    long_text = "\n".join(f"Paragraph {i} of the report." for i in range(3000))
    window.set_source(long_text)
    window.clearRequested.emit()
    assert window.source_text() == ""
    assert window.source.document().isUndoAvailable()
    window.source.undo()
    assert window.source_text() == long_text


def test_undo_after_app_edit_is_not_swallowed_by_the_user_history(qtbot):
    from desktop_mt.gui.window.main import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.set_source("first")
    window.set_source("second")
    window.set_source("third")
    window.source.undo()
    assert window.source_text() == "second"
    window.source.undo()
    assert window.source_text() == "first"


@pytest.mark.parametrize("joined", [False, True])
def test_a_paste_is_an_undo_step_of_its_own(qtbot, make_controller, joined):
    """Type "Hello ", paste "Alpha beta.", type " Q": Ctrl+Z takes back " Q" only, the next
    Ctrl+Z the paste, the next the typing (with or without join lines on paste)."""
    window, controller = make_controller()
    controller.input.set_join_lines(joined)
    window.source.setFocus()
    qtbot.keyClicks(window.source, "Hello ")
    QGuiApplication.clipboard().setText("Alpha\nbeta." if joined else "Alpha beta.")
    qtbot.keyClick(window.source, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(window.source, " Q")
    assert window.source_text() == "Hello Alpha beta. Q"
    steps = []
    for _ in range(2):
        qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        steps.append(window.source_text())
    assert steps == ["Hello Alpha beta.", "Hello Alpha\nbeta." if joined else "Hello "]


def test_no_stale_translation_beside_a_draft_brought_back_by_undo(qtbot, make_controller):
    window, controller = make_controller()
    qtbot.keyClicks(window.source, "my draft")
    QGuiApplication.clipboard().setText("from the clipboard")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate_clipboard()
    assert window.target_text() == "<from><the><clipboard>"
    window.source.setFocus()
    qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.source_text() == "my draft"
    assert window.target_text() == ""  # not the clipboard text's translation
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.translateRequested.emit(window.source_text())
    qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.source_text() == "from the clipboard"
    assert window.target_text() == "<from><the><clipboard>"  # its own translation comes back
    qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.target_text() == "<my><draft>"
    qtbot.keyClicks(window.source, " edited")  # typing is no undo: the translation stays
    assert window.target_text() == "<my><draft>"


def test_undo_of_clear_brings_back_the_text_and_its_translation(qtbot, make_controller):
    """Clear empties both panes; Ctrl+Z brings back the text with the translation it had (a
    removal's undo leaves Qt's redo count at 0: the guard must see the undo step anyway), and
    Ctrl+Shift+Z empties the translation again."""
    window, controller = make_controller()
    window.set_source("Alpha beta. Gamma delta.")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.translateRequested.emit(window.source_text())
    translation = window.target_text()
    window.clearRequested.emit()
    assert (window.source_text(), window.target_text()) == ("", "")
    window.source.setFocus()
    qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert (window.source_text(), window.target_text()) == ("Alpha beta. Gamma delta.", translation)
    qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert (window.source_text(), window.target_text()) == ("", "")
