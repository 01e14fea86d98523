"""File jobs as the front ends see them, before the batch layer runs one: the queue of files
waiting, where a job's output goes, and what an interrupted job left behind (no Qt here; the
window asks its questions with these answers' inputs, ``desktop_mt/gui/features/file_queue.py``).

The default output is named as the command line names it, by the batch layer's one rule
(``desktop_mt.batch.planned_output``: ``NAME.zh.EXT``, or ``NAME.en.EXT`` for a document
translated into English). What differs is replacing it: the command line overwrites ``-o`` or the
default output, as a command line tool asked to do so; the window never replaces one silently.
:func:`plan_output` says whether the default output exists and, if so, the free "keep both" name
beside it (``notes.zh (2).txt``, then ``(3)``...), and the file as it parsed it to name the output
(``OutputPlan.opened``), which the job then translates without parsing it again (the window
parses a file once, as the command line does). A journal an interrupted job left is offered
for resuming; :func:`resumable` says how far it got (:func:`journal_progress`).

The journal's format is the batch layer's (``desktop_mt/batch/journal.py``); it is read here
with its constants, without the job's key, so this does not say whether the journal still
matches the input: ``desktop_mt.batch.journal.read_journal`` decides that when the job resumes.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from desktop_mt.batch import OpenedFile, default_output_path, plan_file
from desktop_mt.batch.journal import MAGIC, VERSION, journal_path
from desktop_mt.engine.direction import Target

__all__ = [
    "JobQueue",
    "OutputPlan",
    "Resumable",
    "default_output_path",
    "journal_path",
    "journal_progress",
    "keep_both_path",
    "plan_output",
    "resumable",
]


class JobQueue:
    """Files waiting for the running job, first in first out; a file already waiting is not
    added twice."""

    def __init__(self) -> None:
        self._waiting: list[str] = []

    def add(self, paths: Iterable[str]) -> None:
        """Queue ``paths`` after those waiting (the ones already waiting keep their place)."""
        for path in paths:
            if path not in self._waiting:
                self._waiting.append(path)

    def take(self) -> str | None:
        """The next file, taken off the queue; None when none waits."""
        return self._waiting.pop(0) if self._waiting else None

    def clear(self) -> int:
        """Drop every waiting file (a cancelled job drops those after it); how many there were."""
        dropped = len(self._waiting)
        self._waiting.clear()
        return dropped

    @property
    def waiting(self) -> list[str]:
        """The waiting files in order (a copy)."""
        return list(self._waiting)

    def __len__(self) -> int:
        return len(self._waiting)

    def __bool__(self) -> bool:
        return bool(self._waiting)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._waiting))


@dataclasses.dataclass(frozen=True)
class OutputPlan:
    """Where a job on a source would write: ``output``, the default path; ``keep_both``, the
    free name beside it when ``output`` exists (None when it does not: nothing to ask);
    ``opened``, the source as it was parsed to name ``output``, for the job to translate
    (``batch.translate_file(..., opened=...)``; None when it could not be read: the job says why)."""

    output: Path
    keep_both: Path | None
    opened: OpenedFile | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def exists(self) -> bool:
        return self.keep_both is not None


def plan_output(src: Path, target: Target = "auto", *, bilingual: bool = False) -> OutputPlan:
    """The default output of ``src`` for ``target`` (``notes.txt`` -> ``notes.zh.txt``, a mostly
    Chinese one -> ``notes.en.txt``: ``desktop_mt.batch.plan_file``, what the command line
    writes), when it exists the "keep both" alternative (:func:`keep_both_path`), and the parsed
    source for the job (``bilingual``: parsed for a bilingual job, as the job will write it)."""
    output, opened = plan_file(src, target=target, bilingual=bilingual)
    return OutputPlan(output, keep_both_path(output) if output.exists() else None, opened)


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


@dataclasses.dataclass(frozen=True)
class Resumable:
    """An interrupted job's journal beside an output: ``kept`` of ``total`` segments done."""

    journal: Path
    kept: int
    total: int


def resumable(output: Path) -> Resumable | None:
    """The journal an interrupted job writing ``output`` left, with how far it got; None when
    there is none (or it is unreadable, or of another version: the job starts over)."""
    journal = journal_path(output)
    found = journal_progress(journal)
    return Resumable(journal, *found) if found is not None else None


def journal_progress(journal: Path) -> tuple[int, int] | None:
    """(segments kept, segments in the job) of a journal file, or None if there is none, it
    cannot be read, or it is not a desktop-mt journal of this version (a resume would start
    over). Counts what is on disk, so a message built from it is true even after a cancel in
    the middle of a chunk (those lines were not kept). The header's ``journal`` and ``version``
    are checked with the batch layer's constants."""
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
