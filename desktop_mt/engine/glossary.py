"""A user's glossary: source terms that must come out as a fixed target term.

During translation each term found in the source becomes a protected span (``textproc.protect``)
whose output is the term's target text; the model translates the text around it. This needs
nothing from the model, so it works with any model, and the term is guaranteed in the output.

A glossary file has two columns, source and target, comma- or tab-separated (a ``.tsv`` file
or a first row holding a tab is read as TSV), UTF-8 with or without a byte-order mark. An
optional third column says how case is matched: ``case`` (also ``yes``, ``true``, ``1``,
``sensitive``) matches the case exactly; empty, ``no``, ``false``, ``0``, ``ignore`` ignore it.
A first row naming its columns (``source,target[,case]``, also ``english,chinese``, ``en,zh``)
is a header. Blank lines and lines starting with ``#`` are skipped.

Matching is blind to Chinese script and to character width: a term written in Simplified
characters matches the same word in Traditional ones (OpenCC t2s, character by character)
and full-width Latin letters match half-width ones (``:func:`_fold```). :meth:`Glossary.missing`
is the one rule every front end checks a translation by: a sentence whose source holds a term
must have that term's target in its translation, else the front end marks it (the window) or
counts it (the CLI's summary, the server's /metrics).
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import io
import re
from pathlib import Path

from ..base.errors import DesktopMTError
from .direction import language
from .script import to_simplified

__all__ = [
    "GlossaryError",
    "Term",
    "Match",
    "Glossary",
]

_HEADER_SOURCE = {"source", "src", "term", "english", "en", "en-us", "from"}
_HEADER_TARGET = {"target", "tgt", "translation", "chinese", "zh", "zh-cn", "cmn", "to"}
_CASE_YES = {"case", "yes", "y", "true", "1", "sensitive", "case-sensitive", "exact"}
_CASE_NO = {"", "no", "n", "false", "0", "ignore", "insensitive", "case-insensitive"}


class GlossaryError(DesktopMTError):
    """A glossary file cannot be read: the message names the file (and line) and what is wrong."""


@dataclasses.dataclass(frozen=True)
class Term:
    """One glossary entry. ``whole_word``: the source must not be part of a longer word
    ("cat" does not match "category")."""

    source: str
    target: str
    case_sensitive: bool = False
    whole_word: bool = True

    def __post_init__(self) -> None:
        if not self.source.strip() or not self.target.strip():
            raise ValueError("a glossary term needs a source and a target text")


@dataclasses.dataclass(frozen=True)
class Match:
    """Where a term occurs in a text: ``text[start:end]`` is ``text`` (as written there)."""

    start: int
    end: int
    text: str
    term: Term

    @property
    def target(self) -> str:
        """What the occurrence becomes in the translation: the term's target text."""
        return self.term.target


@dataclasses.dataclass(frozen=True)
class Glossary:
    """An immutable list of terms (hashable, so it can sit in ``GenerationOptions``)."""

    terms: tuple[Term, ...] = ()

    @classmethod
    def load(cls, path: str | Path) -> Glossary:
        """Read a CSV or TSV glossary file (see the module docstring); raises :class:`GlossaryError`."""
        path = Path(path)
        try:
            text = path.read_bytes().decode("utf-8-sig")
        except OSError as exc:
            raise GlossaryError(f"{path}: cannot read the glossary: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            line = _text_line_of(exc.object, exc.start)
            raise GlossaryError(f"{path}, line {line}: not UTF-8 text; save the glossary as UTF-8") from exc
        return cls(tuple(_parse(text, path)))

    def save(self, path: str | Path) -> None:
        """Write the glossary as a UTF-8 CSV that :meth:`load` reads back (header
        ``source,target,case``; terms that do not match whole words cannot be written)."""
        if any(not term.whole_word for term in self.terms):
            raise ValueError("a CSV glossary has no column for whole_word=False terms")
        out = io.StringIO(newline="")
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(("source", "target", "case"))
        writer.writerows((t.source, t.target, "case" if t.case_sensitive else "") for t in self.terms)
        Path(path).write_text(out.getvalue(), encoding="utf-8", newline="")

    def find(self, text: str) -> list[Match]:
        """Every term occurrence in ``text``, by position, without overlaps. Where occurrences
        overlap, the longest wins (then the leftmost): "New York City" before "New York".
        Script and width do not matter (:func:`_fold`); ``Match.text`` is the text as written."""
        if not self.terms:
            return []
        folded = _fold(text)
        found = [
            dataclasses.replace(m, text=text[m.start : m.end])
            for term in self.terms
            for m in _occurrences(term, folded)
        ]
        found.sort(key=lambda m: (-(m.end - m.start), m.start))
        taken: list[Match] = []
        for m in found:
            if all(m.end <= t.start or m.start >= t.end for t in taken):
                taken.append(m)
        return sorted(taken, key=lambda m: m.start)

    def missing(self, source: str, translation: str) -> tuple[Term, ...]:
        """The terms found in ``source`` whose target is not in ``translation`` (script, width
        and, for a term that ignores case, case aside), each once. The glossary must be
        oriented for ``source`` (:meth:`oriented`); an empty tuple when every term is there."""
        have = _fold(translation)
        lost: list[Term] = []
        for match in self.find(source):
            term = match.term
            want = _fold(term.target)
            there = want in have if term.case_sensitive else want.casefold() in have.casefold()
            if not there and term not in lost:
                lost.append(term)
        return tuple(lost)

    def __len__(self) -> int:
        return len(self.terms)

    def oriented(self, source_lang: str) -> Glossary:
        """The glossary for a model that translates from ``source_lang``: a term pair works both
        ways, so a term whose target (not source) is in that language is turned around
        (``train station,火车站`` finds 火车站 in Chinese text and renders "train station")."""
        return _oriented(self, source_lang)


# A character that has word edges: a word character that is not Chinese, Japanese or Korean.
_WORD_EDGE = re.compile(r"(?![\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])\w")


@functools.lru_cache(maxsize=64)
def _oriented(glossary: Glossary, source_lang: str) -> Glossary:
    def flip(term: Term) -> Term:
        source, target = language(term.source), language(term.target)
        if source != source_lang and target == source_lang:
            return dataclasses.replace(term, source=term.target, target=term.source)
        return term

    return Glossary(tuple(flip(t) for t in glossary.terms))


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WIDE = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}  # full-width ASCII, ideographic space


