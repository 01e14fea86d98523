"""Whole sentences with verified spans (``GenerationOptions.spans``).

A sentence that holds protected spans (numbers, URLs, e-mail addresses, code, paths, codes such
as ``4B``, glossary terms: ``textproc.protect``) goes to the model whole, spans in place, so the
model keeps the sentence's context (word order, measure words, the verb whose object was the
number). Its output is accepted when every span of the source is in it exactly as often as in
the source (:func:`check`): numbers compared after normalising the forms a model may legitimately
write (``1,000`` / ``1000``, full-width digits, a currency or unit translated around them), the
rest byte-exact, a glossary term as its target text. Otherwise the sentence falls back to the cut
(``segment``'s plan: the text around the spans translated piece by piece, the spans copied), so
no span is ever lost.

Modes: ``"whole"`` (the default: verified whole sentence, cut as the fallback), ``"cut"`` (always
cut, the engine's behaviour before), ``"off"`` (nothing protected: every sentence goes to the
model whole and its output is taken as it is; ``--raw``).

:func:`plan_sentences` makes the plan: literals, ``segment.Segment``\\ s and :class:`Whole` items.
Expanding every :class:`Whole` into its ``fallback`` gives exactly ``segment.plan_text``'s plan,
so a cut sentence is translated as it was before (tested).
"""

from __future__ import annotations

import collections
import dataclasses
import re
import threading
import unicodedata
from collections.abc import Callable, Sequence

from . import direction, segment, textproc
from .segment import PlanItem, Segment, segment_sentences

__all__ = [
    "WHOLE",
    "CUT",
    "OFF",
    "Whole",
    "Decision",
    "SentencePlanItem",
    "plan_sentences",
    "expand",
    "check",
    "SpanCounts",
]

WHOLE, CUT, OFF = "whole", "cut", "off"
_MODES = (WHOLE, CUT, OFF)
# A number as a model writes it: digits with inner separators ("12/25/2024", "9:30", "1,000").
_NUMBER_TOKEN = re.compile(r"(?<![\d.,])\d+(?:[.,:/\-]\d+)*")
_THOUSANDS = re.compile(r",(?=\d{3}(?!\d))")
_ASCII_WORD = re.compile(r"[A-Za-z0-9_]")


@dataclasses.dataclass(frozen=True)
class Whole:
    """A sentence with protected spans, tried whole. ``text``: the sentence, what the model gets.
    ``spans``: what its output must hold. ``fallback``: the sentence cut around its spans
    (literals and segments, as ``segment.plan_text`` plans it). ``reason``: set when the sentence
    is cut without trying (the ``cut`` mode, a sentence too long for the model...)."""

    text: str
    spans: tuple[textproc.Span, ...]
    fallback: tuple[object, ...]
    reason: str = ""


@dataclasses.dataclass(frozen=True)
class Decision:
    """How a sentence with protected spans was translated: ``path`` ``"whole"`` (its verified
    whole-sentence output) or ``"cut"`` (cut around its spans), and why it was cut (``reason``,
    ``"kind: detail"``, e.g. ``"lost: 12/25/2024"``; ``""`` for whole)."""

    path: str
    reason: str = ""

    @property
    def kind(self) -> str:
        """The reason without its detail: ``lost``, ``repeated``, ``too long``, ``spans=cut``..."""
        return self.reason.split(":", 1)[0]


SentencePlanItem = PlanItem | Whole


def plan_sentences(
    text: str,
    count: Callable[[str], int],
    limit: int,
    sentence_gap: str = "",
    numbers: bool = True,
    glossary: textproc.Terms | None = None,
    mode: str = WHOLE,
    cjk_ends: bool = False,
) -> list[SentencePlanItem]:
    """``segment.plan_text``'s plan with each sentence that holds a protected span as a
    :class:`Whole` (its cut plan as the fallback); in ``off`` mode every sentence is one segment
    (nothing protected, only cut where it is too long for the model). ``cjk_ends`` (a Chinese
    source): sentences also end at 。！？；… with no space after them (``direction.split_sentences``)."""
    return segment.walk_lines(
        text, lambda line: _plan_line(line, count, limit, sentence_gap, numbers, glossary, mode, cjk_ends)
    )


def _plan_line(
    line: str,
    count: Callable[[str], int],
    limit: int,
    sentence_gap: str,
    numbers: bool,
    glossary: textproc.Terms | None,
    mode: str,
    cjk_ends: bool = False,
) -> list[SentencePlanItem]:
    """One line: its marker, its sentences (each planned by :func:`_plan_sentence`), its trailing space."""
    prefix, body = textproc.split_marker(line)
    core = body.strip()
    if not core:
        return [line]
    plan: list[SentencePlanItem] = [prefix + body[: len(body) - len(body.lstrip())]]
    sentences = direction.split_sentences(core) if cjk_ends else segment_sentences(core)
    for i, (sentence, _gap) in enumerate(sentences):
        plan.extend(_plan_sentence(sentence.strip(), count, limit, sentence_gap, numbers, glossary, mode))
        if i < len(sentences) - 1 and sentence_gap:
            plan.append(sentence_gap)
    plan.append(body[len(body.rstrip()) :])
    return plan


