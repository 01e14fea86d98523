"""The mouse wheel over Settings scrolls the page; it never changes a combo box or spin box
it passes over (issue 46: it switched "Chinese script" to Traditional HK while scrolling)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog
from desktop_mt.gui.settings import Settings


def _wheel(widget, steps: int = -3) -> None:
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(QPoint(int(centre.x()), int(centre.y())))),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_the_wheel_scrolls_past_a_combo_box_without_changing_it(qtbot):
    dialog = SettingsDialog(Settings(), True, "")
    qtbot.addWidget(dialog)
    dialog.resize(600, 300)  # the page scrolls
    dialog.show()
    qtbot.waitExposed(dialog)
    combo, spin = dialog.script_combo, dialog.max_length_spin
    before, scrolled = combo.currentIndex(), dialog.scroll_area.verticalScrollBar().value()
    _wheel(combo)
    _wheel(spin)
    assert combo.currentIndex() == before and spin.value() == Settings().max_output_length
    assert dialog.scroll_area.verticalScrollBar().value() > scrolled


def test_a_focused_combo_box_still_takes_the_wheel(qtbot):
    dialog = SettingsDialog(Settings(), True, "")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    combo = dialog.script_combo
    dialog.activateWindow()
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus, timeout=10_000)
    before = combo.currentIndex()
    _wheel(combo)
    assert combo.currentIndex() != before
