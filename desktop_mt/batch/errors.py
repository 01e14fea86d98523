"""Errors of the batch (file) translator."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from ..base.errors import DesktopMTError

__all__ = [
    "FOLDER_ERRNOS",
    "BatchInputError",
    "BatchOutputError",
    "mount_point",
    "first_non_folder",
]

# Where a failed write points at the output's folder rather than at one file: the output would
# fail the same way as the journal, so the message names the output the user asked for.
FOLDER_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOENT, errno.ENOTDIR})
_SPACE_ERRNOS = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})

_RESUME_HINT = "then translate the file again"  # the GUI starts over; the CLI says --resume
_CHOOSE_FOLDER_HINT = "choose another output folder"


class BatchInputError(DesktopMTError):
    """An input file cannot be translated: undecodable, malformed, or the output would
    overwrite it. ``str()`` names the file (and the line where one is known)."""

    def __init__(self, message: str, *, filename: str | None = None, line: int | None = None):
        super().__init__(message)
        self.filename = filename
        self.line = line


class BatchOutputError(DesktopMTError):
    """The output, or its progress journal, cannot be written: disk full, permission denied,
    read-only file system, a missing folder, a folder in the way.

    ``str()`` names the file that could not be written by its real name (the output the user
    asked for, or ``<output>.journal.jsonl`` when it was the journal; never a temp file), the
    cause, and what to do; :meth:`describe` words the remedies for a front end (the CLI names
    ``--resume`` and ``-o``). Attributes: ``output``, ``journal`` (the job's journal, if any),
    ``journal_failed``, ``filename`` (the file that failed), ``errno``, ``kept`` / ``total``
    (segments saved in the journal so far / in the job).
    """

    def __init__(
        self,
        cause: OSError,
        output: Path,
        *,
        journal: Path | None = None,
        journal_failed: bool = False,
        kept: int = 0,
        total: int = 0,
    ) -> None:
        self.output = Path(output)
        self.journal = Path(journal) if journal is not None else None
        self.journal_failed = journal_failed and self.journal is not None
        self.filename = str(self.journal if self.journal_failed else self.output)
        self.errno = cause.errno
        self.strerror = cause.strerror or str(cause)
        self.kept, self.total = kept, total
        super().__init__(self.describe())

    def describe(self, resume_hint: str = _RESUME_HINT, choose_folder_hint: str = _CHOOSE_FOLDER_HINT) -> str:
        """The message, with the front end's words for resuming and for choosing the output."""
        if self.journal_failed:
            subject = f"{self.journal}: cannot write the progress journal of {self.output}"
        else:
            subject = f"{self.output}: cannot write the output"
        reason, fix = self._reason_and_fix(resume_hint, choose_folder_hint)
        kept = ""
        if self.kept and self.journal is not None:
            kept = f" ({self.kept} of {self.total} segments translated so far are saved in {self.journal})"
        return f"{subject}: {reason}; {fix}{kept}"

    def _reason_and_fix(self, resume_hint: str, choose: str) -> tuple[str, str]:
        folder = self.output.parent
        code = self.errno
        if code in _SPACE_ERRNOS:
            what = "the disk quota is exceeded" if code != errno.ENOSPC else "the disk is full"
            return what, f"free space on {mount_point(folder)}, {resume_hint}"
        if code in (errno.EACCES, errno.EPERM):
            return (f"permission denied in the folder {folder}", f"{choose}, or make {folder} writable")
        if code == errno.EROFS:
            return f"{folder} is on a read-only file system", choose
        if code == errno.ENOENT:
            return f"the folder {folder} does not exist", f"create it, or {choose}"
        if code in (errno.ENOTDIR, errno.EEXIST):  # EEXIST: mkdir found a file in the way
            return f"{first_non_folder(folder)} is a file, not a folder", choose
        if code == errno.EISDIR:
            return ("a folder of that name is in the way", f"remove or rename that folder, or {choose}")
        return self.strerror, f"check the disk, or {choose}"


def mount_point(folder: Path) -> Path:
    """The mount point (drive) holding ``folder``, where space must be freed."""
    path = Path(os.path.abspath(folder))
    while not os.path.ismount(path) and path.parent != path:
        path = path.parent
    return path


def first_non_folder(folder: Path) -> Path:
    """The part of ``folder``'s path that exists but is not a folder (the cause of ENOTDIR)."""
    for part in reversed((folder, *folder.parents)):
        if part.exists() and not part.is_dir():
            return part
    return folder
