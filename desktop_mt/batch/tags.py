"""Tag projection: inline formatting carried from a source text onto its translation.

A text with formatting (an SRT cue with ``<i>``/``<b>``/``<u>``/``<font>``, a Word paragraph
with bold, italic, coloured or linked runs) is a plain text plus *spans* (``Span``: a range
of the plain text and an opaque ``mark``: the tag pair, the run's format) and *anchors*
(zero-width things at a position: a footnote reference). The method, after Bergamot's HTML
handling, with the alignment made from the engine's public API:

1. The plain text is cut into its sentences (``engine.segment.segment_sentences``); each is
   translated whole, as one segment, so formatting never changes the translation.
2. A span that covers whole sentences wraps their translations exactly.
3. A span inside one sentence is translated alone too (one more segment), and placed on the
   window of the sentence's translation that best matches that translation, by character
   overlap (Dice coefficient of the distinct letters and digits; at least :data:`_MIN_MATCH`). This is a
   word aligner for the case at hand: spans are words or phrases, and the same model
   translates them the same way in and out of context often enough. Where it does not (no
   window matches well enough), the span falls back to wrapping its whole sentence.
4. Placed spans must nest (tags cannot cross): a span that would cross one already placed
   falls back to its sentences, then to the whole text, which nests with everything. So the
   markup built from a projection is always balanced.
5. An anchor (a note reference) at a sentence's end goes to the end of its translation; one
   inside a sentence goes after the aligned translation of the words just before it (the
   last :data:`_ANCHOR_WORDS`, translated alone), or to the sentence's end where they do not
   align.

``ProjectedText(text, spans, collector)`` registers the segments; ``project(translations)``
gives a :class:`Projection` (the translated plain text, its placed spans and anchors) that
the formats turn into markup (``srt``) or runs (``docx_format``). :func:`markup` renders
well-nested spans as tags.
"""

from __future__ import annotations

import dataclasses
import difflib
import unicodedata
from collections.abc import Callable, Hashable, Sequence

from .textio import SegmentCollector, clean_segment, is_wide, sentence_ranges

__all__ = [
    "Span",
    "Placed",
    "Projection",
    "ProjectedText",
    "best_window",
    "markup_with_anchors",
    "closing_point",
    "edge_anchors",
    "clip",
    "markup",
]

_MIN_MATCH = 0.5  # Dice overlap a window must reach to count as the span's aligned words
# Windows of the best score compared in order (difflib); repetitive text ("word word word ...")
# ties thousands of windows, and comparing them all made one sentence take minutes.
_MAX_TIES = 32
# A sentence's translation longer than this is not searched for a span's words (the span wraps
# the sentence): the search is linear in it per span, and such a "sentence" is a run-on list or
# an attack on the local API, not prose.
_MAX_ALIGNED = 1000
_ANCHOR_WORDS = 2  # words before a mid-sentence anchor (a note reference) aligned to place it


@dataclasses.dataclass(frozen=True)
class Span:
    """A formatted range ``[start, end)`` of a plain text, carrying ``mark`` (what to apply)."""

    start: int
    end: int
    mark: Hashable


@dataclasses.dataclass(frozen=True)
class Placed:
    """A span on the translation. ``aligned``: on the words aligned to its source words (or
    on whole sentences it covered whole); False: the fallback that wraps whole sentences."""

    start: int
    end: int
    mark: Hashable
    aligned: bool


@dataclasses.dataclass(frozen=True)
class Projection:
    """A translated text: ``text``, its well-nested ``spans`` and its ``anchors`` (offset, mark)."""

    text: str
    spans: list[Placed]
    anchors: list[tuple[int, Hashable]]


@dataclasses.dataclass(frozen=True)
class _Sentence:
    start: int  # in the core text
    end: int
    segment: int