def _plan_sentence(
    sentence: str,
    count: Callable[[str], int],
    limit: int,
    sentence_gap: str,
    numbers: bool,
    glossary: textproc.Terms | None,
    mode: str,
) -> list[SentencePlanItem]:
    """One sentence: its cut plan, or a :class:`Whole` holding it when it has spans to verify."""
    if mode == OFF:
        return list(_cut_plan([sentence], sentence, count, limit, sentence_gap))
    parts = textproc.protect(sentence, numbers, glossary)
    cut = _cut_plan(segment._tighten_terms(parts, sentence_gap), sentence, count, limit, sentence_gap)
    spans = tuple(p for p in parts if isinstance(p, textproc.Span))
    if not spans or not any(isinstance(item, Segment) for item in cut):
        return list(cut)  # nothing protected, or nothing to translate
    reason = ""
    if mode == CUT:
        reason = "spans=cut"
    elif count(sentence) > limit:
        reason = "too long"
    return [Whole(sentence, spans, cut, reason)]


def _cut_plan(
    parts: Sequence[textproc.Piece], sentence: str, count: Callable[[str], int], limit: int, sentence_gap: str
) -> tuple[PlanItem, ...]:
    """The sentence's items as ``segment.plan_text`` plans them: spans as literals, the text
    around them as segments (a piece before a span is ``cut``), joined into one sentence."""
    plan: list[PlanItem] = []
    for k, part in enumerate(parts):
        cut = any(isinstance(later, textproc.Span) for later in parts[k + 1 :])
        plan.extend(segment._plan_text_piece(part, count, limit, sentence_gap, cut))
    segment._join_sentence(plan, 0, sentence)
    return tuple(item for item in plan if item != "")


def expand(plan: Sequence[object]) -> list[object]:
    """``plan`` with every :class:`Whole` replaced by its fallback (the cut plan)."""
    out: list[object] = []
    for item in plan:
        out.extend(item.fallback if isinstance(item, Whole) else (item,))
    return out


def check(output: str, spans: Sequence[textproc.Span]) -> str:
    """Why ``output`` cannot stand for a sentence with these ``spans`` ("" when it can).

    Every span must be in ``output`` as often as in the source, no more and no less: a number by
    its digits (thousands separators and full-width digits normalised; a currency sign or unit
    may be translated around it), a glossary term as its target text, anything else (URL,
    e-mail, code, path, handle, code name, emoji, foreign word) byte for byte and not as part of
    a longer word or address. Longer texts are found first and blanked out, so "4" is not
    counted inside "4B" or a URL.
    """
    rest = output
    exact = collections.Counter(s.rendered for s in spans if s.kind != "number")
    for text in sorted(exact, key=len, reverse=True):
        found, rest = _take(rest, text)
        if found != exact[text]:
            return f"{'lost' if found < exact[text] else 'repeated'}: {text}"
    wanted: collections.Counter[str] = collections.Counter()
    named: dict[str, str] = {}
    for span in spans:
        if span.kind == "number":
            for token in _number_tokens(span.text):
                wanted[token] += 1
                named.setdefault(token, span.text)
    seen = collections.Counter(_number_tokens(unicodedata.normalize("NFKC", rest)))
    for token, n in wanted.items():
        if seen[token] != n:
            return f"{'lost' if seen[token] < n else 'repeated'}: {named[token]}"
    return ""


def _number_tokens(text: str) -> list[str]:
    """The numbers of ``text`` in one written form: "$1,000" -> ["1000"], "+1 (555) 123-4567"
    -> ["1", "555", "123-4567"]; a comma that is no thousands separator ("5,6") splits."""
    out: list[str] = []
    for match in _NUMBER_TOKEN.finditer(text):
        out.extend(t for t in _THOUSANDS.sub("", match.group()).split(",") if t)
    return out


def _take(text: str, span: str) -> tuple[int, str]:
    """How often ``span`` stands on its own in ``text``, and ``text`` with those places blanked."""
    pattern = re.escape(span)
    if _ASCII_WORD.match(span[0]):
        pattern = r"(?<![A-Za-z0-9_])" + pattern
    if _ASCII_WORD.match(span[-1]) or span[-1] == "/":
        pattern += r"(?![A-Za-z0-9_]|[.\-/:@][A-Za-z0-9])"
    blanked, found = re.subn(pattern, "\x00", text)
    return found, blanked


class SpanCounts:
    """A running count of the sentences with protected spans by path (whole / cut) and the
    reasons for cutting; one per ``Translator``, safe to update from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.whole = 0
        self.cut = 0
        self.reasons: collections.Counter[str] = collections.Counter()

    def add(self, decision: Decision) -> None:
        with self._lock:
            if decision.path == WHOLE:
                self.whole += 1
            else:
                self.cut += 1
                self.reasons[decision.kind] += 1

    def merge(self, other: SpanCounts) -> None:
        """Add ``other``'s counts to these (a two-way translator's total)."""
        with other._lock:
            whole, cut, reasons = other.whole, other.cut, collections.Counter(other.reasons)
        with self._lock:
            self.whole += whole
            self.cut += cut
            self.reasons.update(reasons)

    def as_dict(self) -> dict[str, object]:
        """``{"whole": n, "cut": n, "reasons": {"lost": n, ...}}`` (for /metrics)."""
        with self._lock:
            return {"whole": self.whole, "cut": self.cut, "reasons": dict(self.reasons)}

    def __str__(self) -> str:
        with self._lock:
            total = self.whole + self.cut
            why = ", ".join(f"{kind} {n}" for kind, n in self.reasons.most_common())
            return (
                f"{total} sentence{'s' * (total != 1)} with protected spans: {self.whole} whole, "
                f"{self.cut} cut around their spans" + (f" ({why})" if why else "")
            )
