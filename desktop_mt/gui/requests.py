"""The window's interactive requests, on the UI thread, over the Qt-free
:class:`~desktop_mt.app.session.Session` (ids, the current request, its cancel Event, its
options). Starting a request sets the previous request's Event right away, so the worker's
engine loop stops within one decode step; output tagged with an old id is dropped
(:mod:`~desktop_mt.gui.request_results`). Typing (Translate as you type, on by default)
cancels the running request at the keystroke and starts a new one after a pause
(``AS_YOU_TYPE_DELAY_MS``), which translates only the changed sentences (``PostEditPort.plan``).
:class:`RequestFlow` is the window's request core, built on the window's
:class:`~desktop_mt.gui.services.Services` with the input handling and the direction control;
post-editing joins it once built (:meth:`RequestFlow.use_postedit`: post-editing needs the
engine's loading, which needs this flow). The services' ``translate`` and ``show_entry`` are its.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_mt.app.session import Request, Session
from desktop_mt.engine.options import GenerationOptions

from .features.pasting import InputHandling
from .ports import PostEditPort, Status
from .services import Services
from .window.direction_bar import DirectionFeature
from .workers.translation import IncrementalPlan

__all__ = ["AS_YOU_TYPE_DELAY_MS", "Request", "RequestFlow"]

AS_YOU_TYPE_DELAY_MS = 600  # pause after the last keystroke before translating


class RequestFlow(QObject):
    """Starts, stops and clears the window's requests in the session (see the module docstring)."""

    # The controller connects these to the worker's slots (queued: the worker has its thread).
    translateRequested = Signal(int, str, GenerationOptions, threading.Event)  # id, text, options, cancel Event
    # incremental: worker.translate_plan
    planRequested = Signal(int, str, IncrementalPlan, GenerationOptions, threading.Event)

    def __init__(self, services: Services, input_handling: InputHandling, direction: DirectionFeature) -> None:
        super().__init__(services.owner)
        self.services = services
        self.window = services.window
        self.session: Session = services.session
        self.events = services.events
        self.input = input_handling  # text left as it is (said in the status bar)
        self.direction = direction  # the window's direction: a request's target
        self.postedit: PostEditPort | None = None  # the user's edits kept; the sentences to translate
        self.show_kept: Callable[[str, str], None] | None = None  # View > Bilingual's (use_bilingual)
        self.debounce = QTimer(self)  # translate-as-you-type waits for a pause
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(AS_YOU_TYPE_DELAY_MS)
        self.debounce.timeout.connect(lambda: self.translate(self.window.source_text()))

    def use_postedit(self, postedit: PostEditPort) -> None:
        """Post-editing, once built: it keeps the user's edits before new text and plans which
        sentences go to the model."""
        self.postedit = postedit

    def use_bilingual(self, show_kept: Callable[[str, str], None]) -> None:
        """View > Bilingual's ``show_kept``: a kept translation opened is shown as it shows a
        finished one (paired when Bilingual is on, and redrawn when it is toggled)."""
        self.show_kept = show_kept

    @property
    def current(self) -> Request | None:
        """The request that runs (the session's)."""
        return self.session.current

    def translate(self, text: str) -> int | None:
        """Start translating ``text``, superseding any running request. Returns its id."""
        window = self.window
        self._stop_all()
        if not text.strip():  # nothing to do (what ran before is cancelled)
            window.clear_target()
            window.set_busy(False)
            self.set_state(Status.IDLE)
            return None
        # Japanese, Korean and text already in the chosen language are left as they are: the
        # status bar says why, and the engine copies them through into the translation pane.
        self.input.left_as_is(text, self.direction.target)
        # Before the pane empties: post-editing reads the sentences shown.
        plan = self.postedit.plan(text) if self.postedit is not None else None
        window.clear_target()
        window.set_busy(True)
        self.set_state(Status.TRANSLATING)
        request = self.session.start(text)  # announced: the features follow it (session.started)
        if plan is None:
            self.translateRequested.emit(request.req_id, text, request.options, request.cancel)
        else:  # only the sentences whose source changed go to the model
            self.planRequested.emit(request.req_id, text, plan, request.options, request.cancel)
        return request.req_id

    def _stop_all(self) -> None:
        """Before new text: no typed request pending, the running one cancelled, the user's
        edits into the memory and the history."""
        self.debounce.stop()
        self.session.cancel_current()
        if self.postedit is not None:
            self.postedit.before_new_text()

    def show_entry(self, source: str, translation: str) -> None:
        """Put a kept translation (History > Open) into the panes; the source replaces the
        draft as one undoable step."""
        self._stop_all()
        self.session.clear_stats()  # the last run's figures described another text
        window = self.window
        window.set_source(source)
        window.clear_target()
        window.clear_stats()
        window.append_target(translation)
        if self.show_kept is not None:
            self.show_kept(source, translation)
        window.set_busy(False)
        self.set_state(Status.IDLE)

    def cancel_current(self) -> None:
        """Cancel the running request (its Event is set directly, not via a queued slot: the
        worker is busy in its loop); its later output is dropped."""
        self.session.cancel_current()

    def stop(self) -> None:
        """Stop the running request; the text streamed so far stays."""
        self.debounce.stop()
        if self.session.interrupt():
            self.set_state(Status.STOPPING)

    def clear(self) -> None:
        """Stop and empty both panes (and the figures of a run whose text is gone)."""
        self._stop_all()
        self.session.clear_stats()
        window = self.window
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
        if not self.services.settings.translate_as_you_type:
            return
        # Interrupted, not cancelled: the request stays current, so its end (stats marked
        # cancelled) clears the busy state as a Stop does, without "Stopping..." shown.
        self.session.interrupt()
        self.debounce.start()

    def set_state(self, state: Status, detail: str = "") -> None:
        """The status bar's state, and ``Events.state`` for the features that follow it."""
        self.window.set_state(state, detail)
        self.events.state.publish(state)
