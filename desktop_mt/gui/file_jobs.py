"""File jobs of the window: where the output goes, what an interrupted job left behind, and
the gate that lets typing pre-empt a running job (no Qt widgets here).

Output rule of the GUI (the CLI keeps its own: it overwrites ``-o``/the default output, as a
command line tool asked to do so): an existing output is never replaced silently. The window
asks (:class:`OutputAnswer`: overwrite / keep both / cancel); "keep both" writes
``notes.zh (2).txt`` (then ``(3)``...). A journal an interrupted job left is offered for resuming
(:class:`ResumeAnswer`: continue / start over / cancel), with how far it got
(:func:`journal_progress`).

Typing beside a file job: the job runs in its own worker thread with its own engine, and
:class:`InteractiveGate` pauses it at the engine's batch boundaries while an interactive
request runs, so the typed sentence gets the CPU cores (on a 2-core laptop two engines
sharing them would roughly double its latency) and the job continues right after.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

from desktop_mt.batch import default_output_path
from desktop_mt.batch.journal import MAGIC, VERSION, journal_path

from .ports import StrEnum

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

POLL_SECONDS = 0.05  # how often a paused job re-checks its cancel flag


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
    """How a file job ended (the controller's ``fileJobEnded``; compares equal to its value)."""

    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"


def keep_both_path(output: Path) -> Path:
    """The first free ``<stem> (n)<suffix>`` next to ``output`` (n = 2, 3, ...):
    ``notes.zh.txt`` -> ``notes.zh (2).txt``. Its journal must be free too, so a stale
    journal of an earlier "(2)" job is never resumed by accident."""
    suffix = output.suffix
    stem = output.name[: -len(suffix)] if suffix else output.name
    n = 2
    while True:
        candidate = output.with_name(f"{stem} ({n}){suffix}")
        if not candidate.exists() and not journal_path(candidate).exists():
            return candidate
        n += 1


def journal_progress(journal: Path) -> tuple[int, int] | None:
    """(segments kept, segments in the job) of a journal file, or None if there is none, it
    cannot be read, or it is not a desktop-mt journal of this version (a resume would start
    over). Counts what is on disk, so a message built from it is true even after a cancel in
    the middle of a chunk (those lines were not kept).

    The window asks this before a job starts, without the job's key (the input's hash and the
    settings, which the batch layer computes when it runs), so it does not say whether the
    journal still matches: ``desktop_mt.batch.journal.read_journal`` decides that when the job
    resumes. The format is the batch layer's (its module docstring); the header's ``journal``
    and ``version`` are checked with its constants."""
    try:
        lines = journal.read_bytes().splitlines()
    except OSError:
        return None
    header = _json_line(lines[0]) if lines else None
    if not isinstance(header, dict) or header.get("journal") != MAGIC or header.get("version") != VERSION:
        return None
    total = header.get("segments")
    if not isinstance(total, int) or isinstance(total, bool) or total < 0:
        return None
    kept: set[int] = set()
    for raw in lines[1:]:
        entry = _json_line(raw)
        done = entry.get("done") if isinstance(entry, dict) else None
        if not isinstance(done, list):
            continue  # a torn last line: the batch layer skips it on resume too
        kept.update(item[0] for item in done if isinstance(item, list) and item and isinstance(item[0], int))
    return len(kept), total


def _json_line(raw: bytes) -> object:
    """One JSON Lines line, or None where it is not JSON (a torn line)."""
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


class InteractiveGate:
    """Set while no interactive request runs. The file job waits on it between batches."""

    def __init__(self) -> None:
        self._idle = threading.Event()
        self._idle.set()
        self.pauses = 0  # how often a job actually waited (for tests and the log)

    def set_busy(self, busy: bool) -> None:
        """Called by the controller (UI thread) when a request starts / ends."""
        if busy:
            self._idle.clear()
        else:
            self._idle.set()

    def wait_idle(self, cancel: threading.Event | None) -> None:
        """Block (job thread) until no interactive request runs or ``cancel`` is set."""
        if self._idle.is_set():
            return
        self.pauses += 1
        while not self._idle.wait(POLL_SECONDS):
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
