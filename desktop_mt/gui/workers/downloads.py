"""Model downloads off the UI thread: a worker QObject in its own QThread, and the text of
the Models dialog's progress line ("12.0 MB of 80.0 MB · 4.0 MB/s · 15 s left").

Like the translation worker, the download is started by a queued signal and cancelled by a
``threading.Event`` that the UI thread sets directly (the worker's event loop is busy inside
the download). The downloader (``desktop_mt.models.download_model``) already throttles its
progress reports to about ten a second and measures the speed; the worker forwards them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, QThread, Signal, Slot

from desktop_mt.base.errors import DesktopMTError, DownloadCancelled, HubUnreachableError
from desktop_mt.models.download import DownloadProgress, DownloadStalledError

from ..i18n import translate
from ..logsetup import log_exception

__all__ = [
    "DownloadRunner",
    "Progress",
    "UNREACHABLE",
    "format_bytes",
    "progress_text",
    "unreachable_text",
]


_logger = logging.getLogger(__name__)

# The worker's message when the Hub or the mirror cannot be reached. The engine's own text
# speaks command line (--endpoint, HF_ENDPOINT, "[Errno -2]"); the dialog words it for its
# own controls instead (unreachable_text), naming where it tried.
UNREACHABLE = "unreachable"
_MIRROR_EXAMPLE = "https://hf-mirror.com"


def _stalled_text(endpoint: str, seconds: float, floor: int) -> str:
    """What the Models dialog says when the stall rule ended a download from ``endpoint``."""
    return translate(
        "Downloads",
        "{endpoint} sent less than {kib} KiB in {seconds} s. What arrived is kept: press "
        "Download to continue, or enter another mirror in “Download from” below (for example {mirror}).",
    ).format(endpoint=endpoint, kib=floor // 1024, seconds=f"{seconds:g}", mirror=_MIRROR_EXAMPLE)


def unreachable_text(endpoint: str) -> str:
    """What the Models dialog says when ``endpoint`` cannot be reached."""
    return translate(
        "Downloads",
        "could not reach {endpoint}. Check the internet connection, or enter a mirror in "
        "“Download from” below (for example {mirror}) and press Download again.",
    ).format(endpoint=endpoint, mirror=_MIRROR_EXAMPLE)


Progress = DownloadProgress  # a progress report: phase (listing / downloading / verifying /
# installing / done), bytes done and total of the whole download, the file, speed (bytes/s or None)


class _Downloader(Protocol):
    """What the worker calls: blocks until the model is installed; returns its folder.

    ``progress`` is called from the download thread. When ``cancel`` is set the download
    stops soon (raising ``DownloadCancelled``); nothing half-downloaded may be left where
    the app looks for models."""

    def __call__(
        self, name: str, variant: str, progress: Callable[[Progress], None], cancel: threading.Event
    ) -> Path: ...


def format_bytes(n: float) -> str:
    """``81.2 MB`` style (decimal units, as download sizes are usually quoted)."""
    for unit in ("B", "kB", "MB"):
        if abs(n) < 1000:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.2f} GB"


def progress_text(done: int, total: int, rate: float | None) -> str:
    """``12.0 MB of 80.0 MB · 4.0 MB/s · 17 s left`` (parts left out when unknown)."""
    whole = translate("Downloads", "{done} of {total}").format(done=format_bytes(done), total=format_bytes(total))
    parts = [whole if total > 0 else format_bytes(done)]
    if rate:
        parts.append(f"{format_bytes(rate)}/s")
        if total > done:
            left = (total - done) / rate
            if left < 120:
                parts.append(translate("Downloads", "{seconds} s left").format(seconds=f"{left:.0f}"))
            else:
                parts.append(translate("Downloads", "{minutes} min left").format(minutes=f"{left / 60:.0f}"))
    return " · ".join(parts)


class _DownloadWorker(QObject):
    """Runs one download at a time in its thread; always ends with exactly one of
    ``finished``, ``failed`` or ``cancelled``."""

    progress = Signal(Progress)  # a report from the download thread
    finished = Signal(str, str)  # name, installed folder
    failed = Signal(str, str)  # name, actionable message
    cancelled = Signal(str)  # name

    def __init__(self, downloader: _Downloader) -> None:
        super().__init__()
        self._downloader = downloader

    @Slot(str, str, object)
    def download(self, name: str, variant: str, cancel: threading.Event) -> None:
        """Download and install ``name`` (``variant``); see the class docstring."""
        try:
            folder = self._downloader(name, variant, self.progress.emit, cancel)
        except Exception as exc:  # noqa: BLE001 - sorted below; the app must survive any bug
            self._report_error(name, exc, cancel)
            return
        self.finished.emit(name, str(folder))  # returned: installed, even if Cancel came too late

    def _report_error(self, name: str, exc: Exception, cancel: threading.Event) -> None:
        if cancel.is_set() or isinstance(exc, DownloadCancelled):
            self.cancelled.emit(name)
        elif isinstance(exc, HubUnreachableError) and "HF_HUB_OFFLINE" not in str(exc):
            _logger.info("model download: the hub is unreachable (%s)", type(exc.__cause__).__name__)
            self.failed.emit(name, UNREACHABLE)
        elif isinstance(exc, DownloadStalledError):
            self.failed.emit(name, _stalled_text(exc.endpoint, exc.seconds, exc.floor))
        elif isinstance(exc, (DesktopMTError, OSError)):
            self.failed.emit(name, str(exc))
        else:
            log_exception("model download", exc)
            self.failed.emit(
                name,
                translate("Downloads", "The download of {name} failed ({error}). Details are in the log file.").format(
                    name=name, error=f"{type(exc).__name__}: {exc}"
                ),
            )


class DownloadRunner(QObject):
    """Owns the download thread and the cancel flag of the running download."""

    _start = Signal(str, str, threading.Event)

    def __init__(self, downloader: _Downloader, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Not "thread": that would hide QObject.thread() (the thread this object lives in).
        self.download_thread = QThread()
        self.download_thread.setObjectName("model-download")
        self.worker = _DownloadWorker(downloader)
        self.worker.moveToThread(self.download_thread)
        self._start.connect(self.worker.download)
        for signal in (self.worker.finished, self.worker.failed, self.worker.cancelled):
            signal.connect(self._on_end)
        self._cancel: threading.Event | None = None
        self.name: str | None = None  # the model being downloaded, None when idle

    @property
    def running(self) -> bool:
        """True from :meth:`start` until the worker reports the end."""
        return self.name is not None

    def start(self, name: str, variant: str) -> bool:
        """Start downloading; False (and nothing happens) while another download runs."""
        if self.running:
            return False
        if not self.download_thread.isRunning():
            self.download_thread.start()
        self._cancel = threading.Event()
        self.name = name
        self._start.emit(name, variant, self._cancel)
        return True

    def cancel(self) -> None:
        """Ask the running download to stop (set directly: the worker is busy in it)."""
        if self._cancel is not None:
            self._cancel.set()

    def _on_end(self, *_args: Any) -> None:
        self.name = None
        self._cancel = None

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel any download and stop the thread; False if it did not stop in time."""
        self.cancel()
        self.download_thread.quit()
        stopped = bool(self.download_thread.wait(timeout_ms))
        if not stopped:
            _logger.warning("download thread did not stop within %d ms", timeout_ms)
        return stopped
