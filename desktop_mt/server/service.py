"""The engine side of the server: one two-way translator, the batcher, streams, n-best
searches (``alternatives``), the optional translation memory and their metrics.

No FastAPI here; :mod:`desktop_mt.server.app` turns HTTP requests into calls of
:class:`TranslationService` and its results back into each API's JSON.

Every engine call gets the request's :class:`~.languages.Target` as options (the engine's
``target`` and ``script``): the engine routes each sentence to the model of its direction and
writes Traditional Chinese itself, for batches, streams and n-best searches alike.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import AsyncIterator, Generator, Hashable

from ..base.errors import DesktopMTError
from ..engine import script
from ..engine.events import Finished, StreamEvent, TextDelta
from ..engine.options import GenerationOptions
from ..engine.protocols import Translation, TranslatorFace
from ..tm.apply import MemoryTranslator
from ..tm.store import TranslationMemory
from .batching import Batcher, BatchReport
from .config import ServerConfig
from .gate import FairGate, TurnCancelled
from .languages import LanguageTable, Target
from .memory import record_answers
from .metrics import Metrics

__all__ = [
    "SHUTTING_DOWN",
    "ServedTranslator",
    "Answer",
    "TooManyStreams",
    "TranslationService",
    "Stream",
]

_logger = logging.getLogger("desktop_mt.server")
SHUTTING_DOWN = "the server is shutting down"


ServedTranslator = TranslatorFace  # what the server uses of a translator: the front ends' one face


class Answer(str):
    """A batched translation (a ``str``, as the batcher and every API hold it) that also says
    how many of its sentences the translation memory gave (``from_memory``) and whether the
    model gave any of it (``to_model``): the per-text fact the routes flag in their responses
    (``server.memory``: the ``X-Desktop-MT-Memory`` header, LibreTranslate's ``fromMemory``).
    A translation without a memory is a plain ``str``."""

    from_memory: int
    to_model: bool

    @classmethod
    def of(cls, item: Translation, script_name: script.Script) -> Answer:
        """``item``'s text in ``script_name``, with its memory facts."""
        answer = cls(script.convert(item.text, script_name))
        answer.from_memory, answer.to_model = item.from_memory, item.to_model
        return answer


class TooManyStreams(DesktopMTError):
    """Every stream slot is taken; retry after a moment."""


class TranslationService:
    """Translations for the HTTP layer: batched (``translate``) or streamed (``stream``)."""

    def __init__(
        self,
        translator: TranslatorFace,
        config: ServerConfig,
        memory: TranslationMemory | None = None,
        confirmed_only: bool = False,
    ) -> None:
        self.translator = translator
        self.config = config
        self.metrics = Metrics()
        self.languages = LanguageTable.for_directions(self.translator.directions, self.translator.missing)
        # --tm: batched translations take the memory's exact matches (tm.apply.MemoryTranslator);
        # confirmed_only (the app's Local API, as its file jobs): approved or imported ones only.
        self._memory = (
            MemoryTranslator(self.translator, memory, confirmed_only=confirmed_only) if memory is not None else None
        )
        self._stream_slots = threading.BoundedSemaphore(config.max_streams)
        self._streams: set[Stream] = set()  # running, for close()
        self._streams_lock = threading.Lock()
        self._nbest_cancels: set[threading.Event] = set()  # running n-best searches, for close()
        self.gate = FairGate()  # engine turns shared by the batcher, streams and searches
        self.draining = False  # drain() was called: no new engine work
        self._interrupt_timer: asyncio.TimerHandle | None = None
        self._batch_share_s = 0.0  # engine seconds per batched request of the last call
        self.batcher = Batcher(
            self._engine_batch,
            max_batch=config.max_batch,
            window_s=config.batch_window_ms / 1000,
            queue_size=config.queue_size,
            on_batch=self._record_batch,
        )

    def drain(self) -> None:
        """Graceful shutdown begins (on the event loop; called again: nothing more). Requests
        still waiting for an engine call, and any new work, get 503; the running engine call,
        the streams and the searches get ``config.drain_s`` seconds to finish, then
        :meth:`interrupt` stops them."""
        if self.draining:
            return
        self.draining = True
        self.batcher.drain()
        _logger.info("shutting down: running work has %g s to finish", self.config.drain_s)
        self._interrupt_timer = asyncio.get_running_loop().call_later(self.config.drain_s, self.interrupt)

    def interrupt(self) -> None:
        """The drain time is over: cancel the running engine call (its requests get 503), every
        search (503) and every stream (it ends with its API's error event), each within one
        decode step. Does not wait for them."""
        self.draining = True
        self.batcher.close(timeout=0)
        with self._streams_lock:
            streams = list(self._streams)
            searches = list(self._nbest_cancels)
        for cancel in searches:  # each raises TranslationCancelled within one decode step
            cancel.set()
        for stream in streams:
            stream.interrupt(SHUTTING_DOWN)
        self.gate.wake()

    def close(self, timeout: float = 5.0) -> None:
        """Stop: cancel the running engine call and every stream, then release the model."""
        if self._interrupt_timer is not None:
            self._interrupt_timer.cancel()
        with self._streams_lock:
            streams = list(self._streams)
        self.interrupt()
        self.batcher.close(timeout)
        for stream in streams:  # each stops within one decode step; then no session is in use
            stream.finished.wait(timeout)
        self.translator.close()

    # -- batched translation -------------------------------------------------------------

    @property
    def memory_enabled(self) -> bool:
        """Whether batched translations use a translation memory (``--tm``)."""
        return self._memory is not None

    def options(self, target: Target) -> GenerationOptions:
        """The engine's options for ``target``: its language and script."""
        return dataclasses.replace(self.translator.options, target=target.language, script=target.script)

    def count_tokens(self, text: str) -> int:
        """Source tokens of ``text`` for the metrics (``TranslatorFace.count_tokens``: the
        tokenizer of the model that reads most of it)."""
        return self.translator.count_tokens(text)

    async def translate(self, texts: list[str], target: Target) -> list[str]:
        """Translations of ``texts`` (raises QueueFull, BatcherClosed, engine errors).

        Cancelling the awaiting task (the client left) cancels the request in the batcher:
        its waiting texts leave the queue and a call that only it still wants stops."""
        ticket = self.batcher.submit(texts, key=target)
        self.metrics.queue_texts.set(self.batcher.queued_texts)
        try:
            results = await asyncio.wrap_future(ticket.future)
            if self._memory is not None:  # the request's X-Desktop-MT-Memory header (server.memory)
                record_answers(results)
            return results
        except asyncio.CancelledError:
            ticket.cancel()
            self.metrics.cancelled.labels("batched").inc()
            raise

    def _engine_batch(self, texts: list[str], cancel: threading.Event, key: Hashable) -> list[str]:
        """The batcher's engine call (batcher thread): texts of one target (``key``)."""
        assert isinstance(key, Target)
        options = self.options(key)
        self.metrics.batch_running.set(1)
        started = time.perf_counter()
        try:
            with self.gate.turn(cancel):
                if self._memory is None:
                    results = self.translator.translate_batch(texts, options, cancel)
                else:
                    results = self._translate_with_memory(self._memory, texts, options, cancel)
        finally:
            self.metrics.batch_running.set(0)
        tokens = sum(self.count_tokens(text) for text in texts)
        self.metrics.record_engine(tokens, time.perf_counter() - started)
        return results

    def _translate_with_memory(
        self, memory: MemoryTranslator, texts: list[str], options: GenerationOptions, cancel: threading.Event
    ) -> list[str]:
        """``texts`` with the memory's exact matches (never sent to the model; counted), each a
        :class:`Answer` that says how much of it the memory gave. The memory holds Simplified
        Chinese: for a Traditional target the whole line, memory and model parts alike, is
        converted once at the end, by the engine's own final step (``engine.script.convert``,
        what ``translate_batch`` does to its results)."""
        before = dataclasses.replace(memory.counts)
        simplified = dataclasses.replace(options, script=script.SIMPLIFIED)
        results = [Answer.of(item, options.script) for item in memory.translate_items(texts, simplified, cancel)]
        self.metrics.memory_sentences.inc(memory.counts.from_memory - before.from_memory)
        self.metrics.memory_model_texts.inc(memory.counts.to_model - before.to_model)
        self.metrics.memory_terms_missing.inc(memory.counts.terms_missing - before.terms_missing)
        return list(results)

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
        _logger.info("batch: %d texts from %d requests in %.3f s", report.texts, report.requests, report.seconds)

    # -- n-best (alternatives) -----------------------------------------------------------

    async def nbest(self, texts: list[str], n: int, target: Target) -> list[list[str]]:
        """Up to ``n`` distinct translations of each text, best first (raises TooManyStreams
        when every slot is taken, TranslationCancelled when the server closes).

        A beam search per text (:meth:`Translator.alternatives`) cannot share the batcher's
        padded batch, so it runs on its own thread and takes one of the ``max_streams`` slots
        of unbatched generations, like a stream: a burst of n-best requests waits for no
        unbounded pool of threads."""
        if self.draining:
            raise TooManyStreams(SHUTTING_DOWN)
        if not self._stream_slots.acquire(blocking=False):
            raise TooManyStreams(f"{self.config.max_streams} unbatched generations are running")
        cancel = threading.Event()
        with self._streams_lock:
            self._nbest_cancels.add(cancel)
        future: concurrent.futures.Future[list[list[str]]] = concurrent.futures.Future()
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
        self,
        texts: list[str],
        n: int,
        target: Target,
        cancel: threading.Event,
        future: concurrent.futures.Future[list[list[str]]],
    ) -> None:
        """The n-best thread: every text in turn; the outcome goes to ``future`` once the
        slot is free again (a client's next request must not find it still taken)."""
        result: list[list[str]] = []
        error: BaseException | None = None
        try:
            result = self._engine_nbest(texts, n, target, cancel)
        except BaseException as exc:  # noqa: BLE001 - handed to the request, which maps it
            error = exc
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

    def _engine_nbest(self, texts: list[str], n: int, target: Target, cancel: threading.Event) -> list[list[str]]:
        # The engine converts whole segments to Traditional itself, so n-best texts that differ
        # only in Simplified characters mapping to one Traditional form come out once.
        translator, options = self.translator, self.options(target)
        started = time.perf_counter()
        out = []
        for text in texts:  # one engine turn per text
            with self.gate.turn(cancel):
                out.append([alt.text for alt in translator.alternatives(text, n, options, cancel=cancel)])
        tokens = sum(self.count_tokens(text) for text in texts)
        self.metrics.record_engine(tokens, time.perf_counter() - started)
        return out

    # -- streaming ---------------------------------------------------------------------

    def open_stream(self, text: str, target: Target) -> Stream:
        """Start generating ``text`` on its own thread (raises TooManyStreams)."""
        if self.draining:
            raise TooManyStreams(SHUTTING_DOWN)
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

    def __init__(self, service: TranslationService, text: str, target: Target) -> None:
        self._service, self._text, self._target = service, text, target
        self._cancel = threading.Event()
        self._reason: str | None = None  # interrupt(): the error event the stream ends with
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[tuple[str, object]] = asyncio.Queue()
        self.finished = threading.Event()  # the engine has returned (set by the thread)

    def start(self) -> None:
        threading.Thread(target=self._run, name="desktop-mt-stream", daemon=True).start()

    def cancel(self) -> None:
        """Stop the generation (within one decode step, or before its next engine turn)."""
        self._cancel.set()
        self._service.gate.wake()

    def interrupt(self, reason: str) -> None:
        """Stop the generation, ending the stream with ``("error", reason)`` (not "done" with
        the text so far: a client would take a cut translation for a whole one)."""
        self._reason = reason
        self.cancel()

    async def events(self) -> AsyncIterator[tuple[str, object]]:
        """The stream's events; ends after "done" or "error"."""
        while True:
            kind, payload = await self._queue.get()
            yield kind, payload
            if kind in ("done", "error"):
                return

    def _push(self, kind: str, payload: object) -> None:
        with contextlib.suppress(RuntimeError):  # the event loop is gone (server shut down): nobody listens
            self._loop.call_soon_threadsafe(self._queue.put_nowait, (kind, payload))

    def _run(self) -> None:
        service, metrics = self._service, self._service.metrics
        metrics.streams_active.inc()
        outcome = "failed"
        last: tuple[str, object] = ("error", "the generation ended without a result")
        try:
            outcome, last = self._generate(metrics)
        except Exception as exc:  # noqa: BLE001 - reported to the client as an SSE error
            _logger.warning("stream failed: %s", type(exc).__name__)
            last = ("error", f"Cannot translate text: {exc}")
        finally:
            if self._reason is not None:
                outcome, last = "cancelled", ("error", self._reason)
            metrics.streams_active.dec()
            metrics.streams.labels(outcome).inc()
            service._stream_ended(self)
            self.finished.set()
        # The last event after the slot is free: a client that starts its next stream as
        # soon as this one ends must not find the slot still taken.
        self._push(*last)

    def _generate(self, metrics: Metrics) -> tuple[str, tuple[str, object]]:
        """The generation, turn by turn: its outcome and its last event (pushed by _run)."""
        # The engine converts a stream clause by clause (engine.script.StreamConverter):
        # converting each delta alone could split an OpenCC phrase and differ from the
        # batched result.
        options = self._service.options(self._target)
        events = self._service.translator.translate_stream(self._text, options, cancel=self._cancel)
        while True:
            try:
                with self._service.gate.turn(self._cancel):
                    outcome = self._slice(events, metrics)
            except TurnCancelled:  # the client left while the stream waited for its turn
                events.close()
                return "cancelled", ("error", "cancelled")
            if outcome is not None:
                return outcome

    def _slice(
        self, events: Generator[StreamEvent, None, None], metrics: Metrics
    ) -> tuple[str, tuple[str, object]] | None:
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
                metrics.record_engine(self._service.count_tokens(self._text), stats.seconds)
                return ("cancelled" if stats.cancelled else "completed"), ("done", stats)
            if gate.waiting and time.perf_counter() - started >= share:
                return None
