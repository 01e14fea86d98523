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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from desktop_mt.engine.direction import DirectionUnavailableError
from desktop_mt.engine.events import Finished, SegmentDone, TextDelta
from desktop_mt.errors import DesktopMTError, TranslationCancelled

from .alignment import SegmentTracker
from .logsetup import log_exception

log = logging.getLogger(__name__)

BATCH_SECONDS = 0.030


@dataclasses.dataclass(frozen=True)
class EngineConfig:
    """What a Translator is built from. ``model_dir`` None is the bundled model."""

    model_dir: str | None = None
    variant: str = "int8"
    intra_op_threads: int = 0
    inter_op_threads: int = 1

    def describe(self) -> str:
        """Short text for the status bar while loading."""
        name = self.model_dir.rstrip("/\\").rsplit("/", 1)[-1] if self.model_dir else "default models"
        return f"{name} ({self.variant})"


def default_translator_factory(config: EngineConfig) -> Any:
    """Build the real engine: a two-way translator (``models.factory.build_translator``), so
    English->Chinese and Chinese->English both work when their models are installed or bundled.
    ``config.model_dir`` is the model chosen for its own direction; the other direction gets
    its active (else bundled) model. Imported here so tests with a fake never load ORT."""
    from desktop_mt.engine.options import SessionOptions
    from desktop_mt.models.factory import build_translator

    return build_translator(
        chosen_models(config.model_dir),
        variant=config.variant,
        session_options=SessionOptions(
            intra_op_threads=config.intra_op_threads, inter_op_threads=config.inter_op_threads
        ),
    )


def chosen_models(model_dir: str | None) -> dict[str, str] | list[str] | None:
    """What ``build_translator`` gets for a chosen folder: ``{its direction: folder}`` (the other
    direction keeps its default), ``[folder]`` for a model that is not English<->Chinese (the
    factory then says why it cannot be used), None for the defaults."""
    if not model_dir:
        return None
    from desktop_mt.engine.model_format import inspect_model_dir
    from desktop_mt.models.store import resolve_model

    own = inspect_model_dir(resolve_model(model_dir)).direction
    return {own: model_dir} if own else [model_dir]