@dataclasses.dataclass(frozen=True)
class _SpanPlan:
    span: Span  # in core coordinates
    first: int  # sentences it touches
    last: int
    whole: bool  # it covers them whole
    segment: int  # its own segment (inside one sentence), else -1
    at_start: bool = False  # it starts where its sentence starts
    at_end: bool = False  # it ends where its sentence ends (its closing mark aside)
    ends_with_mark: bool = False  # its source text ends with punctuation


class ProjectedText:
    """One formatted text as sentence segments (and span segments) in ``collector``."""

    def __init__(
        self,
        text: str,
        spans: Sequence[Span],
        collector: SegmentCollector,
        anchors: Sequence[tuple[int, Hashable]] = (),
    ) -> None:
        core = text.strip()
        self.lead = text[: len(text) - len(text.lstrip())]
        self.trail = text[len(text.rstrip()) :] if core else ""
        self.source = text
        shift = len(self.lead)
        clean = clean_segment(core)  # one character for one: offsets stay
        self._sentences = [
            _Sentence(a, b, collector.add_segment(clean[a:b].strip())) for a, b in sentence_ranges(clean)
        ]
        self._gaps = [core[a.end : b.start] for a, b in zip(self._sentences, self._sentences[1:])]
        planned = [
            self._plan_span(Span(max(s.start - shift, 0), min(s.end - shift, len(core)), s.mark), clean, collector)
            for s in spans
            if s.end - shift > 0 and s.start - shift < len(core)
        ]
        self._spans = [p for p in planned if p is not None]
        self._anchors = [
            self._plan_anchor(min(max(pos - shift, 0), len(core)), mark, clean, collector) for pos, mark in anchors
        ]

    @property
    def segments(self) -> list[int]:
        """The indices of every segment this text registered."""
        return (
            [s.segment for s in self._sentences]
            + [p.segment for p in self._spans if p.segment >= 0]
            + [b.segment for _, _, b in self._anchors if b is not None and b.segment >= 0]
        )

    @property
    def span_count(self) -> int:
        """How many formatting spans the source has (on text, not on spaces alone)."""
        return len(self._spans)

    def _plan_anchor(
        self, pos: int, mark: Hashable, clean: str, collector: SegmentCollector
    ) -> tuple[int, Hashable, _SpanPlan | None]:
        """An anchor as ``(sentence, mark, words before it)``: inside a sentence, the (up to
        :data:`_ANCHOR_WORDS`) words just before it, to be aligned like a span so that the
        anchor follows their translation; at a sentence's end, None (it ends the sentence)."""
        k = self._sentence_at(pos)
        if not self._sentences:
            return k, mark, None
        sentence = self._sentences[k]
        if not any(c.isalnum() for c in clean[pos : sentence.end]):
            return k, mark, None
        words = clean[sentence.start : pos].split()[-_ANCHOR_WORDS:]
        if not words:
            return k, mark, None
        start = clean.rindex(words[0], sentence.start, pos)
        return k, mark, self._plan_span(Span(start, pos, None), clean, collector)

    def _sentence_at(self, pos: int) -> int:
        """The sentence holding position ``pos`` (a position in a gap: the sentence before it)."""
        return max((k for k, s in enumerate(self._sentences) if s.start <= pos), default=0)

    def _plan_span(self, span: Span, clean: str, collector: SegmentCollector) -> _SpanPlan | None:
        inner = clean[span.start : span.end]
        if not inner.strip() or not self._sentences:
            return None  # formatting on spaces only: nothing to show it on
        start = span.start + len(inner) - len(inner.lstrip())
        end = span.end - (len(inner) - len(inner.rstrip()))
        touched = [k for k, s in enumerate(self._sentences) if s.start < end and start < s.end]
        if not touched:
            return None
        first, last = touched[0], touched[-1]
        whole = start <= self._sentences[first].start and end >= self._sentences[last].end
        segment = -1
        if not whole and first == last:
            segment = collector.add_segment(clean[start:end])
        sentence = self._sentences[first]
        rest = clean[end : sentence.end]
        return _SpanPlan(
            Span(start, end, span.mark),
            first,
            last,
            whole,
            segment,
            at_start=start <= sentence.start,
            at_end=not any(c.isalnum() for c in rest),
            ends_with_mark=not clean[end - 1].isalnum(),
        )

    def project(self, translations: Sequence[str]) -> Projection:
        """The translation with its spans placed (always well nested) and anchors placed."""
        texts = [translations[s.segment] for s in self._sentences]
        offsets: list[int] = []
        parts: list[str] = []
        pos = 0
        for k, text in enumerate(texts):
            if k:
                gap = self._gaps[k - 1]
                if (parts[-1][-1:] and is_wide(parts[-1][-1])) or (text[:1] and is_wide(text[0])):
                    gap = ""
                parts.append(gap)
                pos += len(gap)
            offsets.append(pos)
            parts.append(text)
            pos += len(text)
        body = "".join(parts)
        base = len(self.lead)

        def sentences(first: int, last: int) -> tuple[int, int]:
            return offsets[first], offsets[last] + len(texts[last])

        candidates: list[_Candidate] = []
        for plan in self._spans:
            fallback = sentences(plan.first, plan.last)
            where, aligned = fallback, plan.whole
            if plan.segment >= 0:
                found = best_window(texts[plan.first], translations[plan.segment], plan.ends_with_mark)
                if found is not None:
                    found = _to_edges(texts[plan.first], found, plan.at_start, plan.at_end)
                    where = (offsets[plan.first] + found[0], offsets[plan.first] + found[1])
                    aligned = True
            candidates.append((where, aligned, fallback, plan.span.mark))
        placed = _nest(candidates, len(body))
        anchors: list[tuple[int, Hashable]] = []
        for k, mark, before in self._anchors:
            at = sentences(k, k)[1]
            if before is not None and before.segment >= 0:
                window = best_window(texts[k], translations[before.segment], with_mark=False)
                at = offsets[k] + window[1] if window is not None else at
            anchors.append((base + at, mark))
        return Projection(
            self.lead + body + self.trail,
            [dataclasses.replace(p, start=p.start + base, end=p.end + base) for p in placed],
            anchors,
        )