def _fold(text: str) -> str:
    """``text`` as the glossary compares it, of the same length (positions still point into
    ``text``): full-width Latin letters, digits and signs as half-width ones, Traditional
    Chinese characters as Simplified (OpenCC t2s; as they are without OpenCC). OpenCC converts
    phrases, so when that changes the length the text is converted character by character."""
    text = text.translate(_WIDE)
    if not _HAN.search(text):  # nothing for OpenCC (pure Python: it costs ~1 ms a sentence)
        return text
    simple = to_simplified(text)
    if len(simple) == len(text):
        return simple
    return "".join(_simplified_char(c) for c in text)


@functools.lru_cache(maxsize=8192)
def _simplified_char(char: str) -> str:
    out = to_simplified(char)
    return out if len(out) == 1 else char


def _text_line_of(data: bytes, offset: int) -> int:
    """The 1-based line number of byte ``offset`` in ``data``."""
    return data.count(b"\n", 0, offset) + 1


def _occurrences(term: Term, text: str) -> list[Match]:
    """All (possibly overlapping) places ``term`` matches in ``text``."""
    pattern = _term_pattern(term.source, term.case_sensitive, term.whole_word)
    return [Match(m.start(1), m.end(1), m.group(1), term) for m in pattern.finditer(text)]


@functools.lru_cache(maxsize=4096)
def _term_pattern(source: str, case_sensitive: bool, whole_word: bool) -> re.Pattern[str]:
    """A regex for one term: any run of whitespace where the term has a space; word edges
    only where the term itself starts/ends with a word character ("C++" ends with none).
    A lookahead group, so overlapping occurrences are all found. It matches folded text
    (:func:`_fold`), so it is built from the folded term."""
    source = _fold(source)
    body = r"\s+".join(re.escape(word) for word in source.split())
    if whole_word:  # Chinese has no word edges: a term starting or ending with a CJK character has none
        body = (r"(?<!\w)" if _WORD_EDGE.match(source.strip()) else "") + body
        body += r"(?!\w)" if _WORD_EDGE.match(source.strip()[-1:]) else ""
    return re.compile(f"(?=({body}))", 0 if case_sensitive else re.IGNORECASE)


def _parse(text: str, path: Path) -> list[Term]:
    """The terms of a glossary file's text; a bad row raises naming the file and line."""
    delimiter = "\t" if path.suffix.lower() == ".tsv" or "\t" in _first_row(text) else ","
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    terms: list[Term] = []
    seen: dict[tuple[str, bool], int] = {}
    for row in rows:
        line = rows.line_num
        cells = [c.strip() for c in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if not terms and not seen and _is_header(cells):
            continue
        term = _row_term(cells, path, line)
        key = (term.source if term.case_sensitive else term.source.casefold(), term.case_sensitive)
        if key in seen:
            raise GlossaryError(f"{path}, line {line}: the term {term.source!r} is already on line {seen[key]}")
        seen[key] = line
        terms.append(term)
    return terms


def _first_row(text: str) -> str:
    """The first line that is neither blank nor a comment: it decides between TSV and CSV."""
    return next((line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")), "")


def _is_header(cells: list[str]) -> bool:
    return len(cells) >= 2 and cells[0].lower() in _HEADER_SOURCE and cells[1].lower() in _HEADER_TARGET


def _row_term(cells: list[str], path: Path, line: int) -> Term:
    """One row as a :class:`Term`, or a :class:`GlossaryError` saying what the row lacks."""
    where = f"{path}, line {line}"
    if len(cells) < 2:
        raise GlossaryError(f"{where}: expected two columns (source and target term), found one: {cells[0]!r}")
    if len(cells) > 3:
        raise GlossaryError(f"{where}: expected at most three columns (source, target, case), found {len(cells)}")
    if not cells[0] or not cells[1]:
        raise GlossaryError(f"{where}: the {'source' if not cells[0] else 'target'} term is empty")
    case = cells[2].lower() if len(cells) == 3 else ""
    if case not in _CASE_YES | _CASE_NO:
        raise GlossaryError(f"{where}: the third column must be 'case' (match case exactly) or empty, not {cells[2]!r}")
    return Term(cells[0], cells[1], case_sensitive=case in _CASE_YES)
