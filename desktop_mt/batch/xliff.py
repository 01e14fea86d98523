"""XLIFF 1.2 and 2.x (the exchange files of Trados, memoQ, OmegaT, Phrase, Crowdin): empty
targets filled with machine translations that the CAT tool imports back for review.

What is translated:

- **XLIFF 1.2** (``urn:oasis:names:tc:xliff:document:1.2``): each ``<trans-unit>`` whose target
  is absent or empty. A unit with ``<seg-source>`` (Trados' ``.sdlxliff``, Okapi) is filled
  segment by segment: each ``<mrk mtype="seg" mid>`` of the source gets its twin in the target
  (the target is made as a copy of ``<seg-source>`` where there is none).
- **XLIFF 2.x** (``urn:oasis:names:tc:xliff:document:2.0``, 2.0 to 2.2): each ``<segment>`` of
  a ``<unit>`` whose target is absent or empty.

Left alone: units (and groups, files) with ``translate="no"``; 1.2 units with
``approved="yes"``; targets already there, unless ``overwrite_machine`` is on and the target is a
machine one that nobody confirmed (1.2: ``state-qualifier`` ``mt-suggestion`` or ``leveraged-mt``
and a state other than ``translated``/``final``/``signed-off``; 2.x: ``subState="desktop-mt:mt"``
and state ``initial`` or ``translated``; Trados: ``origin="mt"`` and not confirmed); Trados
segments that are locked or confirmed (``sdl:seg`` ``locked="true"``, ``conf`` Translated or
Approved...). Everything else in the file (headers, notes, alt-trans, skeletons, other tools'
namespaces) is kept as it was.

What a filled target says: 1.2 ``state="needs-review-translation"`` and
``state-qualifier="mt-suggestion"`` (with seg-source and Trados' ``sdl:seg-defs``: the segment's
``conf="Draft" origin="mt" origin-system="desktop-mt"``); 2.x the segment's ``state="translated"``
and ``subState="desktop-mt:mt"``. A CAT tool shows them as unconfirmed machine translations.

Inline codes: paired codes that wrap text (1.2 ``<g>``, ``<mrk>``; 2.x ``<pc>``, ``<mrk>``) are
spans of the tag projection (:mod:`.tags`) and wrap the aligned words of the translation;
standalone codes (``<x/>``, ``<bx/>``, ``<ex/>``, ``<ph>``, ``<bpt>``, ``<ept>``, ``<it>``; 2.x
``<ph/>``, ``<sc/>``, ``<ec/>``, ``<sm/>``, ``<em/>``, ``<cp/>``), protected markers
(``mtype="protected"``, ``translate="no"``) and paired codes around no words are anchors, copied
whole: at the start or end of the translation when they start or end the source, else after the
aligned translation of the words before them. Every code of the source is in the target once,
with its id, so the CAT tool's tag check passes.

Languages: the file's source and target languages (1.2 ``<file source-language
target-language>``, 2.x ``<xliff srcLang trgLang>``) decide the direction (``target`` of the
options) and the Chinese script (``zh-TW`` Traditional for Taiwan, ``zh-HK`` for Hong Kong,
``zh-Hant`` Traditional, ``zh-CN``/``zh-Hans`` Simplified); a file in another language pair is
refused. A file without a target language gets the one it was translated into.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Hashable, Iterator, Sequence
from typing import Any, BinaryIO

from .errors import BatchInputError
from .tags import ProjectedText, Projection, Span, closing_point, edge_anchors
from .textio import SegmentCollector

__all__ = [
    "NS12",
    "NS2",
    "SDL",
    "MACHINE_SUBSTATE",
    "language_of",
    "language_options",
    "XliffDocument",
    "load",
]

_Element = Any  # lxml's elements (lxml ships no type information)

NS12 = "urn:oasis:names:tc:xliff:document:1.2"
NS2 = "urn:oasis:names:tc:xliff:document:2.0"  # XLIFF 2.1 and 2.2 keep the 2.0 namespace
SDL = "http://sdl.com/FileTypes/SdlXliff/1.0"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

MACHINE_SUBSTATE = "desktop-mt:mt"  # 2.x: what a segment this app filled says
_MACHINE_QUALIFIERS = frozenset({"mt-suggestion", "leveraged-mt"})  # 1.2 state-qualifier values
_CONFIRMED_12 = frozenset({"translated", "final", "signed-off"})
_SDL_CONFIRMED = frozenset({"Translated", "ApprovedTranslation", "ApprovedSignOff", "RejectedSignOff"})

# Paired inline codes that wrap text (a span of the projection when they hold words).
_PAIRED = {NS12: frozenset({"g", "mrk"}), NS2: frozenset({"pc", "mrk"})}

# Language codes -> (direction code, the script of a Chinese target, or None: the user's).
_SCRIPTS = {
    "tw": "traditional-tw",
    "hk": "traditional-hk",
    "mo": "traditional-hk",
    "hant": "traditional",
    "cn": "simplified",
    "sg": "simplified",
    "hans": "simplified",
}


def language_of(code: str | None) -> tuple[str, str | None] | None:
    """``"en-US"`` -> ``("en", None)``, ``"zh-Hant-TW"`` -> ``("zh", "traditional-tw")``; None
    for another language. Subtags after the language pick the Chinese script (Taiwan and Hong
    Kong before a bare ``Hant``)."""
    if not code:
        return None
    parts = code.replace("_", "-").lower().split("-")
    if parts[0] in ("en", "eng"):
        return "en", None
    if parts[0] not in ("zh", "zho", "chi", "cmn"):
        return None
    for tag in ("tw", "hk", "mo", "hant", "cn", "sg", "hans"):
        if tag in parts[1:]:
            return "zh", _SCRIPTS[tag]
    return "zh", None


def language_options(source: str | None, target: str | None, filename: str, what: str) -> dict[str, str]:
    """The options a file's declared languages ask for (``target``, and ``script`` for a
    Chinese target in a named script); {} when it declares none. A language pair other than
    English and Chinese raises :class:`BatchInputError` naming the file and both languages."""
    src, tgt = language_of(source), language_of(target)
    if (source and src is None) or (target and tgt is None) or (src and tgt and src[0] == tgt[0]):
        raise BatchInputError(
            f"{filename}: this {what} is for {source or '?'} -> {target or '?'}; desktop-mt translates"
            f" between English and Chinese (en -> zh-CN, zh-TW, zh-HK or the reverse)",
            filename=filename,
        )
    if tgt is not None:
        options = {"target": tgt[0]}
        if tgt[1] is not None:
            options["script"] = tgt[1]
        return options
    if src is not None:
        return {"target": "en" if src[0] == "zh" else "zh"}
    return {}


@dataclasses.dataclass
class _Inline:
    """A source container's content as plain text, spans (paired codes around words), anchors
    (standalone codes) and the codes themselves (the marks are indices into ``codes``)."""

    text: str
    spans: list[Span]
    anchors: list[tuple[int, int]]
    codes: list[_Element]


@dataclasses.dataclass
class _Slot:
    """One source container and the target container its translation goes into."""

    source: _Element
    inline: _Inline
    projected: ProjectedText | None  # None: nothing to translate (the source is copied)
    lead: list[Hashable]  # anchors before the source's first letter
    before_end: list[Hashable]  # anchors after its last one, with punctuation after them
    trail: list[Hashable]  # anchors at its very end
    target: _Element  # made on write where absent (see _Unit)
    mark: Any  # how to say it was machine translated: a callable on write


class XliffDocument:
    """A parsed XLIFF file: ``segments`` to translate; ``write`` fills the targets in.
    ``language_options``: the options the file's languages ask for (see the module docstring)."""

    def __init__(self, data: bytes, filename: str, overwrite_machine: bool = False) -> None:
        from lxml import etree  # lxml: XML formats only

        self._etree = etree
        self._filename = filename
        self._overwrite = overwrite_machine
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, remove_comments=False)
        try:
            self._tree = etree.ElementTree(etree.fromstring(data, parser))
        except etree.XMLSyntaxError as exc:
            raise BatchInputError(
                f"{filename}: not well-formed XML ({exc}); is it a complete XLIFF file?",
                filename=filename,
                line=getattr(exc, "lineno", None),
            ) from None
        root = self._tree.getroot()
        self._standalone = b"standalone" in data[: data.find(b"?>") + 1]  # the declaration says it: kept
        self._ns = etree.QName(root).namespace
        if etree.QName(root).localname != "xliff" or self._ns not in (NS12, NS2):
            raise BatchInputError(
                f"{filename}: not an XLIFF 1.2 or 2.x file (the root element is <{etree.QName(root).localname}>"
                f" in {self._ns or 'no namespace'}; expected <xliff> in {NS12} or {NS2})",
                filename=filename,
            )
        self.language_options = self._languages(root)
        self._collector = SegmentCollector()
        self._slots: list[_Slot] = []
        if self._ns == NS12:
            self._read_12(root)
        else:
            self._read_2(root)
        self.segments = self._collector.segments

    # -- languages -----------------------------------------------------------------------

    def _languages(self, root: _Element) -> dict[str, str]:
        if self._ns == NS2:
            return language_options(root.get("srcLang"), root.get("trgLang"), self._filename, "XLIFF file")
        found: dict[tuple[str, str], dict[str, str]] = {}
        for file in root.iter(f"{{{NS12}}}file"):
            src, tgt = file.get("source-language"), file.get("target-language")
            found[(src or "", tgt or "")] = language_options(src, tgt, self._filename, "XLIFF file")
        wanted = {tuple(sorted(o.items())) for o in found.values()}
        if len(wanted) > 1:
            pairs = ", ".join(f"{s or '?'} -> {t or '?'}" for s, t in found)
            raise BatchInputError(
                f"{self._filename}: its <file> elements ask for different languages ({pairs});"
                f" split it into one XLIFF per target language",
                filename=self._filename,
            )
        return next(iter(found.values()), {})

    def _target_code(self) -> str:
        """The language code written where the file names no target language."""
        if self.language_options.get("target") == "en":
            return "en"
        return {"traditional-tw": "zh-TW", "traditional-hk": "zh-HK", "traditional": "zh-Hant"}.get(
            self.language_options.get("script", ""), "zh-CN"
        )

    # -- XLIFF 1.2 -----------------------------------------------------------------------

    def _read_12(self, root: _Element) -> None:
        q = _q(NS12)
        for unit in root.iter(q("trans-unit")):
            if _inherited(unit, "translate") == "no" or unit.get("approved") == "yes":
                continue
            source = unit.find(q("source"))
            if source is None:
                raise BatchInputError(
                    f"{self._filename}: trans-unit {unit.get('id')!r} has no <source>",
                    filename=self._filename,
                    line=unit.sourceline,
                )
            seg_source = unit.find(q("seg-source"))
            segs = [] if seg_source is None else [m for m in seg_source.iter(q("mrk")) if m.get("mtype") == "seg"]
            if segs:
                self._read_segmented_12(unit, seg_source, segs)
                continue
            target = unit.find(q("target"))
            if target is not None and not self._replaceable_12(target):
                continue
            if target is None:
                target = unit.makeelement(q("target"), {})
                _insert_after(source, target)
            self._add(source, target, _mark_12)

    def _replaceable_12(self, target: _Element) -> bool:
        """An empty target; with overwrite_machine, also an unconfirmed machine one."""
        if _empty(target):
            return True
        return (
            self._overwrite
            and target.get("state-qualifier") in _MACHINE_QUALIFIERS
            and target.get("state") not in _CONFIRMED_12
        )

    def _read_segmented_12(self, unit: _Element, seg_source: _Element, segs: list[_Element]) -> None:
        """A unit cut into ``<mrk mtype="seg">`` segments (Trados, Okapi)."""
        q = _q(NS12)
        target = unit.find(q("target"))
        if target is None:
            target = copy.deepcopy(seg_source)
            target.tag = q("target")
            target.attrib.clear()
            for mrk in target.iter(q("mrk")):
                if mrk.get("mtype") == "seg":
                    _clear(mrk)
            _insert_after(seg_source, target)
        seg_defs = {seg.get("id"): seg for seg in unit.iter(f"{{{SDL}}}seg")}
        twins = {m.get("mid"): m for m in target.iter(q("mrk")) if m.get("mtype") == "seg"}
        for mrk in segs:
            mid = mrk.get("mid")
            sdl = seg_defs.get(mid)
            if sdl is not None and (sdl.get("locked") == "true"):
                continue
            twin = twins.get(mid)
            if twin is None:
                twin = target.makeelement(q("mrk"), {"mtype": "seg", "mid": mid or ""})
                target.append(twin)
            elif not _empty(twin):
                machine = sdl is not None and sdl.get("origin") == "mt" and sdl.get("conf") not in _SDL_CONFIRMED
                if not (self._overwrite and machine):
                    continue
            elif sdl is not None and sdl.get("conf") in _SDL_CONFIRMED:
                continue  # confirmed empty: the translator wants it so
            self._add(mrk, twin, _SdlMark(sdl, target))

    # -- XLIFF 2.x -----------------------------------------------------------------------

    def _read_2(self, root: _Element) -> None:
        q = _q(NS2)
        for unit in root.iter(q("unit")):
            if _inherited(unit, "translate") == "no":
                continue
            for segment in unit.iter(q("segment")):
                source = segment.find(q("source"))
                if source is None:
                    raise BatchInputError(
                        f"{self._filename}: a segment of unit {unit.get('id')!r} has no <source>",
                        filename=self._filename,
                        line=segment.sourceline,
                    )
                target = segment.find(q("target"))
                if target is not None and not _empty(target):
                    machine = segment.get("subState") == MACHINE_SUBSTATE
                    unconfirmed = segment.get("state", "initial") in ("initial", "translated")
                    if not (self._overwrite and machine and unconfirmed):
                        continue
                if target is None:
                    target = segment.makeelement(q("target"), {})
                    _insert_after(source, target)
                self._add(source, target, _mark_2)

    # -- both ----------------------------------------------------------------------------

    def _add(self, source: _Element, target: _Element, mark: Any) -> None:
        inline = _inline(source, self._ns)
        if not any(c.isalpha() for c in inline.text):  # numbers and codes alone are copied
            self._slots.append(_Slot(source, inline, None, [], [], [], target, mark))
            return
        lead, middle, before_end, trail = edge_anchors(inline.text, inline.spans, inline.anchors)
        projected = ProjectedText(inline.text, inline.spans, self._collector, middle)
        self._slots.append(_Slot(source, inline, projected, lead, before_end, trail, target, mark))

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """Fill each target (see the module docstring) and write the file."""
        for slot in self._slots:
            if slot.projected is None:
                _copy_content(slot.source, slot.target)
            else:
                projection = slot.projected.project(translations)
                paired = frozenset(s.mark for s in slot.inline.spans if isinstance(s.mark, int))
                edges = (slot.lead, slot.before_end, slot.trail)
                _render(slot.target, projection, slot.inline.codes, paired, edges)
            slot.mark(slot.target)
        self._name_target_language()
        docinfo = self._tree.docinfo
        declared = {"standalone": docinfo.standalone} if self._standalone else {}
        self._tree.write(fileobj, xml_declaration=True, encoding=docinfo.encoding or "UTF-8", **declared)

    def _name_target_language(self) -> None:
        """A file without a target language gets the one it was translated into."""
        if not self._slots:
            return
        root = self._tree.getroot()
        if self._ns == NS2:
            if not root.get("trgLang"):
                root.set("trgLang", self._target_code())
            return
        for file in root.iter(f"{{{NS12}}}file"):
            if not file.get("target-language"):
                file.set("target-language", self._target_code())


