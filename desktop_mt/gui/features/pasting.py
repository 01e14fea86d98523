"""Text coming into the source pane: joining the line breaks of text copied from PDFs, and
text that is left as it is (issues 19 and 26).

- :class:`PasteEdit` is the source editor. Text pasted into it (Ctrl+V, the context menu, a
  text drop) goes through its ``transform`` (the engine's ``join_lines`` while Edit > Join
  lines on paste is on). The raw text is inserted first and then replaced by the joined text,
  as two undo steps: one Ctrl+Z brings back the text exactly as it was pasted. A paste is an
  undo step of its own, never merged with the typing after it (:func:`end_undo_step`).
- A paste or a text drop is translated at once (``PasteEdit.pasted``), also while Translate as
  you type is off: the text is all there, nothing is left to wait for (as DeepL does).
- :class:`InputHandling` (a feature on the window's ``Services``) keeps that toggle in the settings, does the
  same for clipboard text brought in by "Translate clipboard" and the hotkey, and stops text
  that nothing would be done to before it reaches the model, with one line in the status bar:
  Japanese or Korean text, and text already in the chosen language (Chinese with English ->
  Chinese chosen). The rule is the engine's, ``engine.direction`` (``directions_needed``,
  ``describe``); Chinese text is translated into English like English into Chinese.
- :func:`clipboard_text` reads the clipboard (or the PRIMARY selection) as the settings say: the
  hotkey, the popup and "Translate selection" all bring text in through it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QMimeData, QObject, Signal
from PySide6.QtGui import QClipboard, QDropEvent, QGuiApplication, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

from desktop_mt.engine import direction
from desktop_mt.engine import pasted as paste_rules

from ..i18n import QT_TRANSLATE_NOOP, translate
from ..messages import describe_text, sentence

if TYPE_CHECKING:
    from ..services import Services
    from ..settings import Settings

__all__ = [
    "InputHandling",
    "JOINED",
    "PasteEdit",
    "clipboard_text",
    "end_undo_step",
    "join_lines",
    "left_as_is_message",
    "transformed",
]


_logger = logging.getLogger(__name__)

_QUICK_LOOK = 2000  # characters looked at first to see that a text is translated
JOINED = QT_TRANSLATE_NOOP("Pasting", "Joined the line breaks of the pasted text (Ctrl+Z: the text as pasted).")


class PasteEdit(QPlainTextEdit):
    """A plain text editor whose pastes and text drops go through ``transform``."""

    pasteTransformed = Signal(str, str)  # the text as pasted, what it became
    pasted = Signal()  # a paste or a text drop is in (joined when that is on)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.transform: Callable[[str], str] | None = None
        self._dropping = False
        self._pending: tuple[int, int, str, str] | None = None

    def insertFromMimeData(self, source: QMimeData) -> None:
        raw = source.text() if source.hasText() else ""
        result = transformed(self.transform, raw)
        if not raw or result == raw:
            super().insertFromMimeData(source)
            end_undo_step(self)
            if raw and not self._dropping:
                self.pasted.emit()
            return
        start, end = _insert_text(self, raw)
        if self._dropping:  # Qt wraps a drop in one edit block: replace after it (dropEvent)
            self._pending = (start, end, raw, result)
            return
        self._replace(start, end, raw, result)
        end_undo_step(self)
        self.pasted.emit()

    def dropEvent(self, event: QDropEvent) -> None:
        self._dropping, self._pending = True, None
        try:
            super().dropEvent(event)
        finally:
            self._dropping = False
        pending, self._pending = self._pending, None
        if pending is not None:
            self._replace(*pending)
        end_undo_step(self)
        if event.isAccepted() and event.mimeData().hasText():
            self.pasted.emit()

    def _replace(self, start: int, end: int, raw: str, result: str) -> None:
        _replace_range(self, start, end, result)
        self.pasteTransformed.emit(raw, result)


def end_undo_step(editor: QPlainTextEdit) -> None:
    """Typing after a paste is an undo step of its own: Ctrl+Z takes back the typing first,
    then the paste. QTextDocument merges a new insertion into the previous undo command only
    while the document is "modified" (QTextDocumentPrivate::appendUndoItem), so clearing that
    flag (which nothing else here uses) ends the step."""
    editor.document().setModified(False)


def _insert_text(editor: QPlainTextEdit, text: str) -> tuple[int, int]:
    """Insert ``text`` at the cursor (over its selection) as one edit block; its range."""
    cursor = editor.textCursor()
    start = cursor.selectionStart()
    cursor.beginEditBlock()
    cursor.insertText(text)
    cursor.endEditBlock()
    editor.setTextCursor(cursor)
    return start, cursor.position()


def _replace_range(editor: QPlainTextEdit, start: int, end: int, text: str) -> None:
    """Replace the characters from ``start`` to ``end`` by ``text`` as an edit block of its
    own, so undo goes back to what was there (the text as pasted) first."""
    cursor = editor.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    cursor.beginEditBlock()
    cursor.insertText(text)
    cursor.endEditBlock()
    editor.setTextCursor(cursor)
    editor.ensureCursorVisible()


def join_lines(text: str) -> str:
    """The PDF line joining of pasted text (``desktop_mt.engine.pasted``)."""
    return paste_rules.join_lines(text)


def transformed(transform: Callable[[str], str] | None, raw: str) -> str:
    """``raw`` through ``transform``, or ``raw`` itself when that changes nothing but the
    whitespace at its ends (a list copied with its trailing newline: nothing visible is
    joined, so nothing is replaced and no notice says so)."""
    if transform is None or not raw:
        return raw
    result = transform(raw)
    return raw if result.strip() == raw.strip() else result


def left_as_is_message(text: str, target: direction.Target) -> str:
    """What the status bar says when ``text`` has nothing to translate towards ``target``
    ("Japanese: left as it is."), or "" when some of it is translated (``engine.direction``)."""
    # The start of a long text nearly always decides it (and the UI thread stays quick).
    if direction.directions_needed(text[:_QUICK_LOOK], target) or direction.directions_needed(text, target):
        return ""
    said = describe_text(text, target)  # in the interface language, as the popup says it
    return sentence(said) if said else ""


def clipboard_text(settings: Settings, selection: bool = False) -> str:
    """Clipboard text; the PRIMARY selection (the text selected last) first when ``selection``
    is asked for or ``settings.use_primary_selection`` is on, where the platform has one."""
    clipboard = QGuiApplication.clipboard()
    if (selection or settings.use_primary_selection) and clipboard.supportsSelection():
        text = clipboard.text(QClipboard.Mode.Selection)
        if text.strip():
            return text
    return clipboard.text(QClipboard.Mode.Clipboard)


class InputHandling(QObject):
    """The window's side of the above: the Edit menu toggle (remembered), clipboard text,
    and the check for text that is left as it is."""

    def __init__(self, services: Services) -> None:
        super().__init__(services.owner)
        self.services = services
        self.window = window = services.window
        self._left_note = ""  # the last "left as it is" note shown
        window.join_lines_action.setChecked(services.settings.join_lines)
        window.joinLinesToggled.connect(self.set_join_lines)
        if isinstance(window.source, PasteEdit):  # the app's editor (a test's plain one pastes as is)
            window.source.pasteTransformed.connect(self._on_joined)
            window.source.pasted.connect(self._on_pasted)
        self._apply()

    @property
    def joining(self) -> bool:
        """Whether pasted and clipboard text is joined (the setting)."""
        return bool(self.services.settings.join_lines)

    def set_join_lines(self, on: bool) -> None:
        """Edit > Join lines on paste: remember it and use it from the next paste on."""
        self.services.settings.join_lines = bool(on)
        self.window.join_lines_action.setChecked(bool(on))
        self._apply()
        self.services.save()

    def _apply(self) -> None:
        if isinstance(self.window.source, PasteEdit):
            self.window.source.transform = join_lines if self.joining else None

    def _on_joined(self, raw: str, joined: str) -> None:
        _logger.info("pasted text joined: %d lines -> %d", raw.count("\n") + 1, joined.count("\n") + 1)
        self.window.statusBar().showMessage(translate("Pasting", JOINED), 8000)

    def _on_pasted(self) -> None:
        """A paste is translated at once, also with Translate as you type on (as DeepL does: the
        typing pause is for typing; the translation stops the pause the paste's edit started)."""
        text = self.window.source_text()
        if text.strip():
            self.services.translate(text)

    def bring_in(self, text: str) -> str:
        """Put clipboard ``text`` into the source pane (one undoable step) and, when joining is
        on and changes it, the joined text as a second step. Returns what to translate."""
        self.window.set_source(text)
        if not self.joining:
            return text
        joined = transformed(join_lines, text)
        if joined != text:
            self.window.set_source(joined)
            self._on_joined(text, joined)
        return joined

    def left_as_is(self, text: str, target: direction.Target) -> bool:
        """True (and the status bar says why) when nothing in ``text`` is translated towards
        ``target`` ("auto", "en", "zh"): Japanese, Korean, already in that language."""
        message = left_as_is_message(text, target)
        bar = self.window.statusBar()
        if not message:
            if bar.currentMessage() == self._left_note:  # translated now: the note would be wrong
                bar.clearMessage()
            return False
        self._left_note = message
        bar.showMessage(message, 10_000)
        return True
