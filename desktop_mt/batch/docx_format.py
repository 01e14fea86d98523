"""DOCX (python-docx): body, tables (nested), text boxes, content controls, every header and
footer (default, first page, even page, of every section), footnotes and endnotes. Review
comments, charts, SmartArt and embedded objects are left untranslated.

The run rule. Every ``w:p`` of those parts is handled on its own (a paragraph nested in a text
box or table is handled as its own paragraph). A paragraph's text runs are split into *units*
at anything that is not plain text: a tab, a line break, an image, a field (its code and its
displayed result), a symbol. Hyperlinks and footnote/endnote references stay inside their
unit, so a sentence with a link or a note mark is translated whole. Each unit is translated
sentence by sentence (its leading/trailing whitespace kept), and its inline formatting is
carried by tag projection (:mod:`.tags`): the unit's plainest formatting (outside links, the
fewest run properties; then the most used) is its base; every stretch of runs formatted
otherwise (bold, italic, underline, colour, a font, a hyperlink...) is a span, placed on
the words of the translation aligned to its words, or, where none align well enough, on its
whole sentence. The translation is written as new
runs, each a copy of the formatting (``w:rPr``) of the source run it stands for, inside a
copy of the hyperlink where the source run was in one; a footnote or endnote reference
moves, as it is, to the end of its sentence's translation, or, inside a sentence, after the
translation of the words before it. The source runs whose text was
taken are removed when nothing else hangs on them (otherwise only emptied). A unit with one
formatting and no note reference keeps its runs: the translation goes into its first
``w:t`` holding text, the others are emptied. Images, fields, tabs, breaks, bookmarks and
comment marks are never touched, and paragraph properties (styles) are kept. Deleted
revision text (``w:del``) is left as it is.

Bilingual (``bilingual=True``): each paragraph with translated text is kept as it was and a
copy of it, holding the translation by the same run rule, is inserted right after it (same
style, so a heading is followed by its translated heading). Bookmarks, comment marks,
note references, pictures and text boxes are left out of the copy (they must stay unique; a
text box's paragraphs get their own copies inside it). A paragraph left as it was
(already Chinese) is not repeated.

What falls short: a span whose words the aligner cannot find in the translation (its own
translation shares too few characters with the sentence's) formats its whole sentence, and
a note reference inside a sentence whose preceding words do not align goes to the end of
its sentence.
"""

from __future__ import annotations

import copy
import io
import zipfile
from collections.abc import Hashable, Iterator, Sequence
from typing import Any, BinaryIO

from .errors import BatchInputError
from .tags import ProjectedText, Projection, Span
from .textio import SegmentCollector

__all__ = [
    "WordDocument",
    "load",
]

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"


def _w(tag: str) -> str:
    return f"{{{_W}}}{tag}"


_P, _R, _T = _w("p"), _w("r"), _w("t")
# Containers whose children are runs (or more containers): walk into them.
_DESCEND = {_w(t) for t in ("ins", "moveTo", "smartTag", "customXml", "sdt", "sdtContent", "dir", "bdo")}
# Elements that neither hold text nor split a unit.
_IGNORE = {
    _w(t)
    for t in (
        "pPr",
        "rPr",
        "bookmarkStart",
        "bookmarkEnd",
        "proofErr",
        "commentRangeStart",
        "commentRangeEnd",
        "permStart",
        "permEnd",
        "lastRenderedPageBreak",
        "sdtPr",
        "sdtEndPr",
        "customXmlPr",
        "smartTagPr",
    )
}
# Deleted revisions: not part of the text, and not a split point either.
_SKIP = {_w("del"), _w("moveFrom")}
# Left out of a bilingual copy: each must appear once in the document (pictures and text boxes
# stay with the source paragraph).
_UNIQUE = {
    _w(t)
    for t in (
        "bookmarkStart",
        "bookmarkEnd",
        "commentRangeStart",
        "commentRangeEnd",
        "commentReference",
        "footnoteReference",
        "endnoteReference",
        "drawing",
        "pict",
        "object",
    )
} | {"{http://schemas.openxmlformats.org/markup-compatibility/2006}AlternateContent"}
_PARAGRAPH_IDS = (
    "{http://schemas.microsoft.com/office/word/2010/wordml}paraId",
    "{http://schemas.microsoft.com/office/word/2010/wordml}textId",
)
_HYPERLINK = _w("hyperlink")
_RPR = _w("rPr")
_NOTE_REFERENCES = {_w("footnoteReference"), _w("endnoteReference")}
# Run properties that are no formatting a reader sees: runs differing only in these are one span.
_INVISIBLE_RPR = {_w(t) for t in ("lang", "noProof", "spellStart", "spellEnd", "webHidden")}
_FLDCHAR = _w("fldChar")
_FLDCHAR_TYPE = _w("fldCharType")