def _q(ns: str) -> Any:
    return lambda name: f"{{{ns}}}{name}"


def _inherited(element: _Element, name: str) -> str | None:
    """An attribute as inherited: the nearest of ``element`` and its ancestors that has it."""
    while element is not None:
        value = element.get(name)
        if value is not None:
            return str(value)
        element = element.getparent()
    return None


def _empty(element: _Element) -> bool:
    """No text and no inline code: an untranslated target."""
    return not len(element) and not (element.text or "").strip()


def _clear(element: _Element) -> None:
    element.text = None
    for child in list(element):
        element.remove(child)


def _insert_after(anchor: _Element, new: _Element) -> None:
    """Put ``new`` right after ``anchor``, with the whitespace that followed ``anchor``."""
    new.tail = anchor.tail
    before = anchor.getprevious()
    indent = before.tail if before is not None else anchor.getparent().text
    if indent is not None and not indent.strip():
        anchor.tail = indent  # the new element on a line of its own, as indented as ``anchor``
    anchor.addnext(new)


def _mark_12(target: _Element) -> None:
    target.set("state", "needs-review-translation")
    target.set("state-qualifier", "mt-suggestion")


def _mark_2(target: _Element) -> None:
    segment = target.getparent()
    segment.set("state", "translated")
    segment.set("subState", MACHINE_SUBSTATE)


