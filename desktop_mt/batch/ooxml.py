"""PowerPoint (.pptx) and Excel (.xlsx) files: the text translated in the package's own XML.

The file is a ZIP package of XML parts; only the parts that hold text are parsed (lxml) and
rewritten, every other entry (pictures, charts, themes, formulas, styles) is copied byte for
byte, so nothing the app does not understand is lost.

- **PowerPoint**: every paragraph (``a:p``) of the slides, their notes, the slide layouts'
  and masters' text is not translated (placeholders' prompts). That covers text boxes, shapes,
  tables (each cell's paragraphs), grouped shapes and SmartArt's drawing text.
- **Excel**: the shared strings (``xl/sharedStrings.xml``: every text cell of every sheet) and
  the cells' inline strings. Numbers, dates, booleans and formulas (and their cached results)
  are not text cells and stay as they were; sheet names stay (formulas name them).

Formatting: a paragraph's (a rich text cell's) runs with another format than its plainest,
most used one are spans of the tag projection (:mod:`.tags`) and carry their format onto the
aligned words of the translation, as in .docx; line breaks (``a:br``) and fields (``a:fld``:
slide numbers, dates) are anchors, copied. Language attributes of the runs (``lang``) are not
formatting.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import re
import zipfile
from collections.abc import Hashable, Sequence
from typing import Any, BinaryIO

from .errors import BatchInputError
from .tags import ProjectedText, Span, closing_point, edge_anchors
from .textio import SegmentCollector, render

__all__ = [
    "OfficeDocument",
    "load_pptx",
    "load_xlsx",
]

_Element = Any  # lxml's elements

_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"

_SLIDE_PARTS = re.compile(r"^ppt/(slides/slide|notesSlides/notesSlide)\d+\.xml$")
_SHEET_PARTS = re.compile(r"^xl/(sharedStrings\.xml|worksheets/sheet\d+\.xml)$")
_INVISIBLE = frozenset({"lang", "altLang", "dirty", "err", "noProof", "smtClean", "smtId", "bmk"})


@dataclasses.dataclass(frozen=True)
class _Kind:
    """How one markup language writes a paragraph: its container, run, properties and text."""

    paragraph: str
    run: str
    properties: str
    text: str
    anchors: frozenset[str]  # children copied whole at their place (line breaks, fields)


_DRAWING = _Kind(f"{{{_A}}}p", f"{{{_A}}}r", f"{{{_A}}}rPr", f"{{{_A}}}t", frozenset({f"{{{_A}}}br", f"{{{_A}}}fld"}))
_SHEET = _Kind(f"{{{_S}}}si", f"{{{_S}}}r", f"{{{_S}}}rPr", f"{{{_S}}}t", frozenset())


@dataclasses.dataclass
class _Unit:
    """One paragraph (or string item) and its projected text."""

    element: _Element
    kind: _Kind
    items: list[_Element]  # its runs and anchors, in order
    formats: list[_Element]  # a run of each distinct format (marks index this)
    base: int
    projected: ProjectedText
    lead: list[Hashable]
    before_end: list[Hashable]
    trail: list[Hashable]


class OfficeDocument:
    """A parsed .pptx or .xlsx: ``segments`` to translate; ``write`` saves the package."""

    def __init__(self, data: bytes, filename: str, what: str) -> None:
        from lxml import etree  # lxml: XML formats only

        self._etree = etree
        parts = _SLIDE_PARTS if what == "pptx" else _SHEET_PARTS
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            names = self._zip.namelist()
            self._roots: dict[str, _Element] = {}
            for name in names:
                if parts.match(name):
                    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
                    self._roots[name] = etree.fromstring(self._zip.read(name), parser)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, etree.XMLSyntaxError, KeyError, OSError) as exc:
            raise BatchInputError(f"{filename}: not a valid .{what} file ({exc})", filename=filename) from None
        required = "[Content_Types].xml"
        if required not in names or (what == "pptx" and not any(n.startswith("ppt/") for n in names)):
            raise BatchInputError(
                f"{filename}: not a .{what} file (no {'ppt/' if what == 'pptx' else 'xl/'} parts)", filename=filename
            )
        if what == "xlsx" and not any(n.startswith("xl/") for n in names):
            raise BatchInputError(f"{filename}: not a .xlsx file (no xl/ parts)", filename=filename)
        self._collector = SegmentCollector()
        self._units: list[_Unit] = []
        self._plain: list[tuple[_Element, list[str | int]]] = []  # (<t> of a string without runs, its template)
        self._touched: set[str] = set()  # the parts with text to translate (the rest are copied)
        for name, root in self._roots.items():
            before = len(self._units) + len(self._plain)
            if what == "pptx":
                for paragraph in root.iter(_DRAWING.paragraph):
                    self._add(paragraph, _DRAWING)
            else:
                for item in [*root.iter(_SHEET.paragraph), *root.iter(f"{{{_S}}}is")]:
                    self._add(item, _SHEET)
            if len(self._units) + len(self._plain) > before:
                self._touched.add(name)
        self.segments = self._collector.segments

    def _add(self, paragraph: _Element, kind: _Kind) -> None:
        items = [c for c in paragraph if c.tag == kind.run or c.tag in kind.anchors]
        plain_t = [c for c in paragraph if c.tag == kind.text]  # a string item without runs: <si><t>
        if plain_t and not items:
            text = plain_t[0].text or ""
            if any(c.isalpha() for c in text):
                self._plain.append((plain_t[0], self._collector.add_text(text)))
            return
        runs = [r for r in items if r.tag == kind.run]
        texts = ["".join(t.text or "" for t in r.iter(kind.text)) for r in runs]
        if not any(c.isalpha() for text in texts for c in text):
            return
        formats, index_of = _formats(runs, kind)
        chars: dict[int, int] = {}
        for run, text in zip(runs, texts):
            chars[index_of[id(run)]] = chars.get(index_of[id(run)], 0) + len(text.strip())
        base = min(chars, key=lambda k: (len(_format_key(formats[k], kind)), -chars[k], k))
        plain, pos = "", 0
        spans: list[Span] = []
        anchors: list[tuple[int, Hashable]] = []
        for item in items:
            if item.tag != kind.run:
                anchors.append((pos, items.index(item)))
                if item.tag == f"{{{_A}}}br" and plain and not plain.endswith(" "):
                    plain += " "  # a line break between two words: two words, not one
                    pos += 1
                continue
            text = "".join(t.text or "" for t in item.iter(kind.text))
            mark = index_of[id(item)]
            if mark != base and text:
                last = spans[-1] if spans else None
                if last is not None and last.mark == mark and last.end == pos:
                    spans[-1] = Span(last.start, pos + len(text), mark)
                else:
                    spans.append(Span(pos, pos + len(text), mark))
            plain += text
            pos += len(text)
        lead, middle, before_end, trail = edge_anchors(plain, spans, anchors)
        projected = ProjectedText(plain, spans, self._collector, middle)
        self._units.append(_Unit(paragraph, kind, items, formats, base, projected, lead, before_end, trail))

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """Put the translations in and write the package (other entries copied as they were)."""
        for unit in self._units:
            _fill(unit, translations)
        for t, template in self._plain:
            translated = render(template, translations)
            t.text = translated
            if translated != translated.strip():
                t.set(_XML_SPACE, "preserve")
        with zipfile.ZipFile(fileobj, "w") as out:
            for info in self._zip.infolist():
                if info.filename in self._touched:
                    xml = self._etree.tostring(
                        self._roots[info.filename], xml_declaration=True, encoding="UTF-8", standalone=True
                    )
                    out.writestr(info, xml, compress_type=zipfile.ZIP_DEFLATED)
                else:
                    out.writestr(info, self._zip.read(info.filename), compress_type=info.compress_type)


def _format_key(run: _Element, kind: _Kind) -> bytes:
    """A run's visible formatting: its properties less language and proofing marks."""
    from lxml import etree

    properties = run.find(kind.properties)
    if properties is None:
        return b""
    properties = copy.deepcopy(properties)
    for name in _INVISIBLE:
        properties.attrib.pop(name, None)
    return bytes(etree.tostring(properties, method="c14n"))


