"""DOCX (python-docx): body, tables (nested), text boxes, content controls, every header and
footer (default, first page, even page, of every section), footnotes and endnotes. Review
comments, charts, SmartArt and embedded objects are left untranslated.

The run rule. Every ``w:p`` of those parts is handled on its own (a paragraph nested in a text
box or table is handled as its own paragraph). A paragraph's text runs are split into *units*
at anything that is not plain text: a tab, a line break, an image, a field (its code and its
displayed result), a symbol, a note reference; a hyperlink is a unit of its own (so the link
keeps its text, at the price of translating it apart from its sentence). Each unit is translated as one segment (its
leading/trailing whitespace kept); the translation goes into the unit's first ``w:t`` that
holds non-blank text, keeping that run's formatting, and the unit's other ``w:t`` are emptied
(the runs themselves stay, so nothing that hangs on them is lost). Images, fields, tabs,
breaks, bookmarks and comments marks are never touched, and paragraph/run properties
(styles) are kept. Deleted revision text (``w:del``) is left as it is.

Bilingual (``bilingual=True``): each paragraph with translated text is kept as it was and a
copy of it, holding the translation by the same run rule, is inserted right after it (same
style, so a heading is followed by its translated heading). Bookmarks, comment marks,
note references, pictures and text boxes are left out of the copy (they must stay unique; a
text box's paragraphs get their own copies inside it). A paragraph left as it was
(already Chinese) is not repeated.

So a paragraph with mixed formatting ("a **bold** word") comes back with the whole
translation in the formatting of its first non-blank run: inline formatting inside a unit
cannot be mapped onto a translation with a different word order.
"""

from __future__ import annotations

import copy
import io
import zipfile
from typing import BinaryIO, Iterator, Sequence

from .errors import BatchInputError
from .textio import SegmentCollector, Template, render

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"


def _w(tag: str) -> str:
    return f"{{{_W}}}{tag}"


_P, _R, _T = _w("p"), _w("r"), _w("t")
# Containers whose children are runs (or more containers): walk into them.
_DESCEND = {_w(t) for t in ("ins", "moveTo", "smartTag", "customXml", "sdt",
                             "sdtContent", "dir", "bdo")}
# Elements that neither hold text nor split a unit.
_IGNORE = {_w(t) for t in ("pPr", "rPr", "bookmarkStart", "bookmarkEnd", "proofErr",
                            "commentRangeStart", "commentRangeEnd", "permStart", "permEnd",
                            "lastRenderedPageBreak", "sdtPr", "sdtEndPr", "customXmlPr",
                            "smartTagPr")}
# Deleted revisions: not part of the text, and not a split point either.
_SKIP = {_w("del"), _w("moveFrom")}
# Left out of a bilingual copy: each must appear once in the document (pictures and text boxes
# stay with the source paragraph).
_UNIQUE = {_w(t) for t in ("bookmarkStart", "bookmarkEnd", "commentRangeStart", "commentRangeEnd",
                            "commentReference", "footnoteReference", "endnoteReference", "drawing",
                            "pict", "object")} | {
    "{http://schemas.openxmlformats.org/markup-compatibility/2006}AlternateContent"}
_PARAGRAPH_IDS = ("{http://schemas.microsoft.com/office/word/2010/wordml}paraId",
                  "{http://schemas.microsoft.com/office/word/2010/wordml}textId")
_HYPERLINK = _w("hyperlink")
_FLDCHAR = _w("fldChar")
_FLDCHAR_TYPE = _w("fldCharType")

_CT_FOOTNOTES = "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"
_CT_ENDNOTES = "application/vnd.openxmlformats-officedocument.wordprocessingml.endnotes+xml"


