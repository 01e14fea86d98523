"""View > History (Ctrl+H): the translations kept by :mod:`desktop_mt.app.history`.

:class:`HistoryDialog` is passive like the main window: it lists entries (search as you type,
newest first), shows the chosen one in full, and emits ``openRequested`` for "Open" (the
request flow puts the entry back into the editors, undoably). An entry whose translation the user
edited (issue 28) is marked "edited" in the list and above its text; "Compare with the
machine's translation" shows the machine's text beside the final one, the words (Chinese:
characters) that differ highlighted in both (:func:`desktop_mt.app.history.compare`). :class:`HistoryFeature` wires it
up: it adds an entry when a translation runs to its end (the session's ``completed``:
the window's requests and the hotkey's popup; not when it was stopped or superseded, nor for text kept as it
is), writes nothing while the
"Keep history" setting is off, and shows a banner when a corrupt database was moved aside. A
translation that keeps sentences the user edited before (a re-translation carries them over)
is kept as edited, with the machine's text beside it (:meth:`HistoryFeature.machine_text_of`).

Each list row is drawn by :class:`_EntryDelegate`: the source and "→ translation" on two lines,
each elided to the list's width as measured in its font, the row as tall as the two lines in
the fonts they need (Chinese is wider and taller than Latin text), in either direction.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QPainter,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextLayout,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_mt.app.history import Entry, History, compare, history_path
from desktop_mt.app.session import Completed
from desktop_mt.engine.model_format import ModelInfo

from ..features.postedit import PostEditFeature
from ..i18n import translate
from ..services import Services
from ..window import theme

__all__ = [
    "HistoryDialog",
    "HistoryFeature",
    "ROW_PADDING",
]


_logger = logging.getLogger(__name__)

_SHOWN = 500  # the list shows at most this many matches (newest first)
_SNIPPET = 400  # at most this many characters of each side in a row's text; the row elides by width
ROW_PADDING = 3  # pixels above and below a row's two lines


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def _labelled(label: QLabel, view: QWidget, parent: QWidget) -> QWidget:
    box = QWidget(parent)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(label)
    layout.addWidget(view, 1)
    return box


def _snippet(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _SNIPPET else line[: _SNIPPET - 1] + "…"


def _line_height(text: str, font: QFont) -> float:
    """The height of one line of ``text`` as Qt lays it out: with the fallback fonts its
    characters need (a Chinese line is taller than a Latin one in most fonts)."""
    layout = QTextLayout(text or " ", font)
    layout.beginLayout()
    line = layout.createLine()
    line.setLineWidth(1_000_000.0)
    height = line.height()
    layout.endLayout()
    return max(height, QFontMetricsF(font).height())


class _EntryDelegate(QStyledItemDelegate):
    """Draws a history row: the date (and mark) with the source on the first line, "→ " and
    the translation on the second. Each line is elided to the row's width as measured in its
    font (Chinese characters are wide), never by counting characters, and the row is as tall
    as its two lines laid out with the fonts they need, so neither line is cut off whatever
    the direction."""

    def lines(self, index: QModelIndex | QPersistentModelIndex) -> list[str]:
        """The row's lines (its display text split at line breaks)."""
        return str(index.data(Qt.ItemDataRole.DisplayRole) or "").split("\n")

    def shown_lines(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> list[str]:
        """The row's lines as drawn in ``option.rect``: each elided to the width available."""
        metrics = QFontMetricsF(option.font)
        width = max(0.0, option.rect.width() - 2.0 * self._margin(option))
        return [metrics.elidedText(line, Qt.TextElideMode.ElideRight, width) for line in self.lines(index)]

    def _margin(self, option: QStyleOptionViewItem) -> float:
        widget = option.widget
        style = widget.style() if widget is not None else None
        return float(style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, option, widget) + 1) if style else 4.0

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        lines = self.lines(index)
        height = sum(_line_height(line, opt.font) for line in lines) + 2 * ROW_PADDING
        # As wide as the list (a row never scrolls sideways; its lines are elided to fit).
        return QSize(int(2 * self._margin(opt)) + 1, int(height + 0.999))

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        shown = self.shown_lines(opt, index)
        opt.text = ""  # the style draws the background, the selection and the focus; the lines are ours
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = (
            QPalette.ColorGroup.Normal if opt.state & QStyle.StateFlag.State_Enabled else QPalette.ColorGroup.Disabled
        )
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        painter.save()
        painter.setFont(opt.font)
        painter.setPen(opt.palette.color(group, role))
        margin = self._margin(opt)
        y = float(opt.rect.top() + ROW_PADDING)
        for line in shown:
            height = _line_height(line, opt.font)
            rect = QRectF(opt.rect.left() + margin, y, opt.rect.width() - 2 * margin, height)
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), line)
            y += height
        painter.restore()


