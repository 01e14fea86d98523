"""The window's interactive session, without Qt: the one owner of "the current request".

A front end translates one text at a time interactively (the window's panes; typing supersedes
what runs). :class:`Session` keeps what the parts of such a front end share about it: the next
request id, the request that runs now (:attr:`Session.current`, None when none runs), its cancel
Event (set at once when a newer request supersedes it, so the engine stops within one decode
step), the options it was started with, and the figures of the last one that ended
(:attr:`Session.last_stats`, :attr:`Session.first_text_ms`).

Parts follow it by subscribing plain callbacks to its topics (:class:`Topic`): :attr:`Session.changed`
(the current request set or cleared: the file job's gate), :attr:`Session.started`,
:attr:`Session.ended` (the request is over: the session's state), :attr:`Session.shown` (its end
is on screen: what the window's features follow) and :attr:`Session.completed` (a translation ran
to its end: the history and undo's memory keep it). The window's features subscribe to these
directly; the controller adapts a few to Qt signals for tests and scripts
(``Controller.requestStarted``, ``requestFinished``, ``translationCompleted``). Nothing here
imports Qt, so the rules are tested without a display (``tests/app/test_session.py``) and
``tests/test_architecture.py`` keeps it so.

Every call is made from one thread (the GUI's); the worker only reads a request's Event.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from desktop_mt.engine.events import TranslationStats
from desktop_mt.engine.options import GenerationOptions

__all__ = ["Completed", "Ended", "Request", "Session", "Topic"]

T = TypeVar("T")


class Topic(Generic[T]):
    """Callbacks called in the order they subscribed, each with the published value."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[[T], object]] = []

    def subscribe(self, callback: Callable[[T], object]) -> Callable[[], None]:
        """Call ``callback(value)`` on each :meth:`publish`; returns what unsubscribes it."""
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback) if callback in self._callbacks else None

    def publish(self, value: T) -> None:
        """Call the subscribers (a copy of the list: one may unsubscribe while it runs)."""
        for callback in list(self._callbacks):
            callback(value)


@dataclasses.dataclass
class Request:
    """One interactive request: its id, text and options, its cancel flag, when it started."""

    req_id: int
    cancel: threading.Event
    started: float = dataclasses.field(default_factory=time.perf_counter)
    shown_first: bool = False  # its first translated text is on screen
    text: str = ""  # the source text (the history keeps it with the translation)
    options: GenerationOptions | None = None  # what it was started with (None: the engine's defaults)


@dataclasses.dataclass(frozen=True)
class Ended:
    """A request that ended: with its figures (None when it failed or was skipped)."""

    request: Request
    stats: TranslationStats | None

    @property
    def completed(self) -> bool:
        """It ran to its end (not cancelled, not failed): its translation is whole."""
        return self.stats is not None and not self.stats.cancelled


@dataclasses.dataclass(frozen=True)
class Completed:
    """A translation that ran to its end, as the user sees it: its source and translation
    (the window's request, or the hotkey's popup)."""

    source: str
    translation: str


class Session:
    """The interactive requests of one front end (see the module docstring)."""

    def __init__(self, options: Callable[[], GenerationOptions] | None = None) -> None:
        self._options = options  # the options a new request takes (the window's, read each time)
        self._next_id = 0
        self._current: Request | None = None
        self.last_stats: TranslationStats | None = None  # of the last request that ran to an end
        self.first_text_ms = 0.0  # that request's first text on screen, ms after it started
        self.changed: Topic[Request | None] = Topic()  # the current request was set or cleared
        self.started: Topic[Request] = Topic()  # a request started (after ``changed``)
        self.ended: Topic[Ended] = Topic()  # the current request ended (finished, failed, unavailable)
        self.shown: Topic[Ended] = Topic()  # ...and its end is on screen (after ``ended``)
        self.completed: Topic[Completed] = Topic()  # a translation ran to its end (source, translation)

    @property
    def current(self) -> Request | None:
        """The request that runs (None when none runs)."""
        return self._current

    @property
    def busy(self) -> bool:
        """Whether a request runs."""
        return self._current is not None

    def request(self, req_id: int) -> Request | None:
        """The current request if its id is ``req_id``; None for a superseded or unknown id
        (whose late output is to be dropped)."""
        current = self._current
        return current if current is not None and current.req_id == req_id else None

    def start(self, text: str) -> Request:
        """A new request for ``text``: the running one is cancelled first; the new one takes
        the next id and the session's options, becomes current and is announced."""
        self.cancel_current()
        self._next_id += 1
        options = self._options() if self._options is not None else None
        request = Request(self._next_id, threading.Event(), text=text, options=options)
        self._set_current(request)
        self.started.publish(request)
        return request

    def cancel_current(self) -> Request | None:
        """Cancel the running request and forget it (its later output is dropped); returns it."""
        request = self._current
        if request is not None:
            request.cancel.set()
            self._set_current(None)
        return request

    def interrupt(self) -> bool:
        """Set the running request's cancel Event but keep it current: its end (figures marked
        cancelled) still arrives and ends it, as a Stop does. Whether one ran."""
        if self._current is None:
            return False
        self._current.cancel.set()
        return True

    def end(self, req_id: int, stats: TranslationStats | None = None) -> Ended | None:
        """The request ``req_id`` ended: it is no longer current and its figures (if any) are
        the last ones. None (nothing changes) when ``req_id`` is not the current request."""
        request = self.request(req_id)
        if request is None:
            return None
        self._set_current(None)
        if stats is not None:
            self.last_stats = stats
        ended = Ended(request, stats)
        self.ended.publish(ended)
        return ended

    def show_end(self, ended: Ended) -> None:
        """The front end has shown ``ended`` (its text, figures or message): announce it on
        :attr:`shown`. Features that read the translation pane follow this, not :attr:`ended`."""
        self.shown.publish(ended)

    def complete(self, source: str, translation: str) -> Completed:
        """``translation`` of ``source`` ran to its end and is on screen: announce it on
        :attr:`completed` (the history and undo's memory keep it)."""
        completed = Completed(source, translation)
        self.completed.publish(completed)
        return completed

    def first_text(self, req_id: int) -> float | None:
        """The current request's first translated text is on screen: ms since it started, the
        first time only (None afterwards, and for a request that is not current)."""
        request = self.request(req_id)
        if request is None or request.shown_first:
            return None
        request.shown_first = True
        self.first_text_ms = (time.perf_counter() - request.started) * 1000
        return self.first_text_ms

    def clear_stats(self) -> None:
        """Forget the last figures (the text they described is gone)."""
        self.last_stats = None

    def _set_current(self, request: Request | None) -> None:
        self._current = request
        self.changed.publish(request)