def _formats(runs: list[_Element], kind: _Kind) -> tuple[list[_Element], dict[int, int]]:
    keys: dict[bytes, int] = {}
    formats: list[_Element] = []
    index_of: dict[int, int] = {}
    for run in runs:
        key = _format_key(run, kind)
        if key not in keys:
            keys[key] = len(formats)
            formats.append(run)
        index_of[id(run)] = keys[key]
    return formats, index_of


def _new_run(template: _Element, text: str, kind: _Kind) -> _Element:
    """A run with ``template``'s properties holding ``text``."""
    run = template.makeelement(kind.run, {})
    properties = template.find(kind.properties)
    if properties is not None:
        copied = copy.deepcopy(properties)
        copied.tail = None
        run.append(copied)
    t = run.makeelement(kind.text, {})
    t.text = text
    if kind is _SHEET and text != text.strip():
        t.set(_XML_SPACE, "preserve")
    run.append(t)
    return run


def _fill(unit: _Unit, translations: Sequence[str]) -> None:
    """Replace the unit's runs by the translation's, formats on their words, anchors in place."""
    projection = unit.projected.project(translations)
    text = projection.text
    end = closing_point(text)
    anchors = [*projection.anchors, *((end, m) for m in unit.before_end)]
    at: dict[int, list[Hashable]] = {}
    floor = 0
    for pos, mark in anchors:
        floor = max(floor, min(pos, len(text)))
        at.setdefault(floor, []).append(mark)
    cuts = sorted({0, len(text)} | {p.start for p in projection.spans} | {p.end for p in projection.spans} | set(at))
    new: list[_Element] = [_anchor(unit, m) for m in unit.lead]
    for a, b in zip(cuts, cuts[1:]):
        new += [_anchor(unit, m) for m in at.pop(a, [])]
        covering = [p for p in projection.spans if p.start <= a and b <= p.end]
        mark = min(covering, key=lambda p: p.end - p.start).mark if covering else unit.base
        assert isinstance(mark, int)
        new.append(_new_run(unit.formats[mark], text[a:b], unit.kind))
    for pos in sorted(at):
        new += [_anchor(unit, m) for m in at[pos]]
    new += [_anchor(unit, m) for m in unit.trail]
    first = unit.items[0]
    for element in new:
        first.addprevious(element)
    for item in unit.items:
        unit.element.remove(item)


def _anchor(unit: _Unit, mark: Hashable) -> _Element:
    assert isinstance(mark, int)
    element = copy.deepcopy(unit.items[mark])
    element.tail = None
    return element


def load_pptx(
    data: bytes, filename: str, encoding: str | None = None, *, bilingual: bool = False, join_lines: bool = False
) -> OfficeDocument:
    """Parse a .pptx file's bytes (``encoding``, ``bilingual`` and ``join_lines`` do not apply)."""
    return OfficeDocument(data, filename, "pptx")


def load_xlsx(
    data: bytes, filename: str, encoding: str | None = None, *, bilingual: bool = False, join_lines: bool = False
) -> OfficeDocument:
    """Parse a .xlsx file's bytes (``encoding``, ``bilingual`` and ``join_lines`` do not apply)."""
    return OfficeDocument(data, filename, "xlsx")
