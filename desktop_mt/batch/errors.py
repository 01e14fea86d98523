"""Errors of the batch (file) translator."""

from __future__ import annotations

from ..errors import DesktopMTError


class BatchInputError(DesktopMTError):
    """An input file cannot be translated: undecodable, malformed, or the output would
    overwrite it. ``str()`` names the file (and the line where one is known)."""

    def __init__(self, message: str, *, filename: str | None = None, line: int | None = None):
        super().__init__(message)
        self.filename = filename
        self.line = line
