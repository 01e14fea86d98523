"""The translation worker: a QObject moved to a QThread that owns the ``Translator``.

The UI thread never runs inference; it talks to the worker only through queued signals
(requests in, results out). Two things are *not* queued, on purpose:

- cancelling: every request carries a ``threading.Event`` that the controller sets
  directly from the UI thread. The engine checks it every decode step, so Stop and
  superseding take effect within one step even though the worker's event loop is busy.
- dropping stale output: every result is tagged with its request id and the controller
  ignores ids that are not current.

Token text is batched (first token at once, then at most one signal per ~30 ms) so a fast
decoder does not flood the UI event queue.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from desktop_mt import batch
from desktop_mt.app.factory import build_translator
from desktop_mt.base.errors import DesktopMTError, TranslationCancelled
from desktop_mt.batch.journal import journal_path
from desktop_mt.engine.direction import DIRECTIONS, ZH_EN, Direction, DirectionUnavailableError, sentence_direction
from desktop_mt.engine.events import Alternative, Finished, SegmentDone, StreamEvent, TextDelta, TranslationStats
from desktop_mt.engine.model_format import ModelInfo, inspect_model_dir
from desktop_mt.engine.options import GenerationOptions, SessionOptions
from desktop_mt.engine.protocols import TranslatorFace
from desktop_mt.models.installed import resolve_model
from desktop_mt.tm.incremental import Planned
from desktop_mt.tm.store import match_key

from ..features.alignment import SegmentSpan, SegmentTracker, utf16_len
from ..features.file_jobs import GatedProgress, InteractiveGate
from ..i18n import translate
from ..logsetup import log_exception
from ..messages import error_text, failure, job_summary
from ..ports import EngineConfig

__all__ = [
    "BATCH_SECONDS",
    "FileJob",
    "IncrementalPlan",
    "LoadedModels",
    "TranslationWorker",
    "chosen_models",
    "cursor_sentence",
    "default_translator_factory",
    "output_gap",
]


_logger = logging.getLogger(__name__)

BATCH_SECONDS = 0.030


def default_translator_factory(config: EngineConfig) -> TranslatorFace:
    """Build the real engine: a two-way translator (``app.factory.build_translator``), so
    English->Chinese and Chinese->English both work when their models are installed or bundled.
    ``config.model_dir`` is the model chosen for its own direction; the other direction gets
    its active (else bundled) model. The factory loads ORT when it opens a model, so tests with a
    fake never load it."""
    return build_translator(
        chosen_models(config.model_dir),
        variant=config.variant,
        session_options=SessionOptions(
            intra_op_threads=config.intra_op_threads, inter_op_threads=config.inter_op_threads
        ),
    )


def chosen_models(model_dir: str | None) -> dict[Direction, str] | list[str] | None:
    """What ``build_translator`` gets for a chosen folder: ``{its direction: folder}`` (the other
    direction keeps its default), ``[folder]`` for a model that is not English<->Chinese (the
    factory then says why it cannot be used), None for the defaults."""
    if not model_dir:
        return None
    own = inspect_model_dir(resolve_model(model_dir)).direction
    return {own: model_dir} if own else [model_dir]


@dataclasses.dataclass(frozen=True)
class LoadedModels:
    """What the worker's ``loaded`` signal carries: the model of each direction the new translator
    has (``models``: ``{"en-zh": ModelInfo, "zh-en": ModelInfo}``, "en-zh" first), the directions
    it has none for with the catalog model that would translate them (``missing``: "" when the
    catalog has none) and the variant both run."""

    models: dict[Direction, ModelInfo]
    variant: str
    missing: dict[Direction, str] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, translator: TranslatorFace) -> LoadedModels:
        """A translator's models by direction (a stand-in: its one model, of its direction)."""
        return cls(dict(translator.model_infos), str(translator.variant), dict(translator.missing))

    @property
    def directions(self) -> tuple[Direction, ...]:
        """The directions to show: those with a model and those named missing, "en-zh" first."""
        return tuple(d for d in DIRECTIONS if d in self.models or d in self.missing)

    @property
    def primary(self) -> ModelInfo:
        """The English->Chinese model, else the other: what the app called "the model" before
        it translated both ways (``modelLoaded``, the history's model name)."""
        return next(iter(self.models.values()))


