"""Translating with the memory: a sentence with an exact match is never sent to the model.

:class:`MemoryTranslator` wraps a translator face (``engine.protocols.TranslatorFace``: a
``TwoWayTranslator``, a test's stand-in) and is one itself, for the CLI's ``--tm``, the server's
memory and the window's file jobs: each line of a batch is
cut into sentences (``engine.direction.split_sentences``), the sentences the memory knows
take its translation, and only the others go to the model, all in one ``translate_batch``
call (so the model still batches them). A line with no match goes to the model whole, exactly
as without a memory.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from typing import Any

from ..engine import direction as dirs
from ..engine.direction import Direction
from ..engine.events import Alternative, StreamEvent
from ..engine.options import GenerationOptions
from ..engine.protocols import CancelToken, Translation, TranslatorFace
from ..engine.spans import SpanCounts
from .store import EDITED, TranslationMemory

__all__ = [
    "ProgressFn",
    "MemoryCounts",
    "MemoryTranslator",
    "memory_factory",
]

ProgressFn = Callable[[int, int], None]


@dataclasses.dataclass
class MemoryCounts:
    """Sentences taken from the memory, and texts (lines or sentences) sent to the model;
    ``terms_missing``: sentences from the memory whose translation lacks a glossary term their
    source holds (``Glossary.missing``): kept, as the memory's, and counted so the summary says so."""

    from_memory: int = 0
    to_model: int = 0
    terms_missing: int = 0

    def __str__(self) -> str:
        text = f"{self.from_memory} sentence(s) from the translation memory, {self.to_model} text(s) to the model"
        if self.terms_missing:
            text += f"; {self.terms_missing} of the memory's sentence(s) lack a glossary term"
        return text


@dataclasses.dataclass(frozen=True)
class _Line:
    """A line's sentences: ``(sentence, gap, translation or None)``; None: the model's."""

    parts: tuple[tuple[str, str, str | None], ...]

    @property
    def hits(self) -> int:
        return sum(1 for _, _, t in self.parts if t is not None)


class MemoryTranslator:
    """A translator face that takes exact memory matches and sends the rest to ``inner``.

    Batches (``translate_batch``, ``translate_items``) take the memory's matches; streams and
    alternatives are ``inner``'s (the window shows the memory's matches itself). What the
    models are (``options``, ``variant``, ``model_info``...) is ``inner``'s, so the batch code
    and the server treat it as the translator it wraps; ``memory_identity`` names the memory.
    ``counts`` adds up over every call. ``confirmed_only``: take only approved or imported
    matches, never an unapproved edit's (the window's rule, docs/POSTEDIT.md "Approved beats
    edited": the window's file jobs and Local API use the user's memory so); else the newest
    exact match of any origin."""

    def __init__(self, inner: TranslatorFace, memory: TranslationMemory, confirmed_only: bool = False) -> None:
        self.inner = inner
        self.memory = memory
        self.confirmed_only = confirmed_only
        self.counts = MemoryCounts()

    @property
    def options(self) -> GenerationOptions:
        return self.inner.options

    @property
    def variant(self) -> str:
        return self.inner.variant

    @property
    def batch_size(self) -> int:
        return self.inner.batch_size

    @property
    def model_info(self) -> Any:
        return self.inner.model_info

    @property
    def model_infos(self) -> Mapping[Direction, Any]:
        return self.inner.model_infos

    @property
    def directions(self) -> tuple[Direction, ...]:
        return self.inner.directions

    @property
    def missing(self) -> Mapping[Direction, str]:
        return self.inner.missing

    @property
    def batch_invariant(self) -> bool:
        return self.inner.batch_invariant

    @property
    def span_counts(self) -> SpanCounts:
        return self.inner.span_counts

    @property
    def memory_identity(self) -> str:
        """The memory's size, rule and a digest of the pairs it may answer with, so a batch
        journal made with another memory (or none, or the other rule) is not resumed."""
        return _memory_identity(self.memory, self.confirmed_only)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def target_pieces(
        self, sentence: str, translation: str, options: GenerationOptions | None = None
    ) -> list[str] | None:
        return self.inner.target_pieces(sentence, translation, options)

    def translate(self, text: str, options: GenerationOptions | None = None, cancel: CancelToken | None = None) -> str:
        """A single line takes the memory's matches (as a batch of one); more lines are ``inner``'s."""
        if "\n" in text:
            return self.inner.translate(text, options, cancel)
        return self.translate_batch([text], options, cancel)[0]

    def translate_stream(
        self,
        text: str,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
        look_ahead: bool = False,
    ) -> Generator[StreamEvent, None, None]:
        """``inner``'s stream."""
        return self.inner.translate_stream(text, options, cancel, prefix=prefix, look_ahead=look_ahead)

    def translate_each(
        self,
        texts: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        alone: int = 0,
    ) -> Iterator[Generator[StreamEvent, None, None]]:
        """``inner``'s streams."""
        return self.inner.translate_each(texts, options, cancel, alone)

    def alternatives(
        self,
        sentence: str,
        n: int = 3,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
    ) -> list[Alternative]:
        """``inner``'s n best."""
        return self.inner.alternatives(sentence, n, options, cancel, prefix=prefix)

    def close(self) -> None:
        self.inner.close()

    def translate_batch(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: ProgressFn | None = None,
    ) -> list[str]:
        """One translation per line: memory matches as they are kept, the rest by ``inner``."""
        return [item.text for item in self.translate_items(lines, options, cancel, progress)]

    def translate_items(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: ProgressFn | None = None,
    ) -> list[Translation]:
        """:meth:`translate_batch`'s translations, each with how many of its sentences the
        memory gave and whether the model gave any of it (``Translation``)."""
        opts = options or self.options
        plans = [self._plan(line, opts) for line in lines]
        texts: list[str] = []  # what the model gets: whole lines without a match, else the missing sentences
        for line, plan in zip(lines, plans):
            if plan is None or not plan.hits:
                texts.append(line)
            else:
                texts += [s for s, _, t in plan.parts if t is None]
        self.counts.from_memory += sum(p.hits for p in plans if p is not None)
        self.counts.to_model += len(texts)
        done = self._model(texts, opts, cancel, progress, len(lines))
        out = []
        for line, plan in zip(lines, plans):
            if plan is None or not plan.hits:
                out.append(Translation(next(done), 0, bool(line.strip())))
            else:
                parts = [t if t is not None else next(done) for _, _, t in plan.parts]
                out.append(Translation(_join(parts), plan.hits, plan.hits < len(plan.parts)))
        return out

    def _model(
        self,
        texts: list[str],
        opts: GenerationOptions,
        cancel: CancelToken | None,
        progress: ProgressFn | None,
        lines: int,
    ) -> Iterator[str]:
        """The model's translations of ``texts``, in order (none asked when there are none)."""
        if not texts:
            if progress is not None:
                progress(lines, lines)
            return iter(())
        scaled = None if progress is None else (lambda done, total: progress(round(done * lines / total), lines))
        return iter(self.inner.translate_batch(texts, opts, cancel, scaled))

    def _plan(self, line: str, opts: GenerationOptions) -> _Line | None:
        """A single-line text as sentences with their memory translations (None: a multi-line text)."""
        if "\n" in line or not line.strip():
            return None
        parts = []
        for sentence, gap in dirs.split_sentences(line.strip()):
            direction = dirs.sentence_direction(sentence, opts.target)
            match = None
            if direction is not None:
                find = self.memory.confirmed if self.confirmed_only else self.memory.exact
                match = find(sentence, direction)
            if match is not None and direction is not None and opts.glossary:
                glossary = opts.glossary.oriented(direction.split("-")[0])
                self.counts.terms_missing += bool(glossary.missing(sentence, match.entry.target))
            parts.append((sentence, gap, match.entry.target if match is not None else None))
        return _Line(tuple(parts))


