"""TMX 1.4b import and export of the translation memory, with translate-toolkit's ``tmxfile``.

translate-toolkit reads and writes the file (header, units, language variants such as
``EN-US`` / ``zh-CN`` / ``zh-Hans``, notes); we only look inside a ``<seg>`` for its inline
codes (``<bpt>``, ``<ept>``, ``<ph>``, ``<it>``, ``<ut>``: the original document's formatting).
The plain text a segment shows (codes left out) is what is matched and used; the segment's
inner XML is kept as it was and written back on export, so a CAT tool gets its tags again.
Every unit with an English and a Chinese variant becomes an entry with its dates, creator,
notes, ``<prop>``s and other attributes; our own fields travel as ``x-desktop-mt-*`` props, so
export then import gives the same entries.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import tempfile
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from ..base.errors import DesktopMTError
from ..base.version import __version__
from ..engine.direction import EN_ZH, ZH, ZH_EN
from .store import DEFAULT_LANGS, IMPORTED, ORIGINS, Entry, TranslationMemory, check_direction, tmx_now

__all__ = [
    "TMXError",
    "ImportReport",
    "read_tmx",
    "import_tmx",
    "export_tmx",
]

_CODES = {"bpt", "ept", "ph", "it", "ut"}  # inline codes: their content is the original format's markup
_ORIGIN_PROP, _MACHINE_PROP = "x-desktop-mt-origin", "x-desktop-mt-machine"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_ATTRS = ("creationdate", "changedate", "creationid")  # kept in their own fields


class TMXError(DesktopMTError, ValueError):
    """A TMX file that cannot be read; the message names the file (and the line, for XML that
    is not well-formed). ``path`` and ``line`` (None when unknown) are kept for a caller."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.path = None if path is None else Path(path)
        self.line = line


@dataclasses.dataclass
class ImportReport:
    """What an import did: entries added, units already in the memory, units skipped (why)."""

    added: int = 0
    duplicates: int = 0
    skipped: list[str] = dataclasses.field(default_factory=list)

    def __str__(self) -> str:
        text = f"{self.added} added"
        if self.duplicates:
            text += f", {self.duplicates} already in the memory"
        if self.skipped:
            text += f", {len(self.skipped)} skipped ({'; '.join(self.skipped[:3])})"
        return text


def _languages(direction: str) -> tuple[str, str]:
    """Source and target language of a direction: ``"en-zh"`` -> ``("en", "zh")``."""
    source, target = check_direction(direction).split("-")
    return source, target


def _primary(tag: str | None) -> str:
    return (tag or "").replace("_", "-").split("-")[0].lower()


def read_tmx(path: str | Path, direction: str | None = None) -> tuple[list[Entry], list[str]]:
    """The entries of a TMX file and the units that could not be entries (why, by number).

    ``direction`` None: from the header's ``srclang`` (Chinese: zh->en, else en->zh)."""
    from lxml import etree
    from translate.storage import tmx

    path = Path(path)
    try:
        with open(path, "rb") as f:
            store = tmx.tmxfile(f)
    except OSError as exc:
        raise TMXError(f"{path}: cannot be read ({exc.strerror or exc})", path) from exc
    except etree.XMLSyntaxError as exc:
        line = exc.position[0] if exc.position and exc.position[0] > 0 else None
        reason = (str(exc.msg or exc).splitlines() or [type(exc).__name__])[0]
        reason = re.sub(r",? line \d+, column \d+$", "", reason)[:200]
        where = f", line {line}" if line else ""
        raise TMXError(f"{path}{where}: not a TMX file ({reason})", path, line) from exc
    except (ValueError, AssertionError) as exc:
        reason = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise TMXError(f"{path}: not a TMX file ({reason})", path) from exc
    if etree.QName(store.document.getroot()).localname != "tmx":
        raise TMXError(f"{path}: not a TMX file (its root element is not <tmx>)", path)
    if direction is None:
        direction = ZH_EN if _primary(store.sourcelanguage) == ZH else EN_ZH
    src_lang, tgt_lang = _languages(direction)
    entries, skipped = [], []
    for number, unit in enumerate(store.units, start=1):
        entry = _unit_entry(unit, direction, src_lang, tgt_lang)
        if isinstance(entry, str):
            skipped.append(f"unit {number}: {entry}")
        else:
            entries.append(entry)
    return entries, skipped


def _unit_entry(unit: Any, direction: str, src_lang: str, tgt_lang: str) -> Entry | str:
    """One ``<tu>`` as an entry, or why it cannot be one."""
    variants: dict[str, Any] = {}
    for node in unit.getlanguageNodes():
        variants.setdefault(_primary(node.get(_XML_LANG)), node)
    missing = [lang for lang in (src_lang, tgt_lang) if lang not in variants]
    if missing:
        return f"no {' or '.join(missing)} segment"
    source, source_seg = _segment(unit, variants[src_lang])
    target, target_seg = _segment(unit, variants[tgt_lang])
    if not source.strip() or not target.strip():
        return "an empty segment"
    element = unit.xmlelement
    props, origin, machine = [], IMPORTED, ""
    for prop in element.findall(unit.namespaced("prop")):
        kind, value = prop.get("type", ""), prop.text or ""
        if kind == _ORIGIN_PROP and value in ORIGINS:
            origin = value
        elif kind == _MACHINE_PROP:
            machine = value
        else:
            props.append((kind, value))
    notes = [note.text or "" for note in element.findall(unit.namespaced("note"))]
    extra = tuple((k, v) for k, v in element.attrib.items() if k not in _ATTRS)
    return Entry(
        0,
        direction,
        source,
        target,
        origin,
        machine,
        "\n".join(notes),
        tuple(props),
        element.get("creationid", ""),
        element.get("creationdate", ""),
        element.get("changedate", ""),
        variants[src_lang].get(_XML_LANG, ""),
        variants[tgt_lang].get(_XML_LANG, ""),
        source_seg,
        target_seg,
        extra,
    )


