"""HTML pages: the text and the ``alt``/``title`` attributes translated, every tag kept.

The page is read with the standard library's HTML tokenizer (``html.parser``, which follows
HTML5's tokenization: raw-text ``<script>``/``<style>``, character references, unclosed and
stray tags), and every byte that is not translated text is written back as it was.

- Text flows between block boundaries (``<p>``, ``<li>``, ``<td>``, headings, ``<br>`` stays
  inside): a flow is cut into sentences and translated; inline elements inside it (``<a>``,
  ``<b>``, ``<em>``, ``<span>``...) are spans of the tag projection (:mod:`.tags`) and wrap the
  aligned words of the translation; ``<img>``, ``<br>``, ``<code>``... inside it are anchors,
  copied whole. The whitespace between words is one space in the output, as a browser shows it;
  the whitespace around a flow is kept.
- Left as they are: ``<script>``, ``<style>``, ``<code>``, ``<pre>``, ``<kbd>``, ``<samp>``,
  ``<textarea>``, ``<svg>``, ``<math>``, ``<template>``, comments, and every element with
  ``translate="no"`` or ``class="notranslate"`` (with all it holds).
- Attributes translated: ``alt``, ``title``, ``placeholder``, ``aria-label``; ``lang`` (and
  ``xml:lang``) of ``<html>`` becomes the language translated into.
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Hashable, Sequence
from html.parser import HTMLParser
from typing import BinaryIO

from ..engine import direction
from .errors import BatchInputError
from .tags import ProjectedText, Span, edge_anchors, markup_with_anchors
from .textio import DecodedText, SegmentCollector, Template, decode_text, render

__all__ = [
    "MAX_UNCLOSED_TAGS",
    "HtmlDocument",
    "HtmlFile",
    "load",
]

_INLINE = frozenset(
    [
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "big",
        "cite",
        "data",
        "del",
        "dfn",
        "em",
        "font",
        "i",
        "ins",
        "label",
        "mark",
        "q",
        "s",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "time",
        "tt",
        "u",
        "var",
    ]
)
_VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]
)
_ATOMIC_INLINE = frozenset({"br", "img", "input", "wbr"})  # inside a flow: anchors
_SKIP = frozenset(["script", "style", "code", "pre", "kbd", "samp", "textarea", "svg", "math", "template", "noscript"])
_MAX_CODES = 40  # inline tags in one flow beyond which it is translated run by run (see _run_by_run)
_ATTRIBUTES = ("alt", "title", "placeholder", "aria-label")
# The standard library's tokenizer scans from each '<' + letter that never ends a tag (an
# unterminated quote, a lone "a<b") to the end of the input: quadratic in their number (1.0 s
# for 10,000 characters of "<a " on CPython 3.11.7). Past this many the page is refused, so a
# page costs at most this many scans of itself (the local API's format=html takes untrusted text).
MAX_UNCLOSED_TAGS = 64
_UNCLOSED_TAGS = (
    f"over {MAX_UNCLOSED_TAGS} '<' that never end a tag (an unterminated quote?); write a literal '<' in text as &lt;"
)
_ATTR = re.compile(r"""(?P<before>\s(?P<name>[\w:-]+)\s*=\s*)(?P<value>"[^"]*"|'[^']*'|[^\s"'=<>`]+)""", re.IGNORECASE)
_SPACE = re.compile(r"\s+")


