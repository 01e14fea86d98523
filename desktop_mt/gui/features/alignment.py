"""Sentence alignment: which range of the source pane was translated into which range of the
translation pane, built from the engine's ``SegmentDone`` events while a translation streams.

The mapping (:class:`SegmentTracker`, :class:`Alignment`) is plain Python so it can be tested
without widgets. Positions are in UTF-16 code units, as ``QTextDocument`` counts them (a
character outside the BMP is two), so they can be used with ``QTextCursor`` directly.

- The worker feeds every engine event to a :class:`SegmentTracker`, which counts the text of
  each segment's deltas and returns a :class:`SegmentSpan` (the segment's target range) at its
  ``SegmentDone``.
- :class:`Alignment` holds one request's pairs: it finds each segment's source sentence in the
  source text (in order; whitespace-insensitive when the engine normalised it), answers "which
  pair is at this position" for either pane, follows edits of the source (a pair whose sentence
  was edited loses its source range) and replacements of a translation (an alternative).
- :class:`AlignmentView` (Qt) highlights, in both panes, the pair under the cursor or under the
  mouse pointer, in the palette's highlight colour with alpha (``look.highlight_color``); :class:`AlignmentFeature`
  connects it to the session's requests and the worker's spans.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop_mt.app.session import Request
from desktop_mt.engine.events import SegmentDone, StreamEvent, TextDelta
from desktop_mt.engine.textproc import split_marker

from ..i18n import translate

if TYPE_CHECKING:
    from desktop_mt.engine.glossary import Term
    from desktop_mt.tm.store import Match

__all__ = [
    "Alignment",
    "AlignmentFeature",
    "AlignmentView",
    "CONFIRMED",
    "Pair",
    "SegmentSpan",
    "SegmentTracker",
    "index_of16",
    "memory_mark_color",
    "missing_terms_text",
    "term_warning_color",
    "utf16_len",
]


MODEL, KEPT, MEMORY = "model", "kept", "memory"  # a pair's origin (as ``tm.incremental``'s)
_MARKS_PAINT_MS = 50  # while a text streams, its sentences' new marks are painted together
CONFIRMED = "confirmed"  # a pair's status once the user confirmed it (``postedit_confirm.SentenceStatus``)


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (QTextDocument positions)."""
    return len(text.encode("utf-16-le")) // 2


@dataclasses.dataclass(frozen=True)
class SegmentSpan:
    """A finished sentence: its source and translation, and where the translation sits in the
    request's output (``start``/``end``, UTF-16 units from the start of the output). A sentence
    that protected spans (URLs, numbers, glossary terms) cut into several engine segments, or
    that ends in one, is one span: ``source`` is the whole sentence (``SegmentDone.sentence``),
    ``translation`` its output from its first segment to its end, spans included; ``segment``
    is its first segment's number."""

    segment: int
    source: str
    translation: str
    start: int
    end: int
    origin: str = MODEL  # where the translation came from: the model, kept from before, the memory
    edited: bool = False  # the user's (post-edited) translation, kept through re-translation
    machine: str = ""  # the machine's translation (for the memory and the history); "" = translation
    suggestion: Match | None = None  # the memory's best fuzzy match for a sentence the model translated


