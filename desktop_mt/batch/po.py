"""Gettext PO and POT files (software localisation): untranslated entries filled, for review.

What is translated: every entry with an empty ``msgstr`` (all forms empty for a plural entry),
except the header and obsolete (``#~``) entries. An entry that has a translation is left as it
was, fuzzy or not, unless ``overwrite_machine`` is on and it is one this app filled that nobody
reviewed (still fuzzy, with the translator comment :data:`MACHINE_COMMENT`).

A filled entry is marked ``#, fuzzy`` and gets the translator comment :data:`MACHINE_COMMENT`:
gettext tools leave fuzzy entries out of the compiled catalogue until a person reviews them.
Plurals: a target language with one form (Chinese: ``nplurals=1``) gets the translation of
``msgid_plural`` (which holds the count's placeholder); with two or more forms, ``msgstr[0]``
is the singular's translation and the other forms the plural's.

Placeholders and markup (``%s``, ``%(name)s``, ``%1$s``, ``%1``, ``{name}``, ``{0}``, HTML
tags, entities) are protected spans: each is sent inside backticks, which the engine copies
verbatim (``textproc.protect``'s code spans, the span machinery), and taken out of them
again. The output is then verified: an entry whose translation does not hold each placeholder
of its source as many times is left untranslated, and the job's summary says how many were
(``notes``). So ``msgfmt --check`` passes on the output as it did on the input. A message of
several lines is translated line by line; leading and trailing line breaks stay.

Header: the ``Language`` (a PO's target language) decides the direction and the Chinese
script (``zh_TW``: Traditional for Taiwan...; see :func:`.xliff.language_options`); a POT
(no Language) gets the language it was translated into, its ``Plural-Forms`` for that
language where it had none (or the template's ``nplurals=INTEGER``), and ``charset=UTF-8``.
The output is written in UTF-8.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, BinaryIO

from ..engine import direction
from .errors import BatchInputError
from .textio import SegmentCollector, Template, render
from .xliff import language_options

__all__ = [
    "MACHINE_COMMENT",
    "PoDocument",
    "load",
]

MACHINE_COMMENT = "desktop-mt: machine translation, not reviewed"

# Placeholders: printf (C, Python %-format, positional %1$s), Qt's %1, Python/C# braces, markup.
_PRINTF_FULL = r"%(?:\(\w+\)|\d+\$)?[-+ #0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|L|q|j|z|t)?[diouxXeEfFgGaAcspnr%]"
_PRINTF_SAFE = r"%(?:\(\w+\)|\d+\$)?[-+#0]*\d*(?:\.\d+)?[sdifxr]"  # entries without a format flag
_COMMON = (
    r"%L?\d+(?![\d$])"  # Qt: %1, %L1 (not %1$s)
    r"|\{\{|\}\}|\{[\w.\[\]]*(?:![rsa])?(?::[^{}]*)?\}"  # braces: {0}, {name}, {:.2f}, escapes
    r"|</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>"  # markup: <b>, </a>, <br/>
    r"|&(?:#\d+|#x[0-9A-Fa-f]+|[A-Za-z]\w*);"  # entities
)
_WITH_FORMAT = re.compile(f"{_PRINTF_FULL}|{_COMMON}")
_WITHOUT_FORMAT = re.compile(f"{_PRINTF_SAFE}|{_COMMON}")

# Plural-Forms of the two target languages, where a file has none.
_PLURAL_FORMS = {"zh": (1, "0"), "en": (2, "(n != 1)")}
_LANGUAGE_CODES = {"traditional-tw": "zh_TW", "traditional-hk": "zh_HK", "traditional": "zh_Hant"}


@dataclasses.dataclass
class _Message:
    """One msgid (or msgid_plural) as line templates over the segments."""

    source: str
    lines: list[Template]
    placeholders: re.Pattern[str]

    def render(self, translations: Sequence[str]) -> str | None:
        """The translation, placeholders unwrapped; None when they did not all come through."""
        text = "\n".join(render(line, translations) for line in self.lines)
        found = [m.group() for m in self.placeholders.finditer(self.source)]
        for placeholder in set(found):
            text = text.replace(f"`{placeholder}`", placeholder)
        if Counter(m.group() for m in self.placeholders.finditer(text)) != Counter(found):
            return None
        return text


@dataclasses.dataclass
class _Entry:
    unit: Any  # translate-toolkit's pounit
    singular: _Message
    plural: _Message | None


class PoDocument:
    """A parsed PO/POT file: ``segments`` to translate; ``write`` fills the entries in.
    ``language_options``: what the header's Language asks for; ``notes``: after ``write``,
    what the summary should say (entries left untranslated, and why)."""

    def __init__(self, data: bytes, filename: str, overwrite_machine: bool = False) -> None:
        try:
            from translate.storage import pypo  # translate-toolkit (the tm extra): PO files only
        except ImportError:
            raise BatchInputError(
                f"{filename}: PO files need translate-toolkit, which this install lacks;"
                " install desktop-mt[tm] (pip install 'desktop-mt[tm]')",
                filename=filename,
            ) from None
        parse: Any = pypo.pofile.parsestring  # partly typed: its parser is not
        try:
            self._store = parse(data)
        except (ValueError, UnicodeDecodeError, LookupError) as exc:  # PoParseError is a ValueError
            raise BatchInputError(f"{filename}: not a valid PO file ({exc})", filename=filename) from None
        self._filename = filename
        header = self._store.parseheader()
        self._language = str(header.get("Language") or "").strip()
        self.language_options = language_options(None, self._language or None, filename, "PO file")
        self._chosen: dict[str, Any] = {}
        self.notes: list[str] = []
        collector = SegmentCollector(sentences=True)
        self._entries: list[_Entry] = []
        for unit in self._store.units:
            if unit.isheader() or unit.isobsolete() or not unit.source or not self._wanted(unit, overwrite_machine):
                continue
            pattern = _WITH_FORMAT if _has_format_flag(unit) else _WITHOUT_FORMAT
            strings = list(getattr(unit.source, "strings", [unit.source]))
            singular = _message(str(strings[0]), pattern, collector)
            plural = _message(str(strings[1]), pattern, collector) if unit.hasplural() and len(strings) > 1 else None
            self._entries.append(_Entry(unit, singular, plural))
        self.segments = collector.segments

    @staticmethod
    def _wanted(unit: Any, overwrite_machine: bool) -> bool:
        """An untranslated entry; with ``overwrite_machine``, also one this app filled that is
        still fuzzy (nobody reviewed it)."""
        targets = getattr(unit.target, "strings", [unit.target])
        if not any(str(t) for t in targets):
            return True
        return overwrite_machine and unit.isfuzzy() and MACHINE_COMMENT in (unit.getnotes("translator") or "")

    def use_options(self, options: Any) -> None:
        """The options the job runs with (their ``target`` and ``script`` name a POT's language)."""
        self._chosen = {"target": getattr(options, "target", None), "script": getattr(options, "script", None)}

    def _target_language(self) -> str:
        """The Language a POT gets: the one the options or, in ``auto``, its text point to."""
        target = self._chosen.get("target")
        if target not in ("en", "zh"):
            text = "\n".join(self.segments[:200])
            target = "en" if direction.paragraph_language(text) == direction.ZH else "zh"
        if target == "en":
            return "en"
        return _LANGUAGE_CODES.get(str(self._chosen.get("script")), "zh_CN")

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """Fill the entries (see the module docstring) and write the file in UTF-8."""
        language = self._language or self._target_language()
        forms = self._fix_header(language)
        unverified = 0
        for entry in self._entries:
            singular = entry.singular.render(translations)
            plural = entry.plural.render(translations) if entry.plural is not None else None
            if singular is None or (entry.plural is not None and plural is None):
                unverified += 1
                continue
            if entry.plural is None:
                entry.unit.target = singular
            else:
                assert plural is not None
                entry.unit.target = [plural] if forms == 1 else [singular] + [plural] * (forms - 1)
            entry.unit.markfuzzy(True)
            if MACHINE_COMMENT not in (entry.unit.getnotes("translator") or ""):
                entry.unit.addnote(MACHINE_COMMENT, origin="translator")
        self.notes = (
            [f"{unverified} entries left untranslated: their placeholders did not come through the translation"]
            if unverified
            else []
        )
        fileobj.write(bytes(self._store))

    def _fix_header(self, language: str) -> int:
        """Language, Plural-Forms and charset as the output needs them; returns nplurals."""
        store = self._store
        if not self._language:
            store.updateheader(add=True, Language=language)
        nplurals, plural = store.getheaderplural()
        if not (nplurals or "").strip().isdigit():
            base = "en" if language.lower().startswith("en") else "zh"
            count, rule = _PLURAL_FORMS[base]
            store.updateheaderplural(count, rule)
            nplurals = str(count)
        content_type = str(store.parseheader().get("Content-Type") or "")
        if "charset=utf-8" not in content_type.lower().replace(" ", ""):
            store.updateheader(add=True, Content_Type="text/plain; charset=UTF-8")
        store.encoding = "utf-8"
        return max(int(str(nplurals).strip()), 1)


def _has_format_flag(unit: Any) -> bool:
    """``#, c-format``, ``python-format``... (not ``no-c-format``): printf directives are real."""
    flags = "".join(unit.typecomments)
    return any(f.endswith("-format") and not f.startswith("no-") for f in re.split(r"[\s,#]+", flags))


def _message(text: str, pattern: re.Pattern[str], collector: SegmentCollector) -> _Message:
    """A msgid as segments, line by line, with its placeholders in backticks (protected)."""
    lines = [collector.add_text(pattern.sub(lambda m: f"`{m.group()}`", line)) for line in text.split("\n")]
    return _Message(text, lines, pattern)


def load(
    data: bytes,
    filename: str,
    encoding: str | None = None,
    *,
    bilingual: bool = False,
    join_lines: bool = False,
    overwrite_machine: bool = False,
) -> PoDocument:
    """Parse a PO/POT file's bytes (the header names the charset; ``encoding``, ``bilingual``
    and ``join_lines`` are ignored: a PO holds source and target already)."""
    return PoDocument(data, filename, overwrite_machine)