def _letters(text: str) -> dict[str, None]:
    """The distinct letters and digits of ``text``: sets, not counts, since a fragment
    translated alone may come back with a word repeated ("汤姆汤姆。"), which must not weigh
    against it."""
    return dict.fromkeys(c for c in text.lower() if c.isalnum())


def _to_edges(target: str, found: tuple[int, int], at_start: bool, at_end: bool, slack: int = 1) -> tuple[int, int]:
    """A window widened to the start (end) of its sentence's translation when the source span
    starts (ends) its sentence and at most ``slack`` letters lie between: the words a span
    opens or closes a sentence with are, in the translation, mostly there too."""
    start, end = found
    if at_start and sum(c.isalnum() for c in target[:start]) <= slack:
        start = len(target) - len(target.lstrip())
    if at_end and sum(c.isalnum() for c in target[end:]) <= slack:
        words_end = max((k + 1 for k, c in enumerate(target) if c.isalnum()), default=end)
        end = max(end, words_end)  # up to the last word; the sentence's closing mark is not the span's
    return start, end


def best_window(
    target: str, query: str, with_mark: bool = True, min_match: float = _MIN_MATCH
) -> tuple[int, int] | None:
    """The ``[start, end)`` of ``target`` whose letters and digits best match ``query``'s
    (Dice coefficient of the two sets of distinct characters, at least ``min_match``); None when no
    window matches well enough. A window starts and ends on a character of ``query``; with
    ``with_mark`` (the source span ends with punctuation) it takes in the mark that follows
    it when ``query`` ends with that mark."""
    want = _letters(query)
    size = len(want)
    if not size or len(target) > _MAX_ALIGNED:
        return None
    lowered = target.lower()
    best_score, windows = 0.0, []  # the windows of the best score
    longest = 3 * len(query) + 8
    for a, first in enumerate(lowered):
        if first not in want:
            continue
        seen: set[str] = set()  # the window's distinct letters and digits
        common = 0  # how many of them the query has
        for b in range(a, min(len(target), a + longest)):
            c = lowered[b]
            if not c.isalnum():
                continue
            if c not in seen:
                seen.add(c)
                common += c in want
            if c not in want:
                continue
            score = 2 * common / (size + len(seen))
            if score > best_score + 1e-9:
                best_score, windows = score, [(a, b + 1)]
            elif score > best_score - 1e-9 and len(windows) < _MAX_TIES:
                windows.append((a, b + 1))
    if best_score < min_match:
        return None
    # Sets forget order: among equal windows, the one that reads most like the query in order.
    letters = "".join(c for c in query.lower() if c.isalnum())
    start, end = max(
        windows, key=lambda w: (difflib.SequenceMatcher(None, lowered[w[0] : w[1]], letters).ratio(), w[0] - w[1])
    )
    last = query.rstrip()[-1:]
    if with_mark and last and not last.isalnum() and end < len(target) and _same_mark(target[end], last):
        end += 1
    return start, end