@dataclasses.dataclass
class _SdlMark:
    """A segmented 1.2 unit: Trados' segment definition says Draft, from MT; a unit without
    one gets the target's state (as :func:`_mark_12`)."""

    seg: _Element | None
    target: _Element

    def __call__(self, _twin: _Element) -> None:
        if self.seg is None:
            _mark_12(self.target)
            return
        self.seg.set("conf", "Draft")
        self.seg.set("origin", "mt")
        self.seg.set("origin-system", "desktop-mt")
        for name in ("percent", "text-match", "struct-match"):  # a TM match's marks no longer hold
            self.seg.attrib.pop(name, None)


def _is_code_only(element: _Element, ns: str) -> bool:
    """A code copied whole: standalone codes, protected text, comments, paired codes around
    no words (an empty ``<g/>``, a ``<pc>`` around a picture)."""
    if not isinstance(element.tag, str):
        return True  # a comment or processing instruction
    name = element.tag.rpartition("}")[2] if element.tag.startswith(f"{{{ns}}}") else None
    if name not in _PAIRED[ns]:
        return True
    if element.get("mtype") in ("protected", "seg") or element.get("translate") == "no":
        return True
    return not any(c.isalnum() for c in "".join(_texts(element, ns)))


def _texts(element: _Element, ns: str) -> Iterator[str]:
    """The translatable text inside ``element`` (not the native code inside standalone codes)."""
    yield element.text or ""
    for child in element:
        if not _is_code_only(child, ns):
            yield from _texts(child, ns)
        yield child.tail or ""


