"""Durable file writes for the batch code, on :mod:`desktop_mt.base.fsutil`.

Every byte the batch code puts on disk (the output and the journal) goes through
:func:`~desktop_mt.base.fsutil.write_all` on a descriptor from :func:`os.open`, so a file-system
failure (disk full, permission denied, read-only file system) surfaces as one ``OSError`` from
one place, where the caller knows which file it was writing and can say so (see
:class:`.errors.BatchOutputError`).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from ..base.fsutil import atomic_write as replace_file
from ..base.fsutil import fsync_dir, write_all

__all__ = ["atomic_write", "replace_file", "write_all", "fsync_dir"]


def atomic_write(dst: Path, write: Callable[[BinaryIO], None]) -> None:
    """Write a file via ``write(f)`` (into memory first), then put it in place with
    :func:`desktop_mt.base.fsutil.atomic_write` (keeping the permissions of a file it replaces).
    ``dst`` appears only complete, or not at all."""
    buffer = io.BytesIO()
    write(buffer)
    replace_file(Path(dst), buffer.getvalue())
