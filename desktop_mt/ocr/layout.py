"""From detected boxes to text: lines in reading order, paragraphs, and the joined text.

Detection finds word groups; the ones on one text line are found by vertical overlap and read
left to right. Groups of a line that are close together are merged into one box *before*
recognition: recognising them apart loses the spaces between them and, because detected boxes
are grown past the ink, puts a neighbour's edge letter into each crop ("Themeeting", "ghas").
Groups far apart on a line (table cells, columns) stay separate and are joined by a tab,
which the pasted-text rules (``desktop_mt.engine.pasted``) keep as a table row. Lines whose spacing is
wider than the region's usual line pitch start a new paragraph; inside a paragraph the lines are
joined by :func:`desktop_mt.engine.pasted.join_lines` (hyphenation, Chinese lines without spaces).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ..engine.pasted import join_lines
from .detect import Box

__all__ = [
    "group_lines",
    "merge_line",
    "assemble",
]

_SAME_LINE_OVERLAP = 0.5  # share of the smaller box's height two boxes of one line overlap by
_MERGE_GAP = 0.6  # boxes of a line closer than this times the line height are one box
_PARAGRAPH_PITCH = 1.45  # a line pitch this much above the region's usual one starts a paragraph


def _overlap(a: Box, b: Box) -> float:
    return (min(a.y1, b.y1) - max(a.y0, b.y0)) / max(1, min(a.height, b.height))


def group_lines(boxes: Sequence[Box]) -> list[list[Box]]:
    """Boxes grouped into text lines, top to bottom, each line left to right."""
    lines: list[list[Box]] = []
    for box in sorted(boxes, key=lambda b: (b.y0 + b.y1) / 2):
        for line in reversed(lines[-3:]):  # a box belongs to one of the last few lines or a new one
            if any(_overlap(b, box) >= _SAME_LINE_OVERLAP for b in line):
                line.append(box)
                break
        else:
            lines.append([box])
    return [sorted(line, key=lambda b: b.x0) for line in lines]


def merge_line(line: Sequence[Box]) -> list[Box]:
    """The boxes of one line with near neighbours merged (see the module docstring)."""
    out = [line[0]]
    for box in line[1:]:
        last = out[-1]
        height = max(last.height, box.height)
        if box.x0 - last.x1 < _MERGE_GAP * height:
            out[-1] = Box(last.x0, min(last.y0, box.y0), max(last.x1, box.x1), max(last.y1, box.y1))
        else:
            out.append(box)
    return out


def _paragraph_starts(lines: Sequence[Box]) -> list[bool]:
    """For each line (its bounding box, top to bottom) whether it starts a paragraph: its
    distance from the line above is wider than the region's closest line pitch (or, with only
    two lines, than a double-spaced pitch) by ``_PARAGRAPH_PITCH``."""
    starts = [True] * len(lines)
    if len(lines) < 2:
        return starts
    pitches = [(b.y0 + b.y1 - a.y0 - a.y1) / 2 for a, b in zip(lines, lines[1:])]
    height = statistics.median(b.height for b in lines)
    usual = max(min(pitches), height) if len(pitches) > 1 else 1.5 * height
    for i, pitch in enumerate(pitches, start=1):
        starts[i] = pitch > _PARAGRAPH_PITCH * usual
    return starts


def assemble(lines: Sequence[Sequence[tuple[Box, str]]]) -> tuple[list[str], str]:
    """The lines' texts (segments of a line joined by a tab) and the paragraph-joined text."""
    texts = ["\t".join(t.strip() for _, t in segs if t.strip()) for segs in lines]
    bounds = [
        Box(
            min(b.x0 for b, _ in segs),
            min(b.y0 for b, _ in segs),
            max(b.x1 for b, _ in segs),
            max(b.y1 for b, _ in segs),
        )
        for segs in lines
    ]
    kept = [(t, b) for t, b in zip(texts, bounds) if t]
    starts = _paragraph_starts([b for _, b in kept])
    raw = ""
    for (text, _), start in zip(kept, starts):
        raw += ("\n\n" if start and raw else "\n" if raw else "") + text
    return [t for t, _ in kept], join_lines(raw)