# An lxml element (w:p, w:r, w:t...): lxml ships no type information (pyproject: mypy overrides).
_Element = Any
_Unit = list[_Element]  # a unit's w:t elements and note references, in order
_Format = tuple[_Element, _Element | None]  # (a run, the hyperlink holding it or None)

_CT_FOOTNOTES = "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"
_CT_ENDNOTES = "application/vnd.openxmlformats-officedocument.wordprocessingml.endnotes+xml"


class WordDocument:
    """A parsed .docx: ``segments`` to translate; ``write`` fills them in and saves."""

    def __init__(self, data: bytes, filename: str, bilingual: bool = False) -> None:
        import docx  # python-docx (~0.1 s): imported here so txt/srt runs never pay for it
        from lxml import etree  # lxml (~20 ms): .docx files only

        self._etree = etree
        try:
            self._doc = docx.Document(io.BytesIO(data))
        except (zipfile.BadZipFile, KeyError, ValueError, etree.XMLSyntaxError) as exc:
            raise BatchInputError(f"{filename}: not a valid .docx file ({exc})", filename=filename) from exc
        collector = SegmentCollector()
        self._bilingual = bilingual
        self._units: list[tuple[_Unit, ProjectedText]] = []  # (w:t elements and note references, text)
        self._paragraphs: list[tuple[_Element, list[int]]] = []  # (w:p, indices into _units)
        self._blob_parts: list[tuple[Any, _Element]] = []  # (python-docx part, parsed root) to write back
        for root in self._roots():
            for paragraph in root.iter(_P):
                first = len(self._units)
                for items in _text_units(paragraph):
                    self._units.append((items, _projected(items, collector)))
                if len(self._units) > first:
                    self._paragraphs.append((paragraph, list(range(first, len(self._units)))))
        self.segments = collector.segments

    @property
    def texts(self) -> list[ProjectedText]:
        """Each text unit with its formatting spans, in document order."""
        return [text for _items, text in self._units]

    def _roots(self) -> Iterator[_Element]:
        """The XML roots of the document, every header/footer part, footnotes and endnotes."""
        seen: set[int] = set()
        parts = [self._doc.part] + [rel.target_part for rel in self._doc.part.rels.values() if not rel.is_external]
        for part in parts:
            if id(part) in seen:
                continue
            seen.add(id(part))
            element = getattr(part, "_element", None)
            if part is self._doc.part or _is_header_footer(part):
                yield element
            elif part.content_type in (_CT_FOOTNOTES, _CT_ENDNOTES) and element is None:
                # python-docx keeps these as raw blobs: parse now, serialise back in write().
                root = self._etree.fromstring(part.blob)
                self._blob_parts.append((part, root))
                yield root

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """Put the translations in (see the module's run rule) and save the .docx."""
        if self._bilingual:
            self._add_translated_copies(translations)
        else:
            for items, text in self._units:
                _fill_unit(items, text.project(translations))
        for part, root in self._blob_parts:
            # python-docx keeps such a part's bytes in _blob and writes them out as they are.
            part._blob = self._etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
        self._doc.save(fileobj)

    def _add_translated_copies(self, translations: Sequence[str]) -> None:
        """Bilingual: after each paragraph, a copy of it that holds the translation (none where
        every unit is unchanged). Paragraphs nested in a paragraph (text boxes) get their own
        copy; the outer paragraph's copy then leaves them out."""
        for paragraph, indices in self._paragraphs:
            if all(translations[k] == self.segments[k] for i in indices for k in self._units[i][1].segments):
                continue
            projections = [self._units[i][1].project(translations) for i in indices]
            clone = copy.deepcopy(paragraph)
            for unit, projection in zip(_text_units(clone), projections):  # the same units, in order
                _fill_unit(unit, projection)
            _strip_for_copy(clone)
            paragraph.addnext(clone)


def _joined(items: _Unit) -> str:
    """A unit's text: its ``w:t`` texts one after another."""
    return "".join(t.text or "" for t in items if t.tag == _T)


def _projected(items: _Unit, collector: SegmentCollector) -> ProjectedText:
    """A unit as sentence segments, with its differently formatted runs as spans (marks:
    indices into :func:`_formats`) and its note references as anchors (marks: the item)."""
    formats, index_of = _formats(items)
    base = _base(items, formats, index_of)
    spans: list[Span] = []
    anchors: list[tuple[int, Hashable]] = []
    pos = 0
    for item in items:
        if item.tag != _T:
            anchors.append((pos, items.index(item)))
            continue
        text = item.text or ""
        mark = index_of[id(item)]
        if mark != base and text:
            last = spans[-1] if spans else None
            if last is not None and last.mark == mark and last.end == pos:
                spans[-1] = Span(last.start, pos + len(text), mark)
            else:
                spans.append(Span(pos, pos + len(text), mark))
        pos += len(text)
    return ProjectedText(_joined(items), spans, collector, anchors)


