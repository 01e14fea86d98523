"""A list copied with its trailing newline (user test, issue 26 follow-up): joining changes
nothing visible, so the paste is left as it is and no "Joined the line breaks" notice shows."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from desktop_mt.gui.features import pasting

LIST = "- apples\n- pears\n- plums\n"


def test_a_list_with_a_trailing_newline_is_pasted_as_it_is_without_a_notice(qtbot, make_controller):
    window, controller = make_controller()
    assert controller.settings.join_lines
    QGuiApplication.clipboard().setText(LIST)
    window.source.setFocus()
    with qtbot.waitSignal(window.source.pasted, timeout=10_000), qtbot.assertNotEmitted(window.source.pasteTransformed):
        qtbot.keyClick(window.source, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert window.source_text() == LIST
    assert window.statusBar().currentMessage() != pasting.JOINED
    window.source.undo()
    assert window.source_text() == ""  # one plain undo step


def test_the_clipboard_list_is_brought_in_as_it_is_without_a_notice(qtbot, make_controller):
    window, controller = make_controller()
    assert controller.input.bring_in(LIST) == LIST
    assert window.source_text() == LIST
    assert window.statusBar().currentMessage() != pasting.JOINED


def test_a_real_join_with_a_trailing_newline_is_still_joined():
    assert pasting.transformed(pasting.join_lines, "The line breaks\nof a PDF column.\n") != (
        "The line breaks\nof a PDF column.\n"
    )
    assert pasting.transformed(pasting.join_lines, LIST) == LIST
    assert pasting.transformed(None, LIST) == LIST