def _join(translations: list[str]) -> str:
    """Translated sentences back into a line: after a Chinese one nothing, else one space
    (the engine's own rule between sentences of a line)."""
    out = ""
    for text in translations:
        out += text if not out or _cjk_end(out) else " " + text
    return out.strip()


def _cjk_end(text: str) -> bool:
    return bool(text) and bool(dirs.CJK.match(text[-1]) or text[-1] in "。！？；…”」』）")


def _memory_identity(memory: TranslationMemory, confirmed_only: bool = False) -> str:
    """What a batch job's key adds for a memory: the number of pairs it may answer with, a
    digest of them (direction, source, target) and, with ``confirmed_only``, that rule; so a
    journal made with another memory, or none, is not resumed (an approved pair added or
    changed after an interrupted job changes its key)."""
    entries = memory.search(limit=None)
    if confirmed_only:
        entries = [e for e in entries if e.origin != EDITED]  # as TranslationMemory.confirmed
    pairs = sorted((e.direction, e.source, e.target) for e in entries)
    digest = hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]
    return f"{len(pairs)} entries, {digest}" + (", confirmed only" if confirmed_only else "")


def memory_factory(
    factory: Callable[[Any], TranslatorFace], memory_of: Callable[[], TranslationMemory | None]
) -> Callable[[Any], TranslatorFace]:
    """``factory`` (config -> translator face) whose translators take the exact matches of
    ``memory_of()`` (asked at each build: the memory as it is then) through a
    :class:`MemoryTranslator` that takes approved or imported matches only (an unapproved
    edit is never used unreviewed); without a memory, ``factory``'s own. The window's file jobs
    use the user's memory this way, as ``translate --tm`` does."""

    def build(config: Any) -> TranslatorFace:
        translator = factory(config)
        memory = memory_of()
        return translator if memory is None else MemoryTranslator(translator, memory, confirmed_only=True)

    return build


def _memory_translator_is_a_face(memory: MemoryTranslator) -> TranslatorFace:
    """Never called: mypy --strict checks that MemoryTranslator has everything the face lists
    (here rather than in desktop_mt.engine.testing, whose fakes of the engine import nothing of tm)."""
    return memory
