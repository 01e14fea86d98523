"""The popup at the cursor: with Settings > "The hotkey shows the translation in: a small popup",
the global hotkey opens a small frameless window near the mouse pointer (kept inside the
screen's available area) that streams the translation of the clipboard (or of the PRIMARY
selection where that option is on), with Copy and "Open in main window". Esc, a click
elsewhere or the focus leaving it close it.

The popup's requests go to the same worker as the main window's, with ids of their own
(negative, so the window's request flow ignores their output) and their own cancel flag; a translation
that runs to its end is kept in the history like any other. The popup translates in the Auto
direction (English into Chinese, Chinese into English, sentence by sentence:
:mod:`desktop_mt.engine.direction`) whatever the window's direction control says, and its
title says which way the text goes.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QCursor, QGuiApplication, QKeyEvent, QTextCursor
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from desktop_mt.engine.direction import AUTO
from desktop_mt.engine.options import GenerationOptions

from ..features.pasting import InputHandling, clipboard_text, join_lines
from ..i18n import translate
from ..messages import describe_text
from ..services import Services
from . import fonts, theme

if TYPE_CHECKING:
    from desktop_mt.engine.events import TranslationStats

__all__ = [
    "OFFSET",
    "PopupFeature",
    "SIZE",
    "direction_title",
    "place_near",
]


SIZE = QSize(420, 220)
_BOTH_WAYS = "English ↔ 中文"
OFFSET = QPoint(14, 18)  # below and right of the pointer, so it does not cover what was selected


def direction_title(text: str) -> str:
    """The popup's title for ``text`` in the interface language: which way it is translated
    ("Chinese → English"), or why it is left as it is ("Japanese: left as it is"), in the
    words of the window's Auto entry (:func:`..messages.describe_text`)."""
    return describe_text(text) or _BOTH_WAYS


def place_near(pointer: QPoint, size: QSize, area: QRect, offset: QPoint = OFFSET) -> QPoint:
    """Top-left corner for a window of ``size`` near ``pointer``: below-right of it, flipped
    above/left when that side has no room, and always inside ``area`` (the screen's available
    geometry; a window larger than the area is pinned to its top-left)."""
    x, y = pointer.x() + offset.x(), pointer.y() + offset.y()
    if x + size.width() > area.right() + 1:
        x = pointer.x() - offset.x() - size.width()
    if y + size.height() > area.bottom() + 1:
        y = pointer.y() - offset.y() - size.height()
    x = max(area.left(), min(x, area.right() + 1 - size.width()))
    y = max(area.top(), min(y, area.bottom() + 1 - size.height()))
    return QPoint(x, y)


class _TranslationPopup(QFrame):
    """The popup itself: passive, like the main window (see :class:`PopupFeature`)."""

    copyRequested = Signal()
    openRequested = Signal()
    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        # A Qt.Popup grabs the keyboard and the pointer, so Esc and a click elsewhere reach it
        # even though the hotkey was pressed in another application.
        super().__init__(parent, Qt.WindowType.Popup | Qt.WindowType.FramelessWindowHint)
        self.setObjectName("translationPopup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self.setAutoFillBackground(True)
        self.title = QLabel(_BOTH_WAYS, self)
        theme.set_tone(self.title, "quiet")
        self.text = QPlainTextEdit(self)
        self.text.setObjectName("popupText")
        self.text.setReadOnly(True)
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        self.text.setFont(fonts.editor_font(14))
        self.status = QLabel("", self)
        theme.set_tone(self.status, "quiet")
        self.copy_button = QPushButton(translate("Popup", "Copy"), self)
        self.copy_button.setToolTip(translate("Popup", "Copy the translation"))
        self.open_button = QPushButton(translate("Popup", "Open in main window"), self)
        self.copy_button.clicked.connect(self.copyRequested.emit)
        self.open_button.clicked.connect(self.openRequested.emit)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.title)
        layout.addWidget(self.text, 1)
        layout.addLayout(buttons)
        self.resize(SIZE)

    def start(self, source: str) -> None:
        """A new translation of ``source`` starts streaming in."""
        self.text.clear()
        self.title.setText(direction_title(source))
        self.setToolTip(source[:300])
        self.set_status(translate("Popup", "Translating…"))

    def append(self, text: str) -> None:
        """Streamed text at the end."""
        cursor = QTextCursor(self.text.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)

    def translation(self) -> str:
        return self.text.toPlainText()

    def set_status(self, text: str, tone: str | None = "quiet") -> None:
        self.status.setText(text)
        theme.set_tone(self.status, tone)

    def show_near(self, pointer: QPoint) -> None:
        """Show near ``pointer`` (global coordinates), inside its screen's available area."""
        screen = QGuiApplication.screenAt(pointer) or QGuiApplication.primaryScreen()
        area = screen.availableGeometry() if screen is not None else QRect(QPoint(0, 0), SIZE)
        size = self.size().boundedTo(area.size())
        self.resize(size)
        self.move(place_near(pointer, size, area))
        self.show()
        self.raise_()
        self.activateWindow()
        self.text.setFocus()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            event.accept()
            self.close()
            return
        super().keyPressEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        # Focus loss: another window was activated (where the window system reports it).
        if event.type() == QEvent.Type.ActivationChange and self.isVisible() and not self.isActiveWindow():
            self.close()
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        super().closeEvent(event)
        self.closed.emit()


