"""A translation stream: a text's plan decoded segment by segment as ``TextDelta``s, then
``SegmentDone`` per segment and ``Finished`` (``Translator.translate_stream``), and what it
shares with a post-editing completion stream (``engine.prefix``): the clock and the new token
ids of a search event. Imported by ``translator`` and ``prefix``; it imports neither (it takes
a :class:`~desktop_mt.engine.core.TranslatorCore`)."""

from __future__ import annotations

import dataclasses
import itertools
import re
import time
from collections.abc import Generator, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, cast

from . import generation as gen
from . import spans, textproc
from .events import Finished, SegmentDone, StreamEvent, TextDelta, TranslationStats
from .lookahead import LookAhead, Search, plan_texts, single_search
from .model_text import Kept, PlanPiece, decide
from .options import GenerationOptions
from .segment import Segment
from .tokenizer import IncrementalDecoder

if TYPE_CHECKING:
    from .core import TranslatorCore
    from .protocols import CancelToken

__all__ = [
    "new_ids",
    "Clock",
    "FIRST_SHOWN",
    "stream_text",
    "stream_each",
    "first_shown_at_once",
]


def new_ids(event: gen.SearchEvent, count: int) -> list[int]:
    """The ids a search event adds to a stream that has shown ``count`` of them."""
    if isinstance(event, gen.TokensStep):
        return event.ids
    return event.ids[count:] if isinstance(event, gen.ItemDone) else []


class Clock:
    """A stream's timing: seconds since it started, and to its first shown text."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.first: float | None = None

    def mark(self) -> None:
        """Text is being shown: the first time, note when."""
        if self.first is None:
            self.first = self.elapsed()

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


class _StreamState:
    """What a stream has done so far: segments shown, tokens, the paths of its sentences with spans."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.index = self.tokens = self.whole = self.cut = 0
        self.cancelled = False


_LINE_BREAK = re.compile(r"(\r\n|\n|\r)")  # as segment.walk_lines splits a text
FIRST_SHOWN = "shown at once"
"""The cut reason of a look-ahead stream's first sentence with spans (see :func:`stream_text`)."""


def stream_text(
    core: TranslatorCore, text: str, opts: GenerationOptions, cancel: CancelToken | None = None, rows: int = 1
) -> Generator[StreamEvent, None, None]:
    """``Translator.translate_stream`` in the model's own script. ``rows`` > 1: the texts after
    the first are decoded ahead in batches of up to ``rows`` rows (``engine.lookahead``), and a
    first sentence with protected spans is cut around them without trying it whole
    (:func:`first_shown_at_once`: its text shows after one decode step, not after the whole
    sentence's decode); the other events are the same."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if rows <= 1:
        plan = core.text.plan(text, opts)
        yield from _stream_plan(core, plan, opts, cancel, single_search(core, opts, cancel))
        return
    first, rest = _first_line(core, text, opts)
    first = first_shown_at_once(first, more=rest is not None)
    ahead = LookAhead(core, first, opts, cancel, rows, more=rest)
    items = first if rest is None else itertools.chain(first, _later(rest))
    try:
        yield from _stream_plan(core, items, opts, cancel, ahead.search)
    finally:
        ahead.close()


class _Rest:
    """The plan of a text's lines after its first, made when first asked for (by the look-ahead
    once the first text is decoded, or by the stream when it gets there): planning a long paste
    whole (~60 ms for 3,000 words) would come before its first text."""

    def __init__(self, core: TranslatorCore, text: str, opts: GenerationOptions, newline: str) -> None:
        self.core, self.text, self.opts, self.newline = core, text, opts, newline
        self.items: list[PlanPiece] | None = None

    def __call__(self) -> list[PlanPiece]:
        if self.items is None:
            self.items = [self.newline, *self.core.text.plan(self.text, self.opts)]
        return self.items


def _first_line(core: TranslatorCore, text: str, opts: GenerationOptions) -> tuple[list[PlanPiece], _Rest | None]:
    """``text``'s first line planned, and the rest to plan later (None: one line, or a first line
    that opens a code block, which changes how the lines after it are planned). A line's plan
    does not depend on the other lines (``segment.walk_lines``), so the two together are the
    whole text's plan."""
    parts = _LINE_BREAK.split(text, maxsplit=1)
    if len(parts) < 3 or not parts[2].strip() or textproc.is_fence(parts[0]):
        return core.text.plan(text, opts), None
    return core.text.plan(parts[0], opts), _Rest(core, parts[2], opts, parts[1])


