"""The Models dialog: the catalog and the installed models in one list, grouped by direction
(English -> Chinese, Chinese -> English); download (progress bar, speed, time left, cancel),
remove, and "Use for <direction>": the user chooses the active model of each direction.

The dialog knows models only through :class:`ModelsBackend` (the app's implementation wraps
the engine's catalog, downloader and installer; tests use a fake). It does not load models:
"Use this model" emits :attr:`ModelsDialog.activateRequested` and the controller switches.
Downloads run in a :class:`~desktop_mt.gui.downloads.DownloadRunner` thread owned by the
dialog, so closing the dialog only hides it and a download goes on; reopening shows it.
"""

from __future__ import annotations

import dataclasses
import html
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_mt.models.store import MIRROR_HINT

from . import models, theme
from .downloads import UNREACHABLE, DownloadRunner, Progress, format_bytes, progress_text, unreachable_text
from .models import CatalogItem, InstalledItem

log = logging.getLogger(__name__)

VARIANT_LABELS = {"int8": "int8 (smaller, faster)", "fp32": "fp32 (full precision)"}
COLUMNS = ("Model", "Languages", "Size", "Licence", "Status")
# The list's groups, in this order; models of another language pair go last.
DIRECTION_TITLES = {"en-zh": "English → Chinese", "zh-en": "Chinese → English"}
OTHER_PAIRS = "Other language pairs"
GROUP_ROLE = Qt.ItemDataRole.UserRole + 1  # set on group rows (their direction, "" for others)


class ModelsBackend(Protocol):
    """What the dialog needs from the model manager. Every method may raise
    ``DesktopMTError``/``OSError`` with a message for the user."""

    def catalog(self) -> list[CatalogItem]:
        """The downloadable models."""

    def installed(self) -> list[InstalledItem]:
        """The models on disk, the bundled demo included."""

    def download(self, name: str, variant: str, progress: Callable[[Progress], None], cancel: threading.Event) -> Path:
        """Download and install ``name``; runs in the download thread (see downloads.py)."""

    def remove(self, name: str) -> None:
        """Delete an installed model."""

    def set_active(self, name_or_path: str) -> None:
        """Make the model the active one of its own direction ("" = the bundled
        English->Chinese one); the command line and the app share it."""

    def active_folders(self) -> dict[str, str | None]:
        """The active model folder of each direction ("" for the bundled model of that
        direction, None when the chosen model is gone)."""

    def endpoint(self) -> str:
        """Where downloads come from now (the Hub or the mirror), for messages."""

    def endpoint_setting(self) -> str:
        """The mirror chosen in the app ("" = none: ``HF_ENDPOINT`` or the Hub)."""

    def set_endpoint_setting(self, url: str) -> None:
        """Save the mirror ("" = none); raises for a URL that is not http(s)."""


class DemoModelNotice(QFrame):
    """The window's one line while the bundled demo model is in use: what it is, and a
    button to the Models dialog. Kept quiet on purpose (no colour, no close button): it is
    a fact about the model, not an error, and it goes away when a real model is active."""

    TEXT = "Demo model: fine for short everyday sentences, not for real text."

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("demoModelNotice")
        self.label = QLabel(self.TEXT, self)
        self.label.setObjectName("demoModelText")
        self.label.setWordWrap(True)  # a narrow window (480 px) wraps it instead of cutting it
        self.button = QPushButton("Get the real model…", self)
        self.button.setFlat(True)
        # A link, not a button: the line stays quiet, but what to click is plain to see.
        self.button.setStyleSheet(
            "QPushButton { color: palette(link); text-decoration: underline; border: none; padding: 0 4px; }"
        )
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.setToolTip("Open the Models dialog to download opus-mt-en-zh")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)
        self.hide()


@dataclasses.dataclass
class _Row:
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


def merge_rows(catalog: list[CatalogItem], installed: list[InstalledItem]) -> list[_Row]:
    """Catalog models first (in catalog order), then installed models not in the catalog
    (the bundled demo, folders the user put into the models folder)."""
    by_name = {i.name: i for i in installed}
    rows = [_Row(c.name, c, by_name.pop(c.name, None)) for c in catalog]
    rows += [_Row(i.name, None, i) for i in installed if i.name in by_name]
    return rows


