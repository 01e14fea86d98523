"""SRT subtitles: indices, timings and blank lines untouched; each cue's text is one unit.

Rules:

- A cue is a timing line (``00:00:01,000 --> 00:00:02,500``) and the non-blank lines after it.
  Everything that is not cue text (indices, timings, blank lines, stray lines) is copied as is.
- The text lines of a cue are joined with a space and translated as one segment, then
  re-wrapped for Chinese: one line when it is at most :data:`MAX_LINE_WIDTH` wide (a CJK
  character counts 1, other characters 1/2), else two lines split near the middle, at
  punctuation if there is some close to it, else at a space, never inside a Latin word.
  Never more than two lines.
- Dialogue cues (every line starts with ``-``) are translated line by line and keep their
  ``- `` markers, one speaker per line.
- Bilingual (``bilingual=True``): each cue keeps its source line(s) as they were (tags
  included) above the Chinese line(s); a cue left as it was (already Chinese, or nothing to
  translate) is written once, as it was.
- Formatting tags: tags at the start of the first line (``<i>``, ``{\\an8}`` ...) and at the
  end of the last line (``</i>``) are kept around the translation; tags in between are dropped
  (they cannot be placed reliably in the translation).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import BinaryIO, Sequence, Union

from .errors import BatchInputError
from .textio import (DecodedText, SegmentCollector, clean_segment, decode_text, dominant_newline,
                     split_lines)

MAX_LINE_WIDTH = 16  # a common limit for simplified-Chinese subtitles (characters per line)

_TIMING_RE = re.compile(
    r"^\s*\d{1,3}:\d{1,2}:\d{1,2}[,.:]\d{1,3}\s*-->\s*\d{1,3}:\d{1,2}:\d{1,2}[,.:]\d{1,3}")
_INDEX_RE = re.compile(r"^\s*\d+\s*$")
_TAG_RE = re.compile(r"</?(?:i|b|u|s|font)\b[^>]*>|\{\\[^}]*\}", re.IGNORECASE)
_LEADING_TAGS_RE = re.compile(r"^(?:\s*(?:</?(?:i|b|u|s|font)\b[^>]*>|\{\\[^}]*\}))+", re.IGNORECASE)
_TRAILING_TAGS_RE = re.compile(r"(?:(?:</?(?:i|b|u|s|font)\b[^>]*>|\{\\[^}]*\})\s*)+$", re.IGNORECASE)
_BREAK_AFTER = set("，。！？；：、…）」』”")  # full-width: a break right after is always fine
_ASCII_BREAK_AFTER = set(",.!?;:)")  # only when a space follows ("3.5" must stay whole)


@dataclass
class _Cue:
    """Where one cue's translated text goes."""

    lines: list[tuple[str, int]]  # (prefix like "- " or "", segment index); one per output line
    dialogue: bool
    lead: str  # tags before the text
    trail: str  # tags after the text
    newline: str  # between the cue's own lines
    end: str  # after the last line (the input's last terminator)
    source: list[str]  # the cue's text lines as they were (for bilingual output)


class SubtitleDocument:
    """A parsed SRT file: ``segments`` to translate and what to rebuild it from."""

    def __init__(self, decoded: DecodedText, filename: str, bilingual: bool = False) -> None:
        self._decoded = decoded
        self._bilingual = bilingual
        self._items: list[Union[str, _Cue]] = []
        collector = SegmentCollector()
        pairs = split_lines(decoded.text)
        newline = dominant_newline(decoded.text)
        cues, i = 0, 0
        while i < len(pairs):
            content, terminator = pairs[i]
            self._items.append(content + terminator)
            i += 1
            if not _TIMING_RE.match(content):
                continue
            cues += 1
            j = i
            while j < len(pairs) and pairs[j][0].strip() and not _starts_next_cue(pairs, j):
                j += 1
            if j > i:
                self._items.append(_make_cue(pairs[i:j], collector, newline))
            i = j
        if cues == 0 and decoded.text.strip():
            raise BatchInputError(f"{filename}: no subtitle timing line (00:00:01,000 --> ...) found;"
                                  f" is this an SRT file? (use --format txt for plain text)",
                                  filename=filename)
        self.segments = collector.segments

    def render_text(self, translations: Sequence[str]) -> str:
        """The translated subtitles (before encoding)."""
        out = []
        for item in self._items:
            if isinstance(item, str):
                out.append(item)
            elif self._bilingual:
                out.append(self._render_bilingual(item, translations))
            else:
                out.append(_render_cue(item, translations))
        return "".join(out)

    def _render_bilingual(self, cue: _Cue, translations: Sequence[str]) -> str:
        """The cue's source lines as they were, then its translation (once when unchanged)."""
        source = cue.newline.join(cue.source)
        if all(translations[index] == self.segments[index] for _prefix, index in cue.lines):
            return source + cue.end  # already Chinese, or nothing to translate
        return source + cue.newline + _render_cue(cue, translations)

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """Write the translated file in the input's encoding."""
        fileobj.write(self._decoded.encode(self.render_text(translations)))