class TranslationWorker(QObject):
    """Owns the Translator; runs loads and translations one at a time in its thread."""

    loadStarted = Signal(str)  # description
    loaded = Signal(object, str)  # ModelInfo (the translator's model_info), variant
    loadFailed = Signal(str)  # actionable message
    started = Signal(int)  # request id
    delta = Signal(int, str)  # request id, batched text
    finished = Signal(int, object)  # request id, TranslationStats or None (skipped/failed)
    failed = Signal(int, str)  # request id, actionable message
    unavailable = Signal(int, str)  # id, DirectionUnavailableError's message (which model to get); failed follows
    fileProgress = Signal(int, int, float)  # segments done, total, segments per second
    fileFinished = Signal(str, str)  # output path, summary ("202 segments, 1 kept as they were...")
    fileFailed = Signal(str)  # actionable message
    fileCancelled = Signal(str)  # stopped by its Event; no output written; the journal path
    fileResumed = Signal(str)  # ResumeReport text: segments recovered, or why it starts over
    segmentDone = Signal(int, object)  # request id, alignment.SegmentSpan (after its text's delta)
    alternativesReady = Signal(int, object)  # id, list[Alternative] ([]: cancelled) or a message (str)

    def __init__(
        self, factory: Callable[[EngineConfig], Any] | None = None, batch_seconds: float = BATCH_SECONDS
    ) -> None:
        super().__init__()
        self._factory = factory or default_translator_factory
        self._batch_seconds = batch_seconds
        self._translator: Any = None
        self._load_error = "No model is loaded yet."

    @property
    def translator(self) -> Any:
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
            self._report_load_failure(
                f"Could not load the model ({type(exc).__name__}: {exc}). Details are in the log file."
            )
            return
        old, self._translator = self._translator, new
        self._close(old)
        self.loaded.emit(new.model_info, str(new.variant))

    def _report_load_failure(self, message: str) -> None:
        if self._translator is not None:
            message += "\n\nThe previously loaded model is still in use."
        else:
            self._load_error = message
        self.loadFailed.emit(message)

    @Slot(int, str, object, object)
    def translate(self, req_id: int, text: str, options: Any, cancel: threading.Event) -> None:
        """Stream one request. Always ends with ``finished`` (or ``failed``) for ``req_id``."""
        if cancel.is_set():  # superseded while queued: skip without touching the engine
            self.finished.emit(req_id, None)
            return
        if self._translator is None:
            self.failed.emit(req_id, f"Cannot translate: {self._load_error}")
            return
        self.started.emit(req_id)
        try:
            stats = self._stream(req_id, text, options, cancel)
        except TranslationCancelled:
            stats = None
        except DirectionUnavailableError as exc:
            # First the specific signal (the window's banner ends its request there), then
            # failed as for any error (the popup and translate-and-replace show it).
            self.unavailable.emit(req_id, str(exc))
            self.failed.emit(req_id, str(exc))
            return
        except DesktopMTError as exc:
            self.failed.emit(req_id, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - never let a worker exception kill the app
            log_exception("translation", exc)
            self.failed.emit(req_id, f"Translation failed ({type(exc).__name__}: {exc}). Details are in the log file.")
            return
        self.finished.emit(req_id, stats)

    def _stream(self, req_id: int, text: str, options: Any, cancel: threading.Event) -> Any:
        """Run ``translate_stream``, emitting batched deltas; returns the Finished stats."""
        buf: list[str] = []
        last_emit = 0.0  # 0 -> the first token goes out at once (time to first token)
        stats = None
        tracker = SegmentTracker()  # where each sentence's translation sits (sentence alignment)
        events = self._translator.translate_stream(text, options=options, cancel=cancel)
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
                    break  # the engine also stops; do not wait for its Finished
        finally:
            events.close()
        if buf:
            self.delta.emit(req_id, "".join(buf))
        return stats

    @Slot(int, str, int, object, object)
    def alternatives(self, req_id: int, sentence: str, n: int, options: Any, cancel: threading.Event) -> None:
        """The ``n`` best translations of one sentence (the Alternatives menu); always ends
        with ``alternativesReady``."""
        result: Any = []
        if cancel.is_set():
            pass
        elif self._translator is None:
            result = f"Cannot translate: {self._load_error}"
        else:
            try:
                result = list(self._translator.alternatives(sentence, n, options=options, cancel=cancel))
            except TranslationCancelled:
                result = []
            except DesktopMTError as exc:
                result = str(exc)
            except Exception as exc:  # noqa: BLE001 - never let a worker exception kill the app
                log_exception("alternatives", exc)
                result = f"Alternatives failed ({type(exc).__name__}: {exc}). Details are in the log file."
        self.alternativesReady.emit(req_id, result)

    @Slot(object)
    def translate_file(self, job: Any) -> None:
        """Run a batch file job (a ``FileJob``) with the owned Translator. Ends with
        fileFinished, fileFailed or fileCancelled (whose journal keeps what was done)."""
        if self._translator is None:
            self.fileFailed.emit(f"Cannot translate the file: {self._load_error}")
            return
        from desktop_mt.batch import translate_file  # only file jobs need the batch code
        from desktop_mt.batch.journal import journal_path

        from .file_jobs import GatedProgress

        progress = GatedProgress(job.gate, job.cancel, _ProgressRate(self.fileProgress.emit))
        on_resume = (lambda report: self.fileResumed.emit(str(report))) if job.resume else None
        summaries: list[Any] = []
        try:
            out = translate_file(
                job.src,
                job.dst,
                self._translator,
                options=job.options,
                progress=progress,
                cancel=job.cancel,
                resume=job.resume,
                on_resume=on_resume,
                bilingual=job.bilingual,
                on_summary=summaries.append,
            )
        except TranslationCancelled:
            self.fileCancelled.emit(str(journal_path(Path(job.dst))) if job.dst else "")
            return
        except (DesktopMTError, OSError) as exc:
            self.fileFailed.emit(str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - never let a job exception kill the app
            log_exception("file translation", exc)
            self.fileFailed.emit(f"File translation failed ({type(exc).__name__}: {exc}). Details are in the log file.")
            return
        self.fileFinished.emit(str(out), str(summaries[-1]) if summaries else "")

    @staticmethod
    def _close(translator: Any) -> None:
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


@dataclasses.dataclass
class FileJob:
    """One "Translate file" request: ``dst`` None is the batch layer's default name;
    ``resume`` continues from its journal; ``gate`` lets typing pre-empt the job."""

    src: str
    dst: str | None
    options: Any
    cancel: threading.Event
    resume: bool = False
    gate: Any = None
    bilingual: bool = False  # View > Bilingual: the source stays, its translation follows


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
