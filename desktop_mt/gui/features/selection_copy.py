"""The selected text where the platform keeps no PRIMARY selection (Windows, macOS): the
simulated copy that Pot and Bob use, with the user's clipboard put back afterwards.

:class:`SelectionCopy` saves every format of the clipboard (text, images, rich text, files:
``replace.snapshot``), presses Ctrl+C (Cmd+C) in the application in front (a
:class:`~.keys.KeySimulator`), waits for the clipboard to change (its ``dataChanged``, or a
poll, since some platforms are late to say so; at most ``timeout_ms``), reads the text and
sets the saved clipboard again. Nothing copied (no selection, keys not delivered): the
clipboard was not touched and ``done`` carries "". Opt-in (Settings: "copy the selection"),
since it presses keys in another application.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QMimeData, QObject, QTimer, Signal
from PySide6.QtGui import QClipboard, QGuiApplication

from ..platform.keys import KeySimulationError, KeySimulator
from .replace import snapshot

__all__ = [
    "SelectionCopy",
]


_logger = logging.getLogger(__name__)

_COPY_TIMEOUT_MS = 1500  # an application slow to copy (a large document) still makes it
_POLL_MS = 50


class SelectionCopy(QObject):
    """One simulated copy at a time; ``done(text)`` when it ended ("" = nothing copied)."""

    done = Signal(str)

    def __init__(self, keys: KeySimulator, parent: QObject | None = None, timeout_ms: int = _COPY_TIMEOUT_MS) -> None:
        super().__init__(parent)
        self.keys = keys
        self._saved: QMimeData | None = None
        self._timeout = QTimer(self, singleShot=True, interval=timeout_ms)
        self._timeout.timeout.connect(lambda: self._finish(copied=False))
        self._poll = QTimer(self, interval=_POLL_MS)
        self._poll.timeout.connect(self._check)

    @property
    def busy(self) -> bool:
        """Whether a copy is awaited."""
        return self._saved is not None

    def start(self) -> bool:
        """Press copy; False (and ``done("")``) when the keys could not be sent or one runs."""
        if self.busy:
            return False
        clipboard = QGuiApplication.clipboard()
        self._saved = snapshot(clipboard.mimeData(QClipboard.Mode.Clipboard))
        clipboard.dataChanged.connect(self._on_changed)
        self._timeout.start()
        self._poll.start()
        try:
            self.keys.copy()
        except KeySimulationError as exc:
            _logger.warning("translate selection: the copy could not be sent: %s", exc)
            self._finish(copied=False)
            return False
        return True

    def _on_changed(self) -> None:
        self._finish(copied=True)

    def _check(self) -> None:
        saved, now = self._saved, QGuiApplication.clipboard().mimeData(QClipboard.Mode.Clipboard)
        if saved is not None and now is not None and (now.text() != saved.text() or now.formats() != saved.formats()):
            self._finish(copied=True)

    def _finish(self, copied: bool) -> None:
        saved, self._saved = self._saved, None
        if saved is None:
            return
        self._timeout.stop()
        self._poll.stop()
        clipboard = QGuiApplication.clipboard()
        clipboard.dataChanged.disconnect(self._on_changed)
        text = clipboard.text(QClipboard.Mode.Clipboard) if copied else ""
        if copied:
            clipboard.setMimeData(saved, QClipboard.Mode.Clipboard)  # the user's clipboard, every format
        _logger.info("translate selection: the copy %s", "gave text" if text else "gave no text")
        self.done.emit(text)