def _starts_next_cue(pairs: list[tuple[str, str]], j: int) -> bool:
    """An index line directly followed by a timing line: a cue with no blank line before it."""
    return (_INDEX_RE.match(pairs[j][0]) is not None and j + 1 < len(pairs)
            and _TIMING_RE.match(pairs[j + 1][0]) is not None)


def _make_cue(pairs: list[tuple[str, str]], collector: SegmentCollector, newline: str) -> _Cue:
    texts = [content.strip() for content, _ in pairs]
    first = _LEADING_TAGS_RE.match(texts[0])
    lead = first.group(0).strip() if first else ""
    texts[0] = texts[0][len(first.group(0)):] if first else texts[0]
    last = _TRAILING_TAGS_RE.search(texts[-1])
    trail = last.group(0).strip() if last else ""
    texts[-1] = texts[-1][: last.start()] if last else texts[-1]
    texts = [_TAG_RE.sub("", t).strip() for t in texts]
    dialogue = len(texts) > 1 and all(t.startswith("-") for t in texts)
    if dialogue:
        lines = [("- ", _segment(collector, t[1:])) for t in texts]
    else:
        lines = [("", _segment(collector, " ".join(t for t in texts if t)))]
    inner = pairs[0][1] or newline
    return _Cue(lines=lines, dialogue=dialogue, lead=lead, trail=trail, newline=inner,
                end=pairs[-1][1], source=[content for content, _ in pairs])


def _segment(collector: SegmentCollector, text: str) -> int:
    # Empty text (a cue of tags only) still gets a segment; the runner skips empty segments.
    return collector.add_segment(" ".join(clean_segment(text).split()))


def _render_cue(cue: _Cue, translations: Sequence[str]) -> str:
    if cue.dialogue:
        lines = [prefix + translations[index] for prefix, index in cue.lines]
    else:
        lines = wrap_chinese(translations[cue.lines[0][1]])
    lines[0] = cue.lead + lines[0]
    lines[-1] = lines[-1] + cue.trail
    return cue.newline.join(lines) + cue.end


def text_width(text: str) -> float:
    """Display width in CJK characters: wide/full-width characters 1, others 1/2."""
    return sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.5 for c in text)


def wrap_chinese(text: str, max_width: float = MAX_LINE_WIDTH) -> list[str]:
    """One line if ``text`` fits in ``max_width``, else two lines split near the middle."""
    text = text.strip()
    if text_width(text) <= max_width:
        return [text]
    cut = _best_break(text)
    if cut is None:
        return [text]
    first, second = text[:cut].rstrip(), text[cut:].lstrip()
    return [first, second] if first and second else [text]


def _best_break(text: str) -> int | None:
    """Index to split at: after punctuation near the middle, else a space, else a safe char."""
    widths = [0.0]
    for c in text:
        widths.append(widths[-1] + (1.0 if unicodedata.east_asian_width(c) in "WF" else 0.5))
    half = widths[-1] / 2

    def distance(i: int) -> float:
        return abs(widths[i] - half)

    window = widths[-1] / 4  # accept a break up to a quarter of the width from the middle
    candidates = range(1, len(text))
    def after_punctuation(i: int) -> bool:
        if text[i - 1] in _BREAK_AFTER:
            return text[i] not in _BREAK_AFTER
        return text[i - 1] in _ASCII_BREAK_AFTER and text[i].isspace()

    for good in (after_punctuation,
                 lambda i: text[i].isspace(),
                 lambda i: not (_latin(text[i - 1]) and _latin(text[i]))):
        best = min((i for i in candidates if good(i)), key=distance, default=None)
        if best is not None and distance(best) <= window:
            return best
    return None


def _latin(c: str) -> bool:
    return c.isascii() and c.isalnum()


def load(data: bytes, filename: str, encoding: str | None = None, *, bilingual: bool = False,
         join_lines: bool = False) -> SubtitleDocument:
    """Parse an SRT file's bytes (strict decoding, see :func:`textio.decode_text`).
    ``join_lines`` changes nothing: a cue's lines are joined anyway."""
    return SubtitleDocument(decode_text(data, filename, encoding), filename, bilingual)
