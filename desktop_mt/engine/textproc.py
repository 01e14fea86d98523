"""Text the model must not see as prose: list markers and protected spans.

Two pure passes run on each line before segmentation, both plain regular expressions:

* :func:`split_marker` takes a line's structure off the front (indentation, ``>`` quote marks,
  a Markdown heading ``#``, a checkbox, a list or outline marker such as ``1.``, ``1)``, ``a.``,
  ``(iv)``, ``•``, ``-``, ``*``) so it is copied through and only the item's text is translated.
* :func:`protect` cuts a sentence into text to translate and :class:`Span` pieces copied
  verbatim: inline code, URLs, e-mail addresses, file paths, hashtags and @handles, emoji and
  (optionally) numbers with their currency, unit, date, time and percent forms.

The translator translates the text pieces and joins them with the spans unchanged ("splitting
around them"). Measured on FLORES dev with the bundled model, this read better than sending
placeholders for numbers (see docs/ENGINE_API.md, "Text handling"), and it needs nothing from
the model, so it works with any model.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Protocol, cast

__all__ = [
    "Span",
    "Piece",
    "TermMatch",
    "Terms",
    "split_marker",
    "protect",
    "is_code",
    "has_words",
    "is_fence",
    "drop_full_stop",
]

# Indentation, quote marks, then at most one heading / checkbox / list / outline marker. A
# marker needs whitespace after it, so "3.5 kg" or "-5 degrees" stay text.
_ROMAN = r"(?:[ivxlcdm]{1,6}|[IVXLCDM]{1,6})"
_MARKER = re.compile(
    rf"""^(?P<prefix>[ \t]*(?:>[ \t]?)*[ \t]*
    (?:\#{{1,6}}[ \t]+
      |(?:[-*+•·‣◦▪–][ \t]+)(?:\[[ xX]\][ \t]+)?
      |(?:\d{{1,3}}(?:\.\d{{1,3}})*[.)]|[A-Za-z][.)]|{_ROMAN}[.)]|\((?:\d{{1,3}}|[A-Za-z]|{_ROMAN})\))[ \t]+
    )?)""",
    re.VERBOSE,
)

# Chinese puts no space between a word and a URL or number ("请访问https://example.com了解"): span
# patterns use word characters that are not CJK (:func:`_w`), so spans end where CJK text begins.
_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"


def _w(extra: str = "") -> str:
    """One character of ``[\\w{extra}]`` that is not Chinese, Japanese or Korean."""
    return rf"(?:(?![{_CJK_RANGES}])[\w{extra}])"


_W = _w()
_W_ALNUM = _w(r".\-/@#$€£¥₹")
_W_DASH = _w("-")
_W_DOT = _w(".")
_W_DOT_DASH = _w(r".\-")
_W_EMAIL = _w(".+-")
_W_HANDLE = _w("@#&")
_W_HYPHEN = _w(r"\-")
_W_MODEL = _w(r".\-/@#")
_W_PATH = _w(r".\-/")
_W_SLASH = _w("/")

_EMOJI_CHAR = "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff\u3030\u303d\u3297\u3299]"
_EMOJI = rf"(?:{_EMOJI_CHAR}[\uFE0F\U0001F3FB-\U0001F3FF]*(?:\u200D{_EMOJI_CHAR}[\uFE0F\U0001F3FB-\U0001F3FF]*)*)+"
_FILE_EXT = (
    r"(?:txt|md|py|js|ts|json|ya?ml|toml|ini|cfg|csv|tsv|docx?|xlsx?|pptx?|pdf|srt|html?|xml|png|jpe?g|gif|svg"
    r"|zip|gz|tar|exe|dll|so|sh|bat|log|onnx|c|h|cpp|rs|go|java)"
)
# Letters of scripts an English source model does not know (Greek, Cyrillic, Armenian, Hebrew,
# Arabic, Syriac, Thaana, the Indic scripts, Thai, Lao, Tibetan, Georgian, Ethiopic): it drops
# or garbles them, so words in them (names, quotes) are kept as they are, like a URL.
_FOREIGN = (
    "[\u0370-\u03ff\u0400-\u052f\u0530-\u058f\u0590-\u05ff\u0600-\u06ff\u0700-\u08ff\u0900-\u0dff"
    "\u0e00-\u0fff\u10a0-\u10ff\u1200-\u139f\u1f00-\u1fff\ufb1d-\ufdff\ufe70-\ufeff]"
)
_UNITS = r"(?:km|kg|cm|mm|mg|ml|GB|MB|KB|TB|Hz|kHz|MHz|GHz|m|g|l|s|ms|h|min|[ap]\.?m\.?)"
# Codes made of letters and digits are names, not words or numbers: a model that translates
# them, or a cut that sends "B." of "room 4B." to the model alone, breaks them. A room or seat
# (4B, A-12), a paper size (A4), a version (v2.3.1), COVID-19, x86-64, an order number (12345-AB),
# a time zone (UTC+1, GMT-5, UTC+05:30), a standard (ISO-8601, ISO-8601:2004), SKU_12345: parts of
# letters and digits joined by - . + _ (a colon only before digits), with a letter and a digit.
# Not codes: ordinals and decades (2nd, 1990s), a number with its unit (5km, 3pm: numbers), and
# words with a number ("5-year-old", "mid-2000s": a lowercase word part is translated).
_ALNUM = (
    rf"(?<!{_W_ALNUM})"
    r"(?!\d+(?:st|nd|rd|th|s)(?![A-Za-z0-9]))"
    rf"(?!\d+(?:[.,]\d+)*{_UNITS}(?![A-Za-z0-9]))"
    r"(?!(?:[A-Za-z0-9]+[-.+_])*[a-z]{2,}(?:[-.+_][A-Za-z0-9]|(?![A-Za-z0-9])))"
    r"(?=(?:[A-Za-z0-9]*[-.+_](?=[A-Za-z0-9]))*[A-Za-z]*\d)(?=(?:[0-9]*[-.+_](?=[A-Za-z0-9]))*[0-9]*[A-Za-z])"
    r"[A-Za-z0-9]+(?:[-.+_][A-Za-z0-9]+)*(?::\d+)*" + rf"(?!{_W}|:\d)"
)
# A code alone in brackets ("(UTC+1)", "[A4]") is one span with its brackets: the model, given
# ") starts at" after a cut, drops the ")" (and with it the space after the span). Full-width
# brackets around a code (Chinese text: "（UTC+8）") are rendered as ASCII ones, which read in
# English output and are what punct.to_fullwidth leaves around a code in Chinese output.
_BRACKETS = {"(": ")", "[": "]", "（": "）", "［": "］"}
_ASCII_BRACKETS = {"（": "(", "）": ")", "［": "[", "］": "]"}
_BRACKETED_KINDS = ("alnum", "model")
# A product or model name with its number: an all-capitals name of 3-5 letters or a camel-case
# one, a space, a number (RTX 4090, iPhone 15, ISO 9001, USB 3.0).
_MODEL_NAME = (
    rf"(?<!{_W_MODEL})"
    r"(?:[A-Z]{3,5}|[a-z]+[A-Z][A-Za-z]*)[ \u00A0]\d+(?:\.\d+)*[A-Za-z]*"
    rf"(?!{_W}|[.\-]\d)"
)
# Order matters: the first alternative that matches at a position wins.
_VERBATIM = [
    ("code", r"`[^`\n]+`"),
    (
        "url",
        rf"(?<!{_W})(?:(?:https?|ftp|file)://|www\.)"
        rf"[^\s<>\"'`{_CJK_RANGES}\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\u201c\u201d]+",
    ),
    ("email", rf"(?<!{_W_EMAIL}){_W_EMAIL}+@{_W_DASH}+(?:\.{_W_DASH}+)+"),
    (
        "path",
        rf"(?<!{_W_SLASH})(?:[A-Za-z]:\\[^\s\"'<>|{_CJK_RANGES}]*|~?/{_W_DOT_DASH}+(?:/{_W_DOT_DASH}*)*"
        rf"|\.{{1,2}}/{_W_PATH}*|{_W_DOT_DASH}+(?:/{_W_DOT_DASH}+)+\.{_W}+"
        rf"|{_W_HYPHEN}+(?:\.{_W_HYPHEN}+)*\." + _FILE_EXT + rf"(?!{_W}))",
    ),
    ("handle", rf"(?<!{_W_HANDLE})[@#][A-Za-z_]{_W}*"),
    ("model", _MODEL_NAME),
    ("alnum", _ALNUM),
    ("foreign", rf"{_FOREIGN}+(?:[\s'’\-]+{_FOREIGN}+)*"),
    ("emoji", _EMOJI),
]
_NUMBER = (
    "number",
    r"""\+\d[\d\s().-]{6,}\d
    |(?:[$€£¥₹]\s?)?(?<!"""
    + _W_DOT
    + r""")[-+]?\d(?:[\d,]*\d)?(?:[.:/\-]\d+)*
    (?:\s?(?:%|‰|°[CF]?|"""
    + _UNITS
    + r"""(?<=[A-Za-z])(?!"""
    + _W
    + r""")))?""",
)
_TRAILING = ".,;:!?)]}'\"”’"  # sentence punctuation after a URL or path is not part of it


def _pattern(names: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?P<{name}>{rx})" for name, rx in names), re.VERBOSE)


_SPANS = _pattern(tuple(_VERBATIM))
_SPANS_NUMBERS = _pattern(tuple(_VERBATIM[:-1] + [_NUMBER, _VERBATIM[-1]]))
_HARD_KINDS = ("code", "url", "email", "path")  # spans a glossary term never cuts into
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_WORD = re.compile(r"[^\W\d_]")  # a letter in any script: something worth translating


@dataclasses.dataclass(frozen=True)
class Span:
    """A piece of a sentence the model never sees: ``kind`` names why (url, number, term...).
    Its output is ``text`` copied exactly, or ``output`` where set (a glossary term's target)."""

    kind: str
    text: str
    output: str | None = None

    @property
    def rendered(self) -> str:
        """What the span becomes in the translation."""
        return self.text if self.output is None else self.output


Piece = str | Span


class TermMatch(Protocol):
    """One place a term occurs: ``text[start:end]`` is ``text``, rendered as ``target``."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def target(self) -> str: ...


class Terms(Protocol):
    """What :func:`protect` needs of a glossary (``glossary.Glossary`` is one): where its terms
    occur in a text, by position and without overlaps. Declared here, below the glossary, so
    that text handling does not import it."""

    def find(self, text: str) -> Sequence[TermMatch]: ...
    def __len__(self) -> int: ...


def split_marker(line: str) -> tuple[str, str]:
    """``(prefix, body)``: the line's indentation and structure markers, and its text.

    ``"  1. Open the door."`` gives ``("  1. ", "Open the door.")``; a line without a marker
    gives ``(indentation, rest)``.
    """
    prefix = cast("re.Match[str]", _MARKER.match(line)).group("prefix")  # the pattern matches any line
    return prefix, line[len(prefix) :]


def protect(text: str, numbers: bool = True, glossary: Terms | None = None) -> list[Piece]:
    """Cut ``text`` into strings to translate and :class:`Span` pieces kept verbatim.

    Joining the pieces (``Span.text`` for spans) gives ``text`` back. Numbers (with currency,
    unit, date, time, percent and phone forms) are spans when ``numbers`` is true. Terms of
    ``glossary`` are ``term`` spans rendered as their target (see :func:`_protect_terms`).
    """
    if glossary is not None and len(glossary):
        return _protect_terms(text, numbers, glossary)
    pieces: list[Piece] = []
    pos = 0
    for match in (_SPANS_NUMBERS if numbers else _SPANS).finditer(text):
        start, end, kind = match.start(), match.end(), cast(str, match.lastgroup)  # every alternative is named
        if kind in ("url", "path"):
            end = start + len(match.group().rstrip(_TRAILING))
        if start < pos or end <= start:  # trimmed away, or inside the last span
            continue
        if kind in _BRACKETED_KINDS and start > pos and _BRACKETS.get(text[start - 1]) == text[end : end + 1]:
            start, end = start - 1, end + 1
        if start > pos:
            pieces.append(text[pos:start])
        span = text[start:end]
        ascii_form = "".join(_ASCII_BRACKETS.get(c, c) for c in span) if kind in _BRACKETED_KINDS else span
        pieces.append(Span(kind, span, None if ascii_form == span else ascii_form))
        pos = end
    if pos < len(text):
        pieces.append(text[pos:])
    return pieces


_CODE = re.compile(f"(?:{_ALNUM}|{_MODEL_NAME})")


def is_code(text: str) -> bool:
    """Whether ``text`` is one code or product name that :func:`protect` keeps as a span ("UTC+1",
    "COVID-19", "RTX 4090"): brackets around it are part of the span, not Chinese punctuation."""
    return _CODE.fullmatch(text) is not None


def _protect_terms(text: str, numbers: bool, glossary: Terms) -> list[Piece]:
    """:func:`protect` with glossary terms: a term is a span whose output is its target.

    Terms win over numbers, handles and emoji ("COVID-19" stays one term) but not over code,
    URLs, e-mail addresses and paths, which are copied whole even when a term occurs inside.
    """
    hard = [
        (p_start, p_start + len(p.text))
        for p_start, p in _positions(protect(text, numbers))
        if isinstance(p, Span) and p.kind in _HARD_KINDS
    ]
    pieces: list[Piece] = []
    pos = 0
    for m in glossary.find(text):
        if any(m.start < end and m.end > start for start, end in hard):
            continue
        pieces.extend(protect(text[pos : m.start], numbers) if m.start > pos else [])
        pieces.append(Span("term", m.text, m.target))
        pos = m.end
    pieces.extend(protect(text[pos:], numbers) if pos < len(text) else [])
    return pieces


def _positions(pieces: list[Piece]) -> list[tuple[int, Piece]]:
    """Each piece with its start offset in the text the pieces were cut from."""
    out, pos = [], 0
    for piece in pieces:
        out.append((pos, piece))
        pos += len(piece.text if isinstance(piece, Span) else piece)
    return out


def has_words(text: str) -> bool:
    """Whether ``text`` holds a letter: punctuation, digits and spaces alone are not sent to the model."""
    return _WORD.search(text) is not None


def is_fence(line: str) -> bool:
    """Whether ``line`` opens or closes a fenced code block (``` or ~~~)."""
    return _FENCE.match(line) is not None


def drop_full_stop(text: str, source: str | None = None) -> str:
    """``text`` without the full stop(s) at its end: a model ends every input like a sentence,
    but a piece that a protected span cut off mid-sentence ("Visit" before a URL) needs none.
    Given the piece's ``source``, a question or exclamation mark the source piece does not end
    with goes too ("It costs" before "$19.99" came out as "这要多少钱？")."""
    marks = "。." if source is None or source.rstrip().endswith(("?", "!")) else "。.？?！!"
    return text.rstrip().rstrip(marks).rstrip()