class TranslationWorker(QObject):
    """Owns the Translator; runs loads and translations one at a time in its thread."""

    loadStarted = Signal(str)  # description
    loaded = Signal(LoadedModels)  # each direction's model, the missing ones, the variant
    loadFailed = Signal(str)  # actionable message
    started = Signal(int)  # request id
    delta = Signal(int, str)  # request id, batched text
    # object: TranslationStats, or None when skipped/failed (a typed payload would claim None away)
    finished = Signal(int, object)  # request id, TranslationStats or None (skipped/failed)
    failed = Signal(int, str)  # request id, actionable message
    unavailable = Signal(int, str)  # id, DirectionUnavailableError's message (which model to get); failed follows
    fileProgress = Signal(int, int, float)  # segments done, total, segments per second
    fileFinished = Signal(str, str)  # output path, summary ("202 segments, 1 kept as they were...")
    fileFailed = Signal(str)  # actionable message
    fileCancelled = Signal(str)  # stopped by its Event; no output written; the journal path
    fileResumed = Signal(str)  # ResumeReport text: segments recovered, or why it starts over
    segmentDone = Signal(int, SegmentSpan)  # request id, alignment.SegmentSpan (after its text's delta)
    # object: a list[Alternative] or a message (str); a Qt list type would convert the elements
    alternativesReady = Signal(int, object)  # id, list[Alternative] ([]: cancelled) or a message (str)
    completionDelta = Signal(int, str)  # completion request id, more of the completion's text
    completionDone = Signal(int, str)  # completion request id, "" (complete or cancelled) or a message

    def __init__(
        self, factory: Callable[[EngineConfig], TranslatorFace] | None = None, batch_seconds: float = BATCH_SECONDS
    ) -> None:
        super().__init__()
        self._factory = factory or default_translator_factory
        self._batch_seconds = batch_seconds
        self._translator: TranslatorFace | None = None
        self._load_error = translate("Worker", "No model is loaded yet.")

    @property
    def translator(self) -> TranslatorFace | None:
        """The current Translator (None before the first successful load)."""
        return self._translator

    @Slot(object)
    def load(self, config: EngineConfig) -> None:
        """Build a Translator for ``config``; on failure keep the previous one working."""
        self.loadStarted.emit(config.describe())
        try:
            new = self._factory(config)
        except DesktopMTError as exc:
            self._report_load_failure(str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - the app must survive any engine bug
            log_exception("model load", exc)
            self._report_load_failure(failure(translate("Worker", "Could not load the model"), exc))
            return
        old, self._translator = self._translator, new
        self._close(old)
        self.loaded.emit(LoadedModels.of(new))

    def _report_load_failure(self, message: str) -> None:
        if self._translator is not None:
            message += "\n\n" + translate("Worker", "The previously loaded model is still in use.")
        else:
            self._load_error = message
        self.loadFailed.emit(message)

    @Slot(int, str, object, object)
    def translate(self, req_id: int, text: str, options: GenerationOptions, cancel: threading.Event) -> None:
        """Stream one request. Always ends with ``finished`` (or ``failed``) for ``req_id``."""
        if cancel.is_set():  # superseded while queued: skip without touching the engine
            self.finished.emit(req_id, None)
            return
        translator = self._translator
        if translator is None:
            self.failed.emit(req_id, translate("Worker", "Cannot translate: {why}").format(why=self._load_error))
            return
        self._run(req_id, lambda: self._stream(translator, req_id, text, options, cancel), cancel)

    def _run(self, req_id: int, work: Callable[[], TranslationStats | None], cancel: threading.Event) -> None:
        """One translation request: ``started``, then ``work()`` (streaming its text), then
        ``finished`` with its stats (None when cancelled), or ``failed`` on an error. An error
        raised once the user pressed Stop is logged, not shown: the run ends as stopped."""
        self.started.emit(req_id)
        stats: TranslationStats | None
        try:
            stats = work()
        except TranslationCancelled:
            stats = None
        except Exception as exc:  # noqa: BLE001 - see _failed: shown, or logged after a Stop
            if not cancel.is_set():
                self._failed(req_id, exc)
                return
            log_exception("a stopped translation, as it ended", exc)
            stats = None
        if stats is not None:  # figures only, never text: a user's run can be timed from the log
            _logger.info(
                "request %d: %d segments in %.2f s, first text after %.0f ms%s",
                req_id,
                stats.segments,
                stats.seconds,
                (stats.first_token_seconds or 0.0) * 1000,
                " (stopped)" if stats.cancelled else "",
            )
        self.finished.emit(req_id, stats)

    def _failed(self, req_id: int, exc: Exception) -> None:
        """Say why request ``req_id`` failed (``failed``; ``unavailable`` first for a missing
        direction); a bug also goes to the log with its traceback."""
        if isinstance(exc, DirectionUnavailableError):
            # First the specific signal (the window's banner ends its request there), then
            # failed as for any error (the popup and translate-and-replace show it).
            self.unavailable.emit(req_id, error_text(exc))
            self.failed.emit(req_id, error_text(exc))
        elif isinstance(exc, DesktopMTError):
            self.failed.emit(req_id, str(exc))
        else:  # a bug: the app stays up and the log has it
            log_exception("translation", exc)
            self.failed.emit(req_id, failure(translate("Worker", "Translation failed"), exc))

    def _stream(
        self, translator: TranslatorFace, req_id: int, text: str, options: GenerationOptions, cancel: threading.Event
    ) -> TranslationStats | None:
        """Run ``translate_stream``, emitting batched deltas; returns the Finished stats."""
        buf: list[str] = []
        last_emit = 0.0  # 0 -> the first token goes out at once (time to first token)
        stats: TranslationStats | None = None
        tracker = SegmentTracker()  # where each sentence's translation sits (sentence alignment)
        events = translator.translate_stream(text, options=options, cancel=cancel, look_ahead=True)
        try:
            for event in events:
                span = tracker.feed(event)
                if isinstance(event, TextDelta):
                    buf.append(event.text)
                elif isinstance(event, Finished):
                    stats = event.stats
                now = time.monotonic()
                # Flush at segment ends too, so a slow next segment does not hold text back.
                if buf and (now - last_emit >= self._batch_seconds or isinstance(event, SegmentDone)):
                    self.delta.emit(req_id, "".join(buf))
                    buf.clear()
                    last_emit = now
                if span is not None:
                    self.segmentDone.emit(req_id, span)
                if cancel.is_set():
                    # Nothing more is shown, but the stream is read to its end: the engine
                    # stops at its next decode step and ends with the Finished whose figures the
                    # status bar shows after Stop (breaking here lost them whenever Stop came
                    # between two events rather than during a decode step).
                    stats = _stats_at_end(events) or stats
                    break
        finally:
            events.close()
        if buf:
            self.delta.emit(req_id, "".join(buf))
        return stats

    @Slot(int, str, object, object, object)
    def translate_plan(
        self, req_id: int, text: str, plan: IncrementalPlan, options: GenerationOptions, cancel: threading.Event
    ) -> None:
        """Sentence-level incremental translation of ``text`` (post-editing): ``plan.sentences``
        is ``tm.incremental.plan_update``'s list; a sentence whose translation is kept (the user's
        edit, an unchanged sentence) or comes from the memory is shown as it is, only the others
        go to the model (``translate_each``: the one at ``plan.cursor`` decoded alone, the others
        in batches). The same signals as :meth:`translate`, one ``segmentDone`` per planned
        sentence (its origin and edit mark with it), in order."""
        if cancel.is_set():
            self.finished.emit(req_id, None)
            return
        if self._translator is None and any(p.needs_model for p in plan.sentences):
            self.failed.emit(req_id, translate("Worker", "Cannot translate: {why}").format(why=self._load_error))
            return
        stream = _PlanStream(self, self._translator, req_id, options, cancel)
        self._run(req_id, lambda: stream.run(text, plan), cancel)

    @Slot(int, str, str, object, object)
    def complete(
        self, req_id: int, sentence: str, prefix: str, options: GenerationOptions, cancel: threading.Event
    ) -> None:
        """Stream the model's completion of ``sentence``'s translation from the typed ``prefix``
        (``prefix=``, engine.prefix). Always ends with ``completionDone``."""
        message = ""
        if cancel.is_set():
            pass
        elif self._translator is None:
            message = translate("Worker", "Cannot complete: {why}").format(why=self._load_error)
        else:
            try:
                self._complete(
                    self._translator.translate_stream(sentence, options, cancel, prefix=prefix), req_id, cancel
                )
            except TranslationCancelled:
                pass
            except DesktopMTError as exc:  # engine.direction.NotTranslatedError: e.g. a Japanese sentence
                message = error_text(exc)
            except Exception as exc:  # noqa: BLE001 - never let a worker exception kill the app
                log_exception("completion", exc)
                message = failure(translate("Worker", "Completion failed"), exc)
        self.completionDone.emit(req_id, message)

    def _complete(self, events: Generator[StreamEvent, None, None], req_id: int, cancel: threading.Event) -> None:
        """Emit a completion stream's text (the face routes ``prefix=`` to the sentence's direction)."""
        try:
            for event in events:
                if cancel.is_set():
                    break
                if isinstance(event, TextDelta) and event.text:
                    self.completionDelta.emit(req_id, event.text)
        finally:
            events.close()

    @Slot(int, str, str, int, object, object)
    def alternatives_from(
        self, req_id: int, sentence: str, prefix: str, n: int, options: GenerationOptions, cancel: threading.Event
    ) -> None:
        """The ``n`` best continuations of ``sentence``'s translation after ``prefix`` (a clicked
        word: the text before it); ends with ``alternativesReady``."""
        self._alternatives(
            req_id, cancel, lambda translator: translator.alternatives(sentence, n, options, cancel, prefix=prefix)
        )

    @Slot(int, str, int, object, object)
    def alternatives(
        self, req_id: int, sentence: str, n: int, options: GenerationOptions, cancel: threading.Event
    ) -> None:
        """The ``n`` best translations of one sentence (the Alternatives menu); always ends
        with ``alternativesReady``."""
        self._alternatives(req_id, cancel, lambda translator: translator.alternatives(sentence, n, options, cancel))

    def _alternatives(
        self, req_id: int, cancel: threading.Event, run: Callable[[TranslatorFace], list[Alternative]]
    ) -> None:
        """Emit ``alternativesReady`` with ``run``'s alternatives, [] when cancelled, or a message."""
        result: list[Alternative] | str = []
        if cancel.is_set():
            pass
        elif self._translator is None:
            result = translate("Worker", "Cannot translate: {why}").format(why=self._load_error)
        else:
            try:
                result = list(run(self._translator))
            except TranslationCancelled:
                result = []
            except DesktopMTError as exc:
                result = error_text(exc)
            except Exception as exc:  # noqa: BLE001 - never let a worker exception kill the app
                log_exception("alternatives", exc)
                result = failure(translate("Worker", "Alternatives failed"), exc)
        self.alternativesReady.emit(req_id, result)

    @Slot(object)
    def translate_file(self, job: FileJob) -> None:
        """Run a batch file job with the owned Translator. Ends with
        fileFinished, fileFailed or fileCancelled (whose journal keeps what was done)."""
        if self._translator is None:
            self.fileFailed.emit(translate("Worker", "Cannot translate the file: {why}").format(why=self._load_error))
            return
        progress = GatedProgress(job.gate, job.cancel, _ProgressRate(self.fileProgress.emit))
        on_resume = (lambda report: self.fileResumed.emit(str(report))) if job.resume else None
        summaries: list[batch.JobSummary] = []
        try:
            out = batch.translate_file(
                Path(job.src),
                Path(job.dst) if job.dst else None,
                self._translator,
                options=job.options,
                progress=progress,
                cancel=job.cancel,
                resume=job.resume,
                on_resume=on_resume,
                bilingual=job.bilingual,
                on_summary=summaries.append,
                opened=job.opened,
            )
        except TranslationCancelled:
            self.fileCancelled.emit(str(journal_path(Path(job.dst))) if job.dst else "")
            return
        except (DesktopMTError, OSError) as exc:
            self.fileFailed.emit(error_text(exc))
            return
        except Exception as exc:  # noqa: BLE001 - never let a job exception kill the app
            log_exception("file translation", exc)
            self.fileFailed.emit(failure(translate("Worker", "File translation failed"), exc))
            return
        self.fileFinished.emit(str(out), job_summary(summaries[-1]) if summaries else "")

    @staticmethod
    def _close(translator: TranslatorFace | None) -> None:
        if translator is None:
            return
        try:
            translator.close()
        except Exception as exc:  # noqa: BLE001 - closing must not break a reload
            log_exception("translator close", exc)

    @Slot()
    def close(self) -> None:
        """Release the Translator. Call from the worker thread or after it has stopped
        (the file-job worker gets it queued after each job, to give the memory back)."""
        self._close(self._translator)
        self._translator = None


@dataclasses.dataclass(frozen=True)
class IncrementalPlan:
    """What :meth:`TranslationWorker.translate_plan` translates: ``tm.incremental.Planned``
    sentences, and the machine's translations of the edited ones kept (by ``tm.match_key`` of
    their source), so the memory and the history can still compare them. ``cursor``: where the
    source editor's cursor is in the text (characters), None when not known: the sentence there
    is the one decoded alone (token by token) while the others go in batches."""

    sentences: list[Planned]
    machine: dict[str, str] = dataclasses.field(default_factory=dict)
    cursor: int | None = None

    @property
    def to_model(self) -> int:
        """How many sentences go to the model."""
        return sum(1 for p in self.sentences if p.needs_model)


class _PlanStream:
    """One incremental request (:meth:`TranslationWorker.translate_plan`): its output position,
    batched deltas and the spans of its sentences. The sentences that go to the model are one
    ``translate_each`` (the sentence at the cursor decoded alone, the others in batches), each
    stream read, in order, when its sentence's turn comes."""

    def __init__(
        self,
        worker: TranslationWorker,
        translator: TranslatorFace | None,
        req_id: int,
        options: GenerationOptions,
        cancel: threading.Event,
    ) -> None:
        self.worker, self.translator, self.req_id, self.options, self.cancel = (
            worker,
            translator,
            req_id,
            options,
            cancel,
        )
        self.position = 0  # UTF-16 units written so far
        self.buf: list[str] = []
        self.last_emit = 0.0
        self.started = time.perf_counter()
        self.first: float | None = None
        self.tokens = 0

    def _write(self, text: str, flush: bool = False) -> None:
        if not text:
            return
        if self.first is None:
            self.first = time.perf_counter() - self.started
        self.buf.append(text)
        self.position += utf16_len(text)
        now = time.monotonic()
        if flush or now - self.last_emit >= self.worker._batch_seconds:
            self.flush()
            self.last_emit = now

    def flush(self) -> None:
        if self.buf:
            self.worker.delta.emit(self.req_id, "".join(self.buf))
            self.buf.clear()

    def run(self, text: str, incremental: IncrementalPlan) -> TranslationStats:
        plan = incremental.sentences
        model = [p for p in plan if p.needs_model]
        streams: Iterator[Generator[StreamEvent, None, None]] = iter(())
        if model and self.translator is not None:
            alone = cursor_sentence(text, plan, incremental.cursor)
            streams = self.translator.translate_each([p.source for p in model], self.options, self.cancel, alone)
        try:
            return self._run(text, incremental, streams)
        finally:
            close = getattr(streams, "close", None)  # a generator: its batch stops at once
            if close is not None:
                close()

    def _run(
        self, text: str, incremental: IncrementalPlan, streams: Iterator[Generator[StreamEvent, None, None]]
    ) -> TranslationStats:
        plan = incremental.sentences
        self._write(text[: len(text) - len(text.lstrip())])  # the text's leading blank lines
        done, cancelled = 0, False
        for index, planned in enumerate(plan):
            if self.cancel.is_set():
                cancelled = True
                break
            start = self.position
            if planned.translation is None:
                translation = self._translate(next(streams))
                if translation is None:
                    cancelled = True
                    break
            else:
                translation = planned.translation
                self._write(translation)
            core = translation.strip()
            lead = utf16_len(translation) - utf16_len(translation.lstrip())
            span = SegmentSpan(
                index,
                planned.source,
                core,
                start + lead,
                start + lead + utf16_len(core),
                planned.origin,
                planned.edited,
                incremental.machine.get(match_key(planned.source), "") if planned.edited else "",
                planned.suggestion,
            )
            self.flush()
            self.worker.segmentDone.emit(self.req_id, span)
            done += 1
            following = plan[index + 1] if index + 1 < len(plan) else None
            self._write(output_gap(planned.source, planned.gap, following is not None, self.options))
        self.flush()
        return TranslationStats(done, self.tokens, time.perf_counter() - self.started, self.first, cancelled)

    def _translate(self, events: Generator[StreamEvent, None, None]) -> str | None:
        """Stream one sentence's translation; None when cancelled."""
        out: list[str] = []
        stats = None
        try:
            for event in events:
                if isinstance(event, TextDelta):
                    out.append(event.text)
                    self._write(event.text)
                elif isinstance(event, Finished):
                    stats = event.stats
                if self.cancel.is_set():
                    return None
        finally:
            events.close()
        if stats is not None:
            self.tokens += stats.tokens
            if stats.cancelled:
                return None
        return "".join(out)


def cursor_sentence(text: str, plan: list[Planned], cursor: int | None) -> int:
    """Which of the plan's sentences that go to the model holds the source cursor (counted
    among those sentences): the first when the cursor is elsewhere or not known. The plan's
    sources and gaps follow one another after the text's leading blanks (``tm.incremental``)."""
    if cursor is None:
        return 0
    at, model = len(text) - len(text.lstrip()), 0
    for planned in plan:
        end = at + len(planned.source) + len(planned.gap)
        if planned.translation is None:
            if at <= cursor <= end:
                return model
            model += 1
        at = end
    return 0


def _stats_at_end(events: Iterator[object]) -> TranslationStats | None:
    """The stats of a cancelled stream's ``Finished`` (the rest of its events are dropped; an
    error raised meanwhile goes to ``TranslationWorker._run``, which logs it)."""
    stats = None
    for event in events:
        if isinstance(event, Finished):
            stats = event.stats
    return stats


def output_gap(source: str, gap: str, more: bool, options: GenerationOptions | None) -> str:
    """What follows a sentence's translation: the source's line breaks (and the indentation of
    the next line) as they are; between sentences of a line, a space when the translation is
    English and nothing when it is Chinese (which writes no space between sentences)."""
    if "\n" in gap:
        return gap
    if not more:
        return gap
    target = options.target if options is not None else "auto"
    way = sentence_direction(source, target)
    if way is None:
        return gap
    return " " if way == ZH_EN else ""


@dataclasses.dataclass
class FileJob:
    """One "Translate file" request: ``dst`` None is the batch layer's default name;
    ``resume`` continues from its journal; ``gate`` lets typing pre-empt the job; ``opened``:
    the file as it was parsed to name the output (``app.jobs.plan_output``), translated
    without parsing it again (None: the job reads and parses it)."""

    src: str
    dst: str | None
    options: GenerationOptions
    cancel: threading.Event
    resume: bool = False
    gate: InteractiveGate | None = None
    bilingual: bool = False  # View > Bilingual: the source stays, its translation follows
    opened: batch.OpenedFile | None = None


class _ProgressRate:
    """A ``progress(done, total)`` callback that adds segments/s and emits only when the
    counts change. Not time-throttled: the engine reports a chunk's lines in one burst
    after decoding it, so holding counts back would leave the bar stale for a whole chunk."""

    def __init__(self, emit: Callable[[int, int, float], None]) -> None:
        self._emit = emit
        self._t0 = time.monotonic()
        self._start: int | None = None  # journal-recovered segments do not count as speed
        self._sent: tuple[int, int] | None = None

    def __call__(self, done: int, total: int) -> None:
        if self._start is None:
            self._start = done
        if (done, total) == self._sent:
            return
        elapsed = time.monotonic() - self._t0
        rate = (done - self._start) / elapsed if elapsed > 0 else 0.0
        self._sent = (done, total)
        self._emit(done, total, rate)
