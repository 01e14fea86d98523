"""The user's glossary in the GUI: the editor in the settings dialog and the file it saves.

The glossary lives in ``glossary.csv`` in the user's config folder, written with
``Glossary.save`` (and read with ``Glossary.load``, which also imports any two-column CSV/TSV).
:class:`GlossaryEditor` is a table of terms (English, Chinese, case-sensitive) with Add, Remove
and Import… (its file dialog opens where the TM dialog's do: home, then the last folder
chosen); the settings dialog saves it on Apply/OK. :class:`GlossaryStore` gives the
controller the current :class:`Glossary` for ``GenerationOptions.glossary`` (re-read when the
file changes), so interactive requests, the popup, alternatives and file jobs all use it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_mt.engine.glossary import Glossary, GlossaryError, Term

from ...base.fsutil import atomic_path
from .. import paths
from ..i18n import QT_TRANSLATE_NOOP, translate
from ..window import theme
from .tm_dialog import remember_folder, start_folder

__all__ = [
    "GlossaryEditor",
    "GlossaryStore",
    "glossary_path",
    "save_glossary",
]


_GLOSSARY_FILE = "glossary.csv"
_FILE_FILTER = QT_TRANSLATE_NOOP("GlossaryEditor", "Glossary (*.csv *.tsv *.txt);;All files (*)")
_COLUMNS = (
    QT_TRANSLATE_NOOP("GlossaryEditor", "English"),
    QT_TRANSLATE_NOOP("GlossaryEditor", "Chinese"),
    QT_TRANSLATE_NOOP("GlossaryEditor", "Case-sensitive"),
)  # shown translated


def glossary_path() -> Path:
    """The user's glossary file in the (possibly redirected) config folder."""
    return paths.config_dir() / _GLOSSARY_FILE


def save_glossary(glossary: Glossary, path: Path | None = None) -> Path:
    """Write ``glossary`` atomically (:func:`desktop_mt.base.fsutil.atomic_path`)."""
    path = path or glossary_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path, mode=0o600) as tmp:  # 0600 for a new file, as tempfile.mkstemp made it
        glossary.save(tmp)
    return path


