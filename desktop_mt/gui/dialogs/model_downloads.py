"""The Models dialog's downloads: the download thread (:class:`~desktop_mt.gui.workers.downloads.DownloadRunner`),
its row (progress bar, what it does now, Cancel), its state, and the mirror it downloads from
("Download from"). :class:`DownloadArea` says what happened by signals; the dialog shows the
outcome in its message line and re-reads its list."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from desktop_mt.models.installed import MIRROR_HINT

from ..i18n import translate
from ..workers.downloads import UNREACHABLE, DownloadRunner, Progress, progress_text, unreachable_text

__all__ = [
    "DownloadArea",
]


class _DownloadBackend(Protocol):
    """What the downloads use of the dialog's backend (``models_dialog.ModelsBackend``)."""

    def download(self, name: str, variant: str, progress: Callable[[Progress], None], cancel: threading.Event) -> Path:
        """Download and install ``name``; runs in the download thread."""

    def endpoint(self) -> str:
        """Where downloads come from now (the Hub or the mirror), for messages."""

    def endpoint_setting(self) -> str:
        """The mirror chosen in the app ("" = none)."""

    def set_endpoint_setting(self, url: str) -> None:
        """Save the mirror ("" = none); raises for a URL that is not http(s)."""


class DownloadArea(QObject):
    """The dialog's download row and mirror (see the module docstring). ``state()`` is one of
    idle / downloading / cancelling / cancelled / failed / installed."""

    changed = Signal()  # the state changed: the dialog updates its buttons and Status column
    ended = Signal(str, str, bool)  # state ("installed" / "failed" / "cancelled"), message, error
    progressShown = Signal(Progress)  # a progress report is on screen
    messageRequested = Signal(str, bool)  # a message for the dialog's line (text, error)

    def __init__(self, backend: _DownloadBackend, owner: QWidget, use_label: Callable[[str], str]) -> None:
        super().__init__(owner)
        self.backend = backend
        self.use_label = use_label  # the Use button's words for a model ("Use for ...")
        self.runner = DownloadRunner(backend.download, owner)
        self._state = "idle"
        self.progress_bar = QProgressBar(owner)
        self.progress_bar.setRange(0, 1000)
        self.progress_label = QLabel("", owner)
        self.cancel_button = QPushButton(translate("DownloadArea", "Cancel"), owner)
        self.cancel_button.setToolTip(translate("DownloadArea", "Stop the download (nothing half-downloaded is kept)"))
        self.cancel_button.clicked.connect(self.cancel)
        self._widgets = (self.progress_bar, self.progress_label, self.cancel_button)
        for w in self._widgets:
            w.hide()
        self.mirror_combo = self._build_mirror(owner)
        worker = self.runner.worker
        worker.progress.connect(self._on_progress)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)

    def progress_row(self) -> QHBoxLayout:
        """The row to put under the list: bar, text, Cancel (hidden until a download runs)."""
        row = QHBoxLayout()
        row.addWidget(self.progress_bar, 1)
        row.addWidget(self.progress_label)
        row.addWidget(self.cancel_button)
        return row

    def _build_mirror(self, owner: QWidget) -> QComboBox:
        # Editable: the Hub (empty), the usual mainland-China mirror, or any URL typed in.
        combo = QComboBox(owner)
        combo.setEditable(True)
        combo.addItems(["", MIRROR_HINT])
        line = combo.lineEdit()
        assert line is not None  # an editable combo box has one
        line.setPlaceholderText(translate("DownloadArea", "{endpoint} (default)").format(endpoint=self.endpoint()))
        combo.setToolTip(
            translate(
                "DownloadArea",
                "A mirror that speaks the Hugging Face Hub API, for networks where "
                "the Hub is blocked or slow (e.g. {mirror}). Empty: the "
                "HF_ENDPOINT variable, else huggingface.co.",
            ).format(mirror=MIRROR_HINT)
        )
        try:
            combo.setCurrentText(self.backend.endpoint_setting())
        except Exception:  # noqa: BLE001 - an unreadable setting is shown as empty
            combo.setCurrentText("")
        line.editingFinished.connect(self.save_mirror)
        combo.activated.connect(lambda _i: self.save_mirror())
        return combo

    def save_mirror(self) -> bool:
        """Save the mirror field; an invalid URL is explained and not saved."""
        url = self.mirror_combo.currentText().strip()
        try:
            if url != self.backend.endpoint_setting():
                self.backend.set_endpoint_setting(url)
        except Exception as exc:  # noqa: BLE001 - DesktopMTError with the fix
            self.messageRequested.emit(translate("DownloadArea", "Mirror not saved: {error}").format(error=exc), True)
            return False
        return True

    def endpoint(self) -> str:
        """Where downloads come from now, for messages."""
        try:
            return self.backend.endpoint()
        except Exception:  # noqa: BLE001 - only used in a message
            return translate("DownloadArea", "the model hub")

    # ---- the download -------------------------------------------------------------------
    def start(self, name: str, variant: str) -> bool:
        """Download ``name`` in ``variant``; False when one runs already."""
        if not self.runner.start(name, variant):
            return False
        self.progress_bar.setRange(0, 0)  # busy until the first report gives a total
        self.progress_label.setText(
            translate("DownloadArea", "Connecting to {endpoint}…").format(endpoint=self.endpoint())
        )
        self.cancel_button.setEnabled(True)
        for w in self._widgets:
            w.show()
        self._set_state("downloading")
        return True

    def cancel(self) -> None:
        """Stop the running download; ``ended`` says so when the worker has stopped."""
        if self.runner.running:
            self.runner.cancel()
            self.cancel_button.setEnabled(False)
            self.progress_label.setText(translate("DownloadArea", "Cancelling…"))
            self._set_state("cancelling")

    def status_of(self, name: str) -> str | None:
        """The download's word for the model ``name`` in the list, None when it is not downloading."""
        if self.runner.name != name:
            return None
        return (
            translate("DownloadArea", "Cancelling…")
            if self._state == "cancelling"
            else translate("DownloadArea", "Downloading…")
        )

    def state(self) -> str:
        """idle / downloading / cancelling / cancelled / failed / installed."""
        return self._state

    def _set_state(self, state: str) -> None:
        self._state = state
        self.changed.emit()

    def shutdown(self) -> bool:
        """Cancel a download and stop the thread (the app is quitting)."""
        return self.runner.shutdown()

    # ---- results (UI thread) ------------------------------------------------------------
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
            return translate("DownloadArea", "Asking {endpoint} for the file list…").format(endpoint=self.endpoint())
        if report.phase == "installing":
            return translate("DownloadArea", "Installing…")
        text = progress_text(report.done, report.total, report.speed)
        if report.phase == "verifying":
            return translate("DownloadArea", "Checking {file} · {progress}").format(
                file=Path(report.file).name, progress=text
            )
        return text

    def _end(self, state: str, message: str, error: bool = False) -> None:
        for w in self._widgets:
            w.hide()
        self._set_state(state)
        self.ended.emit(state, message, error)

    def _on_finished(self, name: str, folder: str) -> None:
        self._end(
            "installed",
            translate("DownloadArea", "{name} is installed. Select it and press “{use}”.").format(
                name=name, use=self.use_label(name)
            ),
        )

    def _on_failed(self, name: str, message: str) -> None:
        if message == UNREACHABLE:
            message = unreachable_text(self.endpoint())
        self._end(
            "failed",
            translate("DownloadArea", "Download of {name} failed: {error}").format(name=name, error=message),
            error=True,
        )

    def _on_cancelled(self, name: str) -> None:
        self._end(
            "cancelled",
            translate(
                "DownloadArea",
                "Download of {name} cancelled; nothing was installed. Downloading it again continues where it stopped.",
            ).format(name=name),
        )
