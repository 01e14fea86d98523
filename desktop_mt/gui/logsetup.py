"""Logging to a file in the platformdirs log dir, and tracebacks that never carry user text.

Exception *messages* can quote their input (a tokenizer error that echoes the sentence),
so the log gets the exception type and the stack frames (file, line, function) only,
never the message or local variables. The dialog the user sees does show the message: it
is their own screen.
"""

from __future__ import annotations

import logging
import logging.handlers
import traceback
from pathlib import Path
from types import TracebackType

from . import paths

__all__ = [
    "log_exception",
    "log_file",
    "safe_traceback",
    "setup_logging",
]


_LOG_FILE = "desktop-mt.log"
_handler: logging.Handler | None = None


def log_file() -> Path:
    """Where the log is written (the folder may not exist yet)."""
    return paths.log_dir() / _LOG_FILE


def setup_logging(level: int = logging.INFO) -> Path | None:
    """Attach a rotating file handler to the root logger (idempotent). None if no folder."""
    global _handler
    path = log_file()
    root = logging.getLogger()
    if _handler is not None:
        root.removeHandler(_handler)
        _handler.close()
        _handler = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8")
    except OSError:
        return None  # a read-only home must not stop the app from starting
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(level)
    _handler = handler
    return path


def safe_traceback(exc_type: type[BaseException], tb: TracebackType | None) -> str:
    """Stack frames and the exception type, without the message (see the module doc)."""
    frames = traceback.extract_tb(tb)
    lines = ["Traceback (most recent call last):"]
    for f in frames:
        lines.append(f'  File "{f.filename}", line {f.lineno}, in {f.name}')
    lines.append(f"{exc_type.__module__}.{exc_type.__qualname__} (message withheld)")
    return "\n".join(lines)


def log_exception(where: str, exc: BaseException) -> None:
    """Log an unexpected exception safely (type + frames)."""
    logging.getLogger("desktop_mt.gui").error(
        "unexpected error in %s:\n%s", where, safe_traceback(type(exc), exc.__traceback__)
    )
