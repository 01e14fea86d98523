"""Split text into translatable segments and put the layout back afterwards.

A text becomes a *plan*: a list whose items are either literal strings (newlines, blank
lines, each line's leading/trailing whitespace, the gap between sentences) or
:class:`Segment` objects to translate. Joining the literals and translations in order gives
the output, so newlines and blank lines come back exactly where they were.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import TypeVar, cast

from . import textproc

__all__ = [
    "Segment",
    "PlanItem",
    "segment_sentences",
    "split_long",
    "plan_text",
    "walk_lines",
]

_ABBREVIATIONS = {
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "sr",
    "jr",
    "st",
    "vs",
    "etc",
    "e.g",
    "i.e",
    "no",
    "fig",
    "inc",
    "ltd",
    "co",
    "corp",
    "mt",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "u.s",
    "u.k",
    "a.m",
    "p.m",
    "approx",
    "dept",
    "est",
    "vol",
}
# A sentence ends at . ! ? (or CJK 。！？), optionally followed by closing quotes/brackets.
_END = re.compile(r"""([.!?。！？…]+["'”’)\]]*)(\s+)""")
_LINE = re.compile(r"(\r\n|\n|\r)")
_T = TypeVar("_T")  # a plan item of walk_lines's caller
_SOFT_BREAK = re.compile(r"(?<=[,;:，；：])\s+")
_LEADING_MARKS = re.compile(r"[ \t]*[,;:，；：、]+[ \t]*")
_WORD_WINDOW = 64  # characters looked at before a sentence end (the longest abbreviation is 6)


@dataclasses.dataclass(frozen=True)
class Segment:
    """One piece of source text to translate, small enough for the model. ``cut``: a protected
    span follows within the sentence, so the translation gets no closing full stop. ``joined``:
    the sentence goes on in a later segment (after a protected span, or after a cut of an
    over-long sentence), so a caller working per sentence joins them. ``tail``: on a sentence's
    last segment, how many literals after it still belong to the sentence (the spans and marks
    that end it: "ends on" + " ", "12/25/2024", "."). ``sentence``: on the last segment of a
    sentence that is more than this segment, the whole source sentence, spans included."""

    text: str
    cut: bool = False
    joined: bool = False
    tail: int = 0
    sentence: str = ""


PlanItem = str | Segment


def segment_sentences(paragraph: str) -> list[tuple[str, str]]:
    """Split one line into ``(sentence, following_whitespace)`` pairs."""
    out, start = [], 0
    for match in _END.finditer(paragraph):
        end = match.end(1)
        word = _last_word(paragraph, end).rstrip(".!?\"')]”’").lower()
        if match.group(1) == "." and (word in _ABBREVIATIONS or re.fullmatch(r"[a-z]", word)):
            continue  # "Dr. Smith", "J. R. R. Tolkien": not a sentence end
        nxt = paragraph[match.end() : match.end() + 1]
        if nxt and nxt.islower():
            continue  # "e.g. the" or "... and then": the sentence goes on
        out.append((paragraph[start:end], match.group(2)))
        start = match.end()
    if start < len(paragraph):
        out.append((paragraph[start:], ""))
    return out


def _last_word(text: str, end: int) -> str:
    """The whitespace-delimited word ending at ``end``, looked for in a bounded window before
    it: copying ``text[:end]`` at every sentence end made a long line quadratic. A word
    longer than the window comes back cut, which is fine: it is no abbreviation either way."""
    window = text[max(0, end - _WORD_WINDOW) : end]
    return window.rsplit(None, 1)[-1] if window.strip() else ""


def split_long(sentence: str, count: Callable[[str], int], limit: int) -> list[str]:
    """Split a sentence whose token count exceeds ``limit``: at , ; : first, then between words."""
    if count(sentence) <= limit:
        return [sentence]
    parts = _SOFT_BREAK.split(sentence)
    if len(parts) == 1:
        parts = sentence.split()
    chunks, current = [], ""
    for part in parts:
        candidate = f"{current} {part}" if current else part
        if current and count(candidate) > limit:
            chunks.append(current)
            current = part
        else:
            current = candidate
    chunks.append(current)
    if len(chunks) == 1:  # one enormous "word": cut it by characters
        return _cut_characters(sentence, count, limit)
    return [piece for chunk in chunks for piece in split_long(chunk, count, limit)]


def _cut_characters(text: str, count: Callable[[str], int], limit: int) -> list[str]:
    if count(text) <= limit or len(text) <= 1:
        return [text]
    half = len(text) // 2
    return _cut_characters(text[:half], count, limit) + _cut_characters(text[half:], count, limit)


def plan_text(
    text: str,
    count: Callable[[str], int],
    limit: int,
    sentence_gap: str = "",
    numbers: bool = True,
    glossary: textproc.Terms | None = None,
) -> list[PlanItem]:
    """Turn ``text`` into literals and segments. ``sentence_gap`` replaces the whitespace
    between two sentences of a line in the output ("" for Chinese, which uses no spaces).

    Structure never reaches the model: fenced code blocks, each line's indentation and list,
    quote or heading marker (:func:`textproc.split_marker`) and protected spans (URLs, code,
    e-mail, paths, handles, emoji and, with ``numbers``, numbers: :func:`textproc.protect`)
    are literals; only the text around them becomes segments. Terms of ``glossary``
    (``engine.glossary.Glossary``) are literals too: their target text.
    """
    return walk_lines(text, lambda line: _plan_line(line, count, limit, sentence_gap, numbers, glossary))


def walk_lines(text: str, plan_line: Callable[[str], list[_T]]) -> list[str | _T]:
    """The plan of ``text`` line by line: line breaks and fenced code blocks as literals, every
    other line planned by ``plan_line``; empty literals dropped. Shared by :func:`plan_text`
    and ``engine.spans.plan_sentences`` so both see the same lines."""
    plan: list[str | _T] = []
    in_code = False
    for piece in _LINE.split(text):
        if _LINE.fullmatch(piece):
            plan.append(piece)
        elif in_code or textproc.is_fence(piece):
            in_code ^= textproc.is_fence(piece)  # a fence line opens or closes the block
            plan.append(piece)
        else:
            plan.extend(plan_line(piece))
    return [item for item in plan if item != ""]


def _plan_line(
    line: str,
    count: Callable[[str], int],
    limit: int,
    sentence_gap: str,
    numbers: bool,
    glossary: textproc.Terms | None = None,
) -> list[PlanItem]:
    """One line (no newline): its marker, its sentences cut around protected spans, its trailing space."""
    prefix, body = textproc.split_marker(line)
    core = body.strip()
    if not core:
        return [line]
    plan: list[PlanItem] = [prefix + body[: len(body) - len(body.lstrip())]]
    sentences = segment_sentences(core)
    for i, (sentence, _gap) in enumerate(sentences):
        parts = _tighten_terms(textproc.protect(sentence.strip(), numbers, glossary), sentence_gap)
        start = len(plan)
        for k, part in enumerate(parts):
            cut = any(isinstance(later, textproc.Span) for later in parts[k + 1 :])
            plan.extend(_plan_text_piece(part, count, limit, sentence_gap, cut))
        _join_sentence(plan, start, sentence.strip())
        if i < len(sentences) - 1 and sentence_gap:
            plan.append(sentence_gap)
    plan.append(body[len(body.rstrip()) :])
    return plan


def _join_sentence(plan: list[PlanItem], start: int, sentence: str) -> None:
    """Mark every segment of ``sentence``, planned from ``start`` on, but its last as
    ``joined``; give its last one the count of the sentence's literals after it (``tail``) and,
    when the sentence is more than that segment, the sentence itself."""
    positions = [k for k in range(start, len(plan)) if isinstance(plan[k], Segment)]
    for k in positions[:-1]:
        plan[k] = dataclasses.replace(cast(Segment, plan[k]), joined=True)
    if positions:
        last = positions[-1]
        segment = cast(Segment, plan[last])
        tail = sum(1 for item in plan[last + 1 :] if item != "")  # "" items are dropped later
        whole = sentence if sentence != segment.text else ""
        if tail or whole:
            plan[last] = dataclasses.replace(segment, tail=tail, sentence=whole)


def _plan_text_piece(
    part: textproc.Piece, count: Callable[[str], int], limit: int, sentence_gap: str, cut: bool
) -> list[PlanItem]:
    """A protected span or a piece without letters as a literal; text as segments, its outer spaces kept."""
    if isinstance(part, textproc.Span):
        return [part.rendered]
    if not textproc.has_words(part):
        return [part]
    core = part.strip()
    lead, trail = part[: len(part) - len(part.lstrip())], part[len(part.rstrip()) :]
    items: list[PlanItem] = [lead]
    chunks = split_long(core, count, limit)
    for j, chunk in enumerate(chunks):
        if j:
            items.append(sentence_gap)
        items.append(Segment(chunk, cut and j == len(chunks) - 1))
    items.append(trail)
    return items


def _tighten_terms(parts: list[textproc.Piece], sentence_gap: str) -> list[textproc.Piece]:
    """The source's spaces beside a glossary term become ``sentence_gap``: a Chinese term sits
    between Chinese words without spaces (a URL or number keeps the spaces it had). In English
    output (``sentence_gap`` " "), two spans that a Chinese source writes together get a space
    between them when one is a code in brackets ("11:00(UTC+1)" -> "11:00 (UTC+1)")."""
    out = _marks_after_spans(parts)
    if sentence_gap:
        for k in range(len(out) - 1, 0, -1):
            left, right = out[k - 1], out[k]
            if _is_span(left) and _is_span(right) and (_bracketed(left) or _bracketed(right)):
                out.insert(k, sentence_gap)
    for k, part in enumerate(out):
        if isinstance(part, textproc.Span):
            continue
        before = k > 0 and _is_term(out[k - 1])
        after = k + 1 < len(out) and _is_term(out[k + 1])
        if before and part[:1].isspace():
            part = sentence_gap + part.lstrip()
        if after and part[-1:].isspace():
            part = part.rstrip() + sentence_gap
        out[k] = part
    return [p for p in out if p != ""]


def _marks_after_spans(parts: list[textproc.Piece]) -> list[textproc.Piece]:
    """``parts`` with the comma, colon or semicolon that opens a text piece right after a span
    split off as a piece of its own (a literal): given ", then restart" the model drops the
    comma ("v2.3.1, then" came out "v2.3.1然后"); as a literal it is kept and its form and
    spacing set for the output language (``model_text``'s passes over the plan)."""
    out: list[textproc.Piece] = []
    for k, part in enumerate(parts):
        match = _LEADING_MARKS.match(part) if isinstance(part, str) and k and _is_span(parts[k - 1]) else None
        if isinstance(part, str) and match and textproc.has_words(part[match.end() :]):
            out.extend([part[: match.end()], part[match.end() :]])
        else:
            out.append(part)
    return out


def _is_span(part: textproc.Piece) -> bool:
    return isinstance(part, textproc.Span) and part.kind != "term"


def _bracketed(part: textproc.Piece) -> bool:
    """A span of a code in brackets ("(UTC+1)")."""
    return isinstance(part, textproc.Span) and part.rendered[:1] in ("(", "[") and part.rendered[-1:] in (")", "]")


def _is_term(part: textproc.Piece) -> bool:
    return isinstance(part, textproc.Span) and part.kind == "term"
