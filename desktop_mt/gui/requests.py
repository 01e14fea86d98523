"""The window's interactive requests, on the UI thread: each gets an id and its own cancel
Event. Starting a request sets the previous request's Event right away, so the worker's engine
loop stops within one decode step; output tagged with an old id is dropped
(:mod:`~desktop_mt.gui.request_results`). Typing (Translate as you type, on by default)
cancels the running request at the keystroke and starts a new one after a pause
(``AS_YOU_TYPE_DELAY_MS``), which translates only the changed sentences (``PostEditPort.plan``).
The controller's collaborator (:class:`RequestFlow`); the controller keeps ``translate``,
``stop``, ``clear``, ``show_entry`` and ``current``.
"""

from __future__ import annotations

import dataclasses
import threading
import time

from PySide6.QtCore import QObject, QTimer, Signal

from .ports import RequestHost, Status

AS_YOU_TYPE_DELAY_MS = 600  # pause after the last keystroke before translating


@dataclasses.dataclass
class Request:
    """One interactive request: its id, its cancel flag, when it started."""

    req_id: int
    cancel: threading.Event
    started: float = dataclasses.field(default_factory=time.perf_counter)
    shown_first: bool = False
    text: str = ""  # the source text (the history keeps it with the translation)


class RequestFlow(QObject):
    """The interactive request that runs and the ones that supersede it (see the module docstring)."""

    # The controller connects these to the worker's slots (queued: the worker has its thread).
    translateRequested = Signal(int, str, object, object)  # id, text, options, cancel Event
    planRequested = Signal(int, str, object, object, object)  # incremental: worker.translate_plan

    def __init__(self, host: RequestHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.current: Request | None = None
        self._next_id = 0
        self.debounce = QTimer(self)  # translate-as-you-type waits for a pause
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(AS_YOU_TYPE_DELAY_MS)
        self.debounce.timeout.connect(lambda: self.translate(self.host.window.source_text()))

    def translate(self, text: str) -> int | None:
        """Start translating ``text``, superseding any running request. Returns its id."""
        host, window = self.host, self.host.window
        self._stop_all()
        if not text.strip():  # nothing to do (what ran before is cancelled)
            window.clear_target()
            window.set_busy(False)
            self.set_state(Status.IDLE)
            return None
        # Japanese, Korean and text already in the chosen language are left as they are: the
        # status bar says why, and the engine copies them through into the translation pane.
        host.input.left_as_is(text, host.direction.target.value)
        plan = host.postedit.plan(text)  # before the pane empties: it reads the sentences shown
        window.clear_target()
        self._next_id += 1
        request = Request(self._next_id, threading.Event(), text=text)
        self.set_current(request)
        window.set_busy(True)
        self.set_state(Status.TRANSLATING)
        host.requestStarted.emit(request.req_id, text)
        if plan is None:
            self.translateRequested.emit(request.req_id, text, host.window_options(), request.cancel)
        else:  # only the sentences whose source changed go to the model
            self.planRequested.emit(request.req_id, text, plan, host.window_options(), request.cancel)
        return request.req_id

    def _stop_all(self) -> None:
        """Before new text: no typed request pending, the running one cancelled, the user's
        edits into the memory and the history."""
        self.debounce.stop()
        self.cancel_current()
        self.host.postedit.before_new_text()

    def show_entry(self, source: str, translation: str) -> None:
        """Put a kept translation (History > Open) into the panes; the source replaces the
        draft as one undoable step."""
        self._stop_all()
        window = self.host.window
        window.set_source(source)
        window.clear_target()
        window.append_target(translation)
        window.set_busy(False)
        self.set_state(Status.IDLE)

    def cancel_current(self) -> None:
        """Cancel the running request (its Event is set directly, not via a queued slot: the
        worker is busy in its loop); its later output is dropped."""
        if self.current is not None:
            self.current.cancel.set()
            self.set_current(None)

    def set_current(self, request: Request | None) -> None:
        """The request that runs now; the file job waits at its next batch boundary meanwhile."""
        self.current = request
        self.host.gate.set_busy(request is not None)

    def stop(self) -> None:
        """Stop the running request; the text streamed so far stays."""
        self.debounce.stop()
        if self.current is not None:
            self.current.cancel.set()
            self.set_state(Status.STOPPING)

    def clear(self) -> None:
        """Stop and empty both panes (and the figures of a run whose text is gone)."""
        self._stop_all()
        window = self.host.window
        window.clear_all()
        window.set_busy(False)
        window.clear_stats()
        self.set_state(Status.IDLE)

    def source_edited(self) -> None:
        """The user edited the source: with Translate as you type on, the running request is
        cancelled at once (the text it translates is gone: its Event stops the engine within one
        decode step) and the text is translated after a pause (``AS_YOU_TYPE_DELAY_MS``); the
        post-edit plan then sends only the sentences whose source changed to the model, the one
        being typed, and keeps the others' translations (those the cancelled run finished too)."""
        if not self.host.settings.translate_as_you_type:
            return
        if self.current is not None:
            # Not cancel_current(): the request stays current, so its end (stats marked
            # cancelled) clears the busy state as a Stop does, without "Stopping..." shown.
            self.current.cancel.set()
        self.debounce.start()

    def set_state(self, state: Status, detail: str = "") -> None:
        """The status bar's state, and ``stateChanged`` for the features that follow it."""
        self.host.window.set_state(state, detail)
        self.host.stateChanged.emit(state.value)
