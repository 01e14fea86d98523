"""The Models dialog's list: the catalog and the installed models in one table, grouped by
direction (English -> Chinese, Chinese -> English, other pairs), with each model's size, licence
and status (Active in its direction, installed, downloading...). :class:`ModelTable` shows what
the dialog read from its backend and keeps the selection by name; it asks nothing itself."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

from desktop_mt.engine.direction import DIRECTIONS

from ..features.models import CatalogItem, InstalledItem
from ..i18n import QT_TRANSLATE_NOOP, translate
from ..messages import direction_title
from ..workers.downloads import format_bytes

__all__ = [
    "ModelTable",
    "Row",
    "merge_rows",
    "use_label",
]


_COLUMNS = (
    QT_TRANSLATE_NOOP("ModelTable", "Model"),
    QT_TRANSLATE_NOOP("ModelTable", "Languages"),
    QT_TRANSLATE_NOOP("ModelTable", "Size"),
    QT_TRANSLATE_NOOP("ModelTable", "Licence"),
    QT_TRANSLATE_NOOP("ModelTable", "Status"),
)  # keys; shown translated
# The list's groups: the directions (engine.direction.DIRECTIONS, each with its title); models of
# another language pair go last.
_OTHER_PAIRS = QT_TRANSLATE_NOOP("ModelTable", "Other language pairs")
_GROUP_ROLE = Qt.ItemDataRole.UserRole + 1  # set on group rows (their direction, "" for others)


@dataclasses.dataclass
class Row:
    """One line of the list: a catalog entry, an installed model, or both."""

    name: str
    catalog: CatalogItem | None = None
    installed: InstalledItem | None = None

    @property
    def direction(self) -> str | None:
        """``"en-zh"``, ``"zh-en"`` or None (another pair): the row's group."""
        if self.installed is not None and self.installed.direction:
            return self.installed.direction
        return self.catalog.direction if self.catalog is not None else None


def merge_rows(catalog: list[CatalogItem], installed: list[InstalledItem]) -> list[Row]:
    """Catalog models first (in catalog order), then installed models not in the catalog
    (the bundled demo, folders the user put into the models folder)."""
    by_name = {i.name: i for i in installed}
    rows = [Row(c.name, c, by_name.pop(c.name, None)) for c in catalog]
    rows += [Row(i.name, None, i) for i in installed if i.name in by_name]
    return rows


def _group_rows(rows: list[Row]) -> list[tuple[str | None, list[Row]]]:
    """The rows by direction: English->Chinese, Chinese->English, then other pairs (a group
    only when it has rows), each in the order given."""
    groups: list[tuple[str | None, list[Row]]] = []
    for direction in (*DIRECTIONS, None):
        members = [r for r in rows if (r.direction if r.direction in DIRECTIONS else None) == direction]
        if members:
            groups.append((direction, members))
    return groups


def use_label(row: Row | None) -> str:
    """The Use button's words for ``row``: "Use for <direction>", or "Use this model"."""
    way = row.direction if row is not None else None
    if way in DIRECTIONS:
        return translate("ModelTable", "Use for {direction}").format(direction=direction_title(way))
    return translate("ModelTable", "Use this model")


def _approx_size(n: int) -> str:
    return f"~{n / 1e6:.0f} MB" if n >= 10e6 else f"~{format_bytes(n)}"