def _formats(items: _Unit) -> tuple[list[_Format], dict[int, int]]:
    """The unit's distinct formats as ``(run, hyperlink or None)`` (the first run seen with
    each), and for each ``w:t`` (by ``id``) the index of its format."""
    keys: dict[tuple[bytes, int | None], int] = {}
    formats: list[_Format] = []
    index_of: dict[int, int] = {}
    for item in items:
        if item.tag != _T:
            continue
        run = item.getparent()
        link = _hyperlink_of(run)
        key = (_format_key(run), None if link is None else id(link))
        if key not in keys:
            keys[key] = len(formats)
            formats.append((run, link))
        index_of[id(item)] = keys[key]
    return formats, index_of


def _base(items: _Unit, formats: list[_Format], index_of: dict[int, int]) -> int:
    """The unit's base format, the one its spans stand out from: the plainest (outside any
    link, fewest run properties) of the formats its visible text has, then the most used."""
    chars: dict[int, int] = {}
    for t in items:
        if t.tag == _T and (t.text or "").strip():
            chars[index_of[id(t)]] = chars.get(index_of[id(t)], 0) + len(t.text.strip())
    return min(chars, key=lambda k: (formats[k][1] is not None, len(_format_key(formats[k][0])), -chars[k], k))


def _format_key(run: _Element) -> bytes:
    """A run's visible formatting, comparable: its ``w:rPr`` less what a reader cannot see."""
    from lxml import etree  # .docx files only (loaded already by WordDocument)

    rpr = run.find(_RPR)
    if rpr is None:
        return b""
    rpr = copy.deepcopy(rpr)
    for child in [c for c in rpr if c.tag in _INVISIBLE_RPR]:
        rpr.remove(child)
    return bytes(etree.tostring(rpr, method="c14n"))


def _hyperlink_of(run: _Element) -> _Element | None:
    """The ``w:hyperlink`` holding ``run`` (through content controls and such), else None."""
    element = run.getparent()
    while element is not None and element.tag != _P:
        if element.tag == _HYPERLINK:
            return element
        element = element.getparent()
    return None


def _text_units(paragraph: _Element) -> list[_Unit]:
    """The units of ``paragraph`` that hold text (what becomes segments), in order."""
    return [texts for texts in _units(paragraph) if _joined(texts).strip()]


def _strip_for_copy(clone: _Element) -> None:
    """Take out of a bilingual copy what must appear once: bookmarks, comment marks, note
    references, and pictures and text boxes (their paragraphs get their own copies)."""
    doomed = [e for e in clone.iter() if e is not clone and e.tag in _UNIQUE]
    for element in doomed:
        parent = element.getparent()
        if parent is not None:
            parent.remove(element)
    for name in _PARAGRAPH_IDS:  # Word's paragraph ids are unique too; it makes new ones
        clone.attrib.pop(name, None)


def _is_header_footer(part: object) -> bool:
    from docx.parts.hdrftr import FooterPart, HeaderPart  # python-docx: .docx files only

    return isinstance(part, (HeaderPart, FooterPart))


def _fill_unit(items: _Unit, projection: Projection) -> None:
    """Put a unit's translation in (the run rule of the module docstring)."""
    texts = [t for t in items if t.tag == _T]
    if not projection.spans and not projection.anchors:
        target = next(t for t in texts if (t.text or "").strip())
        for t in texts:
            t.text = projection.text if t is target else ""
        target.set(_XML_SPACE, "preserve")  # leading/trailing spaces must survive
        return
    formats, index_of = _formats(items)
    base = _base(items, formats, index_of)
    first_run = _run_from(texts[0])
    point = _hyperlink_of(first_run)
    point = first_run if point is None else point
    old_runs = [item.getparent() for item in items]  # before the note references move out of theirs
    for element in _new_runs(projection, formats, base, items):
        point.addprevious(element)
    for t in texts:
        t.text = ""
    _remove_empty_runs(old_runs)


def _run_from(t: _Element) -> _Element:
    """The run of ``t``, split first where other content (a tab, a break, the text of the
    unit before) comes before ``t`` in it, so that what is inserted before the returned run
    lands after that content."""
    run = t.getparent()
    children = list(run)
    at = children.index(t)
    if not any(c.tag != _RPR for c in children[:at]):
        return run
    rest = _shallow_copy(run)
    _copy_properties(run, rest)
    for child in children[at:]:
        rest.append(child)  # lxml moves it
    run.addnext(rest)
    return rest