class GlossaryStore:
    """The saved glossary for requests: ``get()`` re-reads the file when it changed; a file
    that cannot be read is reported once through ``on_error`` and translation goes on
    without a glossary."""

    def __init__(self, path: Path | None = None, on_error: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.on_error = on_error
        self._key: tuple[str, int, int] | None = None  # path, mtime, size
        self._glossary: Glossary | None = None

    def get(self) -> Glossary | None:
        """The glossary (None when there is no file or it has no terms)."""
        path = self.path or glossary_path()
        try:
            stat = path.stat()
        except OSError:
            self._key, self._glossary = None, None
            return None
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key != self._key:
            self._key = key
            try:
                loaded = Glossary.load(path)
                self._glossary = loaded if len(loaded) else None
            except GlossaryError as exc:
                self._glossary = None
                if self.on_error is not None:
                    self.on_error(translate("GlossaryEditor", "The glossary is not used: {error}").format(error=exc))
        return self._glossary


class GlossaryEditor(QWidget):
    """A table of terms with Add, Remove and Import…; :meth:`save` writes the file."""

    changed = Signal()

    def __init__(self, path: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path or glossary_path()
        self.table = QTableWidget(0, len(_COLUMNS), self)
        self.table.setHorizontalHeaderLabels([translate("GlossaryEditor", c) for c in _COLUMNS])
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setMinimumHeight(120)
        self.table.itemChanged.connect(lambda _item: self._touch())
        self.add_button = QPushButton(translate("GlossaryEditor", "Add term"), self)
        self.remove_button = QPushButton(translate("GlossaryEditor", "Remove"), self)
        self.import_button = QPushButton(translate("GlossaryEditor", "Import CSV/TSV…"), self)
        self.import_button.setToolTip(
            translate(
                "GlossaryEditor",
                "Two columns, English and Chinese (an optional third: "
                "'case' for case-sensitive); comma or tab separated, UTF-8",
            )
        )
        self.add_button.clicked.connect(self.add_row)
        self.remove_button.clicked.connect(self.remove_selected)
        self.import_button.clicked.connect(self._choose_import)
        self.message = QLabel("", self)
        self.message.setWordWrap(True)
        self.message.hide()
        buttons = QHBoxLayout()
        for button in (self.add_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.import_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        self.dirty = False
        self._load()

    # ---- rows ---------------------------------------------------------------------------
    def _load(self) -> None:
        if not self.path.exists():
            return
        try:
            self.set_terms(Glossary.load(self.path).terms)
        except GlossaryError as exc:
            self.show_message(
                translate("GlossaryEditor", "Cannot read the saved glossary: {error}").format(error=exc), "error"
            )
        self.dirty = False

    def set_terms(self, terms: tuple[Term, ...] | list[Term]) -> None:
        """Show ``terms`` (replacing the table's rows)."""
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for term in terms:
            self._append(term.source, term.target, term.case_sensitive)
        self.table.blockSignals(False)
        self._touch()

    def _append(self, source: str, target: str, case: bool) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, 0, QTableWidgetItem(source))
        self.table.setItem(row, 1, QTableWidgetItem(target))
        check = QTableWidgetItem()
        check.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        check.setCheckState(Qt.CheckState.Checked if case else Qt.CheckState.Unchecked)
        self.table.setItem(row, 2, check)
        return row

    def add_row(self) -> None:
        """An empty row, ready to type the English term."""
        row = self._append("", "", False)
        self.table.setCurrentCell(row, 0)
        item = self.table.item(row, 0)
        if item is not None:
            self.table.editItem(item)
        self._touch()

    def remove_selected(self) -> None:
        """Remove the selected rows."""
        rows = sorted({index.row() for index in self.table.selectedIndexes()}, reverse=True)
        for row in rows:
            self.table.removeRow(row)
        if rows:
            self._touch()

    def _touch(self) -> None:
        self.dirty = True
        self.changed.emit()

    def _cell(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text().strip() if item is not None else ""

    def terms(self) -> tuple[list[Term], list[str]]:
        """The terms in the table and a problem per incomplete row (empty rows are skipped;
        a term listed twice keeps its last row)."""
        found: dict[tuple[str, bool], Term] = {}
        problems = []
        for row in range(self.table.rowCount()):
            source, target = self._cell(row, 0), self._cell(row, 1)
            box = self.table.item(row, 2)
            case = box is not None and box.checkState() == Qt.CheckState.Checked
            if not source and not target:
                continue
            if not source or not target:
                problems.append(
                    translate("GlossaryEditor", "Row {row} needs both an English and a Chinese term.").format(
                        row=row + 1
                    )
                )
                continue
            key = (source if case else source.casefold(), case)
            found.pop(key, None)
            found[key] = Term(source, target, case_sensitive=case)
        return list(found.values()), problems

    # ---- files --------------------------------------------------------------------------
    def choose_import_path(self) -> str:
        """Ask for a CSV/TSV file to import ("" when cancelled). The file dialog opens where the
        other file dialogs do (``tm_dialog.start_folder``: the user's home, then the folder of
        the last file chosen this session, never the folder the app was started from); the
        folder chosen is remembered."""
        path, _filter = QFileDialog.getOpenFileName(
            self,
            translate("GlossaryEditor", "Import a glossary"),
            str(start_folder()),
            translate("GlossaryEditor", _FILE_FILTER),
        )
        remember_folder(path)
        return path

    def _choose_import(self) -> None:
        path = self.choose_import_path()
        if path:
            self.import_file(path)

    def import_file(self, path: str | Path) -> int:
        """Add the terms of a CSV/TSV file (``Glossary.load``); a term already in the table
        takes the file's translation. Returns how many terms were read (-1: the file is bad)."""
        try:
            loaded = Glossary.load(path)
        except GlossaryError as exc:
            self.show_message(str(exc), "error")
            return -1
        current, _problems = self.terms()
        merged = {(t.source if t.case_sensitive else t.source.casefold(), t.case_sensitive): t for t in current}
        for term in loaded.terms:
            key = (term.source if term.case_sensitive else term.source.casefold(), term.case_sensitive)
            merged.pop(key, None)
            merged[key] = term
        self.set_terms(list(merged.values()))
        self.show_message(
            translate("GlossaryEditor", "Imported {count} terms from {file}.").format(
                count=len(loaded), file=Path(path).name
            ),
            None,
        )
        return len(loaded)

    def save(self) -> bool:
        """Write the table to the glossary file (if it changed). Returns False, with the
        reason shown, when a row is incomplete or the file cannot be written."""
        if not self.dirty:
            return True
        terms, problems = self.terms()
        if problems:
            self.show_message(" ".join(problems), "error")
            return False
        try:
            save_glossary(Glossary(tuple(terms)), self.path)
        except OSError as exc:
            self.show_message(
                translate("GlossaryEditor", "Cannot save the glossary: {error}").format(error=exc), "error"
            )
            return False
        self.dirty = False
        self.message.hide()
        return True

    def show_message(self, text: str, tone: str | None) -> None:
        self.message.setText(text)
        theme.set_tone(self.message, tone)
        self.message.show()