def _inline(container: _Element, ns: str) -> _Inline:
    """A source (or segment) as plain text with its codes as spans and anchors."""
    parts: list[str] = []
    spans: list[Span] = []
    anchors: list[tuple[int, int]] = []
    codes: list[_Element] = []
    size = 0

    def add(text: str | None) -> None:
        nonlocal size
        if text:
            parts.append(text)
            size += len(text)

    def walk(element: _Element) -> None:
        add(element.text)
        for child in element:
            codes.append(child)
            mark = len(codes) - 1
            if _is_code_only(child, ns):
                anchors.append((size, mark))
            else:
                start = size
                walk(child)
                spans.append(Span(start, size, mark))
            add(child.tail)

    walk(container)
    text, spans, anchors = _tidy("".join(parts), spans, anchors)
    return _Inline(text, sorted(spans, key=lambda s: (s.start, -s.end)), anchors, codes)


def _tidy(
    text: str, spans: list[Span], anchors: list[tuple[int, int]]
) -> tuple[str, list[Span], list[tuple[int, int]]]:
    """The plain text as a reader sees it: a code between two words (``settings<ph/>and``: a
    line break, a picture) leaves a space, not one word; runs of white space (the XML's own
    line breaks and indentation) are one space. Spans and anchors follow their characters."""
    breaks = {p for p, _ in anchors if 0 < p < len(text) and not text[p - 1].isspace() and not text[p].isspace()}
    out: list[str] = []
    at: list[int] = []  # each old position's new position
    for i, c in enumerate(text):
        at.append(len(out))
        if i in breaks:
            out.append(" ")
        if c.isspace():
            if out and out[-1] == " ":
                continue
            c = " "
        out.append(c)
    at.append(len(out))
    moved = [Span(at[s.start], at[s.end], s.mark) for s in spans]
    return "".join(out), [s for s in moved if s.start < s.end], [(at[p], m) for p, m in anchors]


