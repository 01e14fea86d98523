"""UTF-8 standard streams for every process desktop-mt starts (the ``desktop-mt`` command,
``python -m desktop_mt``, the frozen executables).

Without this, Windows writes redirected output (``desktop-mt-cli self-test > out.txt``, a
pipe) in the ANSI code page (cp1252 on a Western system), and the first Chinese character
ends the program with ``UnicodeEncodeError: 'charmap' codec can't encode characters``; the
frozen executables ignore ``PYTHONUTF8`` from the environment. A console already gets UTF-8
(Python writes to it with the wide-character API), and so do most Linux and macOS locales; a
``C``/ASCII locale or ``PYTHONIOENCODING=cp1252`` would break the same way. So the entry
points switch the three streams to UTF-8 themselves, with the error handlers of Python's UTF-8
mode: ``surrogateescape`` on stdin/stdout (undecodable bytes pass through), ``backslashreplace``
on stderr (a message never fails to print).

A stream that is missing (``None``: the windowed Windows executable has no console) or is not a
reconfigurable text stream (replaced by a test, an embedding program) is left as it is.
"""

from __future__ import annotations

import codecs
import io
import sys

__all__ = ["use_utf8_streams"]

# The error handler of each stream in Python's UTF-8 mode (PEP 540).
_ERRORS = {"stdin": "surrogateescape", "stdout": "surrogateescape", "stderr": "backslashreplace"}


def use_utf8_streams() -> None:
    """Make ``sys.stdin``, ``sys.stdout`` and ``sys.stderr`` UTF-8 (see the module's doc).
    Call it first thing in a process entry point, before anything is written."""
    for name, errors in _ERRORS.items():
        stream = getattr(sys, name)
        if isinstance(stream, io.TextIOWrapper) and not _is_utf8(stream.encoding):
            # reconfigure flushes what was written so far in the old encoding first
            stream.reconfigure(encoding="utf-8", errors=errors)


def _is_utf8(encoding: str | None) -> bool:
    """True for every spelling of UTF-8 (``utf-8``, ``UTF8``, ``utf_8``), not for ``utf-8-sig``."""
    if not encoding:
        return False
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False