class WordDocument:
    """A parsed .docx: ``segments`` to translate; ``write`` fills them in and saves."""

    def __init__(self, data: bytes, filename: str, bilingual: bool = False) -> None:
        import docx  # python-docx; imported here so txt/srt runs never pay for it
        from lxml import etree

        self._etree = etree
        try:
            self._doc = docx.Document(io.BytesIO(data))
        except (zipfile.BadZipFile, KeyError, ValueError, etree.XMLSyntaxError) as exc:
            raise BatchInputError(f"{filename}: not a valid .docx file ({exc})",
                                  filename=filename) from exc
        collector = SegmentCollector()
        self._bilingual = bilingual
        self._units: list[tuple[list, Template]] = []  # (w:t elements, template)
        self._paragraphs: list[tuple[object, list[int]]] = []  # (w:p, indices into _units)
        self._blob_parts: list[tuple[object, object]] = []  # (part, parsed root) to write back
        for root in self._roots():
            for paragraph in root.iter(_P):
                first = len(self._units)
                for texts in _text_units(paragraph):
                    self._units.append((texts, collector.add_text(_joined(texts))))
                if len(self._units) > first:
                    self._paragraphs.append((paragraph, list(range(first, len(self._units)))))
        self.segments = collector.segments

    def _roots(self) -> Iterator[object]:
        """The XML roots of the document, every header/footer part, footnotes and endnotes."""
        seen = set()
        parts = [self._doc.part] + [rel.target_part for rel in self._doc.part.rels.values()
                                    if not rel.is_external]
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
            for texts, template in self._units:
                _fill_unit(texts, render(template, translations))
        for part, root in self._blob_parts:
            part._blob = self._etree.tostring(root, xml_declaration=True, encoding="UTF-8",
                                              standalone=True)
        self._doc.save(fileobj)


    def _add_translated_copies(self, translations: Sequence[str]) -> None:
        """Bilingual: after each paragraph, a copy of it that holds the translation (none where
        every unit is unchanged). Paragraphs nested in a paragraph (text boxes) get their own
        copy; the outer paragraph's copy then leaves them out."""
        for paragraph, indices in self._paragraphs:
            texts = [render(self._units[i][1], translations) for i in indices]
            if all(text == _joined(self._units[i][0]) for text, i in zip(texts, indices)):
                continue
            clone = copy.deepcopy(paragraph)
            for unit, text in zip(_text_units(clone), texts):  # the same units, in the same order
                _fill_unit(unit, text)
            _strip_for_copy(clone)
            paragraph.addnext(clone)


def _joined(texts: list) -> str:
    """A unit's text: its ``w:t`` texts one after another."""
    return "".join(t.text or "" for t in texts)


def _text_units(paragraph) -> list[list]:
    """The units of ``paragraph`` that hold text (what becomes segments), in order."""
    return [texts for texts in _units(paragraph) if _joined(texts).strip()]


def _strip_for_copy(clone) -> None:
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
    from docx.parts.hdrftr import FooterPart, HeaderPart

    return isinstance(part, (HeaderPart, FooterPart))


def _fill_unit(texts: list, text: str) -> None:
    """The whole unit's text into its first non-blank ``w:t``; the others emptied."""
    target = next(t for t in texts if (t.text or "").strip())
    for t in texts:
        t.text = text if t is target else ""
    target.set(_XML_SPACE, "preserve")  # leading/trailing spaces must survive


def _units(paragraph) -> list[list]:
    """The paragraph's ``w:t`` elements grouped into units (split at non-text content)."""
    units: list[list] = [[]]
    field_depth = 0

    def split() -> None:
        if units[-1]:
            units.append([])

    def walk(element) -> None:
        nonlocal field_depth
        for child in element:
            tag = child.tag
            if not isinstance(tag, str) or tag in _IGNORE or tag in _SKIP:
                continue  # comments / processing instructions, properties, deleted text
            if tag in _DESCEND:
                walk(child)
            elif tag == _HYPERLINK:  # its own unit, so the link keeps visible text
                split()
                walk(child)
                split()
            elif tag == _R:
                walk(child)
            elif tag == _T and field_depth == 0:
                units[-1].append(child)
            elif tag == _FLDCHAR:
                kind = child.get(_FLDCHAR_TYPE)
                field_depth += 1 if kind == "begin" else -1 if kind == "end" else 0
                field_depth = max(field_depth, 0)
                split()
            else:
                split()  # tab, break, drawing, field code/result, symbol, note reference ...

    walk(paragraph)
    return [u for u in units if u]


def load(data: bytes, filename: str, encoding: str | None = None, *, bilingual: bool = False,
         join_lines: bool = False) -> WordDocument:
    """Parse a .docx file's bytes (``encoding`` is ignored: DOCX is always XML/UTF-8;
    ``join_lines`` too: a Word paragraph is whole already)."""
    return WordDocument(data, filename, bilingual)