def _copy_content(source: _Element, target: _Element) -> None:
    """A source without words (numbers, codes only): the target is a copy of it."""
    _clear(target)
    target.text = source.text
    for child in source:
        target.append(copy.deepcopy(child))


def _standalone(code: _Element) -> _Element:
    """A copy of a standalone code (without the source text after it)."""
    new = copy.deepcopy(code)
    new.tail = None
    return new


def _shell(code: _Element) -> _Element:
    """A paired code's element with its attributes, without its content."""
    return code.makeelement(code.tag, dict(code.attrib))


def _render(
    target: _Element,
    projection: Projection,
    codes: list[_Element],
    spans: frozenset[int],
    edges: tuple[list[Hashable], list[Hashable], list[Hashable]],
) -> None:
    """Put the translation (``projection``) into ``target`` as text and copies of the codes.
    A code the projection could not place (it never drops one, but a translation may come
    back empty) goes at the end, so that every code of the source is in the target once."""
    _clear(target)
    stack = [target]
    used: set[int] = set()

    def text(chunk: str) -> None:
        if not chunk:
            return
        current = stack[-1]
        if len(current):
            current[-1].tail = (current[-1].tail or "") + chunk
        else:
            current.text = (current.text or "") + chunk

    def standalone(mark: Hashable) -> None:
        assert isinstance(mark, int)
        if mark not in used:
            used.add(mark)
            stack[-1].append(_standalone(codes[mark]))

    lead, before_end, trail = edges
    for first in lead:
        standalone(first)
    body = projection.text
    order = sorted(range(len(projection.spans)), key=lambda k: (projection.spans[k].start, -projection.spans[k].end, k))
    opens: dict[int, list[int]] = {}
    for k in order:
        opens.setdefault(projection.spans[k].start, []).append(k)
    anchors: dict[int, list[Hashable]] = {}
    floor = 0  # standalone codes keep their source order (a <bpt> never lands after its <ept>)
    for pos, mark in [*projection.anchors, *((closing_point(body), m) for m in before_end)]:
        floor = max(floor, min(pos, len(body)))
        anchors.setdefault(floor, []).append(mark)
    open_spans: list[int] = []
    chunk: list[str] = []
    for pos in range(len(body) + 1):
        events = (open_spans and projection.spans[open_spans[-1]].end == pos) or pos in anchors or pos in opens
        if events:
            text("".join(chunk))
            chunk = []
        while open_spans and projection.spans[open_spans[-1]].end == pos:
            open_spans.pop()
            stack.pop()
        for anchor in anchors.get(pos, []):
            standalone(anchor)
        for k in opens.get(pos, []):
            paired = projection.spans[k].mark
            assert isinstance(paired, int)
            if paired in used:
                continue
            used.add(paired)
            element = _shell(codes[paired])
            stack[-1].append(element)
            stack.append(element)
            open_spans.append(k)
        if pos < len(body):
            chunk.append(body[pos])
    text("".join(chunk))
    del stack[1:]
    for last in trail:
        standalone(last)
    for mark, code in enumerate(codes):  # the safety net of the docstring
        if mark not in used:
            used.add(mark)
            target.append(_shell(code) if mark in spans else _standalone(code))


def load(
    data: bytes,
    filename: str,
    encoding: str | None = None,
    *,
    bilingual: bool = False,
    join_lines: bool = False,
    overwrite_machine: bool = False,
) -> XliffDocument:
    """Parse an XLIFF file's bytes (the XML declares its encoding; ``encoding`` is ignored, and
    so are ``bilingual`` and ``join_lines``: an XLIFF holds source and target already)."""
    return XliffDocument(data, filename, overwrite_machine)