def _later(rest: _Rest) -> Iterator[PlanPiece]:
    yield from rest()


def stream_each(
    core: TranslatorCore,
    texts: Sequence[str],
    opts: GenerationOptions,
    cancel: CancelToken | None = None,
    rows: int = 1,
    alone: int = 0,
) -> Generator[Generator[StreamEvent, None, None], None, None]:
    """One stream per text of ``texts``, in order (take each to its end before the next), with
    one look-ahead over all of them: ``texts[alone]``'s first text is decoded alone (the sentence
    at the window's cursor streams token by token as it always did) and the others in batches of
    up to ``rows`` rows, each shown, in order, as soon as it and those before it are done. Each
    stream's events are those :func:`stream_text` gives for its text alone (``rows`` 1)."""
    plans = [core.text.plan(text, opts) for text in texts]
    solo = plan_texts(plans[alone])[:1] if 0 <= alone < len(plans) else []
    ahead = LookAhead(core, [item for plan in plans for item in plan], opts, cancel, rows, solo)
    try:
        for plan in plans:
            yield _stream_plan(core, plan, opts, cancel, ahead.search)
    finally:
        ahead.close()


def first_shown_at_once(plan: list[PlanPiece], more: bool = False) -> list[PlanPiece]:
    """``plan`` with its first model text, when it is a sentence with protected spans to be tried
    whole and more texts follow it (a paste), cut around its spans without trying (reason
    :data:`FIRST_SHOWN`). A sentence tried whole shows nothing until its whole decode is done and
    checked (docs/ENGINE_API.md), which as the first of a paste is the first text's wait: 150 ms
    on the demo model, about ten times that on an opus-mt model; cut, its first piece streams at
    once. The sentences after it keep the whole try (look-ahead decodes them while the first is
    shown), and so does a text of one sentence (the sentence is all the user waits for).
    ``more``: lines not planned yet follow ``plan``."""
    if not more and len(plan_texts(plan)) <= 1:
        return plan
    for k, item in enumerate(plan):
        if isinstance(item, spans.Whole):
            if item.reason:
                return plan
            return [*plan[:k], dataclasses.replace(item, reason=FIRST_SHOWN), *plan[k + 1 :]]
        if isinstance(item, Segment):
            return plan
    return plan


def _stream_plan(
    core: TranslatorCore,
    plan: Iterable[PlanPiece],
    opts: GenerationOptions,
    cancel: CancelToken | None,
    search: Search,
) -> Generator[StreamEvent, None, None]:
    """A planned text's events through ``search``, ending with its ``Finished``."""
    state = _StreamState()
    yield from _stream_items(core, plan, opts, cancel, state, search)
    clock = state.clock
    yield Finished(
        TranslationStats(
            state.index, state.tokens, clock.elapsed(), clock.first, state.cancelled, state.whole, state.cut
        )
    )


