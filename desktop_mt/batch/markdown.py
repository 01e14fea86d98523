"""Markdown (READMEs, documentation): the text translated, the code and the markup kept.

The block structure comes from markdown-it-py (CommonMark, with GitHub's tables and
strikethrough): paragraphs, headings (ATX and setext) and table cells are translated; fenced
and indented code blocks, HTML blocks, thematic breaks, link reference definitions and a YAML
front matter block are copied as they are, line for line.

A paragraph (of the document, a list item or a block quote) is written on one line: its list
marker, quote marks or indentation first, then its translation (Markdown joins a paragraph's
lines anyway). A heading keeps its ``#`` marks (a setext heading its underline); a table row
keeps its pipes and each cell's padding, and the delimiter row stays.

Inside a paragraph, heading or cell, the inline markup is carried by the tag projection
(:mod:`.tags`): emphasis (``*``, ``**``, ``_``, ``__``, ``~~``), links (``[text](url "title")``
and ``[text][ref]``: the text is translated, the target never) and inline HTML tag pairs wrap
the aligned words of the translation; images, autolinks (``<https://...>``) and unpaired HTML
tags are copied whole; inline code (`` `code` ``) stays in the text, where the engine copies it
verbatim (a protected span). The file's encoding, BOM and newlines are kept (see ``textio``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Hashable, Sequence
from typing import Any, BinaryIO

from .tags import ProjectedText, Span, edge_anchors, markup_with_anchors
from .textio import DecodedText, SegmentCollector, decode_text, is_wide, split_lines

__all__ = [
    "MarkdownDocument",
    "load",
]

# Inline markup, in the order tried at a position.
_INLINE = re.compile(
    r"(?P<code>(?P<ticks>`+).+?(?P=ticks))"
    r"|(?P<image>!\[[^\]]*\]\([^)\s]*(?:\s+\"[^\"]*\")?\))"
    r"|(?P<autolink><(?:https?|ftp|mailto):[^\s<>]+>|<[\w.+-]+@[\w-]+(?:\.[\w-]+)+>)"
    r"|(?P<close>\]\([^)\s]*(?:\s+(?:\"[^\"]*\"|'[^']*'))?\)|\]\[[^\]]*\])"
    r"|(?P<open>\[)"
    r"|(?P<html></?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>)"
    # emphasis: a run that opens (before a non-space) or closes (after one); "_" never inside a word
    r"|(?P<emphasis>~~|(?<=\S)\*\*?|\*\*?(?=\S)|(?<=\S)__?(?!\w)|(?<![\w\\])__?(?=\S))"
    r"|(?P<escape>\\[\\`*_{}\[\]()#+\-.!|<>~])"
)
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n.*?^(?:---|\.\.\.)[ \t]*$", re.DOTALL | re.MULTILINE)
_ROW_SPLIT = re.compile(r"(?<!\\)\|")
_Open = tuple[str, str, int]  # an opened markup: (kind, or "<tag"; its text; where it starts)


@dataclasses.dataclass
class _Text:
    """One translated stretch: its projection and the anchors kept at its edges."""

    projected: ProjectedText
    lead: list[Hashable]
    before_end: list[Hashable]
    trail: list[Hashable]
    codes: list[str]  # what each mark stands for: an anchor's text, a span's (open, close)

    def render(self, translations: Sequence[str]) -> str:
        return markup_with_anchors(
            self.projected.project(translations),
            lambda mark: self._pair(mark)[0],
            lambda mark: self._pair(mark)[1],
            lambda mark: self.codes[_index(mark)],
            self.lead,
            self.trail,
            self.before_end,
        )

    def _pair(self, mark: Hashable) -> tuple[str, str]:
        opening, _, closing = self.codes[_index(mark)].partition("\0")
        return opening, closing


def _index(mark: Hashable) -> int:
    assert isinstance(mark, int)
    return mark


@dataclasses.dataclass
class _Line:
    """A line (or a paragraph's lines) rebuilt as literal pieces and translated stretches."""

    parts: list[str | _Text]
    terminator: str

    def render(self, translations: Sequence[str]) -> str:
        return "".join(p if isinstance(p, str) else p.render(translations) for p in self.parts) + self.terminator


class MarkdownDocument:
    """A parsed Markdown file: ``segments`` to translate; ``write`` rebuilds it."""

    def __init__(self, decoded: DecodedText) -> None:
        from markdown_it import MarkdownIt  # Markdown files only

        self._decoded = dataclasses.replace(decoded, text="")
        text = decoded.text
        lines = split_lines(text)
        self._collector = SegmentCollector()
        self._items: list[str | _Line] = [content + end for content, end in lines]
        front = _FRONT_MATTER.match(text)
        skip = text[: front.end()].count("\n") if front else 0  # the parse starts on its last line
        parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
        tokens = parser.parse(text[front.end() :] if front else text)
        for k, token in enumerate(tokens):
            if token.map is None:
                continue
            start, end = token.map[0] + skip, token.map[1] + skip
            if token.type in ("paragraph_open", "heading_open"):
                self._block(lines, start, end, tokens[k + 1], setext=token.markup in ("=", "-"))
            elif token.type == "tr_open":
                self._row(lines, start)
        self.segments = self._collector.segments

    def _block(self, lines: list[tuple[str, str]], start: int, end: int, inline: Any, setext: bool) -> None:
        """A paragraph or heading: one output line in place of its lines."""
        content = str(inline.content)
        if not content.strip():
            return
        if setext:
            end -= 1  # the underline stays as it is
        first = content.split("\n", 1)[0].strip()
        source = lines[start][0]
        at = source.find(first) if first else -1
        prefix = source[:at] if at >= 0 else ""
        last_line = content.rsplit("\n", 1)[-1].strip()
        tail = ""
        if end - start == 1 and at >= 0:
            tail = source[at + len(first) :]  # an ATX heading's closing #s, trailing spaces
        elif lines[end - 1][0].rstrip().endswith(last_line):
            tail = lines[end - 1][0][len(lines[end - 1][0].rstrip()) :]
        joined = _join(content)
        line = _Line([prefix, self._text(joined), tail], lines[end - 1][1])
        self._items[start] = line
        for k in range(start + 1, end):
            self._items[k] = ""

    def _row(self, lines: list[tuple[str, str]], row: int) -> None:
        """A table row: each cell translated, the pipes and padding kept."""
        content, terminator = lines[row]
        cells = _ROW_SPLIT.split(content)
        parts: list[str | _Text] = []
        for k, cell in enumerate(cells):
            if k:
                parts.append("|")
            core = cell.strip()
            if not any(c.isalpha() for c in core):
                parts.append(cell)
                continue
            lead = cell[: len(cell) - len(cell.lstrip())]
            parts += [lead, self._text(core), cell[len(lead) + len(core) :]]
        self._items[row] = _Line(parts, terminator)

    def _text(self, text: str) -> _Text | str:
        """Inline Markdown as a projected text (or itself, with nothing to translate)."""
        plain, spans, anchors, codes = _inline(text)
        if not any(c.isalpha() for c in plain):
            return text
        lead, middle, before_end, trail = edge_anchors(plain, spans, anchors)
        return _Text(ProjectedText(plain, spans, self._collector, middle), lead, before_end, trail, codes)

    def render_text(self, translations: Sequence[str]) -> str:
        """The translated Markdown (before encoding)."""
        return "".join(item if isinstance(item, str) else item.render(translations) for item in self._items)

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """Write the translated file in the input's encoding."""
        fileobj.write(self._decoded.encode(self.render_text(translations)))


def _join(content: str) -> str:
    """A paragraph's lines as one: a space between them, none between two CJK characters."""
    out = ""
    for line in content.split("\n"):
        line = line.strip()
        if out and line and not (is_wide(out[-1]) and is_wide(line[0])):
            out += " "
        out += line
    return out


def _inline(text: str) -> tuple[str, list[Span], list[tuple[int, Hashable]], list[str]]:
    """Inline Markdown as plain text, spans (emphasis, links, HTML tag pairs: marks index
    ``codes``, each ``open + "\\0" + close``) and anchors (images, autolinks, lone tags)."""
    plain: list[str] = []
    size = 0
    codes: list[str] = []
    spans: list[Span] = []
    anchors: list[tuple[int, Hashable]] = []
    stack: list[_Open] = []  # (kind or "<tag", its text, start)
    orphans: list[_Open] = []
    pos = 0

    def add(chunk: str) -> None:
        nonlocal size
        plain.append(chunk)
        size += len(chunk)

    def anchor(code: str) -> None:
        codes.append(code)
        anchors.append((size, len(codes) - 1))

    for match in _INLINE.finditer(text):
        add(text[pos : match.start()])
        pos = match.end()
        kind, token = match.lastgroup, match.group()
        if kind in ("code", "escape"):
            add(token)  # code: the engine keeps it verbatim; an escape is text as written
        elif kind in ("image", "autolink"):
            anchor(token)
        elif kind == "open":
            stack.append(("[", token, size))
        elif kind == "close":
            if _close(stack, orphans, "[", token, size, codes, spans) is None:
                add(token)
        elif kind == "html":
            name = re.match(r"</?([A-Za-z][\w-]*)", token)
            tag = name.group(1).lower() if name else ""
            if token.startswith("</"):
                if _close(stack, orphans, f"<{tag}", token, size, codes, spans) is None:
                    anchor(token)
            elif token.endswith("/>") or tag in _VOID:
                anchor(token)
            else:
                stack.append((f"<{tag}", token, size))
        else:  # emphasis: closes its like when one is open, else opens
            if (
                any(k == token for k, _, _ in stack)
                and _close(stack, orphans, token, token, size, codes, spans) is not None
            ):
                continue
            stack.append((token, token, size))
    add(text[pos:])
    # What never closed is text again: an opening "[" or "*" without its partner.
    plain_text = "".join(plain)
    for kind, token, start in sorted(orphans + stack, key=lambda o: -o[2]):
        if kind.startswith("<"):
            codes.append(token)
            anchors.append((start, len(codes) - 1))
            continue
        plain_text = plain_text[:start] + token + plain_text[start:]
        shift = len(token)
        spans = [_shifted(s, start, shift) for s in spans]
        anchors = [(p + shift if p > start else p, m) for p, m in anchors]
    return plain_text, sorted(spans, key=lambda s: (s.start, -s.end)), anchors, codes


def _shifted(span: Span, at: int, shift: int) -> Span:
    return Span(
        span.start + shift if span.start >= at else span.start,
        span.end + shift if span.end > at else span.end,
        span.mark,
    )


_VOID = frozenset({"br", "img", "hr", "input", "wbr", "meta", "link", "source", "area", "col", "embed"})


def _close(
    stack: list[_Open], orphans: list[_Open], kind: str, token: str, size: int, codes: list[str], spans: list[Span]
) -> int | None:
    """Close the latest open ``kind`` as a span (its mark: open + "\\0" + close); None if none
    is open. What was opened inside it and never closed goes to ``orphans`` (text again)."""
    for k in range(len(stack) - 1, -1, -1):
        if stack[k][0] == kind:
            _, opening, start = stack[k]
            orphans.extend(stack[k + 1 :])  # opened inside it, never closed: text again
            del stack[k:]
            codes.append(f"{opening}\0{token}")
            if size > start:
                spans.append(Span(start, size, len(codes) - 1))
            return start
    return None


def load(
    data: bytes, filename: str, encoding: str | None = None, *, bilingual: bool = False, join_lines: bool = False
) -> MarkdownDocument:
    """Parse a Markdown file's bytes (strict decoding, see :func:`textio.decode_text`);
    ``bilingual`` and ``join_lines`` do not apply (a paragraph is joined anyway)."""
    return MarkdownDocument(decode_text(data, filename, encoding))
