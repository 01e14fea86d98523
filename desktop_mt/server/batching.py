"""Batching of concurrent requests into one engine call, with a bounded queue.

Requests put their texts in a queue; one worker thread (the only caller of
``translate_batch`` in this process) takes the oldest request, waits up to ``window_s`` for
more to arrive while the batch has room (``max_batch`` texts), then translates all their texts
in one call and hands each request its own results. Requests that arrive while a batch is
running are collected without waiting. At most ``queue_size`` texts wait; a request that would
exceed that is refused at once with :class:`QueueFull` (the server answers 503), so a burst
never turns into an unbounded backlog.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import logging
import threading
import time
from typing import Callable, Optional, Sequence

log = logging.getLogger("desktop_mt.server")

TranslateBatch = Callable[[list[str], threading.Event], list[str]]


class QueueFull(Exception):
    """The queue has no room for the request's texts; retry after a moment."""


class BatcherClosed(Exception):
    """The server is shutting down."""


@dataclasses.dataclass
class _Job:
    texts: list[str]
    future: concurrent.futures.Future
    queued_at: float


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

    def __init__(self, translate: TranslateBatch, max_batch: int = 32, window_s: float = 0.005,
                 queue_size: int = 256, on_batch: Optional[Callable[[BatchReport], None]] = None):
        self._translate = translate
        self._max_batch, self._window_s, self._queue_size = max_batch, window_s, queue_size
        self._on_batch = on_batch
        self._jobs: collections.deque[_Job] = collections.deque()
        self._queued_texts = 0
        self._cond = threading.Condition()
        self._closed = False
        self._cancel = threading.Event()  # set on close: the running batch stops mid-decode
        self.running = False  # True while an engine call is in progress (read by metrics)
        self._thread = threading.Thread(target=self._run, name="desktop-mt-batcher", daemon=True)
        self._thread.start()

    @property
    def queued_texts(self) -> int:
        """Texts waiting for the engine (not counting the batch being translated)."""
        return self._queued_texts

    def submit(self, texts: Sequence[str]) -> concurrent.futures.Future:
        """Queue ``texts``; the future resolves to their translations, in order.

        Raises QueueFull when the queue cannot take them, BatcherClosed after :meth:`close`.
        """
        job = _Job(list(texts), concurrent.futures.Future(), time.perf_counter())
        with self._cond:
            if self._closed:
                raise BatcherClosed("the server is shutting down")
            if self._queued_texts + len(job.texts) > self._queue_size and self._jobs:
                raise QueueFull(f"{self._queued_texts} texts are waiting (limit "
                                f"{self._queue_size})")
            # An empty queue takes any request (the request size limit bounds it), so a
            # request larger than the queue still runs when nothing else waits.
            self._jobs.append(job)
            self._queued_texts += len(job.texts)
            self._cond.notify()
        return job.future

    def close(self, timeout: float = 5.0) -> None:
        """Stop: the running batch is cancelled, waiting requests fail with BatcherClosed."""
        with self._cond:
            self._closed = True
            self._cancel.set()
            pending, self._jobs = list(self._jobs), collections.deque()
            self._queued_texts = 0
            self._cond.notify_all()
        for job in pending:
            job.future.set_exception(BatcherClosed("the server is shutting down"))
        self._thread.join(timeout)

    # -- worker thread ---------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            batch = self._collect()
            if batch is None:
                return
            self._execute(batch)

    def _collect(self) -> Optional[list[_Job]]:
        """Wait for a request, then gather more for up to the window while there is room."""
        with self._cond:
            while not self._jobs and not self._closed:
                self._cond.wait()
            if self._closed:
                return None
            batch = [self._pop()]
            size = len(batch[0].texts)
            deadline = time.perf_counter() + self._window_s
            while size < self._max_batch and not self._closed:
                if self._jobs:
                    if size + len(self._jobs[0].texts) > self._max_batch:
                        break
                    job = self._pop()
                    batch.append(job)
                    size += len(job.texts)
                    continue
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                self._cond.wait(left)
            self.running = True
            return batch

    def _pop(self) -> _Job:
        job = self._jobs.popleft()
        self._queued_texts -= len(job.texts)
        return job

    def _execute(self, batch: list[_Job]) -> None:
        started = time.perf_counter()
        # A request whose caller gave up while it waited (future cancelled) is skipped.
        live = [job for job in batch if job.future.set_running_or_notify_cancel()]
        texts = [text for job in live for text in job.texts]
        try:
            results = self._translate(texts, self._cancel) if texts else []
        except BaseException as exc:  # noqa: BLE001 - every waiting request gets the error
            for job in live:
                job.future.set_exception(exc)
            return
        finally:
            self.running = False
        seconds = time.perf_counter() - started
        position = 0
        for job in live:
            job.future.set_result(results[position:position + len(job.texts)])
            position += len(job.texts)
        if self._on_batch is not None:
            try:
                self._on_batch(BatchReport(len(texts), len(live), seconds,
                                           tuple(started - job.queued_at for job in live)))
            except Exception:  # noqa: BLE001 - a reporting bug must not stop the worker
                log.exception("batch report failed")
