"""Keyboard focus: Tab and Shift+Tab move between the panes and the toolbar, never type.

A translator's text has no use for tab characters, and with Tab typing them the translation
pane and the toolbar could not be reached without the mouse. Both panes change focus on Tab;
Ctrl+Tab and Ctrl+Shift+Tab (which some editors use to leave a text field) do the same and
insert nothing. The toolbar's buttons take focus by Tab (Qt gives them none by default), in
the order they are shown: source, translation, then the toolbar, then back to the source.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit, QToolButton, QWidget

from ..ports import WindowPort

__all__ = [
    "TabFocus",
]


_TABS = (Qt.Key.Key_Tab, Qt.Key.Key_Backtab)


class TabFocus(QObject):
    """Installed on the window's panes (see the module docstring)."""

    def __init__(self, window: WindowPort) -> None:
        super().__init__(window.window())
        self.window = window
        for editor in (window.source, window.target):
            editor.setTabChangesFocus(True)
            editor.installEventFilter(self)
        chain: list[QWidget] = [window.source, window.target]
        for action in window.toolbar.actions():
            button = window.toolbar.widgetForAction(action)
            if isinstance(button, QToolButton):
                button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
                chain.append(button)
        for first, second in zip(chain, chain[1:]):
            QWidget.setTabOrder(first, second)
        self.chain = chain

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            event.type() in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride)
            and isinstance(event, QKeyEvent)
            and event.key() in _TABS
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
            and isinstance(obj, QPlainTextEdit)
        ):
            if event.type() == QEvent.Type.KeyPress:
                backward = event.key() == Qt.Key.Key_Backtab or bool(
                    event.modifiers() & Qt.KeyboardModifier.ShiftModifier
                )
                self.move_from(obj, -1 if backward else 1)
            event.accept()  # a ShortcutOverride accepted: the key comes here, not to a shortcut
            return True
        return super().eventFilter(obj, event)

    def move_from(self, widget: QWidget, step: int) -> None:
        """Focus the next (``step`` 1) or previous (-1) visible, enabled widget of the chain."""
        start = self.chain.index(widget) if widget in self.chain else 0
        for k in range(1, len(self.chain) + 1):
            candidate = self.chain[(start + step * k) % len(self.chain)]
            if candidate.isVisible() and candidate.isEnabled():
                reason = Qt.FocusReason.TabFocusReason if step > 0 else Qt.FocusReason.BacktabFocusReason
                candidate.setFocus(reason)
                return
