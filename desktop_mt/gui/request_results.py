"""The worker's output of the window's current request, on the UI thread: streamed text into
the translation pane (output of a superseded request is dropped by its id: the session's
:meth:`~desktop_mt.app.session.Session.request`), the end with its figures, a failure, or a
direction without a model (the banner names the model to download). It ends the request in
the session and, once its end is on screen, announces it there (``shown``; ``completed`` for a
translation that ran to its end), which the window's features follow.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject

from desktop_mt.engine.events import TranslationStats

from .i18n import translate
from .messages import sentence
from .ports import Status
from .requests import RequestFlow
from .services import FileJobStart, Services

__all__ = [
    "RequestResults",
]


_logger = logging.getLogger("desktop_mt.gui.controller")  # the log lines kept their old source


class RequestResults(QObject):
    """Shows what the worker sends for the current request (see the module docstring). A
    QObject of the UI thread, so the worker's signals reach it queued, in this thread."""

    def __init__(self, services: Services, requests: RequestFlow) -> None:
        super().__init__(services.owner)
        self.session = services.session
        self.window = services.window
        self.states = requests  # the status bar's state (and events.state)
        self._file_job = False  # a file job runs (the first text's log line says so)
        services.events.file_started.subscribe(self._on_file_started)
        services.events.file_ended.subscribe(self._on_file_ended)
        worker = services.worker
        worker.delta.connect(self.on_delta)
        worker.finished.connect(self.on_finished)
        worker.failed.connect(self.on_failed)
        worker.unavailable.connect(self.on_unavailable)

    def on_delta(self, req_id: int, text: str) -> None:
        if self.session.request(req_id) is None:  # stale output of a superseded request is dropped
            return
        self.window.append_target(text)
        first_ms = self.session.first_text(req_id)
        if first_ms is not None:
            # End-to-end latency as the user sees it (request -> first text on screen), beside a
            # file job or not; the log never holds text, only these figures.
            _logger.info(
                "first translated text shown %.0f ms after the request (file job running: %s)",
                first_ms,
                "yes" if self._file_job else "no",
            )

    def _on_file_started(self, _job: FileJobStart) -> None:
        self._file_job = True

    def _on_file_ended(self, _outcome: str) -> None:
        self._file_job = False

    def on_finished(self, req_id: int, stats: TranslationStats | None) -> None:
        ended = self.session.end(req_id, stats)
        if ended is None:
            return
        self.window.set_busy(False)
        if stats is not None:
            self.window.set_stats(stats.first_token_seconds, stats.tokens_per_second, stats.tokens)
        self.states.set_state(Status.IDLE)
        if ended.completed:
            self.session.complete(ended.request.text, self.window.target_text())
        self.session.show_end(ended)

    def on_failed(self, req_id: int, message: str) -> None:
        ended = self.session.end(req_id)
        if ended is None:
            return
        self.window.set_busy(False)
        self.states.set_state(Status.ERROR, translate("RequestResults", "translation failed"))
        self.window.show_error(translate("RequestResults", "Translation failed"), message)
        self.session.show_end(ended)

    def on_unavailable(self, req_id: int, message: str) -> None:
        """The text needs a direction no installed model translates: the banner says which
        model to download (not a modal error: typing goes on)."""
        ended = self.session.end(req_id)
        if ended is None:
            return
        self.window.set_busy(False)
        self.states.set_state(Status.IDLE)
        self.window.show_warning(sentence(message))
        self.session.show_end(ended)
