"""The engine side of the server: one Translator, the batcher, streams, n-best searches
(``alternatives``) and their metrics.

No FastAPI here; :mod:`desktop_mt.server.app` turns HTTP requests into calls of
:class:`TranslationService` and its results back into LibreTranslate's JSON.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import AsyncIterator

from ..engine.events import Finished, TextDelta
from .batching import Batcher, BatchReport
from .config import ServerConfig
from .gate import FairGate, TurnCancelled
from .languages import LanguageTable, traditional_converter
from .metrics import Metrics

log = logging.getLogger("desktop_mt.server")


class TooManyStreams(Exception):
    """Every stream slot is taken; retry after a moment."""


class TranslationService:
    """Translations for the HTTP layer: batched (``translate``) or streamed (``stream``)."""

    def __init__(self, translator, config: ServerConfig) -> None:
        self.translator = translator
        self.config = config
        self.metrics = Metrics()
        info = translator.model_info
        self.languages = LanguageTable.for_model(info.source_lang, info.target_lang)
        self._stream_slots = threading.BoundedSemaphore(config.max_streams)
        self._streams: set[Stream] = set()  # running, for close()
        self._streams_lock = threading.Lock()
        self._nbest_cancels: set[threading.Event] = set()  # running n-best searches, for close()
        self.gate = FairGate()  # engine turns shared by the batcher, streams and searches
        self._batch_share_s = 0.0  # engine seconds per batched request of the last call
        self.batcher = Batcher(
            self._engine_batch,
            max_batch=config.max_batch,
            window_s=config.batch_window_ms / 1000,
            queue_size=config.queue_size,
            on_batch=self._record_batch,
        )

    def close(self, timeout: float = 5.0) -> None:
        """Stop: cancel the running engine call and every stream, then release the model."""
        self.batcher.close()
        with self._streams_lock:
            streams = list(self._streams)
            searches = list(self._nbest_cancels)
        for cancel in searches:  # each raises TranslationCancelled within one decode step
            cancel.set()
        for stream in streams:
            stream.cancel()
        self.gate.wake()
        for stream in streams:  # each stops within one decode step; then no session is in use
            stream.finished.wait(timeout)
        self.translator.close()

    # -- batched translation -------------------------------------------------------------

    async def translate(self, texts: list[str], target: str) -> list[str]:
        """Translations of ``texts`` (raises QueueFull, BatcherClosed, engine errors).

        Cancelling the awaiting task (the client left) cancels the request in the batcher:
        its waiting texts leave the queue and a call that only it still wants stops."""
        ticket = self.batcher.submit(texts)
        self.metrics.queue_texts.set(self.batcher.queued_texts)
        try:
            results = await asyncio.wrap_future(ticket.future)
        except asyncio.CancelledError:
            ticket.cancel()
            self.metrics.cancelled.labels("batched").inc()
            raise
        return [self.convert(text, target) for text in results]

    def convert(self, text: str, target: str) -> str:
        """The engine's output in the requested script (zh-Hant: Simplified -> Traditional)."""
        if target == "zh-Hant":
            return traditional_converter()(text)
        return text

    def _engine_batch(self, texts: list[str], cancel: threading.Event) -> list[str]:
        """The batcher's engine call (batcher thread)."""
        self.metrics.batch_running.set(1)
        started = time.perf_counter()
        try:
            with self.gate.turn(cancel):
                results = self.translator.translate_batch(texts, cancel=cancel)
        finally:
            self.metrics.batch_running.set(0)
        tokens = sum(self.translator.tokenizer.count(text) for text in texts if text.strip())
        self.metrics.record_engine(tokens, time.perf_counter() - started)
        return results

    def stream_slice_s(self) -> float:
        """Engine time a stream may use per turn when others wait: the last batched call's
        seconds shared by the batched requests (those in it and those still waiting), so
        every client, streamed or batched, gets about the same engine time (bounded to
        20-500 ms)."""
        return min(0.5, max(0.02, self._batch_share_s))

    def _record_batch(self, report: BatchReport) -> None:
        batched_clients = report.requests + self.batcher.waiting_requests
        self._batch_share_s = report.seconds / max(1, batched_clients)
        self.metrics.record_batch(report)
        self.metrics.queue_texts.set(self.batcher.queued_texts)
        log.info("batch: %d texts from %d requests in %.3f s", report.texts, report.requests, report.seconds)

    # -- n-best (alternatives) -----------------------------------------------------------

    async def nbest(self, texts: list[str], n: int, target: str) -> list[list[str]]:
        """Up to ``n`` distinct translations of each text, best first (raises TooManyStreams
        when every slot is taken, TranslationCancelled when the server closes).

        A beam search per text (:meth:`Translator.alternatives`) cannot share the batcher's
        padded batch, so it runs on its own thread and takes one of the ``max_streams`` slots
        of unbatched generations, like a stream: a burst of n-best requests waits for no
        unbounded pool of threads."""
        if not self._stream_slots.acquire(blocking=False):
            raise TooManyStreams(f"{self.config.max_streams} unbatched generations are running")
        cancel = threading.Event()
        with self._streams_lock:
            self._nbest_cancels.add(cancel)
        future: concurrent.futures.Future = concurrent.futures.Future()
        threading.Thread(
            target=self._run_nbest, args=(texts, n, target, cancel, future), name="desktop-mt-nbest", daemon=True
        ).start()
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            self.metrics.cancelled.labels("nbest").inc()
            raise
        finally:  # also when the request is cancelled: the search stops within a decode step
            cancel.set()
            self.gate.wake()

    def _run_nbest(
        self, texts: list[str], n: int, target: str, cancel: threading.Event, future: concurrent.futures.Future
    ) -> None:
        """The n-best thread: every text in turn; the outcome goes to ``future`` once the
        slot is free again (a client's next request must not find it still taken)."""
        try:
            result, error = self._engine_nbest(texts, n, target, cancel), None
        except BaseException as exc:  # noqa: BLE001 - handed to the request, which maps it
            result, error = None, exc
        finally:
            with self._streams_lock:
                self._nbest_cancels.discard(cancel)
            self._stream_slots.release()
        try:
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)
        except concurrent.futures.InvalidStateError:  # cancelled: the client left
            pass

    def _engine_nbest(self, texts: list[str], n: int, target: str, cancel: threading.Event) -> list[list[str]]:
        translator, options = self.translator, self._script_options(target)
        started = time.perf_counter()
        out = []
        for text in texts:  # one engine turn per text
            with self.gate.turn(cancel):
                out.append([alt.text for alt in translator.alternatives(text, n, options, cancel=cancel)])
        tokens = sum(translator.tokenizer.count(text) for text in texts if text.strip())
        self.metrics.record_engine(tokens, time.perf_counter() - started)
        return out

    def _script_options(self, target: str):
        """Options that make the engine write ``target``'s script (None: the model's own).

        The engine converts whole segments itself (as for streams), so n-best texts that
        differ only in Simplified characters mapping to one Traditional form come out once."""
        if target == "zh-Hant":
            return dataclasses.replace(self.translator.options, script="traditional")
        return None

    # -- streaming ---------------------------------------------------------------------

    def open_stream(self, text: str, target: str) -> Stream:
        """Start generating ``text`` on its own thread (raises TooManyStreams)."""
        if not self._stream_slots.acquire(blocking=False):
            raise TooManyStreams(f"{self.config.max_streams} streams are running")
        stream = Stream(self, text, target)
        with self._streams_lock:
            self._streams.add(stream)
        stream.start()
        return stream

    def _stream_ended(self, stream: Stream) -> None:
        """Called by a stream's thread when its generation has returned."""
        with self._streams_lock:
            self._streams.discard(stream)
        self._stream_slots.release()


