"""The translation memory the local API uses with ``--tm`` (off by default).

``--tm`` alone: the user's own memory (``tm.sqlite3`` in the data folder, the one the window
fills and the Translation memory dialog edits); ``--tm FILE.tmx``: that TMX file read into a
memory of its own (both directions; the user's memory is not touched); ``--tm FILE``: another
SQLite memory. Batched translations take its exact matches and never send those sentences to
the model (:class:`desktop_mt.tm.apply.MemoryTranslator`); ``/metrics`` counts them.

Each answer says what came from the memory, where its API allows (docs/SERVER.md "Translation
memory"): every API's response carries the header ``X-Desktop-MT-Memory`` (:class:`MemoryHeader`:
``texts=3; whole=2; partial=0; sentences=4``: of the request's batched texts, how many came
wholly from the memory, how many partly, and the sentences it gave), so the DeepL and OpenAI
clients' schemas stay as they are; LibreTranslate's response object also gets ``fromMemory``
(a bool per text, as ``translatedText``: the whole text came from the memory).
"""

from __future__ import annotations

import contextvars
import dataclasses
from collections.abc import Sequence
from pathlib import Path

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..base.errors import DesktopMTError
from ..engine.direction import DIRECTIONS
from ..tm.store import TranslationMemory, memory_path
from ..tm.tmx import import_tmx

__all__ = [
    "MemoryFileError",
    "open_memory",
    "HEADER",
    "whole_from_memory",
    "record_answers",
    "MemoryHeader",
]

_USER_MEMORY = ""  # ServerConfig.tm for the user's own memory


class MemoryFileError(DesktopMTError):
    """The ``--tm`` file cannot be read (the message names it)."""


def open_memory(where: str) -> TranslationMemory:
    """The memory ``ServerConfig.tm`` names (see the module docstring)."""
    if where == _USER_MEMORY:
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


HEADER = "X-Desktop-MT-Memory"


@dataclasses.dataclass
class _MemoryFlags:
    """One request's batched texts and what of them the memory gave (``record``)."""

    texts: int = 0
    whole: int = 0
    partial: int = 0
    sentences: int = 0

    def record(self, answers: Sequence[str]) -> None:
        """Add ``answers`` (``server.service.Answer``s, or plain strings: the model's)."""
        for answer in answers:
            from_memory, to_model = _sentences_from_memory(answer)
            self.texts += 1
            self.sentences += from_memory
            self.whole += bool(from_memory and not to_model)
            self.partial += bool(from_memory and to_model)

    def header(self) -> str:
        return f"texts={self.texts}; whole={self.whole}; partial={self.partial}; sentences={self.sentences}"


_CURRENT: contextvars.ContextVar[_MemoryFlags | None] = contextvars.ContextVar("desktop_mt_memory", default=None)


def _sentences_from_memory(answer: str) -> tuple[int, bool]:
    """``(sentences the memory gave, whether the model gave any of it)`` of one batched answer
    (``server.service.Answer`` carries them; any other string is the model's alone)."""
    return getattr(answer, "from_memory", 0), getattr(answer, "to_model", True)


def whole_from_memory(answer: str) -> bool:
    """The whole answer came from the memory."""
    from_memory, to_model = _sentences_from_memory(answer)
    return from_memory > 0 and not to_model


def record_answers(answers: Sequence[str]) -> None:
    """Count ``answers`` for the current request's header (nothing outside a request)."""
    flags = _CURRENT.get()
    if flags is not None:
        flags.record(answers)


class MemoryHeader:
    """ASGI middleware: a request whose batched texts went through the memory gets the
    :data:`HEADER` (see the module docstring). Pure ASGI, so the route runs in this call's
    context and ``record_answers`` reaches this request's :class:`_MemoryFlags`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        flags = _MemoryFlags()
        token = _CURRENT.set(flags)

        async def flagged(message: Message) -> None:
            if message["type"] == "http.response.start" and flags.texts:
                headers = list(message.get("headers", []))
                headers.append((HEADER.lower().encode("latin-1"), flags.header().encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, flagged)
        finally:
            _CURRENT.reset(token)
