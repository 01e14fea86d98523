"""File jobs in the window: the queue of files to translate (``app.jobs.JobQueue``), the
running job in its own worker thread and engine (typing pre-empts it between batches:
``file_jobs.InteractiveGate``), the questions before a job (an existing output, an interrupted
job's journal: what to ask comes from :mod:`desktop_mt.app.jobs`), its progress and its end.
The file is parsed once, and not on the UI thread (a large document would freeze the window):
the job's thread plans it (:class:`_Planner`: ``app.jobs.plan_output`` names the output, a mostly
Chinese file -> ``NAME.en.EXT``), the window asks its questions with the plan, and the parsed
document travels with the job (``FileJob.opened``) as what it translates, as the command line's
one parse is.
:class:`FileJobs` is built on the window's :class:`~desktop_mt.gui.services.Services` with the
engine's loads (its model, for the job's own engine) and OCR (a dropped picture is read, not
translated as a file); it publishes ``Events.file_started`` and ``Events.file_ended``. The
controller keeps the public names (``translate_files``, ``translate_file``, ``cancel_file``,
``file_job``, ``file_queue``...).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from desktop_mt import batch
from desktop_mt.app import jobs
from desktop_mt.ocr import is_image_path

from ..i18n import translate
from ..ports import EngineConfig
from ..services import FileJobStart
from ..workers.translation import FileJob, TranslationWorker
from . import file_jobs

if TYPE_CHECKING:
    from desktop_mt.engine.direction import Target

    from ..services import Services
    from .engine_loading import EngineLoading
    from .ocr import OcrFeature

__all__ = [
    "FileJobs",
    "Planned",
]


_logger = logging.getLogger("desktop_mt.gui.controller")  # the log lines kept their old source
_RECENT_FILES = 8  # File > Recent files keeps this many


@dataclasses.dataclass(frozen=True)
class _PlanRequest:
    """A file to plan in the job's thread before its job: what the job was asked with."""

    ticket: int  # which request a plan answers (a cancelled one's plan is dropped)
    src: Path
    target: Target
    bilingual: bool
    resume: bool | None


@dataclasses.dataclass(frozen=True)
class Planned:
    """A :class:`_PlanRequest`'s answer: the output plan and the parsed file in it."""

    request: _PlanRequest
    plan: jobs.OutputPlan


class _Planner(QObject):
    """Plans a file job in the job's thread: reads and parses the file to name its output."""

    planned = Signal(Planned)

    @Slot(_PlanRequest)
    def plan(self, request: _PlanRequest) -> None:
        plan = jobs.plan_output(request.src, request.target, bilingual=request.bilingual)
        self.planned.emit(Planned(request, plan))


