"""The worker's output of the window's current request, on the UI thread: streamed text into
the translation pane (output of a superseded request is dropped by its id), the end with its
figures, a failure, or a direction without a model (the banner names the model to download).
The controller's collaborator (:class:`RequestResults`, on its port ``ports.ResultsHost``).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from PySide6.QtCore import QObject

from .ports import ResultsHost, ShownRequest, Status, qt_parent

log = logging.getLogger("desktop_mt.gui.controller")  # the log lines kept their old source


class RequestResults(QObject):
    """Shows what the worker sends for the current request (see the module docstring)."""

    def __init__(self, controller: ResultsHost) -> None:
        super().__init__(qt_parent(controller))
        self.controller = controller
        worker = controller.worker
        worker.delta.connect(self.on_delta)
        worker.finished.connect(self.on_finished)
        worker.failed.connect(self.on_failed)
        worker.unavailable.connect(self.on_unavailable)

    def _is_current(self, req_id: int) -> bool:
        current = self.controller.requests.current
        return current is not None and current.req_id == req_id

    def on_delta(self, req_id: int, text: str) -> None:
        request = self.controller.requests.current
        if request is not None and request.req_id == req_id:  # stale output of a superseded request is dropped
            self.controller.window.append_target(text)
            self._log_first_text(request)

    def _log_first_text(self, request: ShownRequest) -> None:
        # End-to-end latency as the user sees it (request -> first text on screen), beside a
        # file job or not; the log never holds text, only these figures.
        if request.shown_first:
            return
        request.shown_first = True
        self.controller.first_text_ms = (time.perf_counter() - request.started) * 1000
        log.info(
            "first translated text shown %.0f ms after the request (file job running: %s)",
            self.controller.first_text_ms,
            "yes" if self.controller.file_job is not None else "no",
        )

    def on_finished(self, req_id: int, stats: Any) -> None:
        request = self.controller.requests.current
        if request is None or request.req_id != req_id:
            return
        self.controller.requests.set_current(None)
        self.controller.window.set_busy(False)
        if stats is not None:
            self.controller.last_stats = stats
            self.controller.window.set_stats(stats.first_token_seconds, stats.tokens_per_second, stats.tokens)
        self.controller.requests.set_state(Status.IDLE)
        if stats is not None and not stats.cancelled:
            self.controller.translationCompleted.emit(request.text, self.controller.window.target_text())
        self.controller.requestFinished.emit(req_id)

    def on_failed(self, req_id: int, message: str) -> None:
        if not self._is_current(req_id):
            return
        self.controller.requests.set_current(None)
        self.controller.window.set_busy(False)
        self.controller.requests.set_state(Status.ERROR, "translation failed")
        self.controller.window.show_error("Translation failed", message)
        self.controller.requestFinished.emit(req_id)

    def on_unavailable(self, req_id: int, message: str) -> None:
        """The text needs a direction no installed model translates: the banner says which
        model to download (not a modal error: typing goes on)."""
        if not self._is_current(req_id):
            return
        self.controller.requests.set_current(None)
        self.controller.window.set_busy(False)
        self.controller.requests.set_state(Status.IDLE)
        self.controller.window.show_warning(message[:1].upper() + message[1:] + ".")
        self.controller.requestFinished.emit(req_id)
