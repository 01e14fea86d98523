"""The translation memory the local API uses with ``--tm`` (off by default).

``--tm`` alone: the user's own memory (``tm.sqlite3`` in the data folder, the one the window
fills and the Translation memory dialog edits); ``--tm FILE.tmx``: that TMX file read into a
memory of its own (both directions; the user's memory is not touched); ``--tm FILE``: another
SQLite memory. Batched translations take its exact matches and never send those sentences to
the model (:class:`desktop_mt.tm.apply.MemoryTranslator`); ``/metrics`` counts them.
"""

from __future__ import annotations

from pathlib import Path

from ..engine.direction import DIRECTIONS
from ..errors import DesktopMTError
from ..tm.store import TranslationMemory, memory_path
from ..tm.tmx import import_tmx

USER_MEMORY = ""  # ServerConfig.tm for the user's own memory


class MemoryFileError(DesktopMTError):
    """The ``--tm`` file cannot be read (the message names it)."""


def open_memory(where: str) -> TranslationMemory:
    """The memory ``ServerConfig.tm`` names (see the module docstring)."""
    if where == USER_MEMORY:
        return TranslationMemory(memory_path())
    path = Path(where).expanduser()
    if not path.is_file():
        raise MemoryFileError(f"--tm {where}: no such file")
    if path.suffix.lower() != ".tmx":
        return TranslationMemory(path)
    memory = TranslationMemory(":memory:")
    try:
        for direction in DIRECTIONS:
            import_tmx(memory, path, direction)
    except (OSError, ValueError) as exc:
        raise MemoryFileError(f"--tm {where}: {exc}") from exc
    return memory
