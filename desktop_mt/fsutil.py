"""Atomic file writes: the one place desktop-mt replaces a file on disk.

A file written with :func:`atomic_write` (or :func:`atomic_path`) is either the old file or the
complete new one, never half of it, even when the process dies or the disk fills mid-write: the
data goes to a temp file in the same folder (``.NAME.RANDOM.tmp``), is fsynced, then renamed over
``path`` with :func:`os.replace` and the folder fsynced. On any error the temp file is removed
and ``path`` is left untouched. The replaced file's permission bits are kept.

Bytes go through :func:`os.open` / :func:`os.write` (not a buffered file object), so a
file-system failure surfaces as the ``OSError`` of that call.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

__all__ = ["atomic_write", "atomic_path", "write_all", "fsync_dir"]

# O_BINARY exists (and matters) on Windows only; elsewhere it is 0.
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


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
    os.replace(tmp, path)
    fsync_dir(path.parent)


def _unlink_quietly(path: Path) -> None:
    with suppress(OSError):
        os.unlink(path)
