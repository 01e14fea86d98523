"""Batching of concurrent requests into engine calls, with a bounded queue, fair turns and
cancellation.

Requests put their texts in a queue (:meth:`Batcher.submit` returns a :class:`Ticket`); one
worker thread (the only caller of ``translate_batch`` in this process) fills each engine call
with at most ``max_batch`` texts, taken from the waiting requests **in turn, one text per
request per pass, oldest request first**; a request with texts left goes to the back of the
line. So a 128-text request is translated in ``max_batch``-text pieces, and a one-text request
that arrives meanwhile rides in the next call instead of waiting for all four. The worker
waits up to ``window_s`` after taking the first text for more requests while the call has
room; requests that arrive while a call runs are collected without waiting.

Requests carry a batch key (the server's: the target language and script); one engine call
holds texts of one key only, since it runs with one set of options. The oldest waiting request
decides the key of the next call; requests with another key keep their place in the line.

At most ``queue_size`` texts wait; a request that would exceed that is refused at once with
:class:`QueueFull` (the server answers 503), so a burst never turns into an unbounded backlog
(an empty queue takes any request: the request size limit bounds it).

:meth:`Ticket.cancel` (the client left) takes the request's remaining texts out of the queue
and, when every request in the running call has been cancelled, sets that call's cancel flag:
the engine stops within one decode step. The engine time a gone client can still cost is
therefore one call (at most ``max_batch`` texts), shared with whoever else is in it.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Hashable, Sequence

from ..base.errors import DesktopMTError

__all__ = [
    "TranslateBatch",
    "QueueFull",
    "BatcherClosed",
    "Ticket",
    "BatchReport",
    "Batcher",
]

_logger = logging.getLogger("desktop_mt.server")

TranslateBatch = Callable[[list[str], threading.Event, Hashable], list[str]]
"""``translate(texts, cancel, key)``: the engine call for ``texts``, all submitted with ``key``."""


class QueueFull(DesktopMTError):
    """The queue has no room for the request's texts; retry after a moment."""


class BatcherClosed(DesktopMTError):
    """The server is shutting down."""


class Ticket:
    """One request's texts; ``future`` resolves to their translations, in order."""

    def __init__(self, batcher: Batcher, texts: Sequence[str], key: Hashable = None) -> None:
        self._batcher = batcher
        self.texts = list(texts)
        self.key = key
        self.future: concurrent.futures.Future[list[str]] = concurrent.futures.Future()
        self.queued_at = time.perf_counter()
        self.results: list[str | None] = [None] * len(self.texts)
        self.handed_out = 0  # texts given to engine calls so far (they are taken in order)
        self.left = len(self.texts)  # texts without a translation yet
        self.cancelled = False
        # asyncio.wrap_future cancels the future itself when the awaiting task is cancelled.
        self.future.add_done_callback(self._on_done)

    def _on_done(self, future: concurrent.futures.Future[list[str]]) -> None:
        if future.cancelled():
            self.cancel()

    def cancel(self) -> None:
        """The caller is gone: drop what still waits, stop the running call if it is only
        ours (and other cancelled requests'). Safe to call at any time, from any thread."""
        self._batcher._cancel(self)


@dataclasses.dataclass(frozen=True)
class BatchReport:
    """Figures of one engine call, for metrics: texts, requests, seconds and queue wait."""

    texts: int
    requests: int
    seconds: float
    waits: tuple[float, ...]