def _new_runs(projection: Projection, formats: list[_Format], base: int, items: _Unit) -> list[_Element]:
    """The translation as runs (and hyperlinks holding runs), in order, with the note
    references moved to their places."""
    text = projection.text
    cuts = sorted(
        {0, len(text)}
        | {p.start for p in projection.spans}
        | {p.end for p in projection.spans}
        | {pos for pos, _ in projection.anchors}
    )
    pieces: list[tuple[_Element, int, _Element | None]] = []  # (run, format index or -1, hyperlink)
    for a, b in zip(cuts, cuts[1:]):
        for pos, index in projection.anchors:
            if pos == a:
                pieces.append(_anchor_run(items[_index(index)]))
        covering = [p for p in projection.spans if p.start <= a and b <= p.end]
        mark = _index(min(covering, key=lambda p: p.end - p.start).mark) if covering else base
        run, link = formats[mark]
        pieces.append((_text_run(run, text[a:b]), mark, link))
    for pos, index in projection.anchors:
        if pos >= len(text) or not text:
            pieces.append(_anchor_run(items[_index(index)]))
    out: list[_Element] = []
    open_link, holder = None, None
    for run, _mark, link in pieces:
        if link is None:
            out.append(run)
            open_link = holder = None
        elif link is open_link and holder is not None:
            holder.append(run)
        else:
            holder = _shallow_copy(link)
            holder.append(run)
            out.append(holder)
            open_link = link
    return out


def _index(mark: Hashable) -> int:
    """A span's or anchor's mark here: an index (into the unit's formats, or its items)."""
    assert isinstance(mark, int)
    return mark


def _anchor_run(reference: _Element) -> tuple[_Element, int, _Element | None]:
    """A note reference moved into a run of its own (its run's formatting: superscript)."""
    run = _shallow_copy(reference.getparent())
    _copy_properties(reference.getparent(), run)
    reference.tail = None
    run.append(reference)  # lxml moves it
    return run, -1, None


def _text_run(run: _Element, text: str) -> _Element:
    """A new run with ``run``'s formatting holding ``text``."""
    new = _shallow_copy(run)
    _copy_properties(run, new)
    t = new.makeelement(_T, {})
    t.text = text
    t.set(_XML_SPACE, "preserve")
    new.append(t)
    return new


def _copy_properties(run: _Element, new: _Element) -> None:
    """Give ``new`` a copy of ``run``'s ``w:rPr`` (without the source's whitespace after it)."""
    rpr = run.find(_RPR)
    if rpr is not None:
        properties = copy.deepcopy(rpr)
        properties.tail = None
        new.append(properties)


def _shallow_copy(element: _Element) -> _Element:
    """``element`` with its attributes, without its children."""
    return element.makeelement(element.tag, dict(element.attrib))


def _remove_empty_runs(runs: list[_Element]) -> None:
    """Remove runs left with nothing but properties and empty text, and hyperlinks left empty."""
    for run in runs:
        parent = run.getparent()
        if parent is None or any(c.tag not in (_RPR, _T) or (c.tag == _T and c.text) for c in run):
            continue
        parent.remove(run)
        if parent.tag == _HYPERLINK and not len(parent) and parent.getparent() is not None:
            parent.getparent().remove(parent)


def _units(paragraph: _Element) -> list[_Unit]:
    """The paragraph's ``w:t`` elements grouped into units (split at non-text content)."""
    units: list[_Unit] = [[]]
    field_depth = 0

    def split() -> None:
        if units[-1]:
            units.append([])

    def walk(element: _Element) -> None:
        nonlocal field_depth
        for child in element:
            tag = child.tag
            if not isinstance(tag, str) or tag in _IGNORE or tag in _SKIP:
                continue  # comments / processing instructions, properties, deleted text
            if tag in _DESCEND or tag in (_HYPERLINK, _R):
                walk(child)
            elif tag == _T and field_depth == 0:
                units[-1].append(child)
            elif tag in _NOTE_REFERENCES and field_depth == 0:
                units[-1].append(child)  # an anchor in the unit's text
            elif tag == _FLDCHAR:
                kind = child.get(_FLDCHAR_TYPE)
                field_depth += 1 if kind == "begin" else -1 if kind == "end" else 0
                field_depth = max(field_depth, 0)
                split()
            else:
                split()  # tab, break, drawing, field code/result, symbol, note reference ...

    walk(paragraph)
    return [u for u in units if u]


def load(
    data: bytes, filename: str, encoding: str | None = None, *, bilingual: bool = False, join_lines: bool = False
) -> WordDocument:
    """Parse a .docx file's bytes (``encoding`` is ignored: DOCX is always XML/UTF-8;
    ``join_lines`` too: a Word paragraph is whole already)."""
    return WordDocument(data, filename, bilingual)
