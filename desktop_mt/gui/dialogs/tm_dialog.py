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

Its parts: the search bar (:mod:`.tm_search`), the table of entries and its inline editing
(:mod:`.tm_table`), the TMX file work and its failures (:mod:`.tm_files`).
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_mt.engine.direction import DIRECTIONS, EN_ZH, Direction, check_direction
from desktop_mt.tm import Entry, TranslationMemory
from desktop_mt.tm.tmx import ImportReport

from ..i18n import translate
from ..window import theme
from .tm_files import TMX_FILTER, TMXFailure, export_from, import_into, tmx_path
from .tm_search import TMSearchBar, direction_label
from .tm_table import SCORE_COL, SOURCE_COL, TARGET_COL, EntryTable

_logger = logging.getLogger(__name__)

_SHOWN = 500  # the table shows at most this many entries (newest change first, or best match)


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


class TMDialog(QDialog):
    """The search bar, the entries table, a note with counts, commands."""

    memoryChanged = Signal()  # the memory was changed here (edit, delete, import)
    refreshed = Signal()  # the table was filled again (tests wait on it)
    entryEdited = Signal(int)  # entry id: an inline edit was written
    imported = Signal(ImportReport)  # ImportReport
    exported = Signal(int)  # how many entries were written

    def __init__(self, memory: TranslationMemory, parent: QWidget | None = None, direction: str = EN_ZH) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("TMDialog", "Translation memory"))
        self.memory = memory
        self.error_box: QMessageBox | None = None  # the last error shown in a message box
        self.search_bar = TMSearchBar(self, direction)
        self.search_bar.changed.connect(self.refresh)
        self.direction_box = self.search_bar.direction_box  # the bar's widgets, by their names of before
        self.search = self.search_bar.search
        self.field_box = self.search_bar.field_box
        self.fuzzy_check = self.search_bar.fuzzy_check
        self.table = EntryTable(self)
        self.table.textEdited.connect(self._write_edit)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.note = QLabel("", self)
        self.note.setWordWrap(True)
        self.message = QLabel("", self)
        self.message.setWordWrap(True)
        self.message.hide()
        self.delete_button = QPushButton(translate("TMDialog", "Delete"), self)
        self.delete_button.setToolTip(translate("TMDialog", "Forget the selected entries (Del)"))
        self.import_button = QPushButton(translate("TMDialog", "Import TMX…"), self)
        self.import_button.setToolTip(
            translate("TMDialog", "Add a TMX file's sentence pairs (Trados, memoQ, OmegaT...) to this direction")
        )
        self.export_button = QPushButton(translate("TMDialog", "Export TMX…"), self)
        self.export_button.setToolTip(translate("TMDialog", "Write this direction's entries to a TMX 1.4b file"))
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
        buttons = QHBoxLayout()
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.export_button)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search_bar)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.note)
        layout.addLayout(buttons)

    # ---- state ----------------------------------------------------------------------------
    def direction(self) -> str:
        """The direction shown (``"en-zh"`` or ``"zh-en"``)."""
        return self.search_bar.direction()

    def set_direction(self, direction: str) -> None:
        """Show another direction's entries."""
        self.search_bar.set_direction(direction)

    def field(self) -> str:
        """Where the search looks: ``"both"``, ``"source"`` or ``"target"``."""
        return self.search_bar.field()

    def set_field(self, field: str) -> None:
        self.search_bar.set_field(field)

    def entries(self) -> list[Entry]:
        """The entries listed, top to bottom."""
        return self.table.entries()

    def scores(self) -> list[float | None]:
        """The match score of each row (None for a substring search)."""
        return self.table.scores()

    def selected_entries(self) -> list[Entry]:
        return self.table.selected_entries()

    def select_row(self, row: int) -> None:
        self.table.selectRow(row)

    def memory_count(self) -> int:
        """How many entries the direction shown holds."""
        try:
            return self.memory.count(self.direction())
        except sqlite3.Error:
            return 0

    # ---- listing --------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fill the table for the direction, search and options; update the counts."""
        self.search_bar.timer.stop()
        direction, query, fuzzy = self.direction(), self.search_bar.query(), self.search_bar.fuzzy()
        scores: list[float | None]
        try:
            if query and fuzzy:
                matches = self.memory.search_fuzzy(query, direction, self.field(), limit=_SHOWN + 1)
                found, scores = [m.entry for m in matches], [m.score for m in matches]
            else:
                found = self.memory.search(query, direction, limit=_SHOWN + 1, field=self.field())
                scores = [None] * len(found)
            counts = {d: self.memory.count(d) for d in DIRECTIONS}
        except ImportError as exc:  # the tm extra (rapidfuzz) is missing: substring search still works
            self.show_message(
                translate("TMDialog", "Fuzzy search needs {package} (the 'tm' extra): {error}").format(
                    package=exc.name or "rapidfuzz", error=exc
                ),
                "error",
            )
            found, scores = [], []
            counts = {d: self.memory.count(d) for d in DIRECTIONS}
        except sqlite3.Error as exc:
            self.show_message(
                translate("TMDialog", "Cannot read the translation memory: {error}").format(error=exc), "error"
            )
            found, scores, counts = [], [], dict.fromkeys(DIRECTIONS, 0)
        self.search_bar.set_counts(counts)
        self.table.fill(found[:_SHOWN], scores[:_SHOWN])
        self.table.setColumnHidden(SCORE_COL, not (query and fuzzy))
        self.note.setText(_note(check_direction(direction), query, fuzzy, len(found), counts))
        theme.set_tone(self.note, "quiet")
        self._update_buttons()
        self.refreshed.emit()

    def _update_buttons(self) -> None:
        self.delete_button.setEnabled(bool(self.table.selected_rows()))
        self.export_button.setEnabled(self.memory_count() > 0)

    # ---- editing --------------------------------------------------------------------------
    def edit_cell(self, row: int, column: int, text: str) -> None:
        """Put ``text`` into a source or translation cell as the user would (tests, scripts)."""
        self.table.edit_cell(row, column, text)

    def _write_edit(self, row: int, field: str, text: str) -> None:
        entry = self.table.entry(row)
        try:
            updated = self.memory.update(entry.id, **{field: text})
        except (ValueError, KeyError, sqlite3.Error) as exc:
            reason = (
                translate("TMDialog", "the entry is no longer in the memory") if isinstance(exc, KeyError) else str(exc)
            )
            self.show_message(translate("TMDialog", "Not changed: {reason}.").format(reason=reason), "error")
            self.table.set_row(row, entry)  # the old text back
            return
        self.table.set_row(row, updated)
        self.message.hide()
        self.entryEdited.emit(updated.id)
        self.memoryChanged.emit()

    # ---- deleting -------------------------------------------------------------------------
    def confirm_delete(self, count: int) -> bool:
        """Ask before forgetting entries (tests replace this)."""
        answer = QMessageBox.question(
            self,
            translate("TMDialog", "Delete from the memory?"),
            (
                translate("TMDialog", "Forget {count} entry of the translation memory? This cannot be undone.")
                if count == 1
                else translate("TMDialog", "Forget {count} entries of the translation memory? This cannot be undone.")
            ).format(count=count),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Yes

    def delete_selected(self) -> int:
        """Forget the selected entries, after asking. Returns how many went."""
        entries = self.selected_entries()
        if not entries or not self.confirm_delete(len(entries)):
            return 0
        row = self.table.selected_rows()[0]
        try:
            gone = sum(1 for entry in entries if self.memory.delete(entry.id))
        except sqlite3.Error as exc:
            self.show_message(translate("TMDialog", "Cannot delete: {error}").format(error=exc), "error")
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
        path, _filter = QFileDialog.getOpenFileName(
            self, translate("TMDialog", "Import a TMX file"), str(start_folder()), translate("TMFiles", TMX_FILTER)
        )
        remember_folder(path)
        return path

    def choose_export_path(self, suggested: str) -> str:
        """Ask where to export ("" when cancelled; tests replace this): ``suggested`` (a file
        name) in :func:`start_folder`; the folder chosen is remembered."""
        start = str(start_folder() / suggested)
        path, _filter = QFileDialog.getSaveFileName(
            self, translate("TMDialog", "Export the translation memory"), start, translate("TMFiles", TMX_FILTER)
        )
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
        path, direction = Path(path), self.direction()
        report = import_into(self.memory, path, direction)
        if isinstance(report, TMXFailure):
            self.show_error(report.title, report.text)
            return None
        self.search_bar.clear_quietly()
        self.refresh()
        tone = "warning" if report.skipped else None
        self.show_message(
            translate("TMDialog", "Imported {file} into {direction}: {report}.").format(
                file=path.name, direction=direction_label(direction), report=report
            ),
            tone,
        )
        if report.added:
            self.memoryChanged.emit()
        self.imported.emit(report)
        return report

    def export_file(self, path: str | Path) -> int | None:
        """Write the direction shown to a TMX file. Returns how many entries, None on error."""
        path, direction = tmx_path(path), self.direction()
        count = export_from(self.memory, path, direction)
        if isinstance(count, TMXFailure):
            self.show_error(count.title, count.text)
            return None
        self.show_message(
            translate("TMDialog", "Exported {count} entries ({direction}) to {file}.").format(
                count=count, direction=direction_label(direction), file=path.name
            ),
            None,
        )
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


def _note(direction: Direction, query: str, fuzzy: bool, found: int, counts: dict[Direction, int]) -> str:
    """The line under the table: how many entries are listed of how many, and the other counts."""
    more = (
        translate("TMDialog", " (the first {shown} shown; type to narrow)").format(shown=_SHOWN)
        if found > _SHOWN
        else ""
    )
    total = counts[direction]
    other = ", ".join(f"{direction_label(d)}: {counts[d]}" for d in DIRECTIONS if d != direction)
    if query:
        if not found:
            none = (
                translate("TMDialog", "No entry like “{query}”.")
                if fuzzy
                else translate("TMDialog", "No entry with “{query}”.")
            )
            return none.format(query=query)
        some = (
            translate("TMDialog", "{shown} of {total} entries like “{query}”{more}")
            if fuzzy
            else translate("TMDialog", "{shown} of {total} entries with “{query}”{more}")
        )
        return some.format(shown=min(found, _SHOWN), total=total, query=query, more=more)
    if total:
        return translate("TMDialog", "{total} entries{more} · {other}").format(total=total, more=more, other=other)
    return translate(
        "TMDialog",
        "No entries in {direction} yet ({other}). Edited and approved sentences "
        "come here; Import TMX adds a CAT tool's memory.",
    ).format(direction=direction_label(direction), other=other)


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


__all__ = [
    "SOURCE_COL",
    "TARGET_COL",
    "TMDialog",
    "direction_label",
    "open_tm_dialog",
    "remember_folder",
    "start_folder",
]