def _same_path(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return False
    return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()


class ModelTable(QTreeWidget):
    """The models by direction (see the module docstring). ``download_status(name)`` is the
    running download's word for a row ("Downloading…"), None for the others."""

    def __init__(self, download_status: Callable[[str], str | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.download_status = download_status
        self.rows: list[Row] = []
        self.active: dict[str, str | None] = {}  # direction -> active folder ("" = bundled)
        self.setHeaderLabels([translate("ModelTable", c) for c in _COLUMNS])
        self.setRootIsDecorated(False)
        self.setItemsExpandable(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

    def show_rows(self, rows: list[Row], active: dict[str, str | None]) -> None:
        """Show ``rows`` grouped by direction, ``active`` marked; keeps the selection by name."""
        selected = self.selected_name()
        self.rows, self.active = rows, dict(active)
        self.clear()
        for direction, members in _group_rows(rows):
            title = direction_title(direction) if direction in DIRECTIONS else translate("ModelTable", _OTHER_PAIRS)
            group = QTreeWidgetItem([title])
            group.setData(0, _GROUP_ROLE, direction or "")
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)  # a heading: not selectable
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            self.addTopLevelItem(group)
            for row in members:
                group.addChild(self._item(row))
            group.setExpanded(True)
        for col in range(1, len(_COLUMNS)):
            self.resizeColumnToContents(col)
        items = self.model_items()
        names = [i.data(0, Qt.ItemDataRole.UserRole) for i in items]
        if names:
            self.setCurrentItem(items[names.index(selected) if selected in names else 0])

    def _item(self, row: Row) -> QTreeWidgetItem:
        demo = row.installed is not None and row.installed.demo
        item = QTreeWidgetItem(
            [
                translate("ModelTable", "{name} (demo)").format(name=row.name) if demo else row.name,
                self._languages(row),
                self._size(row),
                row.catalog.licence if row.catalog else "",
                self.status_text(row.name),
            ]
        )
        item.setData(0, Qt.ItemDataRole.UserRole, row.name)
        return item

    def model_items(self) -> list[QTreeWidgetItem]:
        """The model rows (not the group headings), top to bottom."""
        found: list[QTreeWidgetItem] = []
        for g in range(self.topLevelItemCount()):
            group = self.topLevelItem(g)
            if group is not None:
                found += [c for i in range(group.childCount()) if (c := group.child(i)) is not None]
        return found

    @staticmethod
    def _languages(row: Row) -> str:
        return row.catalog.languages if row.catalog else row.installed.languages if row.installed else ""

    @staticmethod
    def _size(row: Row) -> str:
        if row.installed is not None:
            return format_bytes(row.installed.size)
        sizes = row.catalog.sizes if row.catalog else {}
        return ", ".join(f"{v} {_approx_size(n)}" for v, n in sizes.items())

    def row(self, name: str | None) -> Row | None:
        """The row of ``name`` (None: no such model)."""
        return next((r for r in self.rows if r.name == name), None)

    def selected_name(self) -> str | None:
        """The model selected in the list."""
        item = self.currentItem()
        name = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        return str(name) if name else None

    def select(self, name: str) -> None:
        """Select the row of ``name``; KeyError when it is not listed."""
        for item in self.model_items():
            if item.data(0, Qt.ItemDataRole.UserRole) == name:
                self.setCurrentItem(item)
                return
        raise KeyError(name)

    def group_of(self, name: str) -> str | None:
        """The direction heading ``name`` is listed under ("" for other pairs)."""
        for item in self.model_items():
            parent = item.parent()
            if item.data(0, Qt.ItemDataRole.UserRole) == name and parent is not None:
                return str(parent.data(0, _GROUP_ROLE))
        return None

    def is_active(self, row: Row) -> bool:
        """Whether ``row`` is the active model of its direction."""
        installed, direction = row.installed, row.direction
        if installed is None or direction is None or direction not in self.active:
            return False
        active = self.active[direction]
        if active == "":
            return installed.demo
        return _same_path(installed.path, active)

    def status_text(self, name: str) -> str:
        """The Status column of ``name``."""
        row = self.row(name)
        if row is None:
            return ""
        downloading = self.download_status(name)
        if downloading is not None:
            return downloading
        if row.installed is None:
            return translate("ModelTable", "Not installed")
        status = translate("ModelTable", "Active") if self.is_active(row) else translate("ModelTable", "Installed")
        return f"{status} ({', '.join(row.installed.variants)})"

    def set_active_path(self, path: str | None) -> None:
        """Mark the model in ``path`` as the active one of its direction (what the app loaded)."""
        row = next((r for r in self.rows if r.installed and _same_path(r.installed.path, path)), None)
        if row is not None and row.direction is not None and row.installed is not None:
            self.active[row.direction] = "" if row.installed.demo else row.installed.path
        self.refresh_status()

    def refresh_status(self) -> None:
        """Redraw the Status column (a download started or ended, the active model changed)."""
        for item in self.model_items():
            item.setText(_COLUMNS.index("Status"), self.status_text(item.data(0, Qt.ItemDataRole.UserRole)))
