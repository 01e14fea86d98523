"""Ctrl+Y redoes too (user test: Windows and DeepL users expect it), in both panes, and the
redo of a swap by Ctrl+Y brings its direction back as Ctrl+Shift+Z does.

The offscreen platform uses Qt's Windows key scheme, where the editors take Ctrl+Y as redo
themselves; under X11 (the user test) they do not, so the panes' own Ctrl+Y shortcuts are
checked directly too."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut

from desktop_mt.gui.window.chrome import SHORTCUTS

from .test_swap_undo import CTRL, _swapped_once, _translate

CTRL_Y = QKeySequence("Ctrl+Y")


def ctrl_y_of(pane) -> QShortcut:
    """The pane's own Ctrl+Y shortcut (for the platforms whose editors do not take Ctrl+Y)."""
    found = [s for s in pane.findChildren(QShortcut) if s.key() == CTRL_Y]
    assert len(found) == 1
    assert found[0].context() == Qt.ShortcutContext.WidgetShortcut
    return found[0]


def test_the_panes_own_ctrl_y_redoes_a_swap_with_its_direction(qtbot, make_controller):
    window, controller = _swapped_once(qtbot, make_controller)
    window.source.undo()
    assert (window.source_text(), window.direction_bar.target()) == ("Hello world", "zh")
    ctrl_y_of(window.source).activated.emit()
    assert (window.source_text(), window.direction_bar.target()) == ("<你好世界>", "en")
    assert window.target_text() == "<Hello><world>"


def test_the_translation_panes_own_ctrl_y_redoes(qtbot, make_controller):
    window, controller = make_controller()
    window.target.setFocus()
    qtbot.keyClicks(window.target, "abc")
    window.target.undo()
    assert window.target_text() == ""
    ctrl_y_of(window.target).activated.emit()
    assert window.target_text() == "abc"


def test_ctrl_y_redoes_a_swap_with_its_direction(qtbot, make_controller):
    window, controller = _swapped_once(qtbot, make_controller)
    window.source.setFocus()
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL)
    assert (window.source_text(), window.direction_bar.target()) == ("Hello world", "zh")
    qtbot.keyClick(window.source, Qt.Key.Key_Y, CTRL)
    assert window.source_text() == "<你好世界>"
    assert window.direction_bar.target() == "en"
    assert controller.settings.direction == "en"
    assert window.target_text() == "<Hello><world>"
    _translate(qtbot, window, controller)
    assert controller.worker.translator.calls[-1]["options"].target == "en"


def test_ctrl_y_redoes_in_the_translation_pane(qtbot, make_controller):
    window, controller = make_controller()
    window.target.setFocus()
    qtbot.keyClicks(window.target, "abc")
    qtbot.keyClick(window.target, Qt.Key.Key_Z, CTRL)
    assert window.target_text() == ""
    qtbot.keyClick(window.target, Qt.Key.Key_Y, CTRL)
    assert window.target_text() == "abc"


def test_the_redo_entry_and_the_shortcuts_list_name_ctrl_y(make_controller):
    window, controller = make_controller()
    assert CTRL_Y in window.redo_action.shortcuts()
    assert window.redo_action.shortcut() == QKeySequence(QKeySequence.StandardKey.Redo)  # the platform's first
    assert any("Ctrl+Y" in keys and "redo" in what for keys, what in SHORTCUTS)
