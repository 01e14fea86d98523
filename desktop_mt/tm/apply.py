"""Translating with the memory: a sentence with an exact match is never sent to the model.

:class:`MemoryTranslator` wraps any batch translator (``desktop_mt.batch.BatchTranslator``:
a ``Translator``, a ``TwoWayTranslator``, a test's fake) for the CLI's ``--tm``: each line is
cut into sentences (``engine.direction.split_sentences``), the sentences the memory knows
take its translation, and only the others go to the model, all in one ``translate_batch``
call (so the model still batches them). A line with no match goes to the model whole, exactly
as without a memory.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..engine import direction as dirs
from ..engine.options import GenerationOptions
from .store import TranslationMemory

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
    """A batch translator that takes exact memory matches and sends the rest to ``inner``.

    ``options``, ``variant``, ``batch_size``, ``model_info`` and ``batch_invariant`` are
    ``inner``'s, so the batch code treats it as the translator it wraps. ``counts`` adds up
    over every call. ``confirmed_only``: take only approved or imported matches, never an
    unapproved edit's (the window's rule, docs/POSTEDIT.md "Approved beats edited": the
    window's file jobs use the user's memory so); else the newest exact match of any origin."""

    def __init__(self, inner: Any, memory: TranslationMemory, confirmed_only: bool = False) -> None:
        self.inner = inner
        self.memory = memory
        self.confirmed_only = confirmed_only
        self.counts = MemoryCounts()

    @property
    def options(self) -> GenerationOptions:
        options: GenerationOptions = self.inner.options
        return options

    @property
    def variant(self) -> str:
        return str(self.inner.variant)

    @property
    def batch_size(self) -> int:
        return int(self.inner.batch_size)

    @property
    def model_info(self) -> Any:
        return self.inner.model_info

    @property
    def batch_invariant(self) -> bool:
        return bool(self.inner.batch_invariant)

    def close(self) -> None:
        self.inner.close()

    def translate_batch(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: Any = None,
        progress: ProgressFn | None = None,
    ) -> list[str]:
        """One translation per line: memory matches as they are kept, the rest by ``inner``."""
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
        for plan in plans:
            if plan is None or not plan.hits:
                out.append(next(done))
            else:
                out.append(_join([t if t is not None else next(done) for _, _, t in plan.parts]))
        return out

    def _model(
        self, texts: list[str], opts: GenerationOptions, cancel: Any, progress: ProgressFn | None, lines: int
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


def memory_identity(translator: Any) -> str:
    """What a batch job's key adds for a :class:`MemoryTranslator` (its memory's size and a
    digest of its pairs; "" for any other translator), so that a journal made with another
    memory, or none, is not resumed."""
    if not isinstance(translator, MemoryTranslator):
        return ""
    pairs = sorted((e.direction, e.source, e.target) for e in translator.memory.search(limit=None))
    digest = hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]
    return f"{len(pairs)} entries, {digest}"


def memory_factory(
    factory: Callable[[Any], Any], memory_of: Callable[[], TranslationMemory | None]
) -> Callable[[Any], Any]:
    """``factory`` (config -> batch translator) whose translators take the exact matches of
    ``memory_of()`` (asked at each build: the memory as it is then) through a
    :class:`MemoryTranslator` that takes approved or imported matches only (an unapproved
    edit is never used unreviewed); without a memory, ``factory``'s own. The window's file jobs
    use the user's memory this way, as ``translate --tm`` does."""

    def build(config: Any) -> Any:
        translator = factory(config)
        memory = memory_of()
        return translator if memory is None else MemoryTranslator(translator, memory, confirmed_only=True)

    return build


def unwrap(translator: Any) -> Any:
    """The translator a :class:`MemoryTranslator` wraps (any other: itself)."""
    return translator.inner if isinstance(translator, MemoryTranslator) else translator