class _Tokenizer(HTMLParser):
    """The page as ``(kind, tag, attrs, start)`` events with their source offsets."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=False)
        self.events: list[tuple[str, str, dict[str, str | None], int]] = []
        self._unclosed, self._closing = 0, False
        self._lines = [0]
        for k, c in enumerate(source):
            if c == "\n":
                self._lines.append(k + 1)

    def check_for_whole_start_tag(self, i: int) -> int:
        """As HTMLParser's, counting the tags that run to the end of the input (see
        ``MAX_UNCLOSED_TAGS``); ``BatchInputError`` past the limit."""
        end: int = super().check_for_whole_start_tag(i)
        if end < 0 and self._closing:  # feed() stops at the first one; close() takes each
            self._unclosed += 1
            if self._unclosed > MAX_UNCLOSED_TAGS:
                raise BatchInputError(f"HTML with {_UNCLOSED_TAGS}")
        return end

    def close(self) -> None:
        """As HTMLParser's: the rest of the input, incomplete tags as text."""
        self._closing = True
        super().close()

    def _at(self) -> int:
        line, column = self.getpos()
        return self._lines[line - 1] + column

    def _add(self, kind: str, tag: str = "", attrs: list[tuple[str, str | None]] | None = None) -> None:
        self.events.append((kind, tag, dict(attrs or []), self._at()))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._add("start", tag, attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._add("void", tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self._add("end", tag)

    def handle_data(self, data: str) -> None:
        self._add("text")

    def handle_entityref(self, name: str) -> None:
        self._add("text")

    def handle_charref(self, name: str) -> None:
        self._add("text")

    def handle_comment(self, data: str) -> None:
        self._add("other")

    def handle_decl(self, decl: str) -> None:
        self._add("other")

    def handle_pi(self, data: str) -> None:
        self._add("other")

    def unknown_decl(self, data: str) -> None:
        self._add("other")


@dataclasses.dataclass
class _Tag:
    """A tag as written, with its translatable attribute values as templates over segments."""

    raw: str
    attributes: list[tuple[int, int, str, Template]]  # (start, end) of the value in raw, its quote
    lang: list[tuple[int, int, str]]  # lang/xml:lang values of <html>

    def render(self, translations: Sequence[str], language: str) -> str:
        out = self.raw
        edits = [(a, b, q + html.escape(render(t, translations), quote=True) + q) for a, b, q, t in self.attributes]
        edits += [(a, b, q + language + q) for a, b, q in self.lang]
        for a, b, value in sorted(edits, reverse=True):
            out = out[:a] + value + out[b:]
        return out


_Piece = str | _Tag  # literal markup, or a tag with attributes to translate


@dataclasses.dataclass
class _Flow:
    """A run of text and inline markup translated as one text."""

    projected: ProjectedText
    codes: list[tuple[_Piece, ...]]  # per mark: (markup,) for an anchor, (open, close) for a span
    lead: list[Hashable]
    before_end: list[Hashable]
    trail: list[Hashable]


class HtmlDocument:
    """A parsed HTML page: ``segments`` to translate; ``render`` / ``write`` rebuild it."""

    def __init__(self, source: str) -> None:
        self._collector = SegmentCollector()
        self._items: list[_Piece | _Flow] = []
        self._language = "zh-CN"
        tokens = _Tokenizer(source)
        tokens.feed(source)
        tokens.close()
        events = tokens.events
        ends = [e[3] for e in events[1:]] + [len(source)]
        if events and events[0][3] > 0:
            self._items.append(source[: events[0][3]])
        flow: list[tuple[str, str, _Piece]] = []  # (kind: text/open/close/atom, tag name, piece)
        skip: tuple[str, int] | None = None  # (tag, depth) of the element being copied whole
        held: list[str] = []  # the skipped element's markup so far
        for (kind, tag, attrs, start), end in zip(events, ends):
            raw = source[start:end]
            if skip is not None:
                held.append(raw)
                name, depth = skip
                depth += (kind == "start" and tag == name) - (kind == "end" and tag == name)
                skip = (name, depth) if depth > 0 else None
                if skip is None:
                    flow.append(("atom", name, "".join(held)))
                continue
            if kind == "text":
                flow.append(("text", "", raw))
            elif kind in ("start", "void") and _skipped(tag, attrs) and kind == "start" and tag not in _VOID:
                skip, held = (tag, 1), [raw]
            elif kind in ("start", "void") and _skipped(tag, attrs):
                flow.append(("atom", tag, raw))
            elif kind == "start" and tag in _INLINE:
                flow.append(("open", tag, self._tag(raw, tag)))
            elif kind == "end" and tag in _INLINE:
                flow.append(("close", tag, raw))
            elif kind in ("start", "void") and tag in _ATOMIC_INLINE:
                flow.append(("atom", tag, self._tag(raw, tag)))
            else:  # a block boundary: the flow ends, the tag is written as it was
                self._flush(flow)
                flow = []
                self._items.append(self._tag(raw, tag) if kind in ("start", "void") else raw)
        if skip is not None:  # an element never closed: copied to the end
            flow.append(("atom", skip[0], "".join(held)))
        self._flush(flow)
        self.segments = self._collector.segments

    @property
    def texts(self) -> list[str]:
        """The segments (the local API's name for them)."""
        return self.segments

    def use_options(self, options: object) -> None:
        """The language the page is translated into (for ``<html lang>``)."""
        target = getattr(options, "target", None)
        if target not in (direction.EN, direction.ZH):
            text = " ".join(self.segments[:200])
            target = direction.EN if direction.paragraph_language(text) == direction.ZH else direction.ZH
        script = getattr(options, "script", "simplified")
        codes = {"traditional-tw": "zh-TW", "traditional-hk": "zh-HK", "traditional": "zh-Hant"}
        self._language = "en" if target == direction.EN else codes.get(str(script), "zh-CN")

    def _tag(self, raw: str, tag: str) -> _Piece:
        """A start tag, with its translatable attributes (and ``<html lang>``) found."""
        attributes: list[tuple[int, int, str, Template]] = []
        lang: list[tuple[int, int, str]] = []
        for match in _ATTR.finditer(raw):
            name = match.group("name").lower()
            value = match.group("value")
            quote = value[0] if value[0] in "\"'" else '"'
            inner = value[1:-1] if value[0] in "\"'" else value
            span = match.start("value"), match.end("value")
            if name in _ATTRIBUTES and any(c.isalpha() for c in inner):
                attributes.append((*span, quote, self._collector.add_text(html.unescape(inner).strip())))
            elif name in ("lang", "xml:lang") and tag == "html":
                lang.append((*span, quote))
        return _Tag(raw, attributes, lang) if attributes or lang else raw

    def _flush(self, flow: list[tuple[str, str, _Piece]]) -> None:
        """One flow: literal when it has no letters, else a projected text between its edges."""
        start, end = 0, len(flow)
        while start < end and flow[start][0] == "text" and not _text(flow[start][2]).strip():
            start += 1
        while end > start and flow[end - 1][0] == "text" and not _text(flow[end - 1][2]).strip():
            end -= 1
        self._items += [piece for _, _, piece in flow[:start]]
        core = flow[start:end]
        if not any(c.isalpha() for kind, _, piece in core if kind == "text" for c in _text(piece)):
            self._items += [piece for _, _, piece in core]
        elif sum(kind != "text" for kind, _, _ in core) > _MAX_CODES:
            self._run_by_run(core)
        elif core:
            self._items.append(self._projected(core))
        self._items += [piece for _, _, piece in flow[end:]]

    def _run_by_run(self, core: list[tuple[str, str, _Piece]]) -> None:
        """A flow with more inline tags than the projection is worth (the alignment of each
        costs a pass over its sentence): each text between two tags translated on its own,
        the tags where they were. Linear in the flow, however it is built."""
        for kind, _tag, piece in core:
            if kind == "text" and any(c.isalpha() for c in _text(piece)):
                self._flush([("text", "", piece)])
            else:
                self._items.append(piece)

    def _projected(self, core: list[tuple[str, str, _Piece]]) -> _Flow:
        plain: list[str] = []
        size = 0
        codes: list[tuple[_Piece, ...]] = []
        spans: list[Span] = []
        anchors: list[tuple[int, Hashable]] = []
        opened: list[tuple[str, _Piece, int]] = []
        apart = False  # a code just went by: the words on either side are not one word
        for kind, tag, piece in core:
            if kind == "text":
                text = _SPACE.sub(" ", _text(piece))
                if text.startswith(" ") and plain and plain[-1].endswith(" "):
                    text = text[1:]
                elif apart and text and not text.startswith(" ") and plain and not plain[-1].endswith(" "):
                    text = " " + text  # "once.<br>Then": two sentences, not "once.Then"
                apart = False
                plain.append(text)
                size += len(text)
                continue
            apart = kind == "atom"
            if kind == "open":
                opened.append((tag, piece, size))
            elif kind == "close" and any(name == tag for name, _, _ in opened):
                while opened:
                    name, opening, at = opened.pop()
                    if name == tag:
                        codes.append((opening, piece))
                        if size > at:
                            spans.append(Span(at, size, len(codes) - 1))
                        else:  # an empty element (<a id="top"></a>): one anchor
                            anchors.append((at, len(codes) - 1))
                        break
                    codes.append((opening,))  # opened inside and never closed: kept where it was
                    anchors.append((at, len(codes) - 1))
            else:  # an atom, or a closing tag of nothing open
                codes.append((piece,))
                anchors.append((size, len(codes) - 1))
        for _name, opening, at in opened:
            codes.append((opening,))
            anchors.append((at, len(codes) - 1))
        text = "".join(plain)
        spans.sort(key=lambda s: (s.start, -s.end))
        lead, middle, before_end, trail = edge_anchors(text, spans, sorted(anchors, key=lambda a: a[0]))
        projected = ProjectedText(text, spans, self._collector, middle)
        return _Flow(projected, codes, lead, before_end, trail)

    def render(self, translations: Sequence[str]) -> str:
        """The page with its translations in place (one per segment: ValueError otherwise)."""
        if len(translations) != len(self.segments):
            raise ValueError(f"expected {len(self.segments)} translations, got {len(translations)}")
        out: list[str] = []
        for item in self._items:
            if isinstance(item, _Flow):
                out.append(self._render_flow(item, translations))
            else:
                out.append(_piece(item, translations, self._language))
        return "".join(out)

    def _render_flow(self, flow: _Flow, translations: Sequence[str]) -> str:
        def code(mark: Hashable, part: int | None) -> str:
            assert isinstance(mark, int)
            parts = flow.codes[mark] if part is None else flow.codes[mark][part : part + 1]
            return "".join(_piece(p, translations, self._language) for p in parts)

        return markup_with_anchors(
            flow.projected.project(translations),
            lambda mark: code(mark, 0),
            lambda mark: code(mark, 1),
            lambda mark: code(mark, None),  # an anchor: all its markup
            flow.lead,
            flow.trail,
            flow.before_end,
            escape=lambda c: html.escape(c, quote=False),
        )


class HtmlFile:
    """An HTML file for the batch layer: :class:`HtmlDocument` with the file's encoding."""

    def __init__(self, decoded: DecodedText) -> None:
        self._decoded = dataclasses.replace(decoded, text="")
        self.document = HtmlDocument(decoded.text)
        self.segments = self.document.segments
        self.use_options = self.document.use_options

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """Write the translated page in the input's encoding."""
        fileobj.write(self._decoded.encode(self.document.render(translations)))


def _text(piece: _Piece) -> str:
    """The text a browser shows for a piece of text markup (character references decoded)."""
    return html.unescape(piece if isinstance(piece, str) else piece.raw)


def _piece(piece: _Piece, translations: Sequence[str], language: str) -> str:
    return piece if isinstance(piece, str) else piece.render(translations, language)


def _skipped(tag: str, attrs: dict[str, str | None]) -> bool:
    """An element copied whole: code-like content, or marked not to be translated."""
    classes = (attrs.get("class") or "").split()
    return tag in _SKIP or (attrs.get("translate") or "").lower() == "no" or "notranslate" in classes


def load(
    data: bytes, filename: str, encoding: str | None = None, *, bilingual: bool = False, join_lines: bool = False
) -> HtmlFile:
    """Parse an HTML file's bytes (strict decoding, see :func:`textio.decode_text`; the page's
    own ``<meta charset>`` is not read: pass ``--encoding`` for a page not in UTF-8).
    ``bilingual`` and ``join_lines`` do not apply."""
    try:
        return HtmlFile(decode_text(data, filename, encoding))
    except BatchInputError as exc:
        raise BatchInputError(f"{filename}: {exc}", filename=filename) from None
