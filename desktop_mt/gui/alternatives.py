"""Alternatives: other translations of the sentence under the cursor, from the beam search.

The translation pane's context menu (and Ctrl+Shift+A, also from the source pane) asks the
worker, on its thread and with a cancel flag, for ``Translator.alternatives(sentence, 3)``; a
menu lists them (the one shown now is checked); choosing one replaces that sentence in the
translation as one undo step of the (editable) translation pane: Ctrl+Z / Ctrl+Shift+Z there.
A click on a word of the translation asks for the alternatives from that word on
(``alternatives(..., prefix=<the sentence's text before the word>)``, issue 28); choosing one
replaces the sentence from that word to its end. A chosen alternative is the user's choice:
the sentence counts as edited (kept through re-translation). A new translation cancels a
pending request. The sentence ranges come from :mod:`.alignment`.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QTextCursor
from PySide6.QtWidgets import QApplication, QMenu, QPlainTextEdit

from .alignment import AlignmentView, Pair, index_of16, slice16

SHORTCUT = "Ctrl+Shift+A"
COUNT = 3


def replace_in_pane(view: AlignmentView, start: int, end: int, text: str) -> None:
    """Put ``text`` in place of the pane's ``start``-``end`` (UTF-16) as one undo step made by
    the user (the alignment follows it: ``PostEditPane.userEdited``)."""
    target = view.target
    last = target.document().characterCount() - 1
    cursor = QTextCursor(target.document())
    cursor.setPosition(min(start, last))
    cursor.setPosition(min(end, last), QTextCursor.MoveMode.KeepAnchor)
    user_edit = getattr(target, "user_edit", None)
    with user_edit() if user_edit is not None else contextlib.nullcontext():
        cursor.beginEditBlock()
        cursor.insertText(text)
        cursor.endEditBlock()
    view.refresh()


class AlternativesFeature(QObject):
    """The controller's side of the Alternatives command (see the module docstring)."""

    _requested = Signal(int, str, int, object, object)  # queued into the worker's thread
    _fromRequested = Signal(int, str, str, int, object, object)  # id, sentence, prefix, n, options, cancel
    menuShown = Signal(object)  # the QMenu of alternatives (tests, screenshots)
    translationReplaced = Signal(str, str)  # source, whole translation after a choice or its undo
    failed = Signal(str)

    def __init__(self, controller: Any, view: AlignmentView) -> None:
        super().__init__(controller)
        self.controller, self.view = controller, view
        self.window = window = controller.window
        self.menu: QMenu | None = None
        self._revision = 0  # the pane's document revision when a word was clicked
        self._type_through = TypeThrough(window.target, self)
        self._next_id = 0
        self._pending: tuple[int, threading.Event, Pair, int | None] | None = None
        self._requested.connect(controller.worker.alternatives)
        self._fromRequested.connect(controller.worker.alternatives_from)
        word_clicks = getattr(window.target, "wordClicked", None)
        if word_clicks is not None:
            word_clicks.connect(self.request_from)
        controller.worker.alternativesReady.connect(self._on_ready)
        controller.requestStarted.connect(self._on_request_started)
        target = window.target
        target.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        target.customContextMenuRequested.connect(self._context_menu)
        self.action = QAction("Alternatives…", window)
        self.action.setToolTip(f"Other translations of the sentence under the cursor ({SHORTCUT})")
        self.action.setShortcut(QKeySequence(SHORTCUT))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.action.triggered.connect(lambda _c=False: self.request())
        window.addAction(self.action)

    # ---- requests -----------------------------------------------------------------------
    def request(self, pair: Pair | None = None) -> int | None:
        """Ask the worker for alternatives of ``pair`` (default: the sentence under the
        cursor). Returns the request id, or None when no translated sentence is there."""
        pair = pair or self.view.pair_at_cursor()
        if pair is None:
            self.window.statusBar().showMessage(
                "Place the cursor in a translated sentence to see its alternatives.", 4000
            )
            return None
        self.cancel()
        self._next_id += 1
        cancel = threading.Event()
        self._pending = (self._next_id, cancel, pair, None)
        self.window.statusBar().showMessage("Finding alternatives…")
        self._requested.emit(self._next_id, pair.source, COUNT, self.controller.generation_options(), cancel)
        return self._next_id

    def request_from(self, pos: int) -> int | None:
        """A click at ``pos`` of the translation pane: alternatives for its sentence from the
        word clicked on (the n-best continuations of the text before it). None when no
        translated sentence is there."""
        pair = self.view.pair_at("target", pos)
        if pair is None:
            return None
        text = self.window.target.toPlainText()
        start = max(pair.tgt[0], min(_word_start(self.window.target, pos), pair.tgt[1]))
        prefix = slice16(text, pair.tgt[0], start)
        self.cancel()
        self._next_id += 1
        cancel = threading.Event()
        self._pending = (self._next_id, cancel, pair, start)
        self._revision = self.window.target.document().revision()
        self.window.statusBar().showMessage("Finding alternatives from this word…")
        options = self.controller.window_options()
        self._fromRequested.emit(self._next_id, pair.source, prefix, COUNT, options, cancel)
        return self._next_id

    def cancel(self) -> None:
        """Drop a pending request (its flag stops the search within one decode step)."""
        if self._pending is not None:
            self._pending[1].set()
            self._pending = None

    def _on_request_started(self, _req_id: int, _text: str) -> None:
        self.cancel()

    def _on_ready(self, req_id: int, result: Any) -> None:
        if self._pending is None or self._pending[0] != req_id:
            return  # superseded or cancelled
        pair, start = self._pending[2], self._pending[3]
        self._pending = None
        self.window.statusBar().clearMessage()
        if isinstance(result, str):
            self.window.statusBar().showMessage(result, 8000)
            self.failed.emit(result)
            return
        if not result:
            return
        alignment = self.view.alignment
        if alignment is None or pair not in alignment.pairs:
            return  # a new translation replaced the sentence meanwhile
        if start is None:
            self.show_menu(pair, result)
        elif self.window.target.document().revision() == self._revision:  # not typed on since the click
            self.show_menu_from(pair, start, result)

    # ---- menus --------------------------------------------------------------------------
    def show_menu(self, pair: Pair, alternatives: list[Any]) -> QMenu:
        """The menu of ``alternatives`` for ``pair``, below the sentence in the translation pane."""
        menu = QMenu(self.window)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.setToolTipsVisible(True)
        header = menu.addAction(f"Alternatives for “{_short(pair.source)}”")
        header.setEnabled(False)
        for alt in alternatives:
            action = menu.addAction(alt.text.replace("&", "&&"))
            action.setCheckable(True)
            action.setChecked(alt.text == pair.translation)
            action.setToolTip(f"score {alt.score:.3f}")
            action.setData(alt.text)
            action.triggered.connect(lambda _c=False, p=pair, t=alt.text: self.choose(p, t))
        self.menu = menu
        menu.popup(self._menu_position(pair))
        self.menuShown.emit(menu)
        return menu

    def show_menu_from(self, pair: Pair, start: int, alternatives: list[Any]) -> QMenu:
        """The menu of continuations of ``pair``'s translation from position ``start`` (a word)."""
        text = self.window.target.toPlainText()
        head = slice16(text, pair.tgt[0], start)
        tail = slice16(text, start, pair.tgt[1])
        menu = QMenu(self.window)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.setToolTipsVisible(True)
        word = tail.split()[0] if tail.split() else tail
        menu.addAction(f"Alternatives from “{_short(word, 20)}”").setEnabled(False)
        for alt in alternatives:
            action = menu.addAction(("…" if head.strip() else "") + alt.text.replace("&", "&&"))
            action.setCheckable(True)
            action.setChecked(alt.text.strip() == tail.strip())
            action.setToolTip(f"score {alt.score:.3f}")
            action.setData(alt.text)
            action.triggered.connect(lambda _c=False, p=pair, s=start, t=alt.text: self.choose_from(p, s, t))
        menu.installEventFilter(self._type_through)  # typing goes on in the pane, closing the menu
        self.menu = menu
        menu.popup(self._menu_position(pair))
        self.menuShown.emit(menu)
        return menu

    def choose_from(self, pair: Pair, start: int, text: str) -> None:
        """Replace ``pair``'s translation from ``start`` to its end with ``text`` (one undo step)."""
        alignment = self.view.alignment
        if alignment is None or pair not in alignment.pairs:
            return
        replace_in_pane(self.view, start, pair.tgt[1], text)
        self._replaced()

    def _menu_position(self, pair: Pair) -> QPoint:
        # Below the sentence's last line, from where the sentence starts (or the line's start).
        target: QPlainTextEdit = self.window.target
        last = target.document().characterCount() - 1
        cursor = QTextCursor(target.document())
        cursor.setPosition(min(pair.tgt[0], last))
        start = target.cursorRect(cursor)
        cursor.setPosition(min(pair.tgt[1], last))
        end = target.cursorRect(cursor)
        x = start.left() if start.top() == end.top() or start.left() < end.left() else 0
        return target.viewport().mapToGlobal(QPoint(x, end.bottom()))

    def choose(self, pair: Pair, text: str) -> None:
        """Replace ``pair``'s translation with ``text`` (one undoable step)."""
        alignment = self.view.alignment
        if text == pair.translation or alignment is None or pair not in alignment.pairs:
            return
        replace_in_pane(self.view, pair.tgt[0], pair.tgt[1], text)
        self._replaced()

    def _replaced(self) -> None:
        """An alternative went in (or came out again): the history keeps what is shown."""
        self.translationReplaced.emit(self.window.source_text(), self.window.target_text())

    def _context_menu(self, pos: QPoint) -> None:
        target = self.window.target
        menu = target.createStandardContextMenu(pos)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        pair = self.view.pair_at("target", target.cursorForPosition(pos).position())
        menu.addSeparator()
        action = menu.addAction(f"Alternatives…\t{SHORTCUT}")
        action.setEnabled(pair is not None)
        action.triggered.connect(lambda _c=False, p=pair: self.request(p))
        self.menu = menu
        menu.popup(target.viewport().mapToGlobal(pos))


class TypeThrough(QObject):
    """On a menu offered by a click in the pane: a key that types text closes the menu and
    goes to the pane, so a click to place the cursor and typing on are never caught by it."""

    def __init__(self, pane: QPlainTextEdit, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pane = pane

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent) or not isinstance(obj, QMenu):
            return False
        typed = event.text()
        if not typed or not typed.isprintable() or event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier:
            return False  # arrows, Enter, Esc: the menu's
        obj.close()
        copy = QKeyEvent(QEvent.Type.KeyPress, event.key(), event.modifiers(), typed)
        QApplication.sendEvent(self.pane, copy)
        return True


def _word_start(editor: Any, pos: int) -> int:
    """The start of the word at ``pos`` in ``editor`` (a Chinese text: the character clicked)."""
    text = editor.toPlainText()
    index = index_of16(text, pos)
    if index < len(text) and not text[index].isspace() and not text[index].isascii():
        return pos  # no spaces between words: from the character clicked on
    cursor = QTextCursor(editor.document())
    cursor.setPosition(pos)
    cursor.movePosition(QTextCursor.MoveOperation.StartOfWord)
    return cursor.position()


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