class Batcher:
    """Runs ``translate(texts, cancel)`` on one thread for batches of queued requests.

    ``on_batch(report)`` is called after each engine call (from the worker thread).
    """

    def __init__(
        self,
        translate: TranslateBatch,
        max_batch: int = 32,
        window_s: float = 0.005,
        queue_size: int = 256,
        on_batch: Callable[[BatchReport], None] | None = None,
    ) -> None:
        self._translate = translate
        self._max_batch, self._window_s, self._queue_size = max_batch, window_s, queue_size
        self._on_batch = on_batch
        self._line: collections.deque[Ticket] = collections.deque()  # with texts to hand out
        self._queued_texts = 0
        self._cond = threading.Condition()
        self._closed = False
        self._draining = False  # drain(): no new requests, the running call goes on
        self._running: list[tuple[Ticket, int]] = []  # (request, text index) of the engine call
        self._call_cancel = threading.Event()  # the running call's cancel flag
        self._call_key: Hashable = None  # the running call's key
        self.running = False  # True while an engine call is in progress (read by metrics)
        self._thread = threading.Thread(target=self._run, name="desktop-mt-batcher", daemon=True)
        self._thread.start()

    @property
    def queued_texts(self) -> int:
        """Texts waiting for the engine (not counting the batch being translated)."""
        return self._queued_texts

    @property
    def waiting_requests(self) -> int:
        """Requests with texts still waiting for an engine call."""
        return len(self._line)

    def submit(self, texts: Sequence[str], key: Hashable = None) -> Ticket:
        """Queue ``texts``, to be batched with texts of the same ``key`` only (raises QueueFull
        when the queue cannot take them, BatcherClosed after :meth:`close`)."""
        ticket = Ticket(self, texts, key)
        with self._cond:
            if self._closed or self._draining:
                raise BatcherClosed("the server is shutting down")
            if not ticket.texts:
                ticket.future.set_result([])
                return ticket
            if self._queued_texts + len(ticket.texts) > self._queue_size and self._line:
                raise QueueFull(f"{self._queued_texts} texts are waiting (limit {self._queue_size})")
            self._line.append(ticket)
            self._queued_texts += len(ticket.texts)
            self._cond.notify()
        return ticket

    def drain(self) -> None:
        """Graceful shutdown: new requests and those still waiting for (some of) their texts'
        engine call fail with BatcherClosed; the running call goes on (:meth:`close` cancels it)."""
        with self._cond:
            self._draining = True
            for ticket in list(self._line):
                self._fail(ticket, BatcherClosed("the server is shutting down"))

    def close(self, timeout: float = 5.0) -> None:
        """Stop: the running call is cancelled, its and the waiting requests fail with
        BatcherClosed."""
        with self._cond:
            self._closed = True
            self._call_cancel.set()
            for ticket in list(self._line) + [ticket for ticket, _ in self._running]:
                self._fail(ticket, BatcherClosed("the server is shutting down"))
            self._cond.notify_all()
        self._thread.join(timeout)

    # -- under the lock ------------------------------------------------------------------

    def _cancel(self, ticket: Ticket) -> None:
        with self._cond:  # (a re-entrant lock: cancelling the future calls back here)
            if ticket.cancelled or (ticket.future.done() and not ticket.future.cancelled()):
                return
            ticket.cancelled = True
            self._drop(ticket)
            ticket.future.cancel()
            if self._running and all(t.cancelled or t.future.done() for t, _ in self._running):
                self._call_cancel.set()  # nobody is left to want this call's results

    def _drop(self, ticket: Ticket) -> None:
        """Take the ticket's texts that were not handed out yet out of the queue."""
        self._queued_texts -= len(ticket.texts) - ticket.handed_out
        ticket.handed_out = len(ticket.texts)
        with contextlib.suppress(ValueError):
            self._line.remove(ticket)

    def _fail(self, ticket: Ticket, exc: BaseException) -> None:
        self._drop(ticket)
        if not ticket.future.done():
            ticket.future.set_exception(exc)

    def _take(self, room: int, key: Hashable) -> list[tuple[Ticket, int]]:
        """Up to ``room`` texts of ``key``, one per waiting request in turn (see the module
        docstring); requests of other keys keep their place."""
        taken: list[tuple[Ticket, int]] = []
        others: collections.deque[Ticket] = collections.deque()
        while room > 0 and self._line:
            ticket = self._line.popleft()
            if ticket.key != key:
                others.append(ticket)
                continue
            taken.append((ticket, ticket.handed_out))
            ticket.handed_out += 1
            self._queued_texts -= 1
            room -= 1
            if ticket.handed_out < len(ticket.texts):
                self._line.append(ticket)
        others.extend(self._line)
        self._line = others
        return taken

    # -- worker thread ---------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            batch = self._collect()
            if batch is None:
                return
            self._execute(batch)

    def _collect(self) -> list[tuple[Ticket, int]] | None:
        """Wait for a request, then gather more for up to the window while there is room."""
        with self._cond:
            while not self._line and not self._closed:
                self._cond.wait()
            if self._closed:
                return None
            key = self._line[0].key
            batch = self._take(self._max_batch, key)
            deadline = time.perf_counter() + self._window_s
            while len(batch) < self._max_batch and not self._closed:
                more = self._take(self._max_batch - len(batch), key)
                if more:
                    batch += more
                    continue
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                self._cond.wait(left)
            self._running, self._call_key = batch, key
            self._call_cancel = threading.Event()
            self.running = True
            return batch

    def _execute(self, batch: list[tuple[Ticket, int]]) -> None:
        started = time.perf_counter()
        live = [(ticket, index) for ticket, index in batch if not ticket.cancelled]
        texts = [ticket.texts[index] for ticket, index in live]
        try:
            results = self._translate(texts, self._call_cancel, self._call_key) if texts else []
        except BaseException as exc:  # noqa: BLE001 - every waiting request gets the error
            with self._cond:
                self._running, self.running = [], False
                error = BatcherClosed("the server is shutting down") if self._closed else exc
                for ticket, _ in live:
                    self._fail(ticket, error)
            return
        with self._cond:
            self._running, self.running = [], False
            for (ticket, index), result in zip(live, results):
                ticket.results[index] = result
                ticket.left -= 1
                if ticket.left == 0 and not ticket.future.done():  # every result is in: none is None
                    ticket.future.set_result([text or "" for text in ticket.results])
        self._report(live, started)

    def _report(self, live: list[tuple[Ticket, int]], started: float) -> None:
        if self._on_batch is None:
            return
        tickets = list(dict.fromkeys(ticket for ticket, _ in live))
        try:
            self._on_batch(
                BatchReport(
                    len(live),
                    len(tickets),
                    time.perf_counter() - started,
                    tuple(started - ticket.queued_at for ticket in tickets),
                )
            )
        except Exception:
            _logger.exception("batch report failed")
