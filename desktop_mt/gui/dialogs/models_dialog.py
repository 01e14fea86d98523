"""The Models dialog: the catalog and the installed models in one list, grouped by direction
(English -> Chinese, Chinese -> English); download (progress bar, speed, time left, cancel),
remove, and "Use for <direction>": the user chooses the active model of each direction.

The dialog knows models only through :class:`ModelsBackend` (the app's implementation wraps
the engine's catalog, downloader and installer; tests use a fake). It does not load models:
"Use this model" emits :attr:`ModelsDialog.activateRequested` and :class:`ModelsHub` applies it.
Downloads run in a :class:`~desktop_mt.gui.workers.downloads.DownloadRunner` thread owned by the
dialog (``model_downloads.DownloadArea``), so closing the dialog only hides it and a download
goes on; reopening shows it. The list is ``model_table.ModelTable``.
"""

from __future__ import annotations

import dataclasses
import html
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_mt.engine.model_format import check_variant

from ..features import models
from ..features.models import CatalogItem, InstalledItem
from ..i18n import QT_TRANSLATE_NOOP, translate
from ..window import theme
from ..workers.downloads import Progress
from .model_downloads import DownloadArea
from .model_table import ModelTable, Row, merge_rows, use_label

if TYPE_CHECKING:
    from desktop_mt.engine.model_format import ModelInfo

    from ..services import Services
    from ..settings import Settings

__all__ = [
    "DemoModelNotice",
    "ModelsBackend",
    "ModelsDialog",
    "ModelsHub",
]


_logger = logging.getLogger(__name__)

