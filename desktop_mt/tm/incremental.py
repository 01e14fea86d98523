"""Sentence-level incremental translation: after the source is edited, translate again only
the sentences whose source changed, and keep every other sentence's translation, the user's
edits included (an edited sentence is the user's until its source changes).

:func:`plan_update` is what a front end calls with the sentences it shows (source,
translation, edited?) and the new source text; :func:`simulate_typing` replays typing a text
key by key with the window's as-you-type pause to count the model calls this saves
(``benchmarks/postedit.py`` prints the figure; docs/POSTEDIT.md has it).
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence

from ..engine.direction import AUTO, Target, sentence_direction, split_sentences
from ..engine.textproc import split_marker
from .store import Match, TranslationMemory, match_key

__all__ = [
    "KEPT",
    "MEMORY",
    "MODEL",
    "Sentence",
    "Planned",
    "split_text",
    "is_marker",
    "plan_update",
    "TypingFigures",
    "simulate_typing",
]

KEPT, MEMORY, MODEL = "kept", "memory", "model"  # where a planned sentence's translation comes from


@dataclasses.dataclass(frozen=True)
class Sentence:
    """A sentence shown in the window: its source, its translation and whether the user edited it."""

    source: str
    translation: str
    edited: bool = False
    suggestion: Match | None = None  # the memory's fuzzy match shown with it: kept with the sentence


@dataclasses.dataclass(frozen=True)
class Planned:
    """One sentence of the new text. ``gap``: the whitespace after it in the source (a line break
    stays a line break). ``translation``: kept from before (``source`` is ``KEPT``; ``edited``
    kept with it), the memory's exact match (``MEMORY``: show it marked "from memory"), or None
    (``MODEL``: this sentence goes to the model; ``suggestion`` is then the memory's best fuzzy
    match, to show beside the machine's, if any)."""

    source: str
    gap: str
    translation: str | None = None
    edited: bool = False
    origin: str = MODEL
    suggestion: Match | None = None

    @property
    def needs_model(self) -> bool:
        return self.translation is None


def split_text(text: str) -> list[tuple[str, str]]:
    """``text`` as ``(sentence, gap)`` pairs, line by line (``engine.direction.split_sentences``);
    the gap of a line's last sentence ends with its newline. Blank lines are gaps too, and so
    is a line's structure marker (a list number "1." or "2)", a bullet, a heading's "#":
    ``engine.textproc.split_marker``, as the engine's segment plan cuts it off): it goes with
    the gap before it, never to the model and never counted as a sentence. The text's first
    line has no gap before it: its marker is an item of its own (:func:`is_marker`), kept as
    it is."""
    out: list[tuple[str, str]] = []
    lines = text.split("\n")
    for number, line in enumerate(lines):
        newline = "\n" if number < len(lines) - 1 else ""
        marker, body = split_marker(line)
        lead = marker + body[: len(body) - len(body.lstrip())]
        parts = split_sentences(body.strip()) if body.strip() else []
        if not parts:
            if out:
                out[-1] = (out[-1][0], out[-1][1] + line + newline)
            elif lead.strip():
                out.append((lead.strip(), line[len(lead.strip()) :] + newline))
            continue
        if lead and out:
            out[-1] = (out[-1][0], out[-1][1] + lead)
        elif lead.strip():  # the first line's marker: an item of its own, before its sentence
            out.append((lead.strip(), lead.lstrip()[len(lead.strip()) :]))
        parts[-1] = (parts[-1][0], parts[-1][1] + line[len(line.rstrip()) :] + newline)
        out.extend(parts)
    return out


def is_marker(source: str) -> bool:
    """Whether ``source`` (an item of :func:`split_text`) is a structure marker, not a sentence."""
    marker, body = split_marker(source + " ")
    return bool(marker.strip()) and not body.strip()


def plan_update(
    previous: Iterable[Sentence], new_text: str, memory: TranslationMemory | None = None, target: Target = AUTO
) -> list[Planned]:
    """The sentences of ``new_text``, each with the translation it keeps or None (to translate).

    A new sentence keeps the translation of a previous sentence with the same source (compared
    as the memory compares them: ``match_key``), wherever that sentence was (sentences moved
    or pasted twice keep theirs); each previous sentence is used once per occurrence, in order.
    With a ``memory``, a sentence not kept takes the memory's approved or imported exact match
    in its direction (for ``target``: ``engine.direction.sentence_direction``), and one left
    for the model gets an unapproved edit's exact match, else the best fuzzy match (>= 75 %),
    as its ``suggestion``.
    """
    kept: dict[str, deque[Sentence]] = defaultdict(deque)
    for sentence in previous:
        kept[match_key(sentence.source)].append(sentence)
    out = []
    for source, gap in split_text(new_text):
        queue = kept.get(match_key(source))
        if is_marker(source):  # a list number or bullet: kept as it is, never translated
            out.append(Planned(source, gap, source, False, KEPT))
        elif queue:
            old = queue.popleft()
            out.append(Planned(source, gap, old.translation, old.edited, KEPT, old.suggestion))
        else:
            out.append(_from_memory(source, gap, memory, target))
    return out


def _from_memory(source: str, gap: str, memory: TranslationMemory | None, target: Target) -> Planned:
    """A sentence not kept: the memory's exact match, else one for the model (with a suggestion)."""
    direction = sentence_direction(source, target) if memory is not None else None
    if memory is None or direction is None:
        return Planned(source, gap)
    confirmed = memory.confirmed(source, direction)
    if confirmed is not None:
        return Planned(source, gap, confirmed.entry.target, origin=MEMORY)
    # An unapproved edit's exact match (or the best fuzzy one) is offered, never taken as it is.
    return Planned(source, gap, suggestion=memory.lookup(source, direction))


@dataclasses.dataclass(frozen=True)
class TypingFigures:
    """What typing a text cost: as-you-type requests, and sentences sent to the model when every
    request translates the whole text (``whole``) or only its changed sentences (``incremental``)."""

    keystrokes: int
    requests: int
    whole: int
    incremental: int

    @property
    def saved(self) -> float:
        """The share of model calls incremental translation saves (0-1)."""
        return 1 - self.incremental / self.whole if self.whole else 0.0


def simulate_typing(
    text: str,
    debounce_ms: int = 600,
    keystroke_ms: int = 200,
    pauses: Sequence[tuple[str, int]] = ((".", 1500), ("?", 1500), ("!", 1500), (",", 700), ("\n", 1500)),
) -> TypingFigures:
    """Type ``text`` one character at a time: ``keystroke_ms`` between keys, longer after the
    characters in ``pauses`` (a typist stops to think at a sentence's end, sometimes at a comma).
    A request starts whenever no key came for ``debounce_ms`` (the window's as-you-type timer,
    600 ms), and at the end. Each request translates the text as it is then."""
    pause = dict(pauses)
    previous: list[Sentence] = []
    requests = whole = incremental = 0
    for i, char in enumerate(text):
        quiet = pause.get(char, keystroke_ms)
        if quiet < debounce_ms and i < len(text) - 1:
            continue
        typed = text[: i + 1]
        plan = plan_update(previous, typed)
        requests += 1
        whole += len(plan)
        incremental += sum(1 for p in plan if p.needs_model)
        previous = [Sentence(p.source, p.translation if p.translation is not None else f"<{p.source}>") for p in plan]
    return TypingFigures(len(text), requests, whole, incremental)
