"""File jobs of the window: the answers to its questions before a job, how a job ended, and
the gate that lets typing pre-empt a running job (no Qt widgets here). Where the output goes and
what an interrupted job left behind are the application layer's (:mod:`desktop_mt.app.jobs`;
its names are re-exported here).

An existing output is never replaced silently: the window asks (:class:`OutputAnswer`:
overwrite / keep both / cancel); "keep both" writes ``notes.zh (2).txt`` (then ``(3)``...). A
journal an interrupted job left is offered for resuming (:class:`ResumeAnswer`: continue / start
over / cancel), with how far it got (``app.jobs.journal_progress``).

Typing beside a file job: the job runs in its own worker thread with its own engine, and
:class:`InteractiveGate` pauses it at the engine's batch boundaries while an interactive
request runs, so the typed sentence gets the CPU cores (on a 2-core laptop two engines
sharing them would roughly double its latency) and the job continues right after.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from desktop_mt.app.jobs import default_output_path, journal_path, journal_progress, keep_both_path

from ..ports import StrEnum

__all__ = [
    "GatedProgress",
    "InteractiveGate",
    "JobOutcome",
    "OutputAnswer",
    "ResumeAnswer",
    "default_output_path",
    "journal_path",
    "journal_progress",
    "keep_both_path",
]

_POLL_SECONDS = 0.05  # how often a paused job re-checks its cancel flag


class OutputAnswer(StrEnum):
    """What to do when a file job's output exists (``MainWindow.ask_output_exists``). A
    ``str`` enum: it compares equal to its value ("overwrite", "keep", "cancel")."""

    OVERWRITE = "overwrite"
    KEEP = "keep"  # keep both: the new translation goes to :func:`keep_both_path`
    CANCEL = "cancel"


class ResumeAnswer(StrEnum):
    """Whether to continue an interrupted job from its journal (``MainWindow.ask_resume``).
    A ``str`` enum: it compares equal to its value ("resume", "restart", "cancel")."""

    RESUME = "resume"
    RESTART = "restart"  # start over (the journal is replaced)
    CANCEL = "cancel"


class JobOutcome(StrEnum):
    """How a file job ended (``Events.file_ended`` carries its value; compares equal to it)."""

    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"


class InteractiveGate:
    """Set while no interactive request runs. The file job waits on it between batches."""

    def __init__(self) -> None:
        self._idle = threading.Event()
        self._idle.set()
        self.pauses = 0  # how often a job actually waited (for tests and the log)

    def set_busy(self, busy: bool) -> None:
        """Called on the UI thread as the session's current request is set or cleared
        (``FileJobs`` follows ``Session.changed``)."""
        if busy:
            self._idle.clear()
        else:
            self._idle.set()

    def wait_idle(self, cancel: threading.Event | None) -> None:
        """Block (job thread) until no interactive request runs or ``cancel`` is set."""
        if self._idle.is_set():
            return
        self.pauses += 1
        while not self._idle.wait(_POLL_SECONDS):
            if cancel is not None and cancel.is_set():
                return


class GatedProgress:
    """A batch ``progress(done, total)`` callback that first yields to typing (the engine
    calls it between its batches), then passes the counts on."""

    def __init__(
        self, gate: InteractiveGate | None, cancel: threading.Event | None, report: Callable[[int, int], None]
    ) -> None:
        self._gate, self._cancel, self._report = gate, cancel, report

    def __call__(self, done: int, total: int) -> None:
        self._report(done, total)
        if self._gate is not None:
            self._gate.wait_idle(self._cancel)