_VARIANT_LABELS = {
    "int8": QT_TRANSLATE_NOOP("ModelsDialog", "int8 (faster, built at install)"),
    "fp32": QT_TRANSLATE_NOOP("ModelsDialog", "fp32 (full precision)"),
}


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

    TEXT = QT_TRANSLATE_NOOP("ModelsDialog", "Demo model: fine for short everyday sentences, not for real text.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("demoModelNotice")
        self.label = QLabel(translate("ModelsDialog", self.TEXT), self)
        self.label.setObjectName("demoModelText")
        self.label.setWordWrap(True)  # a narrow window (480 px) wraps it instead of cutting it
        self.button = QPushButton(translate("ModelsDialog", "Get the real model…"), self)
        self.button.setFlat(True)
        # A link, not a button: the line stays quiet, but what to click is plain to see.
        self.button.setStyleSheet(
            "QPushButton { color: palette(link); text-decoration: underline; border: none; padding: 0 4px; }"
        )
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.setToolTip(translate("ModelsDialog", "Open the Models dialog to download opus-mt-en-zh"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)
        self.hide()


def _rich(title: str, text: str, small: str = "") -> str:
    """The details line: a bold title, the text, and credits in small print (escaped)."""
    parts = [f"<b>{html.escape(title)}</b>", html.escape(text)]
    if small:
        parts.append(f"<small>{html.escape(small)}</small>")
    return "<br>".join(p for p in parts if p)


class ModelsDialog(QDialog):
    """See the module docstring. Its list is a :class:`~desktop_mt.gui.dialogs.model_table.ModelTable`
    (``table``), its download row and mirror a :class:`~desktop_mt.gui.dialogs.model_downloads.DownloadArea`
    (``downloads``); the dialog holds the buttons and says what they did. ``state()`` is the
    download's: idle / downloading / cancelling / cancelled / failed / installed."""

    activateRequested = Signal(str, str)  # model folder, variant
    downloadEnded = Signal(str)  # "installed" / "failed" / "cancelled" (tests, controller)
    modelsChanged = Signal()  # a model was installed or removed
    firstStartRequested = Signal()  # "First start…": the window's first-start page again
    progressShown = Signal(Progress)  # a progress report is on screen (tests)

    def __init__(self, backend: ModelsBackend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("ModelsDialog", "Models"))
        self.backend = backend
        self.downloads = DownloadArea(backend, self, lambda name: use_label(self.table.row(name)))
        self.runner = self.downloads.runner
        self.progress_bar, self.progress_label = self.downloads.progress_bar, self.downloads.progress_label
        self.cancel_button, self.mirror_combo = self.downloads.cancel_button, self.downloads.mirror_combo
        self.downloads.changed.connect(self._on_download_changed)
        self.downloads.ended.connect(self._on_download_ended)
        self.downloads.progressShown.connect(self.progressShown.emit)
        self.downloads.messageRequested.connect(lambda text, error: self.show_message(text, error=error))
        self._build()
        self.resize(780, 380)
        self.refresh()

    # ---- construction -------------------------------------------------------------------
    def _build(self) -> None:
        self.table = ModelTable(self.downloads.status_of, self)
        self.table.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.details = QLabel(self)
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.details)
        layout.addLayout(self._build_actions())
        layout.addLayout(self.downloads.progress_row())
        self.message = QLabel(self)
        self.message.setObjectName("modelsMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        layout.addWidget(self.message)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        bottom = QHBoxLayout()
        bottom.addWidget(QLabel(translate("ModelsDialog", "Download from:"), self))
        bottom.addWidget(self.mirror_combo, 1)
        self.first_start_button = QPushButton(translate("ModelsDialog", "First start…"), self)
        self.first_start_button.setToolTip(
            translate("ModelsDialog", "The window's first-start page: both real models in one step, and offline help")
        )
        self.first_start_button.clicked.connect(self.firstStartRequested.emit)
        bottom.addWidget(self.first_start_button)
        bottom.addWidget(close)
        layout.addLayout(bottom)

    def _build_actions(self) -> QHBoxLayout:
        self.variant_combo = QComboBox(self)
        self.download_button = QPushButton(translate("ModelsDialog", "Download"), self)
        self.download_button.clicked.connect(self.start_download)
        self.use_button = QPushButton(translate("ModelsDialog", "Use this model"), self)
        self.use_button.setToolTip(
            translate("ModelsDialog", "Make it the model of its direction, in the app and on the command line")
        )
        self.use_button.clicked.connect(self.use_selected)
        self.remove_button = QPushButton(translate("ModelsDialog", "Remove"), self)
        self.remove_button.clicked.connect(self.confirm_remove)
        row = QHBoxLayout()
        row.addWidget(QLabel(translate("ModelsDialog", "Variant:"), self))
        row.addWidget(self.variant_combo)
        row.addWidget(self.download_button)
        row.addStretch(1)
        row.addWidget(self.use_button)
        row.addWidget(self.remove_button)
        return row

    # ---- list (ModelTable) --------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the catalog, the installed models and the active model of each direction;
        keeps the selection by name."""
        try:
            rows = merge_rows(self.backend.catalog(), self.backend.installed())
        except Exception as exc:  # noqa: BLE001 - a broken catalog must not break the dialog
            rows = []
            self.show_message(
                translate("ModelsDialog", "Cannot list the models: {error}").format(error=exc), error=True
            )
        self.table.show_rows(rows, self._read_active())
        self._update_buttons()

    def _read_active(self) -> dict[str, str | None]:
        try:
            return dict(self.backend.active_folders())
        except Exception as exc:  # noqa: BLE001 - an unreadable choice: nothing marked active
            _logger.warning("active models unavailable: %s", type(exc).__name__)
            return {}

    def selected_name(self) -> str | None:
        """The model selected in the list."""
        return self.table.selected_name()

    def select(self, name: str) -> None:
        """Select the row of ``name`` (tests, and "Get the real model" from the window)."""
        self.table.select(name)

    def group_of(self, name: str) -> str | None:
        """The direction heading ``name`` is listed under ("" for other pairs; tests)."""
        return self.table.group_of(name)

    def status_text(self, name: str) -> str:
        """The Status column of ``name``."""
        return self.table.status_text(name)

    def set_active_path(self, path: str | None) -> None:
        """Mark the model in ``path`` as the active one of its direction (what the app loaded)."""
        self.table.set_active_path(path)
        self._update_buttons()

    # ---- buttons ------------------------------------------------------------------------
    def _update_buttons(self) -> None:
        row = self.table.row(self.selected_name())
        busy = self.runner.running
        installed = row.installed if row else None
        can_download = bool(row and row.catalog and not installed and not busy)
        self.download_button.setEnabled(can_download)
        self.variant_combo.setEnabled(can_download or installed is not None)
        self._fill_variants(row)
        active = row is not None and self.table.is_active(row)
        self.use_button.setEnabled(
            installed is not None and not active and row is not None and row.direction is not None
        )
        self.use_button.setText(use_label(row))
        self.remove_button.setEnabled(bool(installed and installed.removable and not active and not busy))
        self.details.setText(self._details(row))

    def _fill_variants(self, row: Row | None) -> None:
        variants = list(row.catalog.sizes) if row and row.catalog else []
        if row and row.installed:
            variants = list(row.installed.variants)
        current = self.variant_combo.currentData()
        self.variant_combo.blockSignals(True)
        self.variant_combo.clear()
        for v in variants:
            self.variant_combo.addItem(translate("ModelsDialog", _VARIANT_LABELS.get(v, v)), v)
        i = self.variant_combo.findData(current)
        self.variant_combo.setCurrentIndex(i if i >= 0 else 0)
        self.variant_combo.blockSignals(False)

    @staticmethod
    def _details(row: Row | None) -> str:
        if row is None:
            return ""
        layout = (
            translate("ModelsDialog", "Decoder layout: {layout}.").format(layout=row.installed.layout)
            if row.installed and row.installed.layout
            else ""
        )
        if row.catalog is not None:
            c = row.catalog
            return _rich(c.title or c.name, " ".join(p for p in (c.description, layout) if p), c.credits)
        if row.installed is not None and row.installed.demo:
            return _rich(
                translate("ModelsDialog", "Bundled demo model"),
                translate(
                    "ModelsDialog",
                    "Trained on short everyday sentences only; on real text "
                    "(news, manuals, mail) its output is poor. Download a real model above.",
                ),
            )
        return _rich(row.name, " ".join(p for p in (row.installed.path if row.installed else "", layout) if p))

    # ---- actions ------------------------------------------------------------------------
    def start_download(self) -> bool:
        """Download the selected catalog model in the chosen variant."""
        name, variant = self.selected_name(), self.variant_combo.currentData()
        if not name or not variant or not self.downloads.start(name, variant):
            return False
        self.hide_message()
        return True

    def cancel_download(self) -> None:
        """Stop the running download; the dialog says so when the worker has stopped."""
        self.downloads.cancel()

    def use_selected(self) -> None:
        """Ask for the selected installed model as the app's (ModelsHub applies it)."""
        row = self.table.row(self.selected_name())
        if row is not None and row.installed is not None:
            self.activateRequested.emit(row.installed.path, self.variant_combo.currentData() or "")

    def confirm_remove(self) -> None:
        """Ask, then remove the selected model."""
        name = self.selected_name()
        answer = QMessageBox.question(
            self,
            translate("ModelsDialog", "Remove model"),
            translate("ModelsDialog", "Delete the model {name} from this computer?").format(name=name),
        )
        if answer == QMessageBox.StandardButton.Yes and name:
            self.remove(name)

    def remove(self, name: str) -> bool:
        """Remove ``name`` without asking; errors show in the dialog."""
        try:
            self.backend.remove(name)
        except Exception as exc:  # noqa: BLE001 - DesktopMTError/OSError: shown to the user
            self.show_message(
                translate("ModelsDialog", "Could not remove {name}: {error}").format(name=name, error=exc), error=True
            )
            return False
        self.show_message(translate("ModelsDialog", "Removed {name}.").format(name=name))
        self.refresh()
        self.modelsChanged.emit()
        return True

    # ---- downloads (DownloadArea) -------------------------------------------------------
    def _on_download_changed(self) -> None:
        self._update_buttons()
        self.table.refresh_status()

    def _on_download_ended(self, state: str, message: str, error: bool) -> None:
        self.show_message(message, error=error)
        self.refresh()
        self.downloadEnded.emit(state)
        if state == "installed":
            self.modelsChanged.emit()

    def state(self) -> str:
        """idle / downloading / cancelling / cancelled / failed / installed."""
        return self.downloads.state()

    def save_mirror(self) -> bool:
        """Save the mirror field; an invalid URL is explained and not saved."""
        return self.downloads.save_mirror()

    # ---- messages -----------------------------------------------------------------------
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
        return self.downloads.shutdown()


class ModelsHub(QObject):
    """Wires the Models dialog into the app: the window's "Models…" and demo-notice button
    open it, "Use this model" records the model as the active one of its direction (the one
    settings store, :mod:`desktop_mt.app.settings`, shared with ``desktop-mt models use``) and
    goes through ``apply`` (the window's Apply of new settings: the engine reloads in its worker),
    and every loaded model (``Events.model_loaded``) updates the demo notice and the dialog's
    "Active" mark.

    Nothing is reconciled: the window's model is read from the same store the command line
    writes. ``backend_factory`` is called once, when the backend is first needed."""

    firstStartRequested = Signal()  # the dialog's "First start…" (gui/first_start.py shows the page)

    def __init__(
        self,
        services: Services,
        apply: Callable[[Settings], None],
        backend_factory: Callable[[], ModelsBackend],
    ) -> None:
        super().__init__(services.owner)
        self.services, self._apply = services, apply
        self.window = services.window
        self.backend_factory = backend_factory
        self._backend: ModelsBackend | None = None
        self.dialog: ModelsDialog | None = None
        self._loaded_path: str | None = None
        self.window.modelsRequested.connect(self.open)
        services.events.model_loaded.subscribe(self._on_model_loaded)

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
            self.dialog = ModelsDialog(self.backend, self.window.window())
            self.dialog.activateRequested.connect(self.activate)
            self.dialog.firstStartRequested.connect(self.firstStartRequested.emit)
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
                self.dialog.show_message(
                    translate("ModelsDialog", "Could not use {model}: {error}").format(
                        model=Path(path).name, error=exc
                    ),
                    error=True,
                )
            return
        current = self.services.settings
        chosen = check_variant(variant) if variant else current.variant  # the combo's data: a str
        self._apply(dataclasses.replace(current, model_path=model_path, variant=chosen))
        if self.dialog is not None:
            self.dialog.refresh()

    def _on_model_loaded(self, info: ModelInfo) -> None:
        path = getattr(info, "path", None)
        self._loaded_path = str(path) if path else None
        self.window.set_demo_notice(models.is_bundled(self._loaded_path))
        if self.dialog is not None:
            self.dialog.refresh()

    def shutdown(self) -> None:
        """Cancel a running download and stop its thread (the app quits)."""
        if self.dialog is not None:
            self.dialog.shutdown()
