"""SRT subtitles: indices, timings and blank lines untouched; each cue's text is one unit.

Rules:

- A cue is a timing line (``00:00:01,000 --> 00:00:02,500``) and the non-blank lines after it.
  Everything that is not cue text (indices, timings, blank lines, stray lines) is copied as is.
- The text lines of a cue are joined with a space and translated sentence by sentence, then
  re-wrapped for Chinese: one line when it is at most :data:`MAX_LINE_WIDTH` wide (a CJK
  character counts 1, other characters 1/2), else two lines split near the middle, at
  punctuation if there is some close to it, else at a space, never inside a Latin word.
  Never more than two lines.
- Dialogue cues (every line starts with ``-``) are translated line by line and keep their
  ``- `` markers, one speaker per line.
- Bilingual (``bilingual=True``): each cue keeps its source line(s) as they were (tags
  included) above the Chinese line(s); a cue left as it was (already Chinese, or nothing to
  translate) is written once, as it was.
- Formatting tags (``<i>``, ``<b>``, ``<u>``, ``<s>``, ``<font ...>``) are carried onto the
  words they belong to by tag projection (:mod:`.tags`): each sentence of the cue is
  translated whole; a tag around whole sentences wraps their translation; a tag around part
  of a sentence goes on the words of the translation aligned to its words, or, where none
  align well enough, around that whole sentence. Tags that would cross are widened until
  they nest, so the output is always balanced, line by line (a tag over the line break is
  closed at the end of the first line and opened again on the second). A stray closing tag
  is dropped; an unclosed one ends with its line. ASS codes (``{\\an8}``) stay at the start
  of the cue.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from .errors import BatchInputError
from .tags import ProjectedText, Projection, Span, clip, markup
from .textio import DecodedText, SegmentCollector, clean_segment, decode_text, dominant_newline, split_lines

__all__ = [
    "MAX_LINE_WIDTH",
    "SubtitleDocument",
    "text_width",
    "wrap_chinese",
    "load",
]

MAX_LINE_WIDTH = 16  # a common limit for simplified-Chinese subtitles (characters per line)

_TIMING_RE = re.compile(r"^\s*\d{1,3}:\d{1,2}:\d{1,2}[,.:]\d{1,3}\s*-->\s*\d{1,3}:\d{1,2}:\d{1,2}[,.:]\d{1,3}")
_INDEX_RE = re.compile(r"^\s*\d+\s*$")
_TAG_RE = re.compile(r"<(?P<close>/?)(?P<name>i|b|u|s|font)\b[^>]*>", re.IGNORECASE)
_ASS_RE = re.compile(r"\{\\[^}]*\}")
_BREAK_AFTER = set("，。！？；：、…）」』”")  # full-width: a break right after is always fine
_ASCII_BREAK_AFTER = set(",.!?;:)")  # only when a space follows ("3.5" must stay whole)


@dataclass
class _Cue:
    """Where one cue's translated text goes."""

    lines: list[tuple[str, ProjectedText]]  # (prefix like "- " or "", its text); one per dialogue line
    dialogue: bool
    lead: str  # ASS codes before the text
    newline: str  # between the cue's own lines
    end: str  # after the last line (the input's last terminator)
    source: list[str]  # the cue's text lines as they were (for bilingual output)

    @property
    def segments(self) -> list[int]:
        return [index for _prefix, text in self.lines for index in text.segments]


class SubtitleDocument:
    """A parsed SRT file: ``segments`` to translate and what to rebuild it from."""

    def __init__(self, decoded: DecodedText, filename: str, bilingual: bool = False) -> None:
        self._decoded = decoded
        self._bilingual = bilingual
        self._items: list[str | _Cue] = []
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
            raise BatchInputError(
                f"{filename}: no subtitle timing line (00:00:01,000 --> ...) found;"
                f" is this an SRT file? (use --format txt for plain text)",
                filename=filename,
            )
        self.segments = collector.segments

    @property
    def texts(self) -> list[ProjectedText]:
        """Each cue's text (each line of a dialogue cue) with its tags, in order."""
        return [text for item in self._items if isinstance(item, _Cue) for _prefix, text in item.lines]

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
        if all(translations[index] == self.segments[index] for index in cue.segments):
            return source + cue.end  # already Chinese, or nothing to translate
        return source + cue.newline + _render_cue(cue, translations)

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """Write the translated file in the input's encoding."""
        fileobj.write(self._decoded.encode(self.render_text(translations)))


def _starts_next_cue(pairs: list[tuple[str, str]], j: int) -> bool:
    """An index line directly followed by a timing line: a cue with no blank line before it."""
    return (
        _INDEX_RE.match(pairs[j][0]) is not None
        and j + 1 < len(pairs)
        and _TIMING_RE.match(pairs[j + 1][0]) is not None
    )


def _make_cue(pairs: list[tuple[str, str]], collector: SegmentCollector, newline: str) -> _Cue:
    texts = [content.strip() for content, _ in pairs]
    lead = "".join(_ASS_RE.findall(" ".join(texts)))
    texts = [_ASS_RE.sub("", t).strip() for t in texts]
    plain = [_TAG_RE.sub("", t).strip() for t in texts]
    dialogue = len(texts) > 1 and all(t.startswith("-") for t in plain)
    if dialogue:
        lines = [("- ", _projected(collector, _after_dash(t))) for t in texts]
    else:
        lines = [("", _projected(collector, " ".join(t for t in texts if t)))]
    inner = pairs[0][1] or newline
    return _Cue(
        lines=lines,
        dialogue=dialogue,
        lead=lead,
        newline=inner,
        end=pairs[-1][1],
        source=[content for content, _ in pairs],
    )