class SegmentTracker:
    """Counts the output as the worker streams it; :meth:`feed` returns a :class:`SegmentSpan`
    at the ``SegmentDone`` that ends a sentence (None for other events). A sentence's range
    runs from its first segment's text to the end of what came before that event (the engine
    sends it after the spans that end the sentence), without the spaces at either edge. A
    sentence that starts with a protected span (a glossary term: "火车站在哪里？" -> "train
    station Where is it?") starts at that span's text: the engine sends it as a separator
    (segment -1) before the sentence's first segment, after the gap and any list marker."""

    def __init__(self) -> None:
        self.position = 0
        self._start: int | None = None  # where the open sentence's output starts
        self._text: list[str] = []  # the output since then
        self._done: list[SegmentDone] = []  # its finished segments
        self._before: list[tuple[int, str]] = []  # separators since the last sentence: (position, text)

    def feed(self, event: StreamEvent) -> SegmentSpan | None:
        if isinstance(event, TextDelta):
            if event.segment >= 0 and self._start is None:
                self._start = self.position
            if self._start is not None:
                self._text.append(event.text)
            else:
                self._before.append((self.position, event.text))
            self.position += utf16_len(event.text)
            return None
        if isinstance(event, SegmentDone):
            self._done.append(event)
            return None if event.continues else self._close()
        return None

    def _close(self) -> SegmentSpan:
        """The open sentence as one span; the tracker is ready for the next one."""
        done, start, text = self._done, self._start, "".join(self._text)
        start = self.position if start is None else start
        lead = self._leading_spans(done)
        if lead is not None:
            start, text = lead[0], lead[1] + text
        core = text.strip()
        if core:
            start += utf16_len(text) - utf16_len(text.lstrip())
        source = done[-1].sentence or " ".join(d.source for d in done)
        span = SegmentSpan(done[0].segment, source, core, start, start + utf16_len(core))
        self._start, self._text, self._done, self._before = None, [], [], []
        return span

    def _leading_spans(self, done: list[SegmentDone]) -> tuple[int, str] | None:
        """Where the sentence's leading protected spans start and their text, when its source
        starts with one (its first segment is not its start); None otherwise. The separators
        before them (spaces, line breaks, a list marker) are not the sentence's."""
        sentence = done[-1].sentence.strip()
        if not sentence or not self._before or sentence.startswith(done[0].source.strip()):
            return None
        for index, (position, piece) in enumerate(self._before):
            if piece.strip() and not _is_marker(piece):
                return position, "".join(text for _, text in self._before[index:])
        return None


def _is_marker(piece: str) -> bool:
    """Whether a separator is a line's structure marker ("1. ", "- ", "# "), not a span's text."""
    marker, body = split_marker(piece.strip() + " ")
    return bool(marker.strip()) and not body.strip()


@dataclasses.dataclass
class Pair:
    """One aligned sentence. ``src``/``tgt``: (start, end) in the panes, UTF-16 units; ``src``
    is None when the sentence was not found in the source text or was edited since."""

    segment: int
    source: str
    translation: str
    src: tuple[int, int] | None
    tgt: tuple[int, int]
    origin: str = MODEL
    edited: bool = False  # the user changed its translation: it is theirs until its source changes
    machine: str = ""  # the machine's translation before the user's edits
    suggestion: Match | None = None  # the memory's fuzzy match, shown as a suggestion

    def __post_init__(self) -> None:
        if not self.machine:
            self.machine = self.translation


def _loose_pattern(sentence: str) -> re.Pattern[str] | None:
    words = sentence.split()
    return re.compile(r"\s+".join(re.escape(w) for w in words)) if words else None


def _slice16(text: str, start16: int, end16: int) -> str:
    """``text`` from UTF-16 position ``start16`` to ``end16``."""
    return text[index_of16(text, start16) : index_of16(text, end16)]


def index_of16(text: str, pos16: int) -> int:
    """The python index of UTF-16 position ``pos16`` in ``text``."""
    count = 0
    for index, char in enumerate(text):
        if count >= pos16:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(text)


