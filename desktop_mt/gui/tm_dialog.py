"""The "Translation memory" dialog (issue 28): search, edit and delete the memory's entries,
switch direction, import and export TMX.

A thin view over :class:`desktop_mt.tm.TranslationMemory`: the search (substring or fuzzy, in
the source, the translation or both) is :meth:`TranslationMemory.search` /
:meth:`TranslationMemory.search_fuzzy`, an edit is :meth:`TranslationMemory.update`, TMX is
:mod:`desktop_mt.tm.tmx`. The dialog is non-modal: :func:`open_tm_dialog` shows it and returns
it; the caller keeps it (and may call :meth:`TMDialog.refresh` when it wrote to the memory).
``memoryChanged`` tells the caller the memory was changed here (an edit, a delete, an import).

Editing: double-click (or F2) a source or translation cell; an empty cell is refused and the
text put back. Delete removes the selected rows after asking. Import adds a TMX file's units to
the direction shown (a unit that is already in the memory is not added twice); a file that
cannot be read adds nothing and its name (and the line, for broken XML) is shown. Export writes
the direction shown to a TMX 1.4b file. The file dialogs open in the user's home, then in the
folder of the last TMX file chosen (remembered for the session). Nothing here logs the user's
text.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_mt.engine.direction import DIRECTIONS, EN_ZH, LANGUAGE_NAMES
from desktop_mt.tm import BOTH, FUZZY_THRESHOLD, SOURCE, TARGET, Entry, TranslationMemory
from desktop_mt.tm.store import format_tmx_date
from desktop_mt.tm.tmx import ImportReport, TMXError, export_tmx, import_tmx

from . import theme

log = logging.getLogger(__name__)

FUZZY_DELAY_MS = 250  # a fuzzy search runs this long after the last key (it scores every entry)
SHOWN = 500  # the table shows at most this many entries (newest change first, or best match)
TMX_FILTER = "TMX files (*.tmx);;All files (*)"
SOURCE_COL, TARGET_COL, ORIGIN_COL, CHANGED_COL, SCORE_COL = range(5)
_NEEDS_TMX = "TMX needs translate-toolkit (the 'tm' extra)"
_FIELDS = ((BOTH, "Source and translation"), (SOURCE, "Source"), (TARGET, "Translation"))


_last_folder: Path | None = None  # the folder of the last TMX file chosen (this session)


def start_folder() -> Path:
    """Where the Import/Export file dialogs open: the folder of the last TMX file chosen this
    session while it still exists, else the user's home (never the folder the app was started
    from)."""
    if _last_folder is not None and _last_folder.is_dir():
        return _last_folder
    return Path.home()


def remember_folder(path: str | Path) -> None:
    """The user chose ``path`` (a file; "" when cancelled: nothing changes): the next file
    dialog opens in its folder."""
    global _last_folder
    if str(path):
        _last_folder = Path(path).expanduser().absolute().parent


def direction_label(direction: str) -> str:
    """``"en-zh"`` -> ``"English → Chinese"``."""
    source, target = direction.split("-")
    return f"{LANGUAGE_NAMES[source]} → {LANGUAGE_NAMES[target]}"


class TMDialog(QDialog):
    """Direction, search box and options, the entries table, a note with counts, commands."""

    memoryChanged = Signal()  # the memory was changed here (edit, delete, import)
    refreshed = Signal()  # the table was filled again (tests wait on it)
    entryEdited = Signal(int)  # entry id: an inline edit was written
    imported = Signal(object)  # ImportReport
    exported = Signal(int)  # how many entries were written

    def __init__(self, memory: TranslationMemory, parent: QWidget | None = None, direction: str = EN_ZH) -> None:
        super().__init__(parent)
        self.setWindowTitle("Translation memory")
        self.memory = memory
        self.error_box: QMessageBox | None = None  # the last error shown in a message box
        self._filling = False
        self.direction_box = QComboBox(self)
        for d in DIRECTIONS:
            self.direction_box.addItem(direction_label(d), d)
        self.direction_box.setCurrentIndex(max(0, self.direction_box.findData(direction)))
        self.direction_box.currentIndexChanged.connect(lambda _i: self.refresh())
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search the memory…")
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self)  # a fuzzy search waits for a pause in typing
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(FUZZY_DELAY_MS)
        self._search_timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(self._search_changed)
        self.field_box = QComboBox(self)
        for field, label in _FIELDS:
            self.field_box.addItem(label, field)
        self.field_box.currentIndexChanged.connect(lambda _i: self.refresh())
        self.fuzzy_check = QCheckBox("Fuzzy", self)
        self.fuzzy_check.setToolTip(
            f"Find text like the search, typos and all (at least {FUZZY_THRESHOLD:.0f}% alike), best match first"
        )
        self.fuzzy_check.toggled.connect(lambda _on: self.refresh())
        self.table = QTableWidget(0, 5, self)
        self.table.setHorizontalHeaderLabels(["Source", "Translation", "Origin", "Changed", "Match"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.table.setWordWrap(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(SOURCE_COL, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(TARGET_COL, QHeaderView.ResizeMode.Stretch)
        for col in (ORIGIN_COL, CHANGED_COL, SCORE_COL):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemChanged.connect(self._on_item_changed)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.note = QLabel("", self)
        self.note.setWordWrap(True)
        self.message = QLabel("", self)
        self.message.setWordWrap(True)
        self.message.hide()
        self.delete_button = QPushButton("Delete", self)
        self.delete_button.setToolTip("Forget the selected entries (Del)")
        self.import_button = QPushButton("Import TMX…", self)
        self.import_button.setToolTip("Add a TMX file's sentence pairs (Trados, memoQ, OmegaT...) to this direction")
        self.export_button = QPushButton("Export TMX…", self)
        self.export_button.setToolTip("Write this direction's entries to a TMX 1.4b file")
        self.delete_button.clicked.connect(self.delete_selected)
        self.import_button.clicked.connect(self.choose_and_import)
        self.export_button.clicked.connect(self.choose_and_export)
        delete_key = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.table)
        delete_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        delete_key.activated.connect(self.delete_selected)
        self._build_layout()
        self.resize(860, 540)
        self.refresh()

    def _build_layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(QLabel("Direction:", self))
        top.addWidget(self.direction_box)
        top.addWidget(self.search, 1)
        top.addWidget(QLabel("in", self))
        top.addWidget(self.field_box)
        top.addWidget(self.fuzzy_check)
        buttons = QHBoxLayout()
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.export_button)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.note)
        layout.addLayout(buttons)

    # ---- state ----------------------------------------------------------------------------
    def direction(self) -> str:
        """The direction shown (``"en-zh"`` or ``"zh-en"``)."""
        return str(self.direction_box.currentData())

    def set_direction(self, direction: str) -> None:
        """Show another direction's entries."""
        index = self.direction_box.findData(direction)
        if index < 0:
            raise ValueError(f"unknown direction {direction!r}")
        self.direction_box.setCurrentIndex(index)

    def field(self) -> str:
        """Where the search looks: ``"both"``, ``"source"`` or ``"target"``."""
        return str(self.field_box.currentData())

    def set_field(self, field: str) -> None:
        self.field_box.setCurrentIndex(max(0, self.field_box.findData(field)))

    def entries(self) -> list[Entry]:
        """The entries listed, top to bottom."""
        return [self._row_entry(row) for row in range(self.table.rowCount())]

    def scores(self) -> list[float | None]:
        """The match score of each row (None for a substring search)."""
        out: list[float | None] = []
        for row in range(self.table.rowCount()):
            item = self.table.item(row, SCORE_COL)
            out.append(float(item.data(Qt.ItemDataRole.UserRole)) if item is not None and item.text() else None)
        return out

    def selected_entries(self) -> list[Entry]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self._row_entry(row) for row in rows]

    def select_row(self, row: int) -> None:
        self.table.selectRow(row)

    def _row_entry(self, row: int) -> Entry:
        item = self.table.item(row, SOURCE_COL)
        entry = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if not isinstance(entry, Entry):
            raise IndexError(row)
        return entry

    # ---- listing --------------------------------------------------------------------------
    def _search_changed(self, _text: str) -> None:
        if self.fuzzy_check.isChecked():
            self._search_timer.start()
        else:
            self.refresh()

    def refresh(self) -> None:
        """Fill the table for the direction, search and options; update the counts."""
        self._search_timer.stop()
        direction, query = self.direction(), self.search.text().strip()
        fuzzy = self.fuzzy_check.isChecked()
        scores: list[float | None]
        try:
            if query and fuzzy:
                matches = self.memory.search_fuzzy(query, direction, self.field(), limit=SHOWN + 1)
                found, scores = [m.entry for m in matches], [m.score for m in matches]
            else:
                found = self.memory.search(query, direction, limit=SHOWN + 1, field=self.field())
                scores = [None] * len(found)
            counts = {d: self.memory.count(d) for d in DIRECTIONS}
        except ImportError as exc:  # the tm extra (rapidfuzz) is missing: substring search still works
            self.show_message(f"Fuzzy search needs {exc.name or 'rapidfuzz'} (the 'tm' extra): {exc}", "error")
            found, scores = [], []
            counts = {d: self.memory.count(d) for d in DIRECTIONS}
        except sqlite3.Error as exc:
            self.show_message(f"Cannot read the translation memory: {exc}", "error")
            found, scores, counts = [], [], dict.fromkeys(DIRECTIONS, 0)
        for d in DIRECTIONS:
            self.direction_box.setItemText(self.direction_box.findData(d), f"{direction_label(d)} ({counts[d]})")
        self._fill(found[:SHOWN], scores[:SHOWN])
        self.table.setColumnHidden(SCORE_COL, not (query and fuzzy))
        more = f" (the first {SHOWN} shown; type to narrow)" if len(found) > SHOWN else ""
        total = counts[direction]
        other = ", ".join(f"{direction_label(d)}: {counts[d]}" for d in DIRECTIONS if d != direction)
        if query:
            kind = "like" if fuzzy else "with"
            shown = min(len(found), SHOWN)
            self.note.setText(
                f"{shown} of {total} entries {kind} “{query}”{more}" if found else f"No entry {kind} “{query}”."
            )
        elif total:
            self.note.setText(f"{total} entries{more} · {other}")
        else:
            self.note.setText(
                f"No entries in {direction_label(direction)} yet ({other}). Edited and approved sentences "
                "come here; Import TMX adds a CAT tool's memory."
            )
        theme.set_tone(self.note, "quiet")
        self._update_buttons()
        self.refreshed.emit()

    def _fill(self, entries: list[Entry], scores: list[float | None]) -> None:
        self._filling = True
        try:
            self.table.setRowCount(0)
            self.table.setRowCount(len(entries))
            for row, (entry, score) in enumerate(zip(entries, scores)):
                self._set_row(row, entry, score)
        finally:
            self._filling = False

    def _set_row(self, row: int, entry: Entry, score: float | None = None) -> None:
        was, self._filling = self._filling, True
        try:
            tip = _tooltip(entry)
            for col, text in ((SOURCE_COL, entry.source), (TARGET_COL, entry.target)):
                item = QTableWidgetItem(text)
                item.setToolTip(tip)
                if col == SOURCE_COL:
                    item.setData(Qt.ItemDataRole.UserRole, entry)
                self.table.setItem(row, col, item)
            changed = format_tmx_date(entry.changed or entry.created)
            for col, text in ((ORIGIN_COL, entry.origin), (CHANGED_COL, changed)):
                item = QTableWidgetItem(text)
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                item.setToolTip(tip)
                self.table.setItem(row, col, item)
            score_item = QTableWidgetItem("" if score is None else f"{score:.0f}%")
            score_item.setFlags(score_item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            if score is not None:
                score_item.setData(Qt.ItemDataRole.UserRole, score)
            self.table.setItem(row, SCORE_COL, score_item)
        finally:
            self._filling = was

    def _update_buttons(self) -> None:
        self.delete_button.setEnabled(bool(self.table.selectionModel().selectedRows()))
        self.export_button.setEnabled(self.memory_count() > 0)

    def memory_count(self) -> int:
        """How many entries the direction shown holds."""
        try:
            return self.memory.count(self.direction())
        except sqlite3.Error:
            return 0

    # ---- editing --------------------------------------------------------------------------
    def edit_cell(self, row: int, column: int, text: str) -> None:
        """Put ``text`` into a source or translation cell as the user would (tests, scripts)."""
        item = self.table.item(row, column)
        if item is None or column not in (SOURCE_COL, TARGET_COL):
            raise IndexError((row, column))
        item.setText(text)

    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() not in (SOURCE_COL, TARGET_COL):
            return
        row = item.row()
        entry = self._row_entry(row)
        text = item.text()
        field = "source" if item.column() == SOURCE_COL else "target"
        if text.strip() == getattr(entry, field):
            return
        try:
            updated = self.memory.update(entry.id, **{field: text})
        except (ValueError, KeyError, sqlite3.Error) as exc:
            reason = "the entry is no longer in the memory" if isinstance(exc, KeyError) else str(exc)
            self.show_message(f"Not changed: {reason}.", "error")
            self._set_row(row, entry)  # the old text back
            return
        self._set_row(row, updated)
        self.message.hide()
        self.entryEdited.emit(updated.id)
        self.memoryChanged.emit()

    # ---- deleting -------------------------------------------------------------------------
    def confirm_delete(self, count: int) -> bool:
        """Ask before forgetting entries (tests replace this)."""
        answer = QMessageBox.question(
            self,
            "Delete from the memory?",
            f"Forget {count} {'entry' if count == 1 else 'entries'} of the translation memory? This cannot be undone.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Yes

    def delete_selected(self) -> int:
        """Forget the selected entries, after asking. Returns how many went."""
        entries = self.selected_entries()
        if not entries or not self.confirm_delete(len(entries)):
            return 0
        row = min(index.row() for index in self.table.selectionModel().selectedRows())
        try:
            gone = sum(1 for entry in entries if self.memory.delete(entry.id))
        except sqlite3.Error as exc:
            self.show_message(f"Cannot delete: {exc}", "error")
            gone = 0
        self.refresh()
        if self.table.rowCount():
            self.select_row(min(row, self.table.rowCount() - 1))
        if gone:
            self.memoryChanged.emit()
        return gone

    # ---- TMX ------------------------------------------------------------------------------
    def choose_import_path(self) -> str:
        """Ask for a TMX file to import ("" when cancelled; tests replace this). The file
        dialog opens in :func:`start_folder`; the folder chosen is remembered."""
        path, _filter = QFileDialog.getOpenFileName(self, "Import a TMX file", str(start_folder()), TMX_FILTER)
        remember_folder(path)
        return path

    def choose_export_path(self, suggested: str) -> str:
        """Ask where to export ("" when cancelled; tests replace this): ``suggested`` (a file
        name) in :func:`start_folder`; the folder chosen is remembered."""
        start = str(start_folder() / suggested)
        path, _filter = QFileDialog.getSaveFileName(self, "Export the translation memory", start, TMX_FILTER)
        remember_folder(path)
        return path

    def choose_and_import(self) -> ImportReport | None:
        path = self.choose_import_path()
        return self.import_file(path) if path else None

    def choose_and_export(self) -> int | None:
        path = self.choose_export_path(f"translation-memory-{self.direction()}.tmx")
        return self.export_file(path) if path else None

    def import_file(self, path: str | Path) -> ImportReport | None:
        """Add a TMX file's units to the direction shown. A file that cannot be read adds
        nothing; the error (naming the file and line) is shown. Returns the report, None on
        error."""
        path = Path(path)
        direction = self.direction()
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            report = import_tmx(self.memory, path, direction)
        except TMXError as exc:
            self.show_error("Cannot import the TMX file", str(exc))
            return None
        except (ValueError, sqlite3.Error) as exc:
            self.show_error("Cannot import the TMX file", f"{path}: {exc}. Nothing was imported.")
            return None
        except ImportError as exc:
            self.show_error("Cannot import the TMX file", f"{_NEEDS_TMX}: {exc}")
            return None
        finally:
            QApplication.restoreOverrideCursor()
        self.search.blockSignals(True)
        self.search.clear()
        self.search.blockSignals(False)
        self.refresh()
        tone = "warning" if report.skipped else None
        self.show_message(f"Imported {path.name} into {direction_label(direction)}: {report}.", tone)
        if report.added:
            self.memoryChanged.emit()
        self.imported.emit(report)
        return report

    def export_file(self, path: str | Path) -> int | None:
        """Write the direction shown to a TMX file. Returns how many entries, None on error."""
        path = Path(path)
        if not path.suffix:
            path = path.with_suffix(".tmx")
        direction = self.direction()
        try:
            count = export_tmx(self.memory, path, direction)
        except (OSError, sqlite3.Error) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.show_error("Cannot export the translation memory", f"{path}: {reason}")
            return None
        except ImportError as exc:
            self.show_error("Cannot export the translation memory", f"{_NEEDS_TMX}: {exc}")
            return None
        self.show_message(f"Exported {count} entries ({direction_label(direction)}) to {path.name}.", None)
        self.exported.emit(count)
        return count

    # ---- messages -------------------------------------------------------------------------
    def show_message(self, text: str, tone: str | None) -> None:
        """A line above the counts (``tone``: None, "warning" or "error")."""
        self.message.setText(text)
        theme.set_tone(self.message, tone)
        self.message.show()

    def show_error(self, title: str, text: str) -> None:
        """An error: in the dialog's message line and in a (non-blocking) message box."""
        self.show_message(text, "error")
        if self.error_box is not None:
            self.error_box.close()
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.open()
        self.error_box = box


def _tooltip(entry: Entry) -> str:
    lines = []
    if entry.machine:
        lines.append(f"Machine translation: {entry.machine}")
    if entry.note:
        lines.append(f"Note: {entry.note}")
    if entry.creator:
        lines.append(f"By: {entry.creator}")
    if entry.created:
        lines.append(f"Created: {format_tmx_date(entry.created)}")
    lines += [f"{kind}: {value}" for kind, value in entry.props]
    return "\n".join(lines)


def open_tm_dialog(parent: QWidget | None, memory: TranslationMemory, direction: str | None = None) -> QDialog:
    """Show the "Translation memory" dialog (non-modal) over ``memory`` and return it.

    ``direction`` (``"en-zh"``/``"zh-en"``, default en->zh) is the one shown first. The caller
    keeps the dialog (show it again rather than opening a second one) and may connect
    :attr:`TMDialog.memoryChanged` to learn of edits, deletes and imports made in it."""
    dialog = TMDialog(memory, parent, direction or EN_ZH)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    dialog.search.setFocus()
    return dialog


__all__ = ["TMDialog", "direction_label", "open_tm_dialog"]