def _after_dash(line: str) -> str:
    """A dialogue line without its leading "-" (tags before the dash are kept)."""
    match = re.match(r"^((?:<[^>]*>\s*)*)-\s*", line)
    return match.group(1) + line[match.end() :] if match else line


def _projected(collector: SegmentCollector, text: str) -> ProjectedText:
    """A cue's text (tags in it) as sentence segments with its tags as spans."""
    plain, spans = _parse_tags(text)
    plain, spans = _collapse_spaces(plain, spans)
    return ProjectedText(plain, spans, collector)


def _parse_tags(text: str) -> tuple[str, list[Span]]:
    """``text`` without its formatting tags, and the tags as spans of it; a span's mark is the
    pair ``(opening tag, closing tag)``. A closing tag closes its latest opening tag (and the
    tags opened inside it); a stray one is dropped; an unclosed one runs to the end."""
    plain: list[str] = []
    size = 0
    spans: list[Span] = []
    stack: list[tuple[str, str, int]] = []  # (name, opening tag, start)
    pos = 0
    for match in _TAG_RE.finditer(text):
        chunk = text[pos : match.start()]
        plain.append(chunk)
        size += len(chunk)
        pos = match.end()
        name = match.group("name").lower()
        if not match.group("close"):
            stack.append((name, match.group(0), size))
            continue
        names = [n for n, _, _ in stack]
        if name not in names:
            continue  # a closing tag with nothing to close
        while stack:
            opened, tag, start = stack.pop()
            closing = match.group(0) if opened == name else f"</{opened}>"
            spans.append(Span(start, size, (tag, closing)))
            if opened == name:
                break
    chunk = text[pos:]
    plain.append(chunk)
    size += len(chunk)
    spans.extend(Span(start, size, (tag, f"</{name}>")) for name, tag, start in reversed(stack))
    return "".join(plain), sorted(spans, key=lambda s: (s.start, -s.end))


def _collapse_spaces(text: str, spans: list[Span]) -> tuple[str, list[Span]]:
    """Runs of whitespace (and control characters) become one space, outer whitespace goes;
    the spans follow their characters."""
    out: list[str] = []
    new_pos: list[int] = []  # each old position's new position
    for c in clean_segment(text):
        new_pos.append(len(out))
        if not c.isspace():
            out.append(c)
        elif out and out[-1] != " ":
            out.append(" ")
    new_pos.append(len(out))
    result = "".join(out).rstrip()
    moved = [Span(new_pos[s.start], min(new_pos[s.end], len(result)), s.mark) for s in spans]
    return result, [s for s in moved if s.start < s.end]


def _render_cue(cue: _Cue, translations: Sequence[str]) -> str:
    if cue.dialogue:
        lines = [prefix + _tagged(text.project(translations)) for prefix, text in cue.lines]
    else:
        projection = cue.lines[0][1].project(translations)
        text = projection.text
        lines = [_tagged(Projection(text[a:b], clip(projection.spans, a, b), [])) for a, b in _wrap_ranges(text)]
    lines[0] = cue.lead + lines[0]
    return cue.newline.join(lines) + cue.end


def _tagged(projection: Projection) -> str:
    return markup(projection.text, projection.spans, _open_tag, _close_tag)


def _open_tag(mark: Hashable) -> str:
    """An SRT span's mark is its ``(opening tag, closing tag)``."""
    assert isinstance(mark, tuple)
    return str(mark[0])


def _close_tag(mark: Hashable) -> str:
    assert isinstance(mark, tuple)
    return str(mark[1])


def text_width(text: str) -> float:
    """Display width in CJK characters: wide/full-width characters 1, others 1/2."""
    return sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.5 for c in text)


def wrap_chinese(text: str, max_width: float = MAX_LINE_WIDTH) -> list[str]:
    """One line if ``text`` fits in ``max_width``, else two lines split near the middle."""
    return [text[a:b] for a, b in _wrap_ranges(text, max_width)]


def _wrap_ranges(text: str, max_width: float = MAX_LINE_WIDTH) -> list[tuple[int, int]]:
    """:func:`wrap_chinese` as ``[start, end)`` ranges of ``text`` (outer spaces left out)."""
    start, end = len(text) - len(text.lstrip()), len(text.rstrip())
    core = text[start:end]
    whole = [(start, end)]
    if text_width(core) <= max_width:
        return whole
    cut = _best_break(core)
    if cut is None:
        return whole
    first_end = start + len(core[:cut].rstrip())
    second_start = start + cut + len(core[cut:]) - len(core[cut:].lstrip())
    if first_end <= start or second_start >= end:
        return whole
    return [(start, first_end), (second_start, end)]


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

    for good in (
        after_punctuation,
        lambda i: text[i].isspace(),
        lambda i: not (_latin(text[i - 1]) and _latin(text[i])),
    ):
        best = min((i for i in candidates if good(i)), key=distance, default=None)
        if best is not None and distance(best) <= window:
            return best
    return None


def _latin(c: str) -> bool:
    return c.isascii() and c.isalnum()


def load(
    data: bytes, filename: str, encoding: str | None = None, *, bilingual: bool = False, join_lines: bool = False
) -> SubtitleDocument:
    """Parse an SRT file's bytes (strict decoding, see :func:`textio.decode_text`).
    ``join_lines`` changes nothing: a cue's lines are joined anyway."""
    return SubtitleDocument(decode_text(data, filename, encoding), filename, bilingual)
