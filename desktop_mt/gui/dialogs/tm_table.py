"""The Translation memory dialog's table of entries (issue 28): source, translation, origin,
when changed and (for a fuzzy search) the match score, one row per :class:`desktop_mt.tm.Entry`.

The source and translation cells are editable (double-click, F2 or typing); a user's edit is
said by ``textEdited(row, field, text)`` and the dialog writes it to the memory, then puts the
row back with :meth:`EntryTable.set_row` (the entry as stored, or the old one when refused).
Filling the table never says ``textEdited``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from desktop_mt.gui.i18n import QT_TRANSLATE_NOOP, translate
from desktop_mt.tm import Entry
from desktop_mt.tm.store import format_tmx_date

SOURCE_COL, TARGET_COL, ORIGIN_COL, CHANGED_COL, SCORE_COL = range(5)
_FIELD_OF_COLUMN = {SOURCE_COL: "source", TARGET_COL: "target"}


class EntryTable(QTableWidget):
    """The entries listed; each row keeps its :class:`Entry` (in the source cell)."""

    textEdited = Signal(int, str, str)  # row, "source" or "target", the cell's new text

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 5, parent)
        self._filling = False
        self.setHorizontalHeaderLabels(
            [
                translate("EntryTable", "Source"),
                translate("EntryTable", "Translation"),
                translate("EntryTable", "Origin"),
                translate("EntryTable", "Changed"),
                translate("EntryTable", "Match"),
            ]
        )
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.setWordWrap(True)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.horizontalHeader()
        header.setSectionResizeMode(SOURCE_COL, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(TARGET_COL, QHeaderView.ResizeMode.Stretch)
        for col in (ORIGIN_COL, CHANGED_COL, SCORE_COL):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.itemChanged.connect(self._on_item_changed)

    # ---- reading --------------------------------------------------------------------------
    def entry(self, row: int) -> Entry:
        """The entry shown in ``row`` (IndexError when there is none)."""
        item = self.item(row, SOURCE_COL)
        entry = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if not isinstance(entry, Entry):
            raise IndexError(row)
        return entry

    def entries(self) -> list[Entry]:
        """The entries listed, top to bottom."""
        return [self.entry(row) for row in range(self.rowCount())]

    def scores(self) -> list[float | None]:
        """The match score of each row (None for a substring search)."""
        out: list[float | None] = []
        for row in range(self.rowCount()):
            item = self.item(row, SCORE_COL)
            out.append(float(item.data(Qt.ItemDataRole.UserRole)) if item is not None and item.text() else None)
        return out

    def selected_rows(self) -> list[int]:
        """The rows selected, top to bottom."""
        return sorted({index.row() for index in self.selectionModel().selectedRows()})

    def selected_entries(self) -> list[Entry]:
        return [self.entry(row) for row in self.selected_rows()]

    # ---- filling --------------------------------------------------------------------------
    def fill(self, entries: list[Entry], scores: list[float | None]) -> None:
        """Show ``entries`` (with their match scores, None for none) instead of the rows shown."""
        self._filling = True
        try:
            self.setRowCount(0)
            self.setRowCount(len(entries))
            for row, (entry, score) in enumerate(zip(entries, scores)):
                self.set_row(row, entry, score)
        finally:
            self._filling = False

    def set_row(self, row: int, entry: Entry, score: float | None = None) -> None:
        """Show ``entry`` in ``row`` (an edit written, or refused: the old text back)."""
        was, self._filling = self._filling, True
        try:
            tip = entry_tooltip(entry)
            for col, text in ((SOURCE_COL, entry.source), (TARGET_COL, entry.target)):
                item = QTableWidgetItem(text)
                item.setToolTip(tip)
                if col == SOURCE_COL:
                    item.setData(Qt.ItemDataRole.UserRole, entry)
                self.setItem(row, col, item)
            changed = format_tmx_date(entry.changed or entry.created)
            for col, text in ((ORIGIN_COL, _origin_label(entry.origin)), (CHANGED_COL, changed)):
                item = QTableWidgetItem(text)
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                item.setToolTip(tip)
                self.setItem(row, col, item)
            score_item = QTableWidgetItem("" if score is None else f"{score:.0f}%")
            score_item.setFlags(score_item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            if score is not None:
                score_item.setData(Qt.ItemDataRole.UserRole, score)
            self.setItem(row, SCORE_COL, score_item)
        finally:
            self._filling = was

    # ---- editing --------------------------------------------------------------------------
    def edit_cell(self, row: int, column: int, text: str) -> None:
        """Put ``text`` into a source or translation cell as the user would (tests, scripts)."""
        item = self.item(row, column)
        if item is None or column not in _FIELD_OF_COLUMN:
            raise IndexError((row, column))
        item.setText(text)

    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        field = _FIELD_OF_COLUMN.get(item.column())
        if self._filling or field is None:
            return
        if item.text().strip() != getattr(self.entry(item.row()), field):
            self.textEdited.emit(item.row(), field, item.text())


_ORIGINS = {  # an entry's origin as the memory stores it -> its name in the interface
    "approved": QT_TRANSLATE_NOOP("EntryTable", "approved"),
    "imported": QT_TRANSLATE_NOOP("EntryTable", "imported"),
    "edited": QT_TRANSLATE_NOOP("EntryTable", "edited"),
}


def _origin_label(origin: str) -> str:
    """An entry's origin in the interface language (an unknown one as the memory has it)."""
    return translate("EntryTable", _ORIGINS[origin]) if origin in _ORIGINS else origin


def entry_tooltip(entry: Entry) -> str:
    """What a row's tooltip says of its entry: the machine's text, note, creator, created, props."""
    lines = []
    if entry.machine:
        lines.append(translate("EntryTable", "Machine translation: {text}").format(text=entry.machine))
    if entry.note:
        lines.append(translate("EntryTable", "Note: {text}").format(text=entry.note))
    if entry.creator:
        lines.append(translate("EntryTable", "By: {name}").format(name=entry.creator))
    if entry.created:
        lines.append(translate("EntryTable", "Created: {date}").format(date=format_tmx_date(entry.created)))
    lines += [f"{kind}: {value}" for kind, value in entry.props]
    return "\n".join(lines)


__all__ = ["CHANGED_COL", "ORIGIN_COL", "SCORE_COL", "SOURCE_COL", "TARGET_COL", "EntryTable", "entry_tooltip"]