def _segment(unit: Any, variant: Any) -> tuple[str, str | None]:
    """A ``<tuv>``'s plain text (inline codes left out) and, when it has inline elements, the
    ``<seg>``'s inner XML."""
    from lxml import etree

    seg = variant.find(unit.namespaced("seg"))
    if seg is None:
        return "", None
    if len(seg) == 0:
        return seg.text or "", None
    inner = escape(seg.text or "") + "".join(etree.tostring(child, encoding="unicode", with_tail=True) for child in seg)
    return _plain(seg), inner


def _plain(element: Any) -> str:
    """The text of an element without the content of inline codes (their tails are text)."""
    from lxml import etree

    parts = [element.text or ""]
    for child in element:
        if not isinstance(child.tag, str):  # a comment or processing instruction
            parts.append(child.tail or "")
            continue
        if etree.QName(child).localname not in _CODES:
            parts.append(_plain(child))
        parts.append(child.tail or "")
    return "".join(parts)


def import_tmx(memory: TranslationMemory, path: str | Path, direction: str | None = None) -> ImportReport:
    """Add a TMX file's units to ``memory`` (every unit with both languages; one identical to
    an entry already kept is not added twice)."""
    entries, skipped = read_tmx(path, direction)
    added, duplicates = memory.add_entries(entries)
    return ImportReport(added, duplicates, skipped)


def _write_tmx(entries: list[Entry], path: str | Path, direction: str) -> int:
    """Write entries of one direction as a TMX 1.4b file (atomically); returns how many."""
    from translate.storage import tmx

    src_lang, tgt_lang = _languages(direction)
    store: Any = tmx.tmxfile(sourcelanguage=DEFAULT_LANGS[src_lang], targetlanguage=DEFAULT_LANGS[tgt_lang])
    header = store.document.getroot().find(store.namespaced("header"))
    for key, value in (
        ("creationtool", "desktop-mt"),
        ("creationtoolversion", __version__),
        ("segtype", "sentence"),
        ("o-tmf", "desktop-mt"),
        ("adminlang", "en-US"),
        ("srclang", DEFAULT_LANGS[src_lang]),
        ("datatype", "plaintext"),
        ("creationdate", tmx_now()),
    ):
        header.set(key, value)
    count = 0
    for entry in entries:
        if entry.direction != direction:
            continue
        _add_unit(store, entry, DEFAULT_LANGS[src_lang], DEFAULT_LANGS[tgt_lang])
        count += 1
    out = io.BytesIO()
    store.serialize(out)
    _atomic_write(Path(path), out.getvalue())
    return count


def _add_unit(store: Any, entry: Entry, src_default: str, tgt_default: str) -> None:
    from lxml import etree

    unit = store.addsourceunit(entry.source, entry.source_lang or src_default)
    unit.settarget(entry.target, entry.target_lang or tgt_default, append=True)
    element = unit.xmlelement
    element.attrib.pop("srclang", None)  # put back below if the unit had it
    for key, value in entry.extra:
        element.set(key, value)
    for key, value in (("creationdate", entry.created), ("changedate", entry.changed), ("creationid", entry.creator)):
        if value:
            element.set(key, value)
    first_tuv = element.find(unit.namespaced("tuv"))
    props = [
        *entry.props,
        *([(_ORIGIN_PROP, entry.origin)] if entry.origin != IMPORTED else []),
        *([(_MACHINE_PROP, entry.machine)] if entry.machine else []),
    ]
    # The DTD's order: <note>s, then <prop>s, then the <tuv>s.
    for text in entry.note.split("\n") if entry.note else []:
        note = etree.Element(unit.namespaced("note"))
        note.text = text
        first_tuv.addprevious(note)
    for kind, value in props:
        prop = etree.Element(unit.namespaced("prop"), type=kind)
        prop.text = value
        first_tuv.addprevious(prop)
    for node, inner in zip(unit.getlanguageNodes(), (entry.source_seg, entry.target_seg)):
        if inner is not None:
            seg = node.find(unit.namespaced("seg"))
            fragment = etree.fromstring(f"<seg>{inner}</seg>")
            seg.text = fragment.text
            for child in list(seg):
                seg.remove(child)
            seg.extend(list(fragment))


def export_tmx(memory: TranslationMemory, path: str | Path, direction: str = EN_ZH) -> int:
    """Write every entry of one direction of ``memory`` to a TMX file; returns how many."""
    return _write_tmx(memory.search(direction=direction, limit=None)[::-1], path, direction)


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
