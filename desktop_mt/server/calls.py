"""Engine calls for the route modules, with the busy and failure cases mapped to ApiError:
batched translation (plain and HTML), n-best searches and streams.

Below the route modules, as :mod:`.requests` (they import it, it imports none of them).
"""

from __future__ import annotations

import logging

from starlette.concurrency import run_in_threadpool

from ..base.errors import DesktopMTError, TranslationCancelled
from ..batch.errors import BatchInputError
from ..engine.direction import DirectionUnavailableError
from .batching import BatcherClosed, QueueFull
from .errors import ApiError
from .htmltext import HtmlDocument
from .languages import Target
from .service import SHUTTING_DOWN, Stream, TooManyStreams, TranslationService

__all__ = [
    "translate_texts",
    "translate_nbest",
    "open_stream",
    "translate_html",
]

_logger = logging.getLogger("desktop_mt.server")
_OFFLOAD_CHARS = 64 * 1024  # more HTML than this is split into tags and text off the event loop


def _busy(message: str, service: TranslationService) -> ApiError:
    """503 with ``Retry-After`` (each API's shape maps it; DeepL's is 429)."""
    return ApiError(503, message, headers={"Retry-After": str(service.config.retry_after_s)})


def _unavailable(exc: DirectionUnavailableError) -> ApiError:
    """400 for text that needs a direction without a model (the message names the one to download)."""
    return ApiError(400, str(exc))


async def translate_texts(service: TranslationService, texts: list[str], target: Target) -> list[str]:
    """Batched translation with the busy/failure cases mapped to API errors."""
    try:
        return await service.translate(texts, target)
    except DirectionUnavailableError as exc:
        raise _unavailable(exc) from None
    except QueueFull as exc:
        service.metrics.rejected.labels("queue_full").inc()
        raise _busy(f"Server busy: {exc}; retry later", service) from None
    except BatcherClosed as exc:
        raise _busy(f"Server busy: {exc}", service) from None
    except TranslationCancelled:  # only the shutdown cancels a batch a client waits for
        raise _busy(f"Server busy: {SHUTTING_DOWN}; retry later", service) from None
    except DesktopMTError as exc:  # anything else is a bug: the guard answers 500 and logs where
        _logger.error("translation failed: %s", type(exc).__name__)
        raise ApiError(500, f"Cannot translate text: {exc}") from None


async def translate_nbest(
    service: TranslationService, texts: list[str], target: Target, others: int
) -> tuple[list[str], list[list[str]]]:
    """Each text's translation and up to ``others`` different ones, from one n-best search
    per text (as LibreTranslate: the best hypothesis is the translation, the next distinct
    ones its alternatives). Busy and failure cases are API errors, as for translate_texts."""
    try:
        found = await service.nbest(texts, others + 1, target)
    except DirectionUnavailableError as exc:
        raise _unavailable(exc) from None
    except TooManyStreams as exc:
        service.metrics.rejected.labels("nbest").inc()
        raise _busy(f"Server busy: {exc}; retry later", service) from None
    except TranslationCancelled:  # a gate's TurnCancelled too: only the shutdown cancels a search a client waits for
        raise _busy(f"Server busy: {SHUTTING_DOWN}; retry later", service) from None
    except DesktopMTError as exc:
        _logger.error("n-best search failed: %s", type(exc).__name__)
        raise ApiError(500, f"Cannot translate text: {exc}") from None
    firsts = [texts[0] if texts else "" for texts in found]
    return firsts, [[t for t in texts[1:] if t != first][:others] for texts, first in zip(found, firsts)]


def open_stream(service: TranslationService, text: str, target: Target) -> Stream:
    """A running generation of ``text`` (503 ApiError when every stream slot is taken)."""
    try:
        return service.open_stream(text, target)
    except TooManyStreams as exc:
        service.metrics.rejected.labels("streams").inc()
        raise _busy(f"Server busy: {exc}; retry later", service) from None


async def translate_html(service: TranslationService, texts: list[str], target: Target) -> list[str]:
    """HTML documents translated run by run (tags kept; see :mod:`.htmltext`), one engine call."""
    try:
        if sum(map(len, texts)) > _OFFLOAD_CHARS:  # up to 128 x 5000 characters to scan
            documents = await run_in_threadpool(lambda: [HtmlDocument(text) for text in texts])
        else:
            documents = [HtmlDocument(text) for text in texts]
    except BatchInputError as exc:  # HTML the tokenizer would take quadratic time over
        raise ApiError(400, f"Invalid request: {exc}") from None
    runs = [run for document in documents for run in document.texts]
    translated = await translate_texts(service, runs, target) if runs else []

    def render() -> list[str]:  # the tag projection aligns each inline tag: off the loop when large
        outputs, position = [], 0
        for document in documents:
            outputs.append(document.render(translated[position : position + len(document.texts)]))
            position += len(document.texts)
        return outputs

    return await run_in_threadpool(render) if sum(map(len, texts)) > _OFFLOAD_CHARS else render()