class PopupFeature(QObject):
    """Runs the popup's translations on the window's worker (see the module docstring)."""

    _translateRequested = Signal(int, str, GenerationOptions, threading.Event)
    finished = Signal(int)  # request id, after its end was shown (tests)

    def __init__(self, services: Services, input_handling: InputHandling) -> None:
        super().__init__(services.owner)
        self.services = services
        self.input = input_handling  # Edit > Join lines on paste applies to the popup's text too
        self.popup = _TranslationPopup()
        self.popup.copyRequested.connect(self.copy)
        self.popup.openRequested.connect(self.open_in_window)
        self.popup.closed.connect(self.cancel)
        self._next_id = 0
        self._current: tuple[int, threading.Event] | None = None
        self.source = ""
        self.done = False
        worker = services.worker
        self._translateRequested.connect(worker.translate)
        worker.delta.connect(self._on_delta)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)

    def show_for_clipboard(self, pointer: QPoint | None = None) -> int | None:
        """Open the popup near the pointer and stream the clipboard's translation (its PDF line
        breaks joined when Edit > Join lines on paste is on, as in the main window)."""
        text = clipboard_text(self.services.settings)
        if self.input.joining:
            text = join_lines(text)
        return self.show_for(text, QCursor.pos() if pointer is None else pointer)

    def show_for(self, text: str, pointer: QPoint) -> int | None:
        """Open the popup at ``pointer`` translating ``text``; returns the request id."""
        self.cancel()
        self.source, self.done = text, False
        self.popup.start(text)
        self.popup.show_near(pointer)
        if not text.strip():
            self.popup.set_status(translate("Popup", "The clipboard holds no text to translate."), "warning")
            self.done = True
            return None
        self._next_id -= 1  # negative: never one of the session's ids
        cancel = threading.Event()
        self._current = (self._next_id, cancel)
        options = dataclasses.replace(self.services.generation_options(), target=AUTO)
        self._translateRequested.emit(self._next_id, text, options, cancel)
        return self._next_id

    def cancel(self) -> None:
        """Stop the popup's running translation (closing the popup does this)."""
        if self._current is not None:
            self._current[1].set()
            self._current = None

    def _mine(self, req_id: int) -> bool:
        return self._current is not None and self._current[0] == req_id

    def _on_delta(self, req_id: int, text: str) -> None:
        if self._mine(req_id):
            self.popup.append(text)

    def _on_finished(self, req_id: int, stats: TranslationStats | None) -> None:
        if not self._mine(req_id):
            return
        self._current = None
        self.done = True
        self.popup.set_status("")
        if stats is not None and not stats.cancelled:
            self.services.session.complete(self.source, self.popup.translation())  # the history keeps it
        self.finished.emit(req_id)

    def _on_failed(self, req_id: int, message: str) -> None:
        if not self._mine(req_id):
            return
        self._current = None
        self.done = True
        self.popup.set_status(message.splitlines()[0], "error")
        self.finished.emit(req_id)

    def copy(self) -> None:
        """Put the popup's translation on the clipboard."""
        QGuiApplication.clipboard().setText(self.popup.translation())
        self.popup.set_status(translate("Popup", "Copied"))

    def open_in_window(self) -> None:
        """Hand over to the main window: the finished translation as it is (the source as one
        undoable step), or a fresh translation there when it was still streaming."""
        source, translation, done = self.source, self.popup.translation(), self.done
        self.popup.close()  # cancels a running translation
        window = self.services.window
        if done and translation:
            self.services.show_entry(source, translation)
        elif source.strip():
            window.set_source(source)
            self.services.translate(source)
        window.bring_forward()

    def close(self) -> None:
        """Close the popup (app shutdown)."""
        self.cancel()
        self.popup.close()
