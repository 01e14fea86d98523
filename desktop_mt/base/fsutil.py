"""Atomic file writes: the one place desktop-mt replaces a file on disk.

A file written with :func:`atomic_write` (or :func:`atomic_path`) is either the old file or the
complete new one, never half of it, even when the process dies or the disk fills mid-write: the
data goes to a temp file in the same folder (``.NAME.RANDOM.tmp``), is fsynced, then renamed over
``path`` with :func:`os.replace` and the folder fsynced. On any error the temp file is removed
and ``path`` is left untouched. The replaced file's permission bits are kept.

Bytes go through :func:`os.open` / :func:`os.write` (not a buffered file object), so a
file-system failure surfaces as the ``OSError`` of that call.

Windows refuses to rename onto a file that another process holds open without delete sharing
(Word or Excel with the document open, an antivirus or indexer reading the new file, a second
desktop-mt): ``os.replace`` fails with a sharing violation or "access denied". Such holds are
often brief, so the rename is retried for about three seconds (:data:`REPLACE_RETRY_DELAYS`);
then :class:`FileInUseError` says which file and what to do, and the old file is untouched.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from .errors import DesktopMTError

__all__ = ["atomic_write", "atomic_path", "write_all", "fsync_dir", "FileInUseError", "REPLACE_RETRY_DELAYS"]

# O_BINARY exists (and matters) on Windows only; elsewhere it is 0.
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)

# Seconds to wait before each new try of a rename that Windows refused because another process
# has the target open (3.15 s in all): long enough for a virus scan or indexer to let go.
REPLACE_RETRY_DELAYS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)
# The Windows errors of a rename onto a file in use: ERROR_ACCESS_DENIED (the target is open
# without delete sharing), ERROR_SHARING_VIOLATION, ERROR_LOCK_VIOLATION.
_IN_USE_WINERRORS = (5, 32, 33)


class FileInUseError(DesktopMTError, PermissionError):
    """The new content could not replace ``filename`` because another program has it open
    (Windows); the old file is unchanged and the new content was not kept."""

    def __init__(self, path: Path, cause: OSError) -> None:
        super().__init__(
            cause.errno,
            f"{path}: another program has this file open (or it is read-only), so it cannot be replaced "
            f"(Windows: {cause.strerror}). Close it there (or wait for a virus scan to finish) "
            f"and try again",
            str(path),
        )


def atomic_write(
    path: str | os.PathLike[str], data: str | bytes, encoding: str = "utf-8", *, mode: int = 0o666
) -> None:
    """Put ``data`` (``str`` is encoded with ``encoding``, no newline translation) at ``path``
    atomically. A new file is created with ``mode`` (less the umask); a file that exists keeps
    its permission bits."""
    path = Path(path)
    raw = data.encode(encoding) if isinstance(data, str) else bytes(data)
    tmp = _temp_name(path)
    fd = os.open(tmp, _CREATE_FLAGS, mode)
    try:
        try:
            write_all(fd, raw)
            os.fsync(fd)
        finally:
            os.close(fd)
        _commit(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise


@contextmanager
def atomic_path(path: str | os.PathLike[str], *, mode: int = 0o666) -> Iterator[Path]:
    """For writers that want a file name (``onnx.save``, ``torch.save``, ``Glossary.save``):
    yields the temp path beside ``path``; when the block ends without error the temp file is
    fsynced and renamed over ``path`` (keeping the old file's permission bits, else ``mode``
    less the umask), otherwise it is removed and ``path`` is untouched."""
    path = Path(path)
    tmp = _temp_name(path)
    os.close(os.open(tmp, _CREATE_FLAGS, mode))
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDWR | getattr(os, "O_BINARY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        _commit(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """Make a rename durable (POSIX); a no-op where directories cannot be opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")


def _commit(tmp: Path, path: Path) -> None:
    """Give ``tmp`` the permission bits of the file it replaces, rename it over ``path``, and
    make the rename durable."""
    try:
        old_mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        old_mode = None
    if old_mode is not None:
        os.chmod(tmp, old_mode)
    _replace(tmp, path)
    fsync_dir(path.parent)


def _replace(tmp: Path, path: Path) -> None:
    """``os.replace``, retried while Windows says another process has ``path`` open."""
    for delay in (*REPLACE_RETRY_DELAYS, None):
        try:
            os.replace(tmp, path)
            return
        except PermissionError as exc:
            if getattr(exc, "winerror", None) not in _IN_USE_WINERRORS:
                raise  # POSIX, or a real permission problem: retrying cannot help
            if delay is None:
                raise FileInUseError(path, exc) from exc
            time.sleep(delay)


def _unlink_quietly(path: Path) -> None:
    with suppress(OSError):
        os.unlink(path)
