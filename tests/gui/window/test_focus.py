"""Tab and Shift+Tab move the focus between the panes and the toolbar; no key of them types."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_mt.gui.window.main import MainWindow


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    w.source.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.source, timeout=10_000)
    yield w
    # A simulated key with Ctrl leaves Qt's modifier state at Ctrl until a key event without
    # it comes; later tests (a table's selectRow) would act as if Ctrl were held.
    qtbot.keyRelease(w, Qt.Key.Key_Control)


def press(qtbot, key, modifiers=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(QApplication.focusWidget(), key, modifiers)
    return QApplication.focusWidget()


def test_tab_moves_from_the_source_to_the_translation_and_the_toolbar(qtbot, window):
    assert press(qtbot, Qt.Key.Key_Tab) is window.target
    assert press(qtbot, Qt.Key.Key_Tab) is window.translate_button
    assert press(qtbot, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier) is window.target
    assert press(qtbot, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier) is window.source
    assert window.source_text() == "" and window.target_text() == ""


@pytest.mark.parametrize("shift", [False, True])
def test_ctrl_tab_inserts_nothing_and_moves_the_focus(qtbot, window, shift):
    window.source.setPlainText("draft")
    ctrl = Qt.KeyboardModifier.ControlModifier
    key = Qt.Key.Key_Backtab if shift else Qt.Key.Key_Tab
    moved = press(qtbot, key, ctrl | Qt.KeyboardModifier.ShiftModifier if shift else ctrl)
    assert window.source_text() == "draft"
    assert moved is not window.source


def test_every_toolbar_button_is_reachable_by_keyboard(window):
    buttons = [
        window.translate_button,
        window.copy_button,
        window.clear_button,
        window.file_button,
        window.clipboard_button,
        window.settings_button,
    ]
    assert all(b.focusPolicy() & Qt.FocusPolicy.TabFocus for b in buttons)