def _utf16(text: str, index: int) -> int:
    """A Python string index as a Qt (UTF-16) position."""
    return len(text[:index].encode("utf-16-le")) // 2


class HistoryDialog(QDialog):
    """Search box, list of entries, the chosen entry in full, and its commands."""

    openRequested = Signal(Entry)  # Entry: put it back into the editors

    def __init__(self, history: History, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("HistoryDialog", "History"))
        self.history = history
        self.search = QLineEdit(self)
        self.search.setPlaceholderText(translate("HistoryDialog", "Search the source and the translation…"))
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.refresh)
        self.list = QListWidget(self)
        self.delegate = _EntryDelegate(self.list)
        self.list.setItemDelegate(self.delegate)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.currentItemChanged.connect(self._show_current)
        self.list.itemActivated.connect(lambda _item: self.open_current())
        self.source_view = QPlainTextEdit(self)
        self.translation_view = QPlainTextEdit(self)
        self.machine_view = QPlainTextEdit(self)  # the machine's translation of an edited entry
        for view in (self.source_view, self.translation_view, self.machine_view):
            view.setReadOnly(True)
        self.source_label = QLabel(translate("HistoryDialog", "Source"), self)
        self.translation_label = QLabel(translate("HistoryDialog", "Translation"), self)
        self.machine_label = QLabel(translate("HistoryDialog", "Machine translation"), self)
        self.compare_check = QCheckBox(translate("HistoryDialog", "Compare with the machine's translation"), self)
        self.compare_check.setToolTip(
            translate(
                "HistoryDialog", "Show the machine's translation beside your edited one, the differences highlighted"
            )
        )
        self.compare_check.toggled.connect(lambda _on: self._show_current())
        self.note = QLabel("", self)
        self.note.setWordWrap(True)
        theme.set_tone(self.note, "quiet")
        self.open_button = QPushButton(translate("HistoryDialog", "Open"), self)
        self.open_button.setToolTip(
            translate("HistoryDialog", "Put this entry back into the editors (Ctrl+Z brings your text back)")
        )
        self.copy_button = QPushButton(translate("HistoryDialog", "Copy translation"), self)
        self.delete_button = QPushButton(translate("HistoryDialog", "Delete"), self)
        self.clear_button = QPushButton(translate("HistoryDialog", "Clear all…"), self)
        self.open_button.clicked.connect(self.open_current)
        self.copy_button.clicked.connect(self.copy_current)
        self.delete_button.clicked.connect(self.delete_current)
        self.clear_button.clicked.connect(self.clear_all)
        self._build_layout()
        self.resize(760, 520)
        self.refresh()

    def _build_layout(self) -> None:
        full = QSplitter(Qt.Orientation.Horizontal, self)
        full.addWidget(_labelled(self.source_label, self.source_view, self))
        full.addWidget(_labelled(self.translation_label, self.translation_view, self))
        self.machine_pane = _labelled(self.machine_label, self.machine_view, self)
        full.addWidget(self.machine_pane)
        self.machine_pane.hide()
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.list)
        split.addWidget(full)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        buttons = QHBoxLayout()
        for button in (self.open_button, self.copy_button, self.delete_button):
            buttons.addWidget(button)
        buttons.addWidget(self.compare_check)
        buttons.addStretch(1)
        buttons.addWidget(self.clear_button)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(split, 1)
        layout.addWidget(self.note)
        layout.addLayout(buttons)

    # ---- list ---------------------------------------------------------------------------
    def refresh(self) -> None:
        """List the entries matching the search box (newest first), keeping the selection."""
        keep = self.current_entry()
        query = self.search.text().strip()
        try:
            entries = self.history.search(query, limit=_SHOWN + 1)
        except sqlite3.Error as exc:
            self.note.setText(translate("HistoryDialog", "Cannot read the history: {error}").format(error=exc))
            entries = []
        self.list.blockSignals(True)
        self.list.clear()
        for entry in entries[:_SHOWN]:
            mark = "   ✎ edited" if entry.is_edited else ""
            item = QListWidgetItem(
                f"{_when(entry.time)}{mark}   {_snippet(entry.source)}\n→ {_snippet(entry.translation)}"
            )
            item.setData(Qt.ItemDataRole.UserRole, entry)
            tip = entry.model
            if entry.is_edited:
                tip = (tip + "\n" if tip else "") + translate("HistoryDialog", "Edited {when}").format(
                    when=_when(entry.edited or entry.time)
                )
            item.setToolTip(tip)
            self.list.addItem(item)
        self.list.blockSignals(False)
        row = next((i for i, e in enumerate(self.entries()) if keep and e.id == keep.id), 0)
        if self.list.count():
            self.list.setCurrentRow(row)
        self._show_current()
        more = translate("HistoryDialog", " (the newest shown; type to narrow)") if len(entries) > _SHOWN else ""
        if query:
            self.note.setText(
                translate("HistoryDialog", "{count} matching “{query}”{more}").format(
                    count=min(len(entries), _SHOWN), query=query, more=more
                )
                if entries
                else translate("HistoryDialog", "Nothing matches “{query}”.").format(query=query)
            )
        else:
            self.note.setText(
                translate("HistoryDialog", "{count} translations kept{more}").format(
                    count=self.history.count(), more=more
                )
                if entries
                else translate("HistoryDialog", "No translations kept yet.")
            )

    def entries(self) -> list[Entry]:
        """The entries listed, top to bottom."""
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def row_lines(self, row: int) -> list[str]:
        """The lines a list row shows now, elided to the list's width as drawn (tests)."""
        item = self.list.item(row)
        option = QStyleOptionViewItem()
        option.initFrom(self.list)
        option.rect = self.list.visualItemRect(item)
        option.font = self.list.font()
        return self.delegate.shown_lines(option, self.list.indexFromItem(item))

    def current_entry(self) -> Entry | None:
        """The selected entry, if any."""
        item = self.list.currentItem()
        entry = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return entry if isinstance(entry, Entry) else None

    def _show_current(self, *_args: Any) -> None:
        entry = self.current_entry()
        self.source_view.setPlainText(entry.source if entry else "")
        self.translation_view.setPlainText(entry.translation if entry else "")
        edited = entry is not None and entry.is_edited
        if entry is not None and edited:
            self.translation_label.setText(
                translate("HistoryDialog", "Your translation (edited {when})").format(
                    when=_when(entry.edited or entry.time)
                )
            )
        else:
            self.translation_label.setText(translate("HistoryDialog", "Translation"))
        self.compare_check.setEnabled(edited)
        comparing = edited and self.compare_check.isChecked()
        self.machine_pane.setVisible(comparing)
        self.machine_view.setPlainText(entry.machine_text if entry is not None and comparing else "")
        if entry is not None and comparing:
            removed, added = compare(entry.machine_text, entry.translation)
            self._highlight(self.machine_view, removed)
            self._highlight(self.translation_view, added)
        else:
            self._highlight(self.translation_view, [])
        for button in (self.open_button, self.copy_button, self.delete_button):
            button.setEnabled(entry is not None)
        self.clear_button.setEnabled(self.list.count() > 0 or bool(self.search.text()))

    def comparing(self) -> bool:
        """Whether the machine's translation is shown beside the edited one."""
        return self.machine_pane.isVisibleTo(self)

    def highlighted(self, view: QPlainTextEdit) -> list[str]:
        """The highlighted parts of a view's text (the differences; tests)."""
        return [sel.cursor.selectedText() for sel in view.extraSelections()]

    def _highlight(self, view: QPlainTextEdit, ranges: list[tuple[int, int]]) -> None:
        """Mark ``ranges`` of the view's text with the palette's highlight colour, softened."""
        color = view.palette().color(QPalette.ColorRole.Highlight)
        color.setAlpha(90)
        selections = []
        for start, end in ranges:
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(view.document())
            cursor.setPosition(_utf16(view.toPlainText(), start))
            cursor.setPosition(_utf16(view.toPlainText(), end), QTextCursor.MoveMode.KeepAnchor)
            fmt = QTextCharFormat()
            fmt.setBackground(color)
            fmt.setFontUnderline(True)
            selection.cursor = cursor
            selection.format = fmt
            selections.append(selection)
        view.setExtraSelections(selections)

    # ---- commands -----------------------------------------------------------------------
    def open_current(self) -> None:
        """Ask for the selected entry to be put back into the editors."""
        entry = self.current_entry()
        if entry is not None:
            self.openRequested.emit(entry)

    def copy_current(self) -> None:
        """Put the selected entry's translation on the clipboard."""
        entry = self.current_entry()
        if entry is not None:
            QGuiApplication.clipboard().setText(entry.translation)

    def delete_current(self) -> None:
        """Forget the selected entry; the next one is selected."""
        entry = self.current_entry()
        if entry is None:
            return
        row = self.list.currentRow()
        self.history.delete(entry.id)
        self.refresh()
        if self.list.count():
            self.list.setCurrentRow(min(row, self.list.count() - 1))

    def confirm_clear(self) -> bool:
        """Ask before forgetting every entry (tests replace this)."""
        answer = QMessageBox.question(
            self,
            translate("HistoryDialog", "Clear the history?"),
            translate("HistoryDialog", "Forget all {count} kept translations? This cannot be undone.").format(
                count=self.history.count()
            ),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Yes

    def clear_all(self) -> bool:
        """Forget every entry, after asking. Returns whether it did."""
        if not self.confirm_clear():
            return False
        self.history.clear()
        self.search.clear()
        self.refresh()
        return True


class HistoryFeature(QObject):
    """The window's side of the history (see the module docstring): it keeps what the
    session completes and what post-editing (``postedit``) says the user edited."""

    entryAdded = Signal(int)  # entry id (tests)
    entryEdited = Signal(int)  # entry id: the user's edit was written (translation_edited)

    def __init__(self, services: Services, postedit: PostEditFeature | None = None) -> None:
        super().__init__(services.owner)
        self.services = services
        self.postedit = postedit  # the window's post-editing: the machine's text of an edited translation
        self.window = services.window
        self._history: History | None = None
        self.dialog: HistoryDialog | None = None
        self._last: tuple[int, str] | None = None  # the newest entry written: (id, source)
        self._model = ""  # the loaded model's name (an entry says which model made it)
        services.session.completed.subscribe(self._on_completed)
        services.events.model_loaded.subscribe(self._on_model_loaded)
        if postedit is not None:
            postedit.translationEdited.connect(self.translation_edited)
        self.window.historyRequested.connect(self.show_dialog)
        if services.settings.keep_history:
            self.history()  # open now, so a damaged database is reported at start

    def history(self) -> History | None:
        """The database, opened on first use (None when it cannot be opened at all)."""
        if self._history is None:
            try:
                self._history = History(limit=self.services.settings.history_limit)
            except (OSError, sqlite3.Error) as exc:
                self.window.show_warning(
                    translate("HistoryDialog", "The translation history cannot be opened: {error}").format(error=exc)
                )
                return None
            if self._history.recovered is not None:
                self.window.show_warning(
                    translate(
                        "HistoryDialog",
                        "The translation history was damaged. It was moved aside as "
                        "{name} and a new, empty history was started.",
                    ).format(name=self._history.recovered.name)
                )
        return self._history

    def _on_completed(self, done: Completed) -> None:
        self.record(done.source, done.translation, self.machine_text_of(done.translation))

    def _on_model_loaded(self, info: ModelInfo) -> None:
        self._model = str(info.name or "")

    def machine_text_of(self, translation: str) -> str | None:
        """The machine's text of a finished ``translation`` when it is the window's and keeps
        sentences the user edited earlier (a re-translation carries an edited sentence over
        until its own source changes): the window's post-editing (``postedit``) puts each
        edited sentence's machine translation back. None when the text is all the machine's,
        or is not the window's (the hotkey's popup)."""
        postedit = self.postedit
        if postedit is None or translation != self.window.target_text():
            return None
        machine = str(postedit.machine_text())
        return machine if machine != translation else None

    def record(self, source: str, translation: str, machine_text: str | None = None) -> int | None:
        """A translation ran to its end: keep it as a new entry (the session's ``completed``
        calls this, with :meth:`machine_text_of`). ``translation`` is
        the final text; ``machine_text`` the machine's when ``translation`` holds sentences the
        user edited (None, or the same text: it is all the machine's); an entry whose machine
        text differs is marked edited. Returns the entry id, None when nothing was
        written (history off, empty text, text kept as it is, database error).

        Text the engine kept as it is (Japanese, Korean, Chinese under English -> Chinese: the
        translation is the source itself) is not an entry: nothing was translated."""
        settings = self.services.settings
        if not settings.keep_history or not source.strip() or not translation.strip():
            return None
        if translation.strip() == source.strip():
            return None
        history = self.history()
        if history is None:
            return None
        model = self._model
        try:
            if history.limit != settings.history_limit:
                history.set_limit(settings.history_limit)
            entry_id = history.add(source, translation, model, machine_text=machine_text)
        except sqlite3.Error as exc:
            _logger.warning("history entry not written (%s)", type(exc).__name__)
            return None
        self._last = (entry_id, source)
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.refresh()
        self.entryAdded.emit(entry_id)
        return entry_id

    def translation_replaced(self, source: str, translation: str) -> None:
        """An alternative was chosen (or undone) in the translation just kept: the entry
        gets the translation the user now sees."""
        history = self._history
        if self._last is None or self._last[1] != source or history is None or not translation.strip():
            return
        try:
            history.set_translation(self._last[0], translation)
        except sqlite3.Error as exc:
            _logger.warning("history entry not updated (%s)", type(exc).__name__)
            return
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.refresh()

    def translation_edited(self, source: str, final: str, machine_text: str | None = None) -> int | None:
        """The user post-edited the translation of ``source`` (issue 28): the history keeps
        ``final`` as the entry's text and the machine's text for comparison.

        When the newest entry written is for the same source it is updated
        (:meth:`History.update_final`; ``machine_text`` None keeps the machine's text it had).
        Otherwise (none written yet, or another source since) a new entry is added with
        ``machine_text`` as the machine's text (None: unknown, ``final`` is kept as is). Returns the entry id, None
        when nothing was written (history off, empty text, database error)."""
        settings = self.services.settings
        if not settings.keep_history or not source.strip() or not final.strip():
            return None
        history = self.history()
        if history is None:
            return None
        try:
            entry = None
            if self._last is not None and self._last[1] == source:
                entry = history.update_final(self._last[0], final, machine_text=machine_text)
            if entry is not None:
                entry_id = entry.id
            else:
                model = self._model
                entry_id = history.add(source, final, model, machine_text=machine_text)
                self._last = (entry_id, source)
        except sqlite3.Error as exc:
            _logger.warning("history entry not updated (%s)", type(exc).__name__)
            return None
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.refresh()
        self.entryEdited.emit(entry_id)
        return entry_id

    def show_dialog(self) -> HistoryDialog | None:
        """Open (or raise) the History dialog (with history off and none kept before, only a
        status message: opening would create the database, and off means nothing is written)."""
        if not self.services.settings.keep_history and self._history is None and not history_path().exists():
            self.window.statusBar().showMessage(
                translate(
                    "HistoryDialog", "History is off (Settings: Keep a history of translations); nothing is kept."
                ),
                6000,
            )
            return None
        history = self.history()
        if history is None:
            return None
        if self.dialog is None:
            self.dialog = HistoryDialog(history, self.window.window())
            self.dialog.openRequested.connect(self._open_entry)
        if not self.services.settings.keep_history:
            self.dialog.setWindowTitle(
                translate("HistoryDialog", "History (off: new translations are not kept; see Settings)")
            )
        else:
            self.dialog.setWindowTitle(translate("HistoryDialog", "History"))
        self.dialog.refresh()
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        self.dialog.search.setFocus()
        return self.dialog

    def _open_entry(self, entry: Entry) -> None:
        self.services.show_entry(entry.source, entry.translation)
        self.window.bring_forward()

    def close(self) -> None:
        """Close the database (app shutdown)."""
        if self._history is not None:
            self._history.close()
            self._history = None
