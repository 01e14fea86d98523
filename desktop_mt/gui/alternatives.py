"""Alternatives: other translations of the sentence under the cursor, from the beam search.

The translation pane's context menu (and Ctrl+Shift+A, also from the source pane) asks the
worker, on its thread and with a cancel flag, for ``Translator.alternatives(sentence, 3)``; a
menu lists them (the one shown now is checked); choosing one replaces that sentence in the
translation as one step of an undo stack of its own (Ctrl+Z / Ctrl+Shift+Z in the translation
pane, and Undo / Redo in its context menu). A new translation empties that stack and cancels
a pending request. The sentence ranges come from :mod:`.alignment`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut, QTextCursor, QUndoCommand, QUndoStack
from PySide6.QtWidgets import QMenu

from .alignment import AlignmentView, Pair

SHORTCUT = "Ctrl+Shift+A"
COUNT = 3


class ReplaceSentence(QUndoCommand):
    """Put ``text`` in place of ``pair``'s translation in the translation pane (and back)."""

    def __init__(self, view: AlignmentView, pair: Pair, text: str, changed: Callable[[], None] = lambda: None) -> None:
        super().__init__(f"Alternative for sentence {pair.segment + 1}")
        self.view, self.pair, self.new, self.old = view, pair, text, pair.translation
        self.changed = changed

    def _put(self, text: str) -> None:
        alignment = self.view.alignment
        if alignment is None or self.pair not in alignment.pairs:
            return  # the translation it belonged to is gone
        start, end = alignment.replace_translation(self.pair, text)
        cursor = QTextCursor(self.view.target.document())
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.beginEditBlock()
        cursor.insertText(text)
        cursor.endEditBlock()
        self.view.refresh()
        self.changed()

    def redo(self) -> None:
        self._put(self.new)

    def undo(self) -> None:
        self._put(self.old)


class AlternativesFeature(QObject):
    """The controller's side of the Alternatives command (see the module docstring)."""

    _requested = Signal(int, str, int, object, object)  # queued into the worker's thread
    menuShown = Signal(object)  # the QMenu of alternatives (tests, screenshots)
    translationReplaced = Signal(str, str)  # source, whole translation after a choice or its undo
    failed = Signal(str)

    def __init__(self, controller: Any, view: AlignmentView) -> None:
        super().__init__(controller)
        self.controller, self.view = controller, view
        self.window = window = controller.window
        self.undo_stack = QUndoStack(self)
        self.menu: QMenu | None = None
        self._next_id = 0
        self._pending: tuple[int, threading.Event, Pair] | None = None
        self._requested.connect(controller.worker.alternatives)
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
        self.undo_action = self.undo_stack.createUndoAction(self, "Undo alternative")
        self.redo_action = self.undo_stack.createRedoAction(self, "Redo alternative")
        # The pane is read-only, so Ctrl+Z there is free for the alternatives' own stack.
        for standard, slot in (
            (QKeySequence.StandardKey.Undo, self.undo_stack.undo),
            (QKeySequence.StandardKey.Redo, self.undo_stack.redo),
        ):
            for keys in QKeySequence.keyBindings(standard):  # Redo: Ctrl+Shift+Z and Ctrl+Y
                QShortcut(keys, target, activated=slot, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)

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
        self._pending = (self._next_id, cancel, pair)
        self.window.statusBar().showMessage("Finding alternatives…")
        self._requested.emit(self._next_id, pair.source, COUNT, self.controller.generation_options(), cancel)
        return self._next_id

    def cancel(self) -> None:
        """Drop a pending request (its flag stops the search within one decode step)."""
        if self._pending is not None:
            self._pending[1].set()
            self._pending = None

    def _on_request_started(self, _req_id: int, _text: str) -> None:
        self.cancel()
        self.undo_stack.clear()  # the text those steps changed is gone

    def _on_ready(self, req_id: int, result: Any) -> None:
        if self._pending is None or self._pending[0] != req_id:
            return  # superseded or cancelled
        pair = self._pending[2]
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
        self.show_menu(pair, result)

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

    def _menu_position(self, pair: Pair) -> QPoint:
        # Below the sentence's last line, from where the sentence starts (or the line's start).
        target = self.window.target
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
        if text != pair.translation:
            self.undo_stack.push(ReplaceSentence(self.view, pair, text, self._replaced))

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
        menu.addAction(self.undo_action)
        menu.addAction(self.redo_action)
        self.menu = menu
        menu.popup(target.viewport().mapToGlobal(pos))


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