class Alignment:
    """The pairs of one translation request (see the module docstring)."""

    def __init__(self, source_text: str = "") -> None:
        self.source_text = source_text
        self.pairs: list[Pair] = []
        self.last_edited: Pair | None = None  # the sentence the user's last edit went to
        self._ranges: dict[str, tuple[list[int], list[tuple[tuple[int, int], Pair]]]] = {}  # per side, sorted
        self._from = 0  # python index in source_text where the next sentence is looked for
        self._from16 = 0  # the same position in UTF-16 units
        self._source_of: Callable[[], str] | None = None  # the edited source's text, read when needed

    def _to16(self, index: int) -> int:
        # Positions only move forward, so the conversion is incremental.
        return self._from16 + utf16_len(self.source_text[self._from : index])

    def _find_source(self, sentence: str) -> tuple[int, int] | None:
        if self._source_of is not None:  # the source was edited since: read it now
            text_of, self._source_of = self._source_of, None
            self.source_edited(0, 0, 0, text_of())
        text = self.source_text
        start = text.find(sentence, self._from) if sentence else -1
        end = start + len(sentence)
        if start < 0:
            pattern = _loose_pattern(sentence)
            match = pattern.search(text, self._from) if pattern is not None else None
            if match is None:
                return None
            start, end = match.span()
        start16 = self._to16(start)
        end16 = start16 + utf16_len(text[start:end])
        self._from, self._from16 = end, end16
        return start16, end16

    def add(self, span: SegmentSpan) -> Pair:
        """Record a finished sentence (spans come in segment order). A sentence cut by
        protected spans comes whole, spans included (so the engine's ``alternatives`` gets
        the whole sentence)."""
        pair = Pair(
            span.segment,
            span.source,
            span.translation,
            self._find_source(span.source),
            (span.start, span.end),
            span.origin,
            span.edited,
            span.machine,
            span.suggestion,
        )
        self.pairs.append(pair)
        for side in list(self._ranges):  # streamed in order: the new range goes at the end
            starts, ranges = self._ranges[side]
            span_of = getattr(pair, side)
            if span_of is None:
                continue
            if starts and span_of[0] < starts[-1]:
                del self._ranges[side]
            else:
                starts.append(span_of[0])
                ranges.append((span_of, pair))
        return pair

    def _sorted(self, side: str) -> tuple[list[int], list[tuple[tuple[int, int], Pair]]]:
        """The ranges of one side, sorted, with their starts: built once after each change
        (lookups come at every cursor move and every streamed piece)."""
        if side not in self._ranges:
            found = [(getattr(p, side), p) for p in self.pairs if getattr(p, side) is not None]
            ranges = sorted(found, key=lambda r: r[0])
            self._ranges[side] = ([r[0][0] for r in ranges], ranges)
        return self._ranges[side]

    def _at(self, pos: int, side: str) -> Pair | None:
        # A position at a range's end (the cursor after a full stop) belongs to that range,
        # also where the next one starts (Chinese has no space between sentences); else the
        # range it is inside.
        starts, ranges = self._sorted(side)
        i = bisect.bisect_right(starts, pos) - 1
        if i >= 1:
            (start, end), pair = ranges[i - 1]
            if pos == end and start < end:
                return pair
        if i >= 0:
            (start, end), pair = ranges[i]
            if start <= pos < end or (pos == end and start < end):
                return pair
        return None

    def at_source(self, pos: int) -> Pair | None:
        """The pair whose source sentence holds position ``pos`` of the source pane."""
        return self._at(pos, "src")

    def at_target(self, pos: int) -> Pair | None:
        """The pair whose translation holds position ``pos`` of the translation pane."""
        return self._at(pos, "tgt")

    def source_edited(self, pos: int, removed: int, added: int, new_text: str | None = None) -> None:
        """The source pane changed at ``pos`` (UTF-16): later ranges move, and a sentence the
        edit touched is no longer aligned (its translation no longer matches it). ``new_text``
        (the pane's text now) lets sentences still to come be found in the edited text."""
        delta, edit_end = added - removed, pos + removed
        self._ranges.clear()
        for pair in self.pairs:
            if pair.src is None or pair.src[1] <= pos:
                continue  # the edit is after this sentence
            start, end = pair.src
            pair.src = (start + delta, end + delta) if start >= edit_end else None
        if new_text is not None:
            self.source_text = new_text
            found = [p.src[1] for p in self.pairs if p.src is not None]
            self._from16 = max(found, default=0)
            self._from = index_of16(new_text, self._from16)

    def source_stale(self, text_of: Callable[[], str]) -> None:
        """The source pane changed: ``text_of`` gives its text when a sentence still to come
        must be found in it (read then, once, not at every keystroke)."""
        self._source_of = text_of

    def target_edited(
        self, pos: int, removed: int, added: int, new_text: str | Callable[[int, int], str]
    ) -> list[Pair]:
        """The user changed the translation pane at ``pos`` (UTF-16; ``new_text`` is the pane's
        text now). The sentence the edit is in (or touches: typing at a sentence's end goes on
        with it) takes the edit and becomes the user's (``edited``); sentences after it move;
        a sentence the edit deleted into shrinks (to nothing when all of it went). Returns the
        pairs whose translation changed."""
        delta, old_end = added - removed, pos + removed
        self._ranges.clear()
        ordered = sorted(self.pairs, key=lambda p: p.tgt)
        owner = self._owner(ordered, pos, removed)
        self.last_edited = owner
        changed: list[Pair] = []
        for pair in ordered:
            start, end = pair.tgt
            if pair is owner:
                pair.tgt = (start, end + delta if end >= old_end else pos + added)
            elif start >= old_end:
                pair.tgt = (start + delta, end + delta)
                continue
            elif end <= pos:
                continue
            else:  # the edit removed the start of this sentence (or all of it)
                new_start = pos + added
                pair.tgt = (new_start, max(new_start, end + delta))
            pair.translation = new_text(*pair.tgt) if callable(new_text) else _slice16(new_text, *pair.tgt)
            pair.edited = True
            changed.append(pair)
        return changed

    def _owner(self, ordered: list[Pair], pos: int, removed: int) -> Pair | None:
        """The sentence an edit at ``pos`` belongs to. Where two sentences meet (Chinese has
        no space between them) the one emptied by an earlier edit comes first, then the one
        the user edited last, then the one whose text a deletion starts at, then the one an
        insertion continues."""

        def rank(pair: Pair) -> int:
            start, end = pair.tgt
            if start == end:
                return 0
            if start < pos < end:
                return 1
            if pair is self.last_edited:
                return 2
            if (removed and start == pos) or (not removed and end == pos):
                return 3
            return 4

        found = [p for p in ordered if p.tgt[0] <= pos <= p.tgt[1]]
        return min(found, key=rank) if found else None

    def replace_translation(self, pair: Pair, text: str) -> tuple[int, int]:
        """Give ``pair`` the translation ``text`` (its range grows or shrinks; the pairs after
        it move). Returns the old target range, which the caller replaces in the pane."""
        old = pair.tgt
        self._ranges.clear()
        delta = utf16_len(text) - (old[1] - old[0])
        for other in self.pairs:
            if other is not pair and other.tgt[0] >= old[1]:
                other.tgt = (other.tgt[0] + delta, other.tgt[1] + delta)
        pair.tgt = (old[0], old[0] + utf16_len(text))
        pair.translation = text
        return old


