"""The translation pane, editable (issue 28): it tells the user's edits from the program's, shows
the model's completion of the sentence being corrected, and reports clicks on a word.

- ``userEdited(pos, removed, added)``: a change of the document made by the user (typing, a
  paste, a drop, undo/redo, an accepted completion, a chosen alternative), never by the
  streamed translation or another feature writing into the pane. Sentence alignment follows
  it and marks the sentence as the user's (``alignment.Alignment.target_edited``).
- The completion hint: one line, in the palette's placeholder-text colour, with the model's
  completion of the sentence from what was typed: inline, right after the cursor, over the
  rest of that sentence on its line (what Tab replaces), never over the next sentence: after
  the end of the line when the next sentence follows too soon, under the line when no room
  is left there either; never wrapped: a long completion is cut with an ellipsis (all of it in
  the tooltip). Tab puts it in (it replaces the rest of
  that sentence), Esc dismisses it; typing on asks for a new one.
- ``wordClicked(pos)``: a plain left click (no drag, no selection, no modifier) in the text.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from PySide6.QtCore import QEvent, QMimeData, QPoint, Qt, Signal
from PySide6.QtGui import QColor, QInputMethodEvent, QKeyEvent, QMouseEvent, QPalette, QTextCursor, QTextDocument
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QWidget

from ..i18n import QT_TRANSLATE_NOOP, translate

__all__ = [
    "CompletionHint",
    "PostEditPane",
    "document_slice",
]


_HINT_KEYS = QT_TRANSLATE_NOOP("CompletionHint", "Tab accepts · Esc dismisses")
_SHORT_KEYS = "⇥ Tab"  # after the completion on its line; HINT_KEYS in the tooltip
_MIN_INLINE = 120  # pixels of the line left after the cursor for the hint to go inline
_MIN_UNDER = 160  # the least width of the hint under the cursor's line (moved left to have it)


def document_slice(document: QTextDocument, start: int, end: int) -> str:
    """The text of ``document`` from ``start`` to ``end`` (UTF-16 positions, clamped), line
    breaks as "\\n". Qt reads only that range: what a keystroke needs of a long text costs
    what the sentence costs, not what the document does."""
    last = max(0, document.characterCount() - 1)
    cursor = QTextCursor(document)
    cursor.setPosition(max(0, min(start, last)))
    cursor.setPosition(max(0, min(end, last)), QTextCursor.MoveMode.KeepAnchor)
    return cursor.selectedText().replace("\u2029", "\n")


class CompletionHint(QLabel):
    """The completion offered, drawn distinctly: placeholder-text colour on the pane's
    alternate base, framed, on one line (inline after the cursor, or under its line)."""

    def __init__(self, parent: QWidget, pane: QPlainTextEdit) -> None:
        super().__init__(parent)
        self.setObjectName("completionHint")
        self.pane = pane
        self.setWordWrap(False)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setMargin(1)
        self.completion = ""
        self._style = ""
        self.hide()

    def colors(self) -> tuple[QColor, QColor, QColor]:
        """Text, background and frame colours: the pane's placeholder text on its alternate
        base, framed in its mid colour (from the palette, so light and dark themes work)."""
        palette = self.pane.palette()
        role = QPalette.ColorRole
        return palette.color(role.PlaceholderText), palette.color(role.AlternateBase), palette.color(role.Mid)

    def show_text(self, completion: str, at: QPoint, width: int, above: int | None = None) -> None:
        """Show ``completion`` on one line with its top-left at ``at`` (viewport coordinates),
        at most ``width`` wide: what does not fit is cut with an ellipsis. ``above``: where its
        bottom goes instead when it would not fit under ``at`` in the viewport."""
        self.completion = completion
        text, back, frame = self.colors()
        argb = QColor.NameFormat.HexArgb
        # A style sheet, not setPalette: the pane's own style sheet (look.py) would override a palette.
        style = (
            f"QLabel#completionHint {{ color: {text.name(argb)}; background: {back.name(argb)}; "
            f"border: 1px solid {frame.name(argb)}; }}"
        )
        if style != self._style:  # set once, not at every streamed piece (a style sheet re-polishes)
            self._style = style
            self.setStyleSheet(style)
        if self.font() != self.pane.font():
            self.setFont(self.pane.font())
        line = " ".join(completion.split())  # the rest of one sentence: no line breaks in it
        keys = f"  {_SHORT_KEYS}"
        metrics = self.fontMetrics()
        room = max(40, width - metrics.horizontalAdvance(keys) - 2 * self.margin() - 4)
        self.setText(metrics.elidedText(line, Qt.TextElideMode.ElideRight, room) + keys)
        self.setToolTip(
            translate("CompletionHint", "The model's completion of this sentence from what you typed ({keys}):").format(
                keys=translate("CompletionHint", _HINT_KEYS)
            )
            + f"\n{line}"
        )
        self.setMaximumWidth(max(80, width))
        self.adjustSize()
        parent = self.parentWidget()
        if parent is not None:
            x = max(0, min(at.x(), parent.width() - 4 - self.width()))
            y = at.y()
            if above is not None and y + self.height() > parent.height() and above - self.height() >= 0:
                y = above - self.height()
            self.move(x, y)
        self.show()
        self.raise_()


class PostEditPane(QPlainTextEdit):
    """The editable translation pane (see the module docstring)."""

    userEdited = Signal(int, int, int)  # position, removed, added (UTF-16 units)
    completionAccepted = Signal(str)  # the completion put in
    completionDismissed = Signal()
    wordClicked = Signal(int)  # the document position of a plain click

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._user_depth = 0
        self._press: QPoint | None = None
        self.hint = CompletionHint(self.viewport(), self)
        self.document().contentsChange.connect(self._changed)
        self.verticalScrollBar().valueChanged.connect(lambda _v: self.hide_completion())

    # ---- the user's edits ----------------------------------------------------------------
    @contextlib.contextmanager
    def user_edit(self) -> Iterator[None]:
        """Changes made inside are the user's (a chosen alternative, an accepted completion)."""
        self._user_depth += 1
        try:
            yield
        finally:
            self._user_depth -= 1

    def _changed(self, pos: int, removed: int, added: int) -> None:
        if self._user_depth and (removed or added):
            self.userEdited.emit(pos, removed, added)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        with self.user_edit():
            super().keyPressEvent(event)

    def inputMethodEvent(self, event: QInputMethodEvent) -> None:
        with self.user_edit():
            super().inputMethodEvent(event)

    def insertFromMimeData(self, source: QMimeData) -> None:
        with self.user_edit():
            super().insertFromMimeData(source)

    def undo(self) -> None:
        with self.user_edit():
            super().undo()

    def redo(self) -> None:
        with self.user_edit():
            super().redo()

    def insert_programmatically(self, text: str) -> None:
        """Append ``text`` at the end as the program's (streamed translation), outside the
        undo history: Ctrl+Z takes back the user's edits, not the model's output."""
        document = self.document()
        document.setUndoRedoEnabled(False)
        try:
            cursor = QTextCursor(document)
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(text)
        finally:
            document.setUndoRedoEnabled(True)

    # ---- completion ----------------------------------------------------------------------
    def show_completion(self, completion: str, end: int | None = None) -> None:
        """Offer ``completion`` on one line, placed from the cursor's rectangle (``cursorRect``,
        viewport coordinates), covering nothing but what Tab replaces: inline after the cursor,
        over the rest of its sentence (``end``: where the sentence ends) when there is room
        before the next sentence on the line; else after the end of the cursor's line (its
        layout line: a wrapped line ends where it wraps); else under the cursor's line, starting
        under the cursor (moved left only as far as it must to fit), above it at the bottom."""
        if not completion.strip():
            self.hide_completion()
            return
        rect = self.cursorRect()
        edge = self.viewport().width() - 4
        right, after_line = edge, None
        if end is not None:
            document = self.document()
            cursor = QTextCursor(document)
            cursor.setPosition(max(0, min(end, document.characterCount() - 1)))
            line_right = self._line_right(self.textCursor())
            at_end = self.cursorRect(cursor)
            if at_end.top() == rect.top() and line_right is not None and line_right > at_end.left() + 1:
                right = min(right, at_end.left())  # another sentence follows on this line
                after_line = line_right + 8
        if right - rect.right() >= _MIN_INLINE:
            self.hint.show_text(completion, QPoint(rect.right() + 1, rect.top()), right - rect.right() - 1)
        elif after_line is not None and edge - after_line >= _MIN_INLINE:
            self.hint.show_text(completion, QPoint(after_line, rect.top()), edge - after_line)
        else:
            width = max(edge - rect.left(), min(edge - 4, _MIN_UNDER))  # show_text moves it left to fit
            self.hint.show_text(completion, QPoint(rect.left(), rect.bottom() + 2), width, above=rect.top() - 2)

    def _line_right(self, cursor: QTextCursor) -> int | None:
        """The right end (viewport x) of the text on ``cursor``'s layout line, None when unknown."""
        block = cursor.block()
        layout = block.layout()
        line = layout.lineForTextPosition(cursor.positionInBlock()) if layout is not None else None
        if line is None or not line.isValid():
            return None
        left = self.blockBoundingGeometry(block).translated(self.contentOffset()).left()
        return int(left + line.x() + line.naturalTextWidth())

    def hide_completion(self) -> None:
        """Take the offer away (without accepting it)."""
        self.hint.hide()
        self.hint.completion = ""

    def completion_shown(self) -> str:
        """The completion offered now ("" when none)."""
        return self.hint.completion if self.hint.isVisible() else ""

    def event(self, event: QEvent) -> bool:
        offered = self.completion_shown()
        if offered and isinstance(event, QKeyEvent):
            key = event.key()
            plain = not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
            if event.type() == QEvent.Type.ShortcutOverride and key == Qt.Key.Key_Escape:
                event.accept()  # Esc comes here (dismiss), not to the window's Stop shortcut
                return True
            if event.type() == QEvent.Type.KeyPress and plain and key == Qt.Key.Key_Tab:
                self.hide_completion()
                self.completionAccepted.emit(offered)
                return True
            if event.type() == QEvent.Type.KeyPress and key == Qt.Key.Key_Escape:
                self.hide_completion()
                self.completionDismissed.emit()
                return True
        return super().event(event)

    # ---- clicks --------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.hide_completion()
        plain = event.button() == Qt.MouseButton.LeftButton and not event.modifiers()
        self._press = event.position().toPoint() if plain else None
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        press, self._press = self._press, None
        point = event.position().toPoint()
        if press is None or event.button() != Qt.MouseButton.LeftButton or self.textCursor().hasSelection():
            return
        if (point - press).manhattanLength() > 4:
            return
        cursor = self.cursorForPosition(point)
        block = cursor.block()
        if block.text().strip():
            self.wordClicked.emit(cursor.position())