def _same_mark(a: str, b: str) -> bool:
    """``a`` and ``b`` are the same punctuation mark, either width ("。" and ".", "？" and "?")."""
    return unicodedata.normalize("NFKC", a) == unicodedata.normalize("NFKC", b) or (a, b) == ("。", ".")


# A span's place: (where, aligned, fallback: its whole sentences, mark).
_Candidate = tuple[tuple[int, int], bool, tuple[int, int], Hashable]


def _nest(candidates: Sequence[_Candidate], length: int) -> list[Placed]:
    """Accept each ``(where, aligned, fallback, mark)`` in turn where it nests with those
    already placed; otherwise its fallback (its whole sentences), otherwise the whole text."""
    placed: list[Placed] = []
    for where, aligned, fallback, mark in candidates:
        for (start, end), ok in ((where, aligned), (fallback, False), ((0, length), False)):
            if start >= end:
                continue
            if any((p.start, p.end, p.mark) == (start, end, mark) for p in placed):
                break  # the same formatting on the same words already: once is enough
            if all(_nests(start, end, p.start, p.end) for p in placed):
                placed.append(Placed(start, end, mark, ok))
                break
    return placed


def _nests(a0: int, a1: int, b0: int, b1: int) -> bool:
    return a1 <= b0 or b1 <= a0 or (a0 <= b0 and b1 <= a1) or (b0 <= a0 and a1 <= b1)


def markup_with_anchors(
    projection: Projection,
    open_tag: Callable[[Hashable], str],
    close_tag: Callable[[Hashable], str],
    anchor: Callable[[Hashable], str],
    lead: Sequence[Hashable] = (),
    trail: Sequence[Hashable] = (),
    before_end: Sequence[Hashable] = (),
    escape: Callable[[str], str] = str,
) -> str:
    """:func:`markup`, with the anchors too: ``lead`` ones first, the projection's at their
    places (never before one that came before them in the source), ``before_end`` ones before
    the translation's closing punctuation, ``trail`` ones last (see :func:`edge_anchors`)."""
    text = projection.text
    end = closing_point(text)
    placed = [*projection.anchors, *((end, mark) for mark in before_end)]
    inserts: dict[int, list[str]] = {}
    floor = 0
    for pos, mark in placed:
        floor = max(floor, min(pos, len(text)))
        inserts.setdefault(floor, []).append(anchor(mark))
    # An anchor is a zero-width span: rendered as its text at its place, before spans open there.
    pieces: list[str] = []
    spans = sorted(range(len(projection.spans)), key=lambda k: (projection.spans[k].start, -projection.spans[k].end, k))
    opens: dict[int, list[int]] = {}
    for k in spans:
        opens.setdefault(projection.spans[k].start, []).append(k)
    stack: list[int] = []
    for pos in range(len(text) + 1):
        while stack and projection.spans[stack[-1]].end == pos:
            pieces.append(close_tag(projection.spans[stack.pop()].mark))
        pieces.extend(inserts.get(pos, []))
        for k in opens.get(pos, []):
            pieces.append(open_tag(projection.spans[k].mark))
            stack.append(k)
        if pos < len(text):
            pieces.append(escape(text[pos]))  # the text's own escaping (HTML: &amp; &lt;)
    while stack:
        pieces.append(close_tag(projection.spans[stack.pop()].mark))
    return "".join([*(anchor(m) for m in lead), *pieces, *(anchor(m) for m in trail)])