# ---- Qt ------------------------------------------------------------------------------------
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal  # noqa: E402
from PySide6.QtGui import QColor, QMouseEvent, QPalette, QTextCharFormat, QTextCursor  # noqa: E402
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit  # noqa: E402

from ..services import Services  # noqa: E402 - what the feature follows (the session, the worker)
from ..window.look import highlight_color  # noqa: E402 - the palette's highlight, as opaque as it must be

_Mark = tuple[Pair, QTextCharFormat]  # a sentence's mark in the translation pane, and its look


class AlignmentView(QObject):
    """Highlights the pair under the mouse pointer, else under the cursor of the pane that has
    the focus, in both panes (``QPlainTextEdit`` extra selections)."""

    highlighted = Signal(Pair)  # the Pair now highlighted, or None (a Python-object payload: None passes)
    pairsEdited = Signal(list)  # list[Pair]: the user changed their translations (post-editing)

    def __init__(self, source: QPlainTextEdit, target: QPlainTextEdit, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.source, self.target = source, target
        self.alignment: Alignment | None = None
        self.pair: Pair | None = None
        self._hover: tuple[str, int] | None = None
        self._side = "source"
        self._follow_cursor = True  # the cursor's sentence is shown when the pointer is on none
        self._revealed: Pair | None = None  # the last pair whose counterpart was scrolled to
        # The translation pane's marks (memory, confirmed, missing terms) of every pair, as last
        # painted: a streamed sentence adds its own (``add``), so a long paste's UI work per
        # sentence does not grow with the sentences before it; ``refresh`` builds them anew.
        # Kept as (pair, format) by kind; the selections are made at each paint from the pairs'
        # ranges as they are then (a selection made at the end of the pane would grow with the
        # text streamed after it).
        self._marks: tuple[list[_Mark], ...] = ([], [], [])
        self._formats: dict[str, QTextCharFormat] = {}  # one format per kind of mark (Qt paints them as one)
        # New marks of streamed sentences are painted together, at most every MARKS_PAINT_MS
        # (each paint hands Qt every mark), and at the request's end (``flush_marks``).
        self._marks_timer = QTimer(self)
        self._marks_timer.setSingleShot(True)
        self._marks_timer.setInterval(_MARKS_PAINT_MS)
        self._marks_timer.timeout.connect(self.flush_marks)
        # The glossary terms a pair's translation lacks (set by post-editing; none by default):
        # such a sentence is marked, never left to look right.
        self.missing_terms: Callable[[Pair], tuple[Term, ...]] = lambda _pair: ()
        self.status_of: Callable[[Pair], str] = lambda _pair: ""  # post-editing's SentenceStatus
        source.cursorPositionChanged.connect(lambda: self._cursor_moved("source"))
        target.cursorPositionChanged.connect(lambda: self._cursor_moved("target"))
        source.document().contentsChange.connect(self._source_changed)
        target.document().contentsChange.connect(self._target_changed)
        user_edits = getattr(target, "userEdited", None)  # postedit.PostEditPane: the user's edits
        if user_edits is not None:
            user_edits.connect(self._target_user_edit)
        for editor in (source, target):
            editor.viewport().setMouseTracking(True)
            editor.viewport().installEventFilter(self)
        # The read-only translation pane gets a keyboard cursor too (arrows move the highlight).
        target.setTextInteractionFlags(target.textInteractionFlags() | Qt.TextInteractionFlag.TextSelectableByKeyboard)

    # ---- the mapping --------------------------------------------------------------------
    def start(self, source_text: str) -> None:
        """A new translation of ``source_text`` starts: forget the old pairs."""
        self.alignment = Alignment(source_text)
        self._hover = None  # it held a position in the text that goes: the next mouse move says where
        self.refresh()

    def add(self, span: SegmentSpan) -> None:
        """A segment finished streaming: align it (and highlight it if the cursor is there)."""
        if self.alignment is not None:
            pair = self.alignment.add(span)
            # Only the new sentence's marks are made (the others' are kept), and the pane is
            # repainted only when the highlight moves or the sentence has a mark: a sentence of
            # a long paste costs the same whatever came before it.
            marks = self._marks_of([pair])
            for kept, new in zip(self._marks, marks, strict=True):
                kept.extend(new)
            self.refresh(force=False, whole=False)
            if any(marks) and not self._marks_timer.isActive():
                self._marks_timer.start()

    def flush_marks(self) -> None:
        """Paint the marks of the sentences streamed since the last paint (the highlight stays)."""
        self._marks_timer.stop()
        self._paint(self.target, self.pair.tgt if self.pair else None, self._selections())

    def restore(self, source_text: str, pairs: list[Pair]) -> None:
        """The alignment of a translation shown before (a restored draft): ``pairs``, their
        edited marks included, over ``source_text`` and the translation pane as it is."""
        alignment = Alignment(source_text)
        alignment.pairs = list(pairs)
        self.alignment = alignment
        self.refresh()

    def reset(self) -> None:
        """No alignment (the translation pane was emptied or refilled from elsewhere)."""
        self.alignment = None
        self.refresh()

    def pair_at(self, side: str, pos: int) -> Pair | None:
        """The pair at ``pos`` in the ``side`` ("source"/"target") pane."""
        if self.alignment is None:
            return None
        return self.alignment.at_source(pos) if side == "source" else self.alignment.at_target(pos)

    def pair_at_cursor(self) -> Pair | None:
        """The pair under the text cursor of the pane last used (the Alternatives command)."""
        editor = self.source if self._side == "source" else self.target
        return self.pair_at(self._side, editor.textCursor().position())

    # ---- events -------------------------------------------------------------------------
    def _cursor_moved(self, side: str) -> None:
        editor = self.source if side == "source" else self.target
        if editor.hasFocus() or side == "source" and not self.target.hasFocus():
            self._side = side
        self._follow_cursor = True  # a cursor moved: its sentence is shown (until the pointer leaves)
        if editor.hasFocus():
            self._hover = None  # the user moved it: its sentence wins until the pointer moves again
        self.refresh(force=False)
        if editor.hasFocus():  # the user put it there (a click or a key)
            self._reveal_counterpart(side, editor.textCursor().position())

    def _reveal_counterpart(self, side: str, pos: int) -> None:
        """Scroll the other pane to the counterpart of the sentence at ``pos``, once per
        sentence (so it does not pull back a pane the user scrolled while typing on)."""
        pair = self.pair_at(side, pos)
        if pair is None or pair is self._revealed:
            return
        self._revealed = pair
        other, span = (self.target, pair.tgt) if side == "source" else (self.source, pair.src)
        if span is not None:
            _reveal(other, span[0])

    def _source_changed(self, pos: int, removed: int, added: int) -> None:
        if self.alignment is not None:
            self.alignment.source_edited(pos, removed, added)
            self.alignment.source_stale(self.source.toPlainText)
            self.refresh()

    def _target_changed(self, _pos: int, _removed: int, _added: int) -> None:
        if self.target.document().isEmpty():
            self.reset()

    def _target_user_edit(self, pos: int, removed: int, added: int) -> None:
        if self.alignment is None:
            return
        changed = self.alignment.target_edited(pos, removed, added, self._target_slice)
        self.refresh()
        if changed:
            self.pairsEdited.emit(changed)

    def _target_slice(self, start: int, end: int) -> str:
        """The translation pane's text from ``start`` to ``end`` (UTF-16), read from the document."""
        last = max(0, self.target.document().characterCount() - 1)
        cursor = QTextCursor(self.target.document())
        cursor.setPosition(max(0, min(start, last)))
        cursor.setPosition(max(0, min(end, last)), QTextCursor.MoveMode.KeepAnchor)
        return cursor.selectedText().replace("\u2029", "\n")

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.MouseMove and isinstance(event, QMouseEvent):
            side = "source" if obj is self.source.viewport() else "target"
            editor = self.source if side == "source" else self.target
            self.hover(side, editor.cursorForPosition(event.position().toPoint()).position())
        elif kind == QEvent.Type.Leave:  # the pointer left: its highlight goes, the cursor's too
            self._follow_cursor = False
            self.hover(None, 0)
        return False

    def hover(self, side: str | None, pos: int) -> None:
        """The mouse pointer is over ``pos`` of the ``side`` pane (None: it left the panes)."""
        self._hover = (side, pos) if side else None
        self.refresh(force=False)

    # ---- drawing ------------------------------------------------------------------------
    def refresh(self, force: bool = True, whole: bool = True) -> None:
        """Highlight the pair under the pointer, else under the cursor (``force`` False: only
        when that pair changed; the mouse moves call it that way). The marks of every pair are
        made anew (``whole`` False: those kept, for a sentence that ``add`` just marked)."""
        if self._hover is not None:
            pair = self.pair_at(*self._hover)
            if pair is None and self._hover[0] is not None:  # between sentences: the cursor's
                pair = self.pair_at_cursor()
        else:
            pair = self.pair_at_cursor() if self._follow_cursor else None
        if pair is self.pair and not force:
            return
        self.pair = pair
        self._marks_timer.stop()  # painted now, with every mark
        self._paint(self.source, pair.src if pair else None)
        if whole:
            self._formats.clear()  # the palette may have changed
            self._marks = self._marks_of(self.alignment.pairs if self.alignment is not None else [])
        self._paint(self.target, pair.tgt if pair else None, self._selections())
        self.highlighted.emit(pair)

    def _marks_of(self, pairs: list[Pair]) -> tuple[list[_Mark], ...]:
        """The translation pane's marks of ``pairs``: memory, confirmed, missing terms."""
        return self._memory_marks(pairs), self._confirmed_marks(pairs), self._term_marks(pairs)

    def _selections(self) -> list[QTextEdit.ExtraSelection]:
        """The marks kept, as the translation pane's selections (each kind together)."""
        return [_selection(self.target, pair.tgt, fmt) for kind in self._marks for pair, fmt in kind]

    def memory_pairs(self) -> list[Pair]:
        """The sentences whose translation is the memory's exact match (not edited since)."""
        if self.alignment is None:
            return []
        return [p for p in self.alignment.pairs if p.origin == MEMORY and not p.edited]

    def _memory_marks(self, pairs: list[Pair]) -> list[_Mark]:
        """A dotted underline in the palette's link colour under each translation from memory."""
        memory = [p for p in pairs if p.origin == MEMORY and not p.edited and p.tgt[0] < p.tgt[1]]
        if not memory:
            return []
        fmt = self._formats.get(MEMORY)
        if fmt is None:
            fmt = self._formats[MEMORY] = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
            fmt.setUnderlineColor(memory_mark_color(self.target.palette()))
            fmt.setToolTip(translate("Alignment", "From the translation memory"))
        return [(p, fmt) for p in memory]

    def confirmed_pairs(self) -> list[Pair]:
        """The sentences the user confirmed (post-editing's status "confirmed")."""
        if self.alignment is None:
            return []
        return [p for p in self.alignment.pairs if self.status_of(p) == CONFIRMED]

    def _confirmed_marks(self, pairs: list[Pair]) -> list[_Mark]:
        """A solid underline in a green that reads on the palette's base under each confirmed sentence."""
        confirmed = [p for p in pairs if p.tgt[0] < p.tgt[1] and self.status_of(p) == CONFIRMED]
        if not confirmed:
            return []
        fmt = self._formats.get(CONFIRMED)
        if fmt is None:
            dark = self.target.palette().color(QPalette.ColorRole.Base).lightness() < 128
            fmt = self._formats[CONFIRMED] = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
            fmt.setUnderlineColor(QColor("#66bb6a") if dark else QColor("#2e7d32"))
            fmt.setToolTip(translate("Alignment", "Confirmed: in the translation memory as approved"))
        return [(p, fmt) for p in confirmed]

    def term_pairs(self) -> list[Pair]:
        """The sentences whose translation lacks a glossary term their source holds."""
        if self.alignment is None:
            return []
        return [p for p in self.alignment.pairs if self.missing_terms(p)]

    def _term_marks(self, pairs: list[Pair]) -> list[_Mark]:
        """A wavy underline (the spell checker's) in the palette's red under each translation
        that lacks a glossary term, with the terms in its tooltip."""
        marks = []
        for pair in pairs:
            if pair.tgt[0] >= pair.tgt[1] or not self.missing_terms(pair):
                continue
            fmt = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(term_warning_color(self.target.palette()))
            fmt.setToolTip(missing_terms_text(self.missing_terms(pair)))
            marks.append((pair, fmt))
        return marks

    def _paint(
        self, editor: QPlainTextEdit, span: tuple[int, int] | None, marks: list[QTextEdit.ExtraSelection] | None = None
    ) -> None:
        marks = list(marks or [])
        if span is None or span[0] >= span[1]:
            editor.setExtraSelections(marks)
            return
        palette = editor.palette()
        fmt = QTextCharFormat()
        fmt.setBackground(highlight_color(palette, palette.color(QPalette.ColorRole.Base)))
        editor.setExtraSelections([_selection(editor, span, fmt), *marks])


def missing_terms_text(terms: tuple[Term, ...]) -> str:
    """What the window says of a translation that lacks glossary terms."""
    listed = "; ".join(f"{t.source} → {t.target}" for t in terms)
    return translate("Alignment", "Glossary term missing from this translation: {terms}").format(terms=listed)


def memory_mark_color(palette: QPalette) -> QColor:
    """The memory's dotted underline: the palette's link colour where it reads on the base
    colour, else a blue that does (a dark GTK theme may keep a dark link colour on a dark base)."""
    link, base = palette.color(QPalette.ColorRole.Link), palette.color(QPalette.ColorRole.Base)
    if abs(link.lightness() - base.lightness()) >= 100:
        return link
    return QColor("#82b1ff") if base.lightness() < 128 else QColor("#0d47a1")


def term_warning_color(palette: QPalette) -> QColor:
    """A red that reads on the palette's base colour (light or dark theme)."""
    dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
    return QColor("#ff6b6b") if dark else QColor("#c62828")


def _selection(editor: QPlainTextEdit, span: tuple[int, int], fmt: QTextCharFormat) -> QTextEdit.ExtraSelection:
    """An extra selection of ``span`` (UTF-16, clamped to the document) drawn with ``fmt``."""
    last = editor.document().characterCount() - 1
    cursor = QTextCursor(editor.document())
    cursor.setPosition(min(span[0], last))
    cursor.setPosition(min(span[1], last), QTextCursor.MoveMode.KeepAnchor)
    selection = QTextEdit.ExtraSelection()
    selection.cursor = cursor
    selection.format = fmt
    return selection


def _reveal(editor: QPlainTextEdit, pos: int) -> None:
    """Scroll ``editor`` so that position ``pos`` is in view, without moving its cursor (the
    pane the user is not in: its cursor stays where they left it). QPlainTextEdit scrolls by
    layout lines, so the scroll bar takes the line the position is on."""
    cursor = QTextCursor(editor.document())
    cursor.setPosition(min(pos, editor.document().characterCount() - 1))
    if editor.viewport().rect().contains(editor.cursorRect(cursor).center()):
        return
    block = cursor.block()
    line = block.layout().lineForTextPosition(cursor.positionInBlock()) if block.layout() else None
    number = block.firstLineNumber() + (line.lineNumber() if line is not None and line.isValid() else 0)
    editor.verticalScrollBar().setValue(max(0, number - 1))  # one line of context above


class AlignmentFeature(QObject):
    """Feeds the window's :class:`AlignmentView` from the session's requests and the worker's
    segment spans (those of the current request only)."""

    def __init__(self, services: Services) -> None:
        super().__init__(services.owner)
        window = services.window
        self.view = AlignmentView(window.source, window.target, self)
        self.req_id: int | None = None
        services.session.started.subscribe(self._on_started)
        services.worker.segmentDone.connect(self._on_span)
        services.session.shown.subscribe(lambda _ended: self.view.flush_marks())

    def _on_started(self, request: Request) -> None:
        self.req_id = request.req_id
        self.view.start(request.text)

    def _on_span(self, req_id: int, span: SegmentSpan) -> None:
        if req_id == self.req_id:
            self.view.add(span)
