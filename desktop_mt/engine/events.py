"""Events yielded by :meth:`Translator.translate_stream`.

Joining the ``text`` of every :class:`TextDelta` gives exactly what
:meth:`Translator.translate` returns for the same input, separators (newlines, blank lines,
the space between sentences of a paragraph) included.
"""

from __future__ import annotations

import dataclasses

__all__ = [
    "TextDelta",
    "SegmentDone",
    "TranslationStats",
    "Finished",
    "Alternative",
    "StreamEvent",
]


@dataclasses.dataclass(frozen=True)
class TextDelta:
    """Text to append to the output. ``segment`` is the index of the segment it belongs to
    (-1 for separators between segments)."""

    text: str
    segment: int


@dataclasses.dataclass(frozen=True)
class SegmentDone:
    """One segment (a sentence, or a piece of an over-long one) is finished. ``continues``: the
    sentence goes on in the next segment (after a protected span such as a URL, a number or a
    glossary term, or after a cut of an over-long sentence); a caller that works per sentence
    joins them. ``sentence``: on the segment that ends a sentence which is more than that
    segment (cut by spans, or ending in one: "The sale ends on" + "12/25/2024."), the whole
    source sentence; "" when ``source`` is the sentence. Its ``SegmentDone`` comes after the
    sentence's last literals (the span and the full stop), so all of its text is out by then.

    ``spans``: for a sentence with protected spans (``engine.spans``), ``"whole"`` when this
    segment is the whole sentence and its output was verified to hold every span, ``"cut"`` on
    each segment of a sentence cut around its spans; ``""`` for a sentence without spans.
    ``spans_reason``: why it was cut (``"lost: 12/25/2024"``, ``"repeated: 4B"``, ``"too long"``,
    ``"spans=cut"``...)."""

    segment: int
    source: str
    translation: str
    tokens: int
    continues: bool = False
    sentence: str = ""
    spans: str = ""
    spans_reason: str = ""


@dataclasses.dataclass(frozen=True)
class TranslationStats:
    """Figures of one whole ``translate_stream`` call (seconds, wall clock)."""

    segments: int
    tokens: int
    seconds: float
    first_token_seconds: float | None
    cancelled: bool = False
    whole: int = 0  # sentences with protected spans translated whole (verified)
    cut: int = 0  # sentences with protected spans cut around them

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0


@dataclasses.dataclass(frozen=True)
class Finished:
    """The last event of a stream (also sent after a cancel)."""

    stats: TranslationStats


@dataclasses.dataclass(frozen=True)
class Alternative:
    """One hypothesis of :meth:`Translator.alternatives`, best first in its list.

    ``text`` is final (punctuation and script as a normal translation), ``score`` the beam
    search's length-penalised log-probability (generate()'s ``sequences_scores``; summed over
    the segments when protected spans cut the sentence) and ``token_ids`` the target ids.
    """

    text: str
    score: float
    token_ids: tuple[int, ...]


StreamEvent = TextDelta | SegmentDone | Finished
"""What :meth:`Translator.translate_stream` yields."""