def closing_point(text: str) -> int:
    """Where ``text``'s closing punctuation starts (``"下载。"`` -> 2): the place of a code that
    came before the source's full stop ("... from <link>.")."""
    end = len(text.rstrip())
    while end and not text[end - 1].isalnum() and not text[end - 1].isspace():
        end -= 1
    return end


def edge_anchors(
    text: str, spans: Sequence[Span], anchors: Sequence[tuple[int, Hashable]]
) -> tuple[list[Hashable], list[tuple[int, Hashable]], list[Hashable], list[Hashable]]:
    """``(lead, middle, before_end, trail)``: the anchors before the text's first letter or
    digit (they stay first in the translation), those between (placed by
    :class:`ProjectedText` after the words before them), those after its last one with only
    punctuation after them (they go before the translation's closing punctuation) and those
    with nothing after them (they stay last). An anchor strictly inside a span stays with the
    projection, which moves it with the span's words."""
    letters = [k for k, c in enumerate(text) if c.isalnum()]
    if not letters:
        return [mark for _, mark in anchors], [], [], []
    first, last = letters[0], letters[-1] + 1

    def inside(pos: int) -> bool:
        return any(s.start < pos < s.end for s in spans)

    lead: list[Hashable] = []
    middle: list[tuple[int, Hashable]] = []
    before_end: list[Hashable] = []
    trail: list[Hashable] = []
    for pos, mark in anchors:
        if pos <= first and not inside(pos):
            lead.append(mark)
        elif pos >= last and not inside(pos):
            (before_end if text[pos:].strip() else trail).append(mark)
        else:
            middle.append((pos, mark))
    return lead, middle, before_end, trail


def clip(spans: Sequence[Placed], start: int, end: int) -> list[Placed]:
    """The spans' parts inside ``[start, end)``, shifted to start at 0 (still well nested)."""
    out = []
    for p in spans:
        a, b = max(p.start, start), min(p.end, end)
        if a < b:
            out.append(dataclasses.replace(p, start=a - start, end=b - start))
    return out


def markup(
    text: str, spans: Sequence[Placed], open_tag: Callable[[Hashable], str], close_tag: Callable[[Hashable], str]
) -> str:
    """``text`` with each (well-nested) span's tags around it: outer spans open first and close
    last; spans of the same range keep their order."""
    order = sorted(range(len(spans)), key=lambda k: (spans[k].start, -spans[k].end, k))
    opens: dict[int, list[int]] = {}
    for k in order:
        opens.setdefault(spans[k].start, []).append(k)
    out: list[str] = []
    stack: list[int] = []
    for pos in range(len(text) + 1):
        while stack and spans[stack[-1]].end == pos:
            out.append(close_tag(spans[stack.pop()].mark))
        for k in opens.get(pos, []):
            out.append(open_tag(spans[k].mark))
            stack.append(k)
        if pos < len(text):
            out.append(text[pos])
    while stack:  # only reachable with spans past the text's end; closed all the same
        out.append(close_tag(spans[stack.pop()].mark))
    return "".join(out)