class Stream:
    """One ``translate_stream`` generation on a thread, read as an async iterator of
    ``(kind, payload)``: ``("delta", text)``, then ``("done", TranslationStats)`` or
    ``("error", message)``. :meth:`cancel` (called when the client leaves) sets the engine's
    cancel flag, which stops generation within one decode step."""

    def __init__(self, service: TranslationService, text: str, target: str) -> None:
        self._service, self._text, self._target = service, text, target
        self._cancel = threading.Event()
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue = asyncio.Queue()
        self.finished = threading.Event()  # the engine has returned (set by the thread)

    def start(self) -> None:
        threading.Thread(target=self._run, name="desktop-mt-stream", daemon=True).start()

    def cancel(self) -> None:
        """Stop the generation (within one decode step, or before its next engine turn)."""
        self._cancel.set()
        self._service.gate.wake()

    async def events(self) -> AsyncIterator[tuple[str, object]]:
        """The stream's events; ends after "done" or "error"."""
        while True:
            kind, payload = await self._queue.get()
            yield kind, payload
            if kind in ("done", "error"):
                return

    def _push(self, kind: str, payload) -> None:
        with contextlib.suppress(RuntimeError):  # the event loop is gone (server shut down): nobody listens
            self._loop.call_soon_threadsafe(self._queue.put_nowait, (kind, payload))

    def _run(self) -> None:
        service, metrics = self._service, self._service.metrics
        metrics.streams_active.inc()
        outcome, last = "failed", ("error", "the generation ended without a result")
        try:
            outcome, last = self._generate(service.translator, metrics)
        except Exception as exc:  # noqa: BLE001 - reported to the client as an SSE error
            log.warning("stream failed: %s", type(exc).__name__)
            last = ("error", f"Cannot translate text: {exc}")
        finally:
            metrics.streams_active.dec()
            metrics.streams.labels(outcome).inc()
            service._stream_ended(self)
            self.finished.set()
        # The last event after the slot is free: a client that starts its next stream as
        # soon as this one ends must not find the slot still taken.
        self._push(*last)

    def _generate(self, translator, metrics: Metrics) -> tuple[str, tuple[str, object]]:
        """The generation, turn by turn: its outcome and its last event (pushed by _run)."""
        # The engine converts a stream clause by clause (engine.script.StreamConverter):
        # converting each delta alone could split an OpenCC phrase and differ from the
        # batched result.
        options = self._service._script_options(self._target)
        events = translator.translate_stream(self._text, options, cancel=self._cancel)
        while True:
            try:
                with self._service.gate.turn(self._cancel):
                    outcome = self._slice(events, translator, metrics)
            except TurnCancelled:  # the client left while the stream waited for its turn
                events.close()
                return "cancelled", ("error", "cancelled")
            if outcome is not None:
                return outcome

    def _slice(self, events, translator, metrics: Metrics):
        """Steps of the generation during one engine turn: while nobody else waits for the
        engine, or for the stream's share (:meth:`TranslationService.stream_slice_s`).
        Returns the stream's outcome and last event once it has ended, else None."""
        gate, started = self._service.gate, time.perf_counter()
        share = self._service.stream_slice_s()
        while True:
            event = next(events, None)
            if event is None:
                return "failed", ("error", "the generation ended without a result")
            if isinstance(event, TextDelta):
                self._push("delta", event.text)
            elif isinstance(event, Finished):
                stats = event.stats
                metrics.output_tokens.inc(stats.tokens)
                metrics.record_engine(translator.tokenizer.count(self._text), stats.seconds)
                return ("cancelled" if stats.cancelled else "completed"), ("done", stats)
            if gate.waiting and time.perf_counter() - started >= share:
                return None