def _stream_items(
    core: TranslatorCore,
    items: Iterable[PlanPiece],
    opts: GenerationOptions,
    cancel: CancelToken | None,
    state: _StreamState,
    search: Search,
    decision: spans.Decision | None = None,
) -> Generator[StreamEvent, None, None]:
    """The events of a plan's items (``decision``: how the sentence these items cut was
    decided, put on their ``SegmentDone``s); sets ``state.cancelled`` and stops when cancelled."""
    held: SegmentDone | None = None  # a sentence's end, held until the spans that end it are out
    owed = 0  # how many of those literals are still to come
    for item in items:
        if held is not None and (owed <= 0 or not isinstance(item, str)):
            yield held
            held = None
        if isinstance(item, spans.Whole):
            yield from _stream_whole(core, item, opts, cancel, state, search)
            if state.cancelled:
                break
            continue
        if isinstance(item, Kept):
            yield TextDelta(item.text, state.index)
            yield SegmentDone(state.index, item.text, item.text, 0)
            state.index += 1
            continue
        if not isinstance(item, Segment):
            yield TextDelta(item, -1)
            owed -= 1
            continue
        done = yield from _stream_segment(core, item, state.index, opts, cancel, state.clock, search)
        if done is None:
            state.cancelled = True
            break
        if decision is not None:
            done = dataclasses.replace(done, spans=decision.path, spans_reason=decision.reason)
        state.tokens += done.tokens
        if item.tail:
            held, owed = done, item.tail
        else:
            yield done
        state.index += 1
    if held is not None:
        yield held


def _stream_whole(
    core: TranslatorCore,
    item: spans.Whole,
    opts: GenerationOptions,
    cancel: CancelToken | None,
    state: _StreamState,
    search: Search,
) -> Generator[StreamEvent, None, None]:
    """A sentence with protected spans: decoded whole first (nothing shown meanwhile), shown
    as one delta when its output holds every span, else streamed cut around its spans. The
    decision comes before anything is shown, so deltas stay append-only (docs/ENGINE_API.md)."""
    decision = spans.Decision(spans.CUT, item.reason)
    if not item.reason:
        ids = _decode_whole(item.text, cancel, search)
        if ids is None:
            state.cancelled = True
            return
        state.tokens += len(ids)
        text = core.text.finish_text(core.tokenizer.decode(ids).strip(), opts)
        decision = decide(text, item)
        if decision.path == spans.WHOLE:
            state.clock.mark()
            yield TextDelta(text, state.index)
            yield SegmentDone(state.index, item.text, text, len(ids), spans=spans.WHOLE)
            state.index += 1
    core.span_counts.add(decision)
    if decision.path == spans.WHOLE:
        state.whole += 1
        return
    state.cut += 1
    fallback = cast("tuple[PlanPiece, ...]", item.fallback)
    yield from _stream_items(core, fallback, opts, cancel, state, search, decision)


def _decode_whole(text: str, cancel: CancelToken | None, search: Search) -> list[int] | None:
    """The output ids of one sentence, decoded in full (None: cancelled)."""
    ids: list[int] | None = None
    for event in search(text):
        if isinstance(event, gen.ItemDone):
            ids = event.ids
    if cancel is not None and cancel.is_set():
        return None
    return ids


def _stream_segment(
    core: TranslatorCore,
    item: Segment,
    index: int,
    opts: GenerationOptions,
    cancel: CancelToken | None,
    clock: Clock,
    search: Search,
) -> Generator[StreamEvent, None, SegmentDone | None]:
    """One segment's deltas as they decode; returns its ``SegmentDone`` (None: cancelled)."""
    decoder, count, shown = IncrementalDecoder(core.tokenizer), 0, ""
    for event in search(item.text):
        # Beam search commits only the prefix all hypotheses share; ItemDone brings the rest.
        for token in new_ids(event, count):
            count += 1
            new = decoder.emitted if decoder.push(token) else ""
            delta, shown = core.text.advance(shown, new, opts, item)
            if delta:
                clock.mark()
                yield TextDelta(delta, index)
    if cancel is not None and cancel.is_set():
        return None
    decoder.finish()
    tail, shown = core.text.advance(shown, decoder.emitted, opts, item, final=True)
    if tail:
        clock.mark()
        yield TextDelta(tail, index)
    return SegmentDone(index, item.text, shown, count, continues=item.joined, sentence=item.sentence)
