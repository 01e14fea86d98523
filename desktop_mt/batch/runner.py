"""The job runner: translate a document's segments in journaled chunks.

Throughput: each distinct segment is translated once per file (subtitles and tables repeat a
lot); the distinct segments are sorted by length (longest first, so memory peaks and the ETA
is pessimistic early rather than late) and sent to ``translator.translate_batch`` in chunks,
inside which the engine does its own length bucketing under a token budget, drops finished
rows and dedupes again. A chunk is the unit of the journal: after each one the journal is
fsynced, so an interruption loses at most one chunk of work.

The chunk size is the caller's (``chunk_size``: ``desktop-mt translate --chunk-size``), and a
:class:`ChunkListener` (``on_chunk``) hears of each journaled chunk: the seam through which a
caller (the resume-after-SIGKILL tests among them) learns how far a job has got.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from ..base.errors import TranslationCancelled
from ..engine.options import GenerationOptions
from ..engine.protocols import CancelToken, TranslatorFace
from .journal import Journal
from .textio import clean_translation

__all__ = [
    "ProgressFn",
    "ChunkListener",
    "BatchTranslator",
    "default_chunk_size",
    "distinct_segments",
    "translate_distinct",
    "translate_segments",
]

ProgressFn = Callable[[int, int], None]


class ChunkListener(Protocol):
    """Called after each chunk is journaled: ``chunks`` done in this run, ``done`` and
    ``total`` distinct segments (those recovered from a journal included)."""

    def __call__(self, chunks: int, done: int, total: int) -> None: ...


_MIN_CHUNK = 64  # segments; small enough that a kill loses little, big enough to bucket well


BatchTranslator = TranslatorFace
"""What the batch code uses of a translator: the front ends' one face
(``engine.protocols.TranslatorFace``). Its ``options``, ``model_info``/``model_infos``,
``variant`` and ``memory_identity`` go into the journal key (``desktop_mt.batch.job_key``);
``batch_size`` (sentences per engine batch) sizes the chunks, and enters the key where the
output depends on it (``batch_invariant`` False: dynamic int8)."""


def default_chunk_size(batch_size: int) -> int:
    """Segments per translate_batch call: a few engine batches, so bucketing has choice."""
    return max(_MIN_CHUNK, 4 * batch_size)


def distinct_segments(segments: Sequence[str]) -> tuple[list[str], list[int]]:
    """``(distinct, index_of)``: the non-empty distinct segments in order of first appearance,
    and for each segment its index in ``distinct`` (-1 for an empty segment)."""
    position: dict[str, int] = {}
    index_of: list[int] = []
    for text in segments:
        if not text:
            index_of.append(-1)
            continue
        index_of.append(position.setdefault(text, len(position)))
    return list(position), index_of


def translate_distinct(
    distinct: Sequence[str],
    translator: BatchTranslator,
    *,
    done: dict[int, str],
    journal: Journal | None = None,
    options: GenerationOptions | None = None,
    chunk_size: int = _MIN_CHUNK,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
    on_chunk: ChunkListener | None = None,
) -> dict[int, str]:
    """Translate every id of ``distinct`` not yet in ``done`` (which is filled in and returned).

    ``progress(done, total)`` counts distinct segments, those recovered from a journal included.
    Raises :class:`TranslationCancelled` when ``cancel`` is set (checked between chunks and,
    by the engine, every decode step); the journal then holds every finished chunk.
    ``on_chunk`` hears of each journaled chunk.
    """
    total = len(distinct)
    pending = sorted((i for i in range(total) if i not in done), key=lambda i: -len(distinct[i]))
    if progress:
        progress(len(done), total)
    for number, start in enumerate(range(0, len(pending), chunk_size), start=1):
        if cancel is not None and cancel.is_set():
            raise TranslationCancelled("the translation was cancelled")
        ids = pending[start : start + chunk_size]
        outputs = _translate_chunk([distinct[i] for i in ids], translator, options, cancel, progress, len(done), total)
        items = {i: clean_translation(out) for i, out in zip(ids, outputs)}
        if journal is not None:
            journal.append(items)
        done.update(items)
        if progress:
            progress(len(done), total)
        if on_chunk is not None:
            on_chunk(number, len(done), total)
    return done


def _translate_chunk(
    lines: list[str],
    translator: BatchTranslator,
    options: GenerationOptions | None,
    cancel: CancelToken | None,
    progress: ProgressFn | None,
    base: int,
    total: int,
) -> list[str]:
    inner: ProgressFn | None = None
    if progress is not None:
        report = progress

        def inner(done: int, _total: int) -> None:
            report(base + done, total)

    outputs = translator.translate_batch(lines, options=options, cancel=cancel, progress=inner)
    if len(outputs) != len(lines):  # the contract says one per line; never lose a line silently
        raise RuntimeError(f"translate_batch returned {len(outputs)} lines for {len(lines)}")
    return list(outputs)


def translate_segments(
    segments: Sequence[str],
    translator: BatchTranslator,
    *,
    options: GenerationOptions | None = None,
    batch_size: int | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
    chunk_size: int | None = None,
) -> list[str]:
    """Translate a list of segments without a journal (stdin, small jobs): one output each,
    empty segments give ``""``, identical segments are translated once."""
    distinct, index_of = distinct_segments(segments)
    size = chunk_size or default_chunk_size(batch_size or translator.batch_size)
    done = translate_distinct(
        distinct, translator, done={}, options=options, chunk_size=size, progress=progress, cancel=cancel
    )
    return [done[i] if i >= 0 else "" for i in index_of]
