"""Split text into translatable segments and put the layout back afterwards.

A text becomes a *plan*: a list whose items are either literal strings (newlines, blank
lines, each line's leading/trailing whitespace, the gap between sentences) or
:class:`Segment` objects to translate. Joining the literals and translations in order gives
the output, so newlines and blank lines come back exactly where they were.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable, Union

_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "no", "fig", "inc", "ltd",
    "co", "corp", "mt", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    "u.s", "u.k", "a.m", "p.m", "approx", "dept", "est", "vol",
}
# A sentence ends at . ! ? (or CJK 。！？), optionally followed by closing quotes/brackets.
_END = re.compile(r"""([.!?。！？…]+["'”’)\]]*)(\s+)""")
_LINE = re.compile(r"(\r\n|\n|\r)")
_SOFT_BREAK = re.compile(r"(?<=[,;:，；：])\s+")


@dataclasses.dataclass(frozen=True)
class Segment:
    """One piece of source text to translate, small enough for the model."""

    text: str


PlanItem = Union[str, Segment]


def segment_sentences(paragraph: str) -> list[tuple[str, str]]:
    """Split one line into ``(sentence, following_whitespace)`` pairs."""
    out, start = [], 0
    for match in _END.finditer(paragraph):
        end = match.end(1)
        word = paragraph[:end].rsplit(None, 1)[-1].rstrip(".!?\"')]”’").lower()
        if match.group(1) == "." and (word in _ABBREVIATIONS or re.fullmatch(r"[a-z]", word)):
            continue  # "Dr. Smith", "J. R. R. Tolkien": not a sentence end
        nxt = paragraph[match.end():match.end() + 1]
        if nxt and nxt.islower():
            continue  # "e.g. the" or "... and then": the sentence goes on
        out.append((paragraph[start:end], match.group(2)))
        start = match.end()
    if start < len(paragraph):
        out.append((paragraph[start:], ""))
    return out


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


def plan_text(text: str, count: Callable[[str], int], limit: int, sentence_gap: str = "") -> list[PlanItem]:
    """Turn ``text`` into literals and segments. ``sentence_gap`` replaces the whitespace
    between two sentences of a line in the output ("" for Chinese, which uses no spaces)."""
    plan: list[PlanItem] = []
    for piece in _LINE.split(text):
        if _LINE.fullmatch(piece):
            plan.append(piece)
            continue
        core = piece.strip()
        if not core:
            if piece:
                plan.append(piece)
            continue
        lead, trail = piece[: len(piece) - len(piece.lstrip())], piece[len(piece.rstrip()):]
        if lead:
            plan.append(lead)
        sentences = segment_sentences(core)
        for i, (sentence, _gap) in enumerate(sentences):
            chunks = split_long(sentence.strip(), count, limit)
            for j, chunk in enumerate(chunks):
                if j:
                    plan.append(sentence_gap)
                plan.append(Segment(chunk))
            if i < len(sentences) - 1 and sentence_gap:
                plan.append(sentence_gap)
        if trail:
            plan.append(trail)
    return [item for item in plan if item != ""]
