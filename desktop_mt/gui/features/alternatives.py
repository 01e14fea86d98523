"""Alternatives: other translations of the sentence under the cursor, from the beam search.

The translation pane's context menu (and Ctrl+Shift+A, also from the source pane) asks the
worker, on its thread and with a cancel flag, for ``Translator.alternatives(sentence, 3)``; a
menu lists them (the one shown now is checked); choosing one replaces that sentence in the
translation as one undo step of the (editable) translation pane: Ctrl+Z / Ctrl+Shift+Z there.

Alternatives from a word (issue 28: ``alternatives(..., prefix=<the sentence's text before the
word>)``; choosing one replaces the sentence from that word to its end):

- A plain click on a word places the cursor, as in any editor, and asks for them in the
  background; they come as a small non-modal list under the sentence (:class:`AlternativesPopup`,
  a child of the pane that never takes the focus or the keyboard). Any key goes to the pane and
  takes the list away (Esc only takes it away); a click on an entry chooses it.
- Asked for explicitly (Alt+Down, or the context menu's "Alternatives from here"): a keyboard
  menu at the cursor (arrows, Enter; typing goes on in the pane and closes it).

The position is snapped to a clean start (:func:`clean_start`): an English word from its first
letter; Chinese from the start of the model token the click fell in (the target tokenizer's
pieces), never inside a character. A chosen alternative is the user's choice: the sentence
counts as edited (kept through re-translation). A new translation cancels a pending request.
The sentence ranges come from :mod:`.alignment`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import unicodedata

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QColor, QKeyEvent, QKeySequence, QPalette, QTextCursor
from PySide6.QtWidgets import QApplication, QFrame, QLabel, QMenu, QPlainTextEdit, QToolButton, QVBoxLayout

from desktop_mt.app.session import Request
from desktop_mt.engine.events import Alternative
from desktop_mt.engine.options import GenerationOptions

from ..i18n import translate
from ..services import Services
from ..window.postedit_pane import document_slice
from .alignment import AlignmentView, Pair, utf16_len

__all__ = [
    "AlternativesFeature",
    "AlternativesPopup",
    "COUNT",
    "SPACE",
    "clean_start",
    "piece_starts",
]


_SHORTCUT = "Ctrl+Shift+A"
_FROM_HERE_SHORTCUT = "Alt+Down"  # alternatives from the cursor, as a keyboard menu
COUNT = 3
CLICK, MENU = "click", "menu"  # how alternatives from a word were asked for
SPACE = "\u2581"  # SentencePiece's space


def _replace_in_pane(view: AlignmentView, start: int, end: int, text: str) -> None:
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


@dataclasses.dataclass(frozen=True)
class _Pending:
    """A request on its way: its id and cancel flag, the sentence, and for alternatives from a
    word the position they start at and how they were asked for (``CLICK`` or ``MENU``)."""

    req_id: int
    cancel: threading.Event
    pair: Pair
    start: int | None = None
    how: str = MENU
    revision: int = 0  # the pane's document revision when asked
    cursor: int = -1  # where the pane's cursor was (a click's list comes only if it is still there)


class AlternativesPopup(QFrame):
    """The alternatives a click asked for: a small list under the sentence, a child of the
    pane's viewport. It never takes the focus or the keyboard (no popup grab): the pane keeps
    both, and a key there takes the list away (``AlternativesFeature``'s filter)."""

    def __init__(self, pane: QPlainTextEdit) -> None:
        super().__init__(pane.viewport())
        self.setObjectName("alternativesPopup")
        self.pane = pane
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFrameShape(QFrame.Shape.Box)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(4, 2, 4, 2)
        self._layout.setSpacing(0)
        self.hide()

    def offer(self, title: str, actions: list[QAction], below: int, x: int) -> None:
        """Show ``title`` and a button per action, from ``x`` under the viewport's ``below`` line."""
        self.dismiss()
        palette = self.pane.palette()
        role, argb = QPalette.ColorRole, QColor.NameFormat.HexArgb
        # A style sheet, not setPalette: the pane's own style sheet (look.py) would override a palette.
        self.setStyleSheet(
            f"QFrame#alternativesPopup {{ background: {palette.color(role.ToolTipBase).name(argb)}; "
            f"border: 1px solid {palette.color(role.Mid).name(argb)}; }} "
            f"QFrame#alternativesPopup QLabel, QFrame#alternativesPopup QToolButton "
            f"{{ color: {palette.color(role.ToolTipText).name(argb)}; }}"
        )
        label = QLabel(title, self)
        label.setEnabled(False)
        self._layout.addWidget(label)
        for action in actions:
            button = QToolButton(self)
            button.setDefaultAction(action)
            button.setAutoRaise(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            self._layout.addWidget(button)
            self.addAction(action)
        self.adjustSize()
        viewport = self.pane.viewport()
        y = below if below + self.height() <= viewport.height() else max(0, below - self.height() - 24)
        self.move(max(0, min(x, viewport.width() - self.width())), y)
        self.show()
        self.raise_()

    def dismiss(self) -> None:
        """Take the list away (nothing chosen)."""
        self.hide()
        for action in self.actions():
            self.removeAction(action)
        while (item := self._layout.takeAt(0)) is not None:
            widget = item.widget()
            if widget is not None:
                widget.deleteLater()


class AlternativesFeature(QObject):
    """The window's side of the Alternatives command (see the module docstring)."""

    _requested = Signal(int, str, int, GenerationOptions, threading.Event)  # queued into the worker's thread
    # id, sentence, prefix, n, options, cancel
    _fromRequested = Signal(int, str, str, int, GenerationOptions, threading.Event)
    menuShown = Signal(QMenu)  # the QMenu of alternatives (tests, screenshots)
    popupShown = Signal(AlternativesPopup)  # the AlternativesPopup a click's alternatives are offered in
    translationReplaced = Signal(str, str)  # source, whole translation after a choice or its undo
    failed = Signal(str)

    def __init__(self, services: Services, view: AlignmentView) -> None:
        super().__init__(services.owner)
        self.services, self.view = services, view
        self.window = window = services.window
        self.worker = worker = services.worker  # its translator (the one loaded now) gives the pieces
        target = window.target
        self.menu: QMenu | None = None
        self.popup = AlternativesPopup(target)
        self._type_through = _TypeThrough(target, self)
        self._closer = _PopupCloser(self.popup, self.popup)  # goes with the popup (and off the pane)
        target.installEventFilter(self._closer)
        target.viewport().installEventFilter(self._closer)
        target.verticalScrollBar().valueChanged.connect(lambda _v: self.popup.dismiss())
        self._next_id = 0
        self._pending: _Pending | None = None
        self._requested.connect(worker.alternatives)
        self._fromRequested.connect(worker.alternatives_from)
        word_clicks = getattr(target, "wordClicked", None)
        if word_clicks is not None:
            word_clicks.connect(lambda pos: self.request_from(pos, CLICK))
        worker.alternativesReady.connect(self._on_ready)
        services.session.started.subscribe(self._on_request_started)
        target.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        target.customContextMenuRequested.connect(self._context_menu)
        self.action = QAction(translate("Alternatives", "Alternatives…"), window.window())
        self.action.setToolTip(
            translate("Alternatives", "Other translations of the sentence under the cursor ({keys})").format(
                keys=_SHORTCUT
            )
        )
        self.action.setShortcut(QKeySequence(_SHORTCUT))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.action.triggered.connect(lambda _c=False: self.request())
        window.addAction(self.action)
        self.from_here_action = QAction(translate("Alternatives", "Alternatives from here"), target)
        self.from_here_action.setToolTip(
            translate(
                "Alternatives", "Other continuations of the translation from the word at the cursor ({keys})"
            ).format(keys=_FROM_HERE_SHORTCUT)
        )
        self.from_here_action.setShortcut(QKeySequence(_FROM_HERE_SHORTCUT))
        self.from_here_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.from_here_action.triggered.connect(lambda _c=False: self.request_from(target.textCursor().position()))
        target.addAction(self.from_here_action)

    # ---- requests -----------------------------------------------------------------------
    def request(self, pair: Pair | None = None) -> int | None:
        """Ask the worker for alternatives of ``pair`` (default: the sentence under the
        cursor). Returns the request id, or None when no translated sentence is there."""
        pair = pair or self.view.pair_at_cursor()
        if pair is None:
            self.window.statusBar().showMessage(
                translate("Alternatives", "Place the cursor in a translated sentence to see its alternatives."), 4000
            )
            return None
        self.cancel()
        self._next_id += 1
        self._pending = _Pending(self._next_id, threading.Event(), pair)
        self.window.statusBar().showMessage(translate("Alternatives", "Finding alternatives…"))
        self._requested.emit(
            self._next_id, pair.source, COUNT, self.services.generation_options(), self._pending.cancel
        )
        return self._next_id

    def request_from(self, pos: int, how: str = MENU) -> int | None:
        """Alternatives for the sentence at ``pos`` of the translation pane from the word there
        (the n-best continuations of the text before it; :func:`clean_start`). ``how``:
        ``CLICK`` (a plain click: offered in the non-modal list) or ``MENU`` (asked for: a
        keyboard menu). None when no translated sentence is there."""
        self.popup.dismiss()
        pair = self.view.pair_at("target", pos)
        if pair is None:
            if how == MENU:
                self.window.statusBar().showMessage(
                    translate("Alternatives", "Place the cursor in a translated sentence to see its alternatives."),
                    4000,
                )
            return None
        document = self.window.target.document()
        start = self._clean_start(pair, document_slice(document, pair.tgt[0], pair.tgt[1]), pos)
        prefix = document_slice(document, pair.tgt[0], start)
        self.cancel()
        self._next_id += 1
        revision = self.window.target.document().revision()
        cursor = self.window.target.textCursor().position()
        self._pending = _Pending(self._next_id, threading.Event(), pair, start, how, revision, cursor)
        if how == MENU:
            self.window.statusBar().showMessage(translate("Alternatives", "Finding alternatives from this word…"), 4000)
        options = self.services.window_options()
        self._fromRequested.emit(self._next_id, pair.source, prefix, COUNT, options, self._pending.cancel)
        return self._next_id

    def _clean_start(self, pair: Pair, sentence: str, pos: int) -> int:
        """``pos`` snapped to where alternatives may start in ``pair``'s translation
        ``sentence`` (:func:`clean_start`), UTF-16; never inside a character."""
        index, at = 0, pair.tgt[0]
        while index < len(sentence) and at + utf16_len(sentence[index]) <= pos:
            at += utf16_len(sentence[index])
            index += 1
        index = clean_start(sentence, index, self._piece_starts(pair.source, sentence))
        return pair.tgt[0] + utf16_len(sentence[:index])

    def _piece_starts(self, source: str, translation: str) -> set[int] | None:
        """Where the target tokenizer's pieces of ``translation`` start (indices); None when the
        engine has no pieces to tell (none loaded yet, a test's stand-in, a sentence without a
        model): characters and words are the boundaries then."""
        engine = self.worker.translator
        if engine is None:
            return None
        pieces = engine.target_pieces(source, translation, self.services.window_options())
        return piece_starts(translation, pieces) if pieces is not None else None

    def cancel(self) -> None:
        """Drop a pending request (its flag stops the search within one decode step)."""
        if self._pending is not None:
            self._pending.cancel.set()
            self._pending = None

    def _on_request_started(self, _request: Request) -> None:
        self.cancel()
        self.popup.dismiss()

    def _on_ready(self, req_id: int, result: list[Alternative] | str) -> None:
        pending = self._pending
        if pending is None or pending.req_id != req_id:
            return  # superseded or cancelled
        self._pending = None
        if pending.how == MENU:
            self.window.statusBar().clearMessage()
        if isinstance(result, str):
            self.window.statusBar().showMessage(result, 8000)
            self.failed.emit(result)
            return
        if not result:
            return
        alignment = self.view.alignment
        if alignment is None or pending.pair not in alignment.pairs:
            return  # a new translation replaced the sentence meanwhile
        if pending.start is None:
            self.show_menu(pending.pair, result)
        elif self.window.target.document().revision() != pending.revision:
            return  # typed on since: the text they were for is gone
        elif pending.how == CLICK:
            target = self.window.target
            if target.textCursor().position() == pending.cursor and target.hasFocus():  # not moved on since
                self.show_popup(pending.pair, pending.start, result)
        else:
            self.show_menu_from(pending.pair, pending.start, result)

    # ---- menus --------------------------------------------------------------------------
    def show_menu(self, pair: Pair, alternatives: list[Alternative]) -> QMenu:
        """The menu of ``alternatives`` for ``pair``, below the sentence in the translation pane."""
        menu = QMenu(self.window.window())
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.setToolTipsVisible(True)
        header = menu.addAction(translate("Alternatives", "Alternatives for “{text}”").format(text=_short(pair.source)))
        header.setEnabled(False)
        for alt in alternatives:
            action = menu.addAction(alt.text.replace("&", "&&"))
            action.setCheckable(True)
            action.setChecked(alt.text == pair.translation)
            action.setToolTip(translate("Alternatives", "score {score}").format(score=f"{alt.score:.3f}"))
            action.setData(alt.text)
            action.triggered.connect(lambda _c=False, p=pair, t=alt.text: self.choose(p, t))
        self.menu = menu
        menu.popup(self._menu_position(pair))
        self.menuShown.emit(menu)
        return menu

    def _from_actions(
        self, pair: Pair, start: int, alternatives: list[Alternative], parent: QObject
    ) -> tuple[str, list[QAction]]:
        """The title and the actions of the alternatives of ``pair`` from ``start``."""
        document = self.window.target.document()
        head = document_slice(document, pair.tgt[0], start)
        tail = document_slice(document, start, pair.tgt[1])
        word = tail.split()[0] if tail.split() else tail
        actions = []
        for alt in alternatives:
            action = QAction(("…" if head.strip() else "") + alt.text.replace("&", "&&"), parent)
            action.setCheckable(True)
            action.setChecked(alt.text.strip() == tail.strip())
            action.setToolTip(translate("Alternatives", "score {score}").format(score=f"{alt.score:.3f}"))
            action.setData(alt.text)
            action.triggered.connect(lambda _c=False, p=pair, s=start, t=alt.text: self.choose_from(p, s, t))
            actions.append(action)
        return translate("Alternatives", "Alternatives from “{word}”").format(word=_short(word, 20)), actions

    def show_popup(self, pair: Pair, start: int, alternatives: list[Alternative]) -> AlternativesPopup:
        """A click's alternatives, offered under the sentence without taking the keyboard."""
        title, actions = self._from_actions(pair, start, alternatives, self.popup)
        target: QPlainTextEdit = self.window.target
        cursor = QTextCursor(target.document())
        cursor.setPosition(min(start, target.document().characterCount() - 1))
        rect = target.cursorRect(cursor)
        self.popup.offer(f"{title} · Esc", actions, rect.bottom() + 2, rect.left())
        self.popupShown.emit(self.popup)
        return self.popup

    def show_menu_from(self, pair: Pair, start: int, alternatives: list[Alternative]) -> QMenu:
        """The keyboard menu of continuations of ``pair``'s translation from position ``start``."""
        menu = QMenu(self.window.window())
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.setToolTipsVisible(True)
        title, actions = self._from_actions(pair, start, alternatives, menu)
        menu.addAction(title).setEnabled(False)
        for action in actions:
            menu.addAction(action)
        menu.installEventFilter(self._type_through)  # typing goes on in the pane, closing the menu
        self.menu = menu
        target: QPlainTextEdit = self.window.target
        cursor = QTextCursor(target.document())
        cursor.setPosition(min(start, target.document().characterCount() - 1))
        rect = target.cursorRect(cursor)
        menu.popup(target.viewport().mapToGlobal(QPoint(rect.left(), rect.bottom() + 2)))
        self.menuShown.emit(menu)
        return menu

    def choose_from(self, pair: Pair, start: int, text: str) -> None:
        """Replace ``pair``'s translation from ``start`` to its end with ``text`` (one undo step)."""
        self.popup.dismiss()
        alignment = self.view.alignment
        if alignment is None or pair not in alignment.pairs:
            return
        _replace_in_pane(self.view, start, pair.tgt[1], text)
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
        _replace_in_pane(self.view, pair.tgt[0], pair.tgt[1], text)
        self._replaced()

    def _replaced(self) -> None:
        """An alternative went in (or came out again): the history keeps what is shown."""
        self.translationReplaced.emit(self.window.source_text(), self.window.target_text())

    def _context_menu(self, pos: QPoint) -> None:
        target = self.window.target
        menu = target.createStandardContextMenu(pos)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        at = target.cursorForPosition(pos).position()
        pair = self.view.pair_at("target", at)
        menu.addSeparator()
        here = menu.addAction(translate("Alternatives", "Alternatives from here") + f"\t{_FROM_HERE_SHORTCUT}")
        here.setEnabled(pair is not None)
        here.triggered.connect(lambda _c=False, p=at: self.request_from(p))
        action = menu.addAction(translate("Alternatives", "Alternatives…") + f"\t{_SHORTCUT}")
        action.setEnabled(pair is not None)
        action.triggered.connect(lambda _c=False, p=pair: self.request(p))
        self.menu = menu
        menu.popup(target.viewport().mapToGlobal(pos))


class _PopupCloser(QObject):
    """On the translation pane: a key takes the click's alternatives away and goes on to the
    pane (Esc only takes them away); so does a new click in the pane or leaving it."""

    def __init__(self, popup: AlternativesPopup, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.popup = popup

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if not self.popup.isVisible():
            return False
        kind = event.type()
        escape = isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Escape and not event.modifiers()
        if kind == QEvent.Type.ShortcutOverride and escape:
            event.accept()  # Esc comes here (dismiss), not to the window's Stop shortcut
            return True
        if kind == QEvent.Type.KeyPress:
            self.popup.dismiss()
            return escape
        if kind in (QEvent.Type.MouseButtonPress, QEvent.Type.FocusOut, QEvent.Type.Resize):
            self.popup.dismiss()
        return False


class _TypeThrough(QObject):
    """On a menu offered in the pane: a key that types text closes the menu and goes to the
    pane, so typing on is never caught by it."""

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


def piece_starts(text: str, pieces: list[str]) -> set[int] | None:
    """The indices of ``text`` where the target tokenizer's ``pieces`` of it start (the
    tokenizer sees ``text`` normalised, so characters are compared NFKC). None when they do
    not spell ``text`` out."""
    starts: set[int] = set()
    at = 0
    for piece in pieces:
        body = piece.replace(SPACE, "")
        while at < len(text) and text[at].isspace():
            at += 1
        if not body:
            continue
        start, i = at, 0
        while i < len(body) and at < len(text):
            folded = unicodedata.normalize("NFKC", text[at])
            if body.startswith(folded, i):
                i += len(folded)
                at += 1
            elif text[at].isspace():
                at += 1
            else:
                return None
        if i < len(body):
            return None
        starts.add(start)
    return starts


def clean_start(sentence: str, index: int, starts: set[int] | None = None) -> int:
    """Where alternatives from ``index`` of ``sentence`` start: an English (spaced, ASCII) word
    from its first character; elsewhere (Chinese) the start of the model token ``index`` is in
    (``starts``: :func:`piece_starts`), or the character itself without them. A click on the
    space between words takes the next word."""
    index = max(0, min(index, len(sentence)))
    while index < len(sentence) and sentence[index].isspace():
        index += 1
    if index >= len(sentence):
        return len(sentence)
    if sentence[index].isascii():  # a word written with spaces: from its first letter
        while index > 0 and not sentence[index - 1].isspace() and sentence[index - 1].isascii():
            index -= 1
        return index
    if starts:
        before = [s for s in starts if s <= index]
        if before:
            return max(before)
    return index


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