class FileJobs(QObject):
    """The window's file jobs (see the module docstring)."""

    _planRequested = Signal(_PlanRequest)  # to the job's thread: name the output, parse the file
    _fileLoadRequested = Signal(EngineConfig)  # EngineConfig for the file-job worker
    _fileRequested = Signal(FileJob)  # FileJob
    _fileReleaseRequested = Signal()  # the job ended: free the job engine's memory

    def __init__(
        self,
        services: Services,
        engine: EngineLoading,
        ocr: OcrFeature,
        factory: Callable[[EngineConfig], Any] | None,
    ) -> None:
        super().__init__(services.owner)
        self.services, self.engine, self.ocr = services, engine, ocr
        self.window = services.window
        self.cancel: threading.Event | None = None  # set while a file job runs
        self.job: FileJob | None = None
        self.gate = file_jobs.InteractiveGate()  # typing pauses the file job between batches
        self.progress: tuple[int, int] | None = None
        self.queue = jobs.JobQueue()  # files waiting for the running job (translate_files)
        self._started = 0.0  # when the running file job started (its summary's time)
        self.planning: _PlanRequest | None = None  # a file being planned in the job's thread
        self._tickets = 0
        self._start_worker(factory)
        # Typing pauses the file job between batches while an interactive request runs.
        self._unsubscribe = services.session.changed.subscribe(lambda request: self.gate.set_busy(request is not None))

    def _start_worker(self, factory: Callable[[EngineConfig], Any] | None) -> None:
        # File jobs get their own thread and engine, so typing never queues behind a job.
        self.worker_thread = QThread()
        self.worker_thread.setObjectName("file-job-worker")
        self.worker = fw = TranslationWorker(factory)
        fw.moveToThread(self.worker_thread)
        self._fileLoadRequested.connect(fw.load)
        self._fileRequested.connect(fw.translate_file)
        self._fileReleaseRequested.connect(fw.close)
        fw.fileProgress.connect(self._on_file_progress)
        fw.fileFinished.connect(self._on_file_finished)
        fw.fileFailed.connect(self._on_file_failed)
        fw.fileCancelled.connect(self._on_file_cancelled)
        fw.fileResumed.connect(self._on_file_resumed)
        self.planner = _Planner()  # in the job's thread: the UI thread never parses a file
        self.planner.moveToThread(self.worker_thread)
        self._planRequested.connect(self.planner.plan)
        self.planner.planned.connect(self._on_planned)

    @property
    def busy(self) -> bool:
        """Whether a file job runs or a file is being planned for one."""
        return self.job is not None or self.planning is not None

    def translate_files(self, paths: list[str]) -> None:
        """Translate these files one after another (a command line or a drop of several):
        the first starts now, or after the running job; the others wait in the queue, and
        Cancel on a job also drops the files still waiting (the status bar names them)."""
        for path in (p for p in paths if is_image_path(p)):  # a dropped picture: OCR, then translate
            self.ocr.read_file(path)
        paths = [p for p in paths if not is_image_path(p)]
        if not paths:
            return
        self.queue.add(paths)
        self._start_next_file()  # one the user declines (an output exists) is skipped
        waiting = len(self.queue)  # a plain name: lupdate reads a count only so
        if waiting:
            self.window.statusBar().showMessage(
                translate(
                    "FileQueue", "%n more file(s) will be translated after this one: {names}", None, waiting
                ).format(names=", ".join(Path(p).name for p in self.queue.waiting)),
                10_000,
            )

    def _start_next_file(self) -> None:
        """After a job ends: the next queued file whose job starts (one the user declines,
        e.g. an existing output they do not replace, is skipped)."""
        while not self.busy and (path := self.queue.take()) is not None:
            self.translate_file(path)

    def translate_file(self, path: str, dst: Path | None = None, resume: bool | None = None) -> bool:
        """Start a batch job for ``path``, output next to it (or ``dst``). One job at a time;
        it runs in its own worker, and typing pre-empts it between batches (see ``file_jobs``).
        An existing output is never replaced without asking; an interrupted job's journal is
        offered for resuming (``resume`` given: not asked). Without ``dst`` the file is first
        planned in the job's thread (its output named, the file parsed once) and the questions
        follow the plan. Returns whether the file was taken (False: a job runs, or with ``dst``
        the user declined)."""
        if self.busy:
            self.window.statusBar().showMessage(translate("FileQueue", "A file is already being translated."), 4000)
            return False
        if dst is not None:
            return self._start(path, dst, resume)
        self._tickets += 1
        settings = self.services.settings
        target = self.services.generation_options().target
        self.planning = _PlanRequest(self._tickets, Path(path), target, settings.bilingual, resume)
        self._planRequested.emit(self.planning)
        return True

    def _on_planned(self, planned: Planned) -> None:
        """The job's thread named the output and parsed the file: ask, then start the job (a
        declined file: the next queued one)."""
        request = planned.request
        if request != self.planning:  # cancelled (or superseded) meanwhile
            return
        self.planning = None
        dst = self._choose_output(planned.plan)
        opened = planned.plan.opened  # parsed with the layout the job asked for
        if dst is None or not self._start(str(request.src), dst, request.resume, opened, request.bilingual):
            self._start_next_file()

    def _start(
        self,
        path: str,
        dst: Path,
        resume: bool | None,
        opened: batch.OpenedFile | None = None,
        bilingual: bool | None = None,
    ) -> bool:
        """Ask about an interrupted job's journal (``resume`` None), then start the job (on the
        parsed file ``opened`` when planned; ``bilingual`` None: the setting's)."""
        resume = self._ask_resume(Path(path), dst) if resume is None else resume
        if resume is None:
            return False
        self.cancel = threading.Event()
        self._started = time.perf_counter()
        self.job = FileJob(
            path,
            str(dst),
            self.services.generation_options(),
            self.cancel,
            resume=resume,
            gate=self.gate,
            bilingual=self.services.settings.bilingual if bilingual is None else bilingual,
            opened=opened,
        )
        self.window.show_file_job(Path(path).name)
        self._remember_recent(path)
        self.engine.preload_engine()
        self._fileLoadRequested.emit(self.engine.loaded_config or self.engine.engine_config())
        self._fileRequested.emit(self.job)
        self.services.events.file_started.publish(FileJobStart(str(Path(path).absolute()), str(dst.absolute())))
        self.refresh_state()
        _logger.info("file job started (resume: %s)", resume)
        return True

    def _choose_output(self, plan: jobs.OutputPlan) -> Path | None:
        """The output path: the default one, or after asking when it exists."""
        if plan.keep_both is None:
            return plan.output
        answer = file_jobs.OutputAnswer(self.window.ask_output_exists(str(plan.output), plan.keep_both.name))
        return {file_jobs.OutputAnswer.OVERWRITE: plan.output, file_jobs.OutputAnswer.KEEP: plan.keep_both}.get(answer)

    def _ask_resume(self, src: Path, dst: Path) -> bool | None:
        """True to resume from the journal of an interrupted job, False to start fresh,
        None when the user cancels."""
        found = jobs.resumable(dst)
        if found is None:
            return False
        answer = self.window.ask_resume(src.name, found.kept, found.total)
        return None if answer == file_jobs.ResumeAnswer.CANCEL else answer == file_jobs.ResumeAnswer.RESUME

    def _remember_recent(self, path: str) -> None:
        path = str(Path(path).absolute())
        recent = [path] + [p for p in self.services.settings.recent_files if p != path]
        self.services.settings.recent_files = recent[:_RECENT_FILES]
        self.window.set_recent_files(self.services.settings.recent_files)
        self.services.save()

    def cancel_file(self) -> None:
        """Stop the file job (set directly: the worker is busy in its loop); a file still being
        planned is dropped (its plan is ignored when it comes)."""
        self.planning = None
        if self.cancel is not None:
            self.cancel.set()
            self.window.set_file_job_text(translate("FileQueue", "Cancelling…"))

    def _on_file_progress(self, done: int, total: int, rate: float) -> None:
        if self.job is not None:
            self.window.set_file_progress(done, total, rate)
            self.progress = (done, total)
            self.refresh_state()

    def _end_file_job(self, outcome: file_jobs.JobOutcome, message: str) -> None:
        _logger.info("file job %s", outcome)
        self.cancel = None
        self.job = None
        self.progress = None
        self._fileReleaseRequested.emit()
        if outcome is file_jobs.JobOutcome.CANCELLED and self.queue:  # said first: long messages are cut
            dropped = self.queue.clear()
            message = translate("FileQueue", "%n queued file(s) not started. {message}", None, dropped).format(
                message=message
            )
        self.window.end_file_job(message)
        self.refresh_state()
        self.services.events.file_ended.publish(outcome.value)
        if self.queue:  # after the topic: a listener sees each job end before the next
            QTimer.singleShot(0, self._start_next_file)

    def _on_file_finished(self, out_path: str, summary: str) -> None:
        seconds = time.perf_counter() - self._started
        about = (
            translate("FileQueue", " ({summary}, {seconds} s)").format(summary=summary, seconds=f"{seconds:.1f}")
            if summary
            else ""
        )
        self._end_file_job(
            file_jobs.JobOutcome.FINISHED,
            translate("FileQueue", "Saved {path}{about}").format(path=out_path, about=about),
        )

    def _on_file_failed(self, message: str) -> None:
        self._end_file_job(file_jobs.JobOutcome.FAILED, translate("FileQueue", "File translation failed"))
        self.window.show_error(translate("FileQueue", "File translation failed"), message)

    def _on_file_cancelled(self, journal: str) -> None:
        found = jobs.journal_progress(Path(journal)) if journal else None
        if found and found[0]:
            message = translate(
                "FileQueue",
                "Cancelled: {kept} of {total} segments kept in {journal}; "
                "translate the file again to continue from there.",
            ).format(kept=found[0], total=found[1], journal=Path(journal).name)
        else:
            message = translate(
                "FileQueue", "File translation cancelled before any segment was finished; nothing was saved."
            )
        self._end_file_job(file_jobs.JobOutcome.CANCELLED, message)

    def _on_file_resumed(self, report: str) -> None:
        self.window.statusBar().showMessage(report[:1].upper() + report[1:], 10_000)

    def refresh_state(self) -> None:
        """The status bar's file-job part: what runs beside the interactive state."""
        if self.job is None:
            self.window.set_job_status("")
            return
        name = Path(self.job.src).name
        counts = f" {self.progress[0]}/{self.progress[1]}" if self.progress else ""
        self.window.set_job_status(translate("FileQueue", "file job: {name}{counts}").format(name=name, counts=counts))
