"""The Translation memory dialog's search bar (issue 28): the direction shown (with each
direction's count), the search box, where it looks (source, translation or both) and Fuzzy.

:class:`TMSearchBar` says ``changed`` when the table should be filled again: at once for a
direction, field or option, and for each key of a substring search; a fuzzy search (it scores
every entry) waits :data:`FUZZY_DELAY_MS` after the last key. The dialog reads the state back
(:meth:`TMSearchBar.direction`, :meth:`~TMSearchBar.query`, ...) and does the search.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QWidget

from desktop_mt.engine.direction import DIRECTIONS, EN_ZH, Direction, check_direction
from desktop_mt.gui.i18n import QT_TRANSLATE_NOOP, translate
from desktop_mt.gui.messages import direction_title
from desktop_mt.tm import BOTH, FUZZY_THRESHOLD, SOURCE, TARGET

FUZZY_DELAY_MS = 250  # a fuzzy search runs this long after the last key (it scores every entry)
_FIELDS = (
    (BOTH, QT_TRANSLATE_NOOP("TMSearchBar", "Source and translation")),
    (SOURCE, QT_TRANSLATE_NOOP("TMSearchBar", "Source")),
    (TARGET, QT_TRANSLATE_NOOP("TMSearchBar", "Translation")),
)


def direction_label(direction: str) -> str:
    """``"en-zh"`` -> ``"English → Chinese"`` (the engine's title, in the interface language)."""
    return direction_title(check_direction(direction))


class TMSearchBar(QWidget):
    """Direction, search box, field and Fuzzy, in one row."""

    changed = Signal()  # search again (direction, text, field or Fuzzy changed)

    def __init__(self, parent: QWidget | None = None, direction: str = EN_ZH) -> None:
        super().__init__(parent)
        self.direction_box = QComboBox(self)
        for d in DIRECTIONS:
            self.direction_box.addItem(direction_label(d), d)
        self.direction_box.setCurrentIndex(max(0, self.direction_box.findData(direction)))
        self.direction_box.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.search = QLineEdit(self)
        self.search.setPlaceholderText(translate("TMSearchBar", "Search the memory…"))
        self.search.setClearButtonEnabled(True)
        self.timer = QTimer(self)  # a fuzzy search waits for a pause in typing
        self.timer.setSingleShot(True)
        self.timer.setInterval(FUZZY_DELAY_MS)
        self.timer.timeout.connect(self.changed.emit)
        self.search.textChanged.connect(self._search_changed)
        self.field_box = QComboBox(self)
        for field, label in _FIELDS:
            self.field_box.addItem(translate("TMSearchBar", label), field)
        self.field_box.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.fuzzy_check = QCheckBox(translate("TMSearchBar", "Fuzzy"), self)
        self.fuzzy_check.setToolTip(
            translate(
                "TMSearchBar", "Find text like the search, typos and all (at least {percent}% alike), best match first"
            ).format(percent=f"{FUZZY_THRESHOLD:.0f}")
        )
        self.fuzzy_check.toggled.connect(lambda _on: self.changed.emit())
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel(translate("TMSearchBar", "Direction:"), self))
        row.addWidget(self.direction_box)
        row.addWidget(self.search, 1)
        row.addWidget(QLabel(translate("TMSearchBar", "in"), self))  # search ... in [source and translation]
        row.addWidget(self.field_box)
        row.addWidget(self.fuzzy_check)

    def _search_changed(self, _text: str) -> None:
        if self.fuzzy_check.isChecked():
            self.timer.start()
        else:
            self.changed.emit()

    def direction(self) -> str:
        """The direction shown (``"en-zh"`` or ``"zh-en"``)."""
        return str(self.direction_box.currentData())

    def set_direction(self, direction: str) -> None:
        index = self.direction_box.findData(direction)
        if index < 0:
            raise ValueError(f"unknown direction {direction!r}")
        self.direction_box.setCurrentIndex(index)

    def field(self) -> str:
        """Where the search looks: ``"both"``, ``"source"`` or ``"target"``."""
        return str(self.field_box.currentData())

    def set_field(self, field: str) -> None:
        self.field_box.setCurrentIndex(max(0, self.field_box.findData(field)))

    def query(self) -> str:
        """The text searched for (stripped; "" lists every entry)."""
        return self.search.text().strip()

    def fuzzy(self) -> bool:
        return self.fuzzy_check.isChecked()

    def set_counts(self, counts: Mapping[Direction, int]) -> None:
        """Show each direction's number of entries beside its name."""
        for d in DIRECTIONS:
            self.direction_box.setItemText(self.direction_box.findData(d), f"{direction_label(d)} ({counts[d]})")

    def clear_quietly(self) -> None:
        """Empty the search box without asking for a search (the caller fills the table)."""
        self.search.blockSignals(True)
        self.search.clear()
        self.search.blockSignals(False)


__all__ = ["FUZZY_DELAY_MS", "TMSearchBar", "direction_label"]