def _rich(title: str, text: str, small: str = "") -> str:
    """The details line: a bold title, the text, and credits in small print (escaped)."""
    parts = [f"<b>{html.escape(title)}</b>", html.escape(text)]
    if small:
        parts.append(f"<small>{html.escape(small)}</small>")
    return "<br>".join(p for p in parts if p)


def _approx_size(n: int) -> str:
    return f"~{n / 1e6:.0f} MB" if n >= 10e6 else f"~{format_bytes(n)}"


def _same_path(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return False
    return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()


def group_rows(rows: list[_Row]) -> list[tuple[str | None, list[_Row]]]:
    """The rows by direction: English->Chinese, Chinese->English, then other pairs (a group
    only when it has rows), each in the order given."""
    groups: list[tuple[str | None, list[_Row]]] = []
    for direction in (*DIRECTION_TITLES, None):
        members = [r for r in rows if (r.direction if r.direction in DIRECTION_TITLES else None) == direction]
        if members:
            groups.append((direction, members))
    return groups


class ModelsDialog(QDialog):
    """See the module docstring. ``state()`` is one of idle / downloading / cancelling /
    cancelled / failed / installed (what the download area shows)."""

    activateRequested = Signal(str, str)  # model folder, variant
    downloadEnded = Signal(str)  # "installed" / "failed" / "cancelled" (tests, controller)
    modelsChanged = Signal()  # a model was installed or removed
    progressShown = Signal(object)  # a progress report is on screen (tests)

    def __init__(self, backend: ModelsBackend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Models")
        self.backend = backend
        self.runner = DownloadRunner(backend.download, self)
        self._rows: list[_Row] = []
        self._active: dict[str, str | None] = {}  # direction -> active folder ("" = bundled)
        self._state = "idle"
        self._build()
        self._connect_runner()
        self.resize(780, 380)
        self.refresh()

    # ---- construction -------------------------------------------------------------------
    def _build(self) -> None:
        self.table = QTreeWidget(self)
        self.table.setHeaderLabels(list(COLUMNS))
        self.table.setRootIsDecorated(False)
        self.table.setItemsExpandable(False)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.details = QLabel(self)
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.details)
        layout.addLayout(self._build_actions())
        layout.addLayout(self._build_progress())
        self.message = QLabel(self)
        self.message.setObjectName("modelsMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        layout.addWidget(self.message)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        bottom = QHBoxLayout()
        bottom.addWidget(QLabel("Download from:", self))
        bottom.addWidget(self._build_mirror(), 1)
        bottom.addWidget(close)
        layout.addLayout(bottom)

    def _build_mirror(self) -> QComboBox:
        # Editable: the Hub (empty), the usual mainland-China mirror, or any URL typed in.
        self.mirror_combo = QComboBox(self)
        self.mirror_combo.setEditable(True)
        self.mirror_combo.addItems(["", MIRROR_HINT])
        line = self.mirror_combo.lineEdit()
        assert line is not None  # an editable combo box has one
        line.setPlaceholderText(f"{self._endpoint()} (default)")
        self.mirror_combo.setToolTip(
            "A mirror that speaks the Hugging Face Hub API, for networks where "
            f"the Hub is blocked or slow (e.g. {MIRROR_HINT}). Empty: the "
            "HF_ENDPOINT variable, else huggingface.co."
        )
        try:
            self.mirror_combo.setCurrentText(self.backend.endpoint_setting())
        except Exception:  # noqa: BLE001 - an unreadable setting is shown as empty
            self.mirror_combo.setCurrentText("")
        line.editingFinished.connect(self.save_mirror)
        self.mirror_combo.activated.connect(lambda _i: self.save_mirror())
        return self.mirror_combo

    def save_mirror(self) -> bool:
        """Save the mirror field; an invalid URL is explained and not saved."""
        url = self.mirror_combo.currentText().strip()
        try:
            if url != self.backend.endpoint_setting():
                self.backend.set_endpoint_setting(url)
        except Exception as exc:  # noqa: BLE001 - DesktopMTError with the fix
            self.show_message(f"Mirror not saved: {exc}", error=True)
            return False
        return True

    def _build_actions(self) -> QHBoxLayout:
        self.variant_combo = QComboBox(self)
        self.download_button = QPushButton("Download", self)
        self.download_button.clicked.connect(self.start_download)
        self.use_button = QPushButton("Use this model", self)
        self.use_button.setToolTip("Make it the model of its direction, in the app and on the command line")
        self.use_button.clicked.connect(self.use_selected)
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.clicked.connect(self.confirm_remove)
        row = QHBoxLayout()
        row.addWidget(QLabel("Variant:", self))
        row.addWidget(self.variant_combo)
        row.addWidget(self.download_button)
        row.addStretch(1)
        row.addWidget(self.use_button)
        row.addWidget(self.remove_button)
        return row

    def _build_progress(self) -> QHBoxLayout:
        self.progress_bar = QProgressBar(self)
        self.progress_bar.setRange(0, 1000)
        self.progress_label = QLabel("", self)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop the download (nothing half-downloaded is kept)")
        self.cancel_button.clicked.connect(self.cancel_download)
        row = QHBoxLayout()
        row.addWidget(self.progress_bar, 1)
        row.addWidget(self.progress_label)
        row.addWidget(self.cancel_button)
        self._progress_widgets = (self.progress_bar, self.progress_label, self.cancel_button)
        for w in self._progress_widgets:
            w.hide()
        return row

    def _connect_runner(self) -> None:
        w = self.runner.worker
        w.progress.connect(self._on_progress)
        w.finished.connect(self._on_finished)
        w.failed.connect(self._on_failed)
        w.cancelled.connect(self._on_cancelled)

    # ---- list ---------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the catalog, the installed models and the active model of each direction;
        keeps the selection by name."""
        selected = self.selected_name()
        try:
            self._rows = merge_rows(self.backend.catalog(), self.backend.installed())
        except Exception as exc:  # noqa: BLE001 - a broken catalog must not break the dialog
            self._rows = []
            self.show_message(f"Cannot list the models: {exc}", error=True)
        self._read_active()
        self.table.clear()
        for direction, rows in group_rows(self._rows):
            group = QTreeWidgetItem([DIRECTION_TITLES.get(direction or "", OTHER_PAIRS)])
            group.setData(0, GROUP_ROLE, direction or "")
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)  # a heading: not selectable
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            self.table.addTopLevelItem(group)
            for row in rows:
                group.addChild(self._item(row))
            group.setExpanded(True)
        for col in range(1, len(COLUMNS)):
            self.table.resizeColumnToContents(col)
        items = self._items()
        names = [i.data(0, Qt.ItemDataRole.UserRole) for i in items]
        if names:
            self.table.setCurrentItem(items[names.index(selected) if selected in names else 0])
        self._update_buttons()

    def _item(self, row: _Row) -> QTreeWidgetItem:
        demo = row.installed is not None and row.installed.demo
        item = QTreeWidgetItem(
            [
                f"{row.name} (demo)" if demo else row.name,
                self._languages(row),
                self._size(row),
                self._licence(row),
                self.status_text(row.name),
            ]
        )
        item.setData(0, Qt.ItemDataRole.UserRole, row.name)
        return item

    def _items(self) -> list[QTreeWidgetItem]:
        """The model rows (not the group headings), top to bottom."""
        found: list[QTreeWidgetItem] = []
        for g in range(self.table.topLevelItemCount()):
            group = self.table.topLevelItem(g)
            if group is not None:
                found += [c for i in range(group.childCount()) if (c := group.child(i)) is not None]
        return found

    def _read_active(self) -> None:
        try:
            self._active = dict(self.backend.active_folders())
        except Exception as exc:  # noqa: BLE001 - an unreadable choice: nothing marked active
            log.warning("active models unavailable: %s", type(exc).__name__)
            self._active = {}

    @staticmethod
    def _languages(row: _Row) -> str:
        return row.catalog.languages if row.catalog else row.installed.languages if row.installed else ""

    @staticmethod
    def _licence(row: _Row) -> str:
        return row.catalog.licence if row.catalog else ""

    @staticmethod
    def _size(row: _Row) -> str:
        if row.installed is not None:
            return format_bytes(row.installed.size)
        sizes = row.catalog.sizes if row.catalog else {}
        return ", ".join(f"{v} {_approx_size(n)}" for v, n in sizes.items())

    def _row(self, name: str | None) -> _Row | None:
        return next((r for r in self._rows if r.name == name), None)

    def selected_name(self) -> str | None:
        """The model selected in the list."""
        item = self.table.currentItem()
        name = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        return str(name) if name else None

    def select(self, name: str) -> None:
        """Select the row of ``name`` (tests, and "Get the real model" from the window)."""
        for item in self._items():
            if item.data(0, Qt.ItemDataRole.UserRole) == name:
                self.table.setCurrentItem(item)
                return
        raise KeyError(name)

    def group_of(self, name: str) -> str | None:
        """The direction heading ``name`` is listed under ("" for other pairs; tests)."""
        for item in self._items():
            parent = item.parent()
            if item.data(0, Qt.ItemDataRole.UserRole) == name and parent is not None:
                return str(parent.data(0, GROUP_ROLE))
        return None

    def is_active(self, row: _Row) -> bool:
        """Whether ``row`` is the active model of its direction."""
        installed, direction = row.installed, row.direction
        if installed is None or direction is None or direction not in self._active:
            return False
        active = self._active[direction]
        if active == "":
            return installed.demo
        return _same_path(installed.path, active)

    def status_text(self, name: str) -> str:
        """The Status column of ``name``."""
        row = self._row(name)
        if row is None:
            return ""
        if self.runner.name == name:
            return "Cancelling…" if self._state == "cancelling" else "Downloading…"
        if row.installed is None:
            return "Not installed"
        status = "Active" if self.is_active(row) else "Installed"
        return f"{status} ({', '.join(row.installed.variants)})"

    def set_active_path(self, path: str | None) -> None:
        """Mark the model in ``path`` as the active one of its direction (what the app loaded)."""
        row = next((r for r in self._rows if r.installed and _same_path(r.installed.path, path)), None)
        if row is not None and row.direction is not None and row.installed is not None:
            self._active[row.direction] = "" if row.installed.demo else row.installed.path
        self._refresh_status()

    def _refresh_status(self) -> None:
        for item in self._items():
            item.setText(COLUMNS.index("Status"), self.status_text(item.data(0, Qt.ItemDataRole.UserRole)))
        self._update_buttons()

    # ---- buttons ------------------------------------------------------------------------
    def _update_buttons(self) -> None:
        row = self._row(self.selected_name())
        busy = self.runner.running
        installed = row.installed if row else None
        can_download = bool(row and row.catalog and not installed and not busy)
        self.download_button.setEnabled(can_download)
        self.variant_combo.setEnabled(can_download or installed is not None)
        self._fill_variants(row)
        active = row is not None and self.is_active(row)
        self.use_button.setEnabled(
            installed is not None and not active and row is not None and row.direction is not None
        )
        title = DIRECTION_TITLES.get(row.direction or "") if row is not None else None
        self.use_button.setText(f"Use for {title}" if title else "Use this model")
        self.remove_button.setEnabled(bool(installed and installed.removable and not active and not busy))
        self.details.setText(self._details(row))

    def _fill_variants(self, row: _Row | None) -> None:
        variants = list(row.catalog.sizes) if row and row.catalog else []
        if row and row.installed:
            variants = list(row.installed.variants)
        current = self.variant_combo.currentData()
        self.variant_combo.blockSignals(True)
        self.variant_combo.clear()
        for v in variants:
            self.variant_combo.addItem(VARIANT_LABELS.get(v, v), v)
        i = self.variant_combo.findData(current)
        self.variant_combo.setCurrentIndex(i if i >= 0 else 0)
        self.variant_combo.blockSignals(False)

    @staticmethod
    def _details(row: _Row | None) -> str:
        if row is None:
            return ""
        layout = f"Decoder layout: {row.installed.layout}." if row.installed and row.installed.layout else ""
        if row.catalog is not None:
            c = row.catalog
            return _rich(c.title or c.name, " ".join(p for p in (c.description, layout) if p), c.credits)
        if row.installed is not None and row.installed.demo:
            return _rich(
                "Bundled demo model",
                "Trained on short everyday sentences only; on real text "
                "(news, manuals, mail) its output is poor. Download a real model above.",
            )
        return _rich(row.name, " ".join(p for p in (row.installed.path if row.installed else "", layout) if p))

    # ---- actions ------------------------------------------------------------------------
    def start_download(self) -> bool:
        """Download the selected catalog model in the chosen variant."""
        name, variant = self.selected_name(), self.variant_combo.currentData()
        if not name or not variant or not self.runner.start(name, variant):
            return False
        self._set_state("downloading")
        self.hide_message()
        self.progress_bar.setRange(0, 0)  # busy until the first report gives a total
        self.progress_label.setText(f"Connecting to {self._endpoint()}…")
        self.cancel_button.setEnabled(True)
        for w in self._progress_widgets:
            w.show()
        self._refresh_status()
        return True

    def cancel_download(self) -> None:
        """Stop the running download; the dialog says so when the worker has stopped."""
        if self.runner.running:
            self.runner.cancel()
            self._set_state("cancelling")
            self.cancel_button.setEnabled(False)
            self.progress_label.setText("Cancelling…")
            self._refresh_status()

    def use_selected(self) -> None:
        """Ask the controller to switch to the selected installed model."""
        row = self._row(self.selected_name())
        if row is not None and row.installed is not None:
            self.activateRequested.emit(row.installed.path, self.variant_combo.currentData() or "")

    def confirm_remove(self) -> None:
        """Ask, then remove the selected model."""
        name = self.selected_name()
        answer = QMessageBox.question(self, "Remove model", f"Delete the model {name} from this computer?")
        if answer == QMessageBox.StandardButton.Yes and name:
            self.remove(name)

    def remove(self, name: str) -> bool:
        """Remove ``name`` without asking; errors show in the dialog."""
        try:
            self.backend.remove(name)
        except Exception as exc:  # noqa: BLE001 - DesktopMTError/OSError: shown to the user
            self.show_message(f"Could not remove {name}: {exc}", error=True)
            return False
        self.show_message(f"Removed {name}.")
        self.refresh()
        self.modelsChanged.emit()
        return True

    # ---- download results (UI thread) ---------------------------------------------------
    def _on_progress(self, report: Progress) -> None:
        if self._state != "downloading":
            return  # a report queued before Cancel must not overwrite "Cancelling…"
        if report.total > 0:
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(min(1000, report.done * 1000 // report.total))
        self.progress_label.setText(self._phase_text(report))
        self.progressShown.emit(report)

    def _phase_text(self, report: Progress) -> str:
        if report.phase == "listing":
            return f"Asking {self._endpoint()} for the file list…"
        if report.phase == "installing":
            return "Installing…"
        text = progress_text(report.done, report.total, report.speed)
        return f"Checking {Path(report.file).name} · {text}" if report.phase == "verifying" else text

    def _end_download(self, state: str, message: str, error: bool = False) -> None:
        for w in self._progress_widgets:
            w.hide()
        self._set_state(state)
        self.show_message(message, error=error)
        self.refresh()
        self.downloadEnded.emit(state)

    def _on_finished(self, name: str, folder: str) -> None:
        row = self._row(name)
        title = DIRECTION_TITLES.get(row.direction or "") if row is not None else None
        button = f"Use for {title}" if title else "Use this model"
        self._end_download("installed", f"{name} is installed. Select it and press “{button}”.")
        self.modelsChanged.emit()

    def _on_failed(self, name: str, message: str) -> None:
        if message == UNREACHABLE:
            message = unreachable_text(self._endpoint())
        self._end_download("failed", f"Download of {name} failed: {message}", error=True)

    def _on_cancelled(self, name: str) -> None:
        self._end_download(
            "cancelled",
            f"Download of {name} cancelled; nothing was installed. Downloading it again continues where it stopped.",
        )

    # ---- state and messages -------------------------------------------------------------
    def state(self) -> str:
        """idle / downloading / cancelling / cancelled / failed / installed."""
        return self._state

    def _set_state(self, state: str) -> None:
        self._state = state
        self._update_buttons()

    def _endpoint(self) -> str:
        try:
            return self.backend.endpoint()
        except Exception:  # noqa: BLE001 - only used in a message
            return "the model hub"

    def show_message(self, text: str, error: bool = False) -> None:
        """One line under the list: the outcome of the last action."""
        self.message.setText(text)
        self.message.setProperty("error", error)
        theme.set_tone(self.message, "error" if error else None)  # readable on dark themes too
        self.message.show()

    def hide_message(self) -> None:
        """Clear the message line."""
        self.message.hide()

    def shutdown(self) -> bool:
        """Cancel a download and stop the thread (the app is quitting)."""
        return self.runner.shutdown()


class ModelsHub(QObject):
    """Wires the Models dialog into the app: the window's "Models…" and demo-notice button
    open it, "Use this model" records the model as the active one of its direction (the one
    settings store, :mod:`desktop_mt.app.settings`, shared with ``desktop-mt models use``) and
    goes through the controller's settings (so the engine reloads in its worker), and every
    loaded model updates the demo notice and the dialog's "Active" mark.

    Nothing is reconciled: the window's model is read from the same store the command line
    writes. ``backend_factory`` is called once, when the backend is first needed."""

    def __init__(self, controller: Any, backend_factory: Callable[[], ModelsBackend]) -> None:
        super().__init__(controller)
        self.controller = controller
        self.window = controller.window
        self.backend_factory = backend_factory
        self._backend: ModelsBackend | None = None
        self.dialog: ModelsDialog | None = None
        self._loaded_path: str | None = None
        self.window.modelsRequested.connect(self.open)
        controller.modelLoaded.connect(self._on_model_loaded)

    @property
    def backend(self) -> ModelsBackend:
        """The model manager (created on first use)."""
        if self._backend is None:
            self._backend = self.backend_factory()
        return self._backend

    @backend.setter
    def backend(self, backend: ModelsBackend) -> None:
        self._backend = backend  # tests: a fake before the dialog is first opened

    def open(self) -> ModelsDialog:
        """Show the dialog (created once, so a running download survives closing it)."""
        if self.dialog is None:
            self.dialog = ModelsDialog(self.backend, self.window)
            self.dialog.activateRequested.connect(self.activate)
        else:
            self.dialog.refresh()
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    def activate(self, path: str, variant: str) -> None:
        """Make the model in ``path`` the active model of its direction and the app's model."""
        model_path = "" if models.is_bundled(path) else path
        try:
            self.backend.set_active(model_path)
        except Exception as exc:  # noqa: BLE001 - DesktopMTError/OSError: said in the dialog
            if self.dialog is not None:
                self.dialog.show_message(f"Could not use {Path(path).name}: {exc}", error=True)
            return
        settings = dataclasses.replace(
            self.controller.settings, model_path=model_path, variant=variant or self.controller.settings.variant
        )
        self.controller.apply_settings(settings)
        if self.dialog is not None:
            self.dialog.refresh()

    def _on_model_loaded(self, info: Any) -> None:
        path = getattr(info, "path", None)
        self._loaded_path = str(path) if path else None
        self.window.set_demo_notice(models.is_bundled(self._loaded_path))
        if self.dialog is not None:
            self.dialog.refresh()

    def shutdown(self) -> None:
        """Cancel a running download and stop its thread (the app quits)."""
        if self.dialog is not None:
            self.dialog.shutdown()
