"""Decoding, line splitting and segment templates shared by the file formats.

A *template* is a list whose items are either literal strings (kept byte-for-byte: line
terminators, indentation, tabs, SRT timings ...) or ``int`` indices into the list of
*segments* (the texts sent to the translator). ``render(template, translations)`` puts the
translations back. Formats build their templates with :class:`SegmentCollector`.
"""

from __future__ import annotations

import codecs
import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO, Protocol

from ..engine.segment import segment_sentences
from ..engine.textproc import split_marker
from .errors import BatchInputError

__all__ = [
    "Template",
    "Document",
    "DecodedText",
    "decode_text",
    "split_lines",
    "dominant_newline",
    "clean_segment",
    "clean_translation",
    "Gap",
    "SegmentCollector",
    "sentence_ranges",
    "render",
    "is_wide",
]

# A document unit as literal text and slots. A slot is a position in the document's list of
# segments, not the engine's ``Segment`` (``engine.segment.PlanItem``): the journal, the
# runner's de-duplication and ``write(translations)`` all address segments by position, and
# repeated texts keep their own slots, while the engine fills its plan by text. The two were
# weighed for merging (issue 17) and kept apart for that reason.
Template = list[str | int]

# Line terminators of text files: CRLF, LF and a lone CR (classic Mac). Other characters that
# str.splitlines() treats as breaks (\x0b, \x0c, \x1c-\x1e, \x85, \u2028, \u2029) are NOT line
# breaks here, so `wc -l` and our line count agree; they are neutralised inside segments.
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r|$)")

# Characters that must never reach (or come back from) the translator inside a segment: any
# line break and C0/C1 control characters except tab. They would break "one line in, one line
# out", and a control character carries nothing to translate.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")

# Inside a segment, runs of whitespace around a tab are kept literally: each tab-separated
# cell is translated on its own, so tab-separated text keeps its columns.
_TAB_SPLIT_RE = re.compile(r"(\s*\t\s*)")

_BOMS = (  # longest first: the UTF-32 LE BOM starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# Encodings that can represent any translation, so the output keeps the input's encoding.
# Anything else (cp1252, latin-1, shift_jis ...) cannot hold Chinese: the output is UTF-8.
_UNICODE_ENCODINGS = {"utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "gb18030"}


class Document(Protocol):
    """A parsed input (``txt.TextDocument``, ``srt.SubtitleDocument``,
    ``docx_format.WordDocument``): its segments, and the output for their translations."""

    segments: list[str]

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """The translated document (one translation per segment) written to ``fileobj``."""


@dataclass(frozen=True)
class DecodedText:
    """A decoded text file: ``text`` without its BOM, and how to encode the output."""

    text: str
    bom: bytes
    output_encoding: str

    def encode(self, text: str) -> bytes:
        """Encode output text the way the input was encoded (BOM included)."""
        return self.bom + text.encode(self.output_encoding)


def _normalise_encoding(name: str) -> str:
    try:
        return codecs.lookup(name).name
    except LookupError as exc:
        raise BatchInputError(f"unknown encoding {name!r} (try utf-8, gb18030, cp1252 ...)") from exc


def decode_text(data: bytes, filename: str, encoding: str | None = None) -> DecodedText:
    """Decode file bytes strictly: a BOM wins, else ``encoding``, else UTF-8.

    Never guesses and never replaces bytes: an undecodable byte raises
    :class:`BatchInputError` naming the file, line and column, and suggesting ``--encoding``.
    """
    bom, codec = b"", None
    for candidate, name in _BOMS:
        if data.startswith(candidate):
            bom, codec = candidate, name
            break
    if codec is None:
        codec = _normalise_encoding(encoding) if encoding else "utf-8"
        if codec == "utf-8-sig":
            codec = "utf-8"
    body = data[len(bom) :]
    if not bom:
        _refuse_binary(body, filename, codec)
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as exc:
        raise _decode_error(body, exc, filename, codec, encoding is not None) from None
    if codec == "utf-8" and not bom and "\x00" in text and _looks_utf16(body):
        raise BatchInputError(
            f"{filename}: looks like UTF-16 without a byte-order mark; pass --encoding utf-16-le (or utf-16-be)",
            filename=filename,
        )
    out = codec if codec in _UNICODE_ENCODINGS else "utf-8"
    # Keep a BOM only where it can be written in the output encoding.
    if bom and out != codec:
        bom = b""
    return DecodedText(text=text, bom=bom, output_encoding=out)


def _looks_utf16(body: bytes) -> bool:
    """Text in UTF-16 without a BOM: many zero bytes, nearly all at even or all at odd offsets."""
    sample = body[:4096]
    zeros = sample.count(0)
    if len(sample) < 4 or zeros < len(sample) // 4:
        return False
    odd = sample[1::2].count(0)
    return max(odd, zeros - odd) >= 0.9 * zeros


# Signatures of common non-text files (what a user may pick by mistake), with what they are.
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF-", "a PDF document (give it the .pdf suffix or pass --format pdf)"),
    (b"PK\x03\x04", "a ZIP archive (a .docx? give it the .docx suffix or pass --format docx)"),
    (b"\x7fELF", "a program (ELF)"),
    (b"MZ", "a Windows program"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\xd0\xcf\x11\xe0", "an old Office file (.doc/.xls: save it as .docx first)"),
    (b"Rar!", "a RAR archive"),
    (b"7z\xbc\xaf", "a 7-Zip archive"),
    (b"RIFF", "a media file (RIFF)"),
    (b"OggS", "an audio file (Ogg)"),
    (b"ID3", "an audio file (MP3)"),
    (b"SQLite format 3\x00", "a database"),
)
_TEXT_CONTROLS = frozenset(b"\t\n\r\x0c\x1b\x08")  # control bytes that plain text does carry


def _refuse_binary(body: bytes, filename: str, codec: str) -> None:
    """Raise a clear :class:`BatchInputError` for a file that is not text at all (an image,
    an archive, a program, zeros), rather than advice about encodings that would not help.
    A signature made of letters ("GIF8", "ID3") counts only where the bytes are not text
    anyway; UTF-16 and UTF-32 text is full of zero bytes, so those are judged by signature."""
    sample = body[:8192]
    readable = b"\x00" not in sample and _decodes(sample, codec)
    what = next(
        (
            name
            for magic, name in _MAGIC
            if body.startswith(magic) and not (readable and magic.isascii() and magic.decode().isprintable())
        ),
        None,
    )
    if what is None and sample and not codec.startswith(("utf-16", "utf-32")):
        if not sample.strip(b"\x00"):
            what = "a file of zero bytes only"
        elif b"\x00" in sample:
            what = None if _looks_utf16(body) else "binary data (zero bytes between the text)"
        elif sum(1 for b in sample if b < 32 and b not in _TEXT_CONTROLS) > len(sample) // 10:
            what = "binary data (control bytes)"
    if what is not None:
        raise BatchInputError(
            f"{filename}: not a text file: this is {what}; desktop-mt translates text "
            f"(.txt, any encoding), subtitles (.srt) and Word documents (.docx)",
            filename=filename,
        )


def _decodes(sample: bytes, codec: str) -> bool:
    """Whether ``sample`` (the start of a file, maybe cut inside a character) is ``codec`` text."""
    try:
        codecs.getincrementaldecoder(codec)().decode(sample, final=False)
    except UnicodeDecodeError:
        return False
    return True


def _decode_error(body: bytes, exc: UnicodeDecodeError, filename: str, codec: str, explicit: bool) -> BatchInputError:
    """Build a message with the 1-based line and column of the first bad byte."""
    prefix = body[: exc.start]
    line = prefix.count(b"\n") + 1
    column = exc.start - (prefix.rfind(b"\n") + 1) + 1
    bad = body[exc.start : exc.start + 4].hex(" ")
    hint = (
        "the file is not in that encoding"
        if explicit
        else "if the file is in another encoding, pass --encoding (e.g. gb18030, cp1252, utf-16-le)"
    )
    return BatchInputError(
        f"{filename}: line {line}, column {column}: bytes [{bad}] are not valid {codec}; {hint}",
        filename=filename,
        line=line,
    )


def split_lines(text: str) -> list[tuple[str, str]]:
    """Split into ``(content, terminator)`` pairs; ``"".join(c + t) == text``.

    A final line without a terminator gets ``""``; a text ending in a newline has no extra
    empty pair, so the number of pairs is the number of lines an editor shows.
    """
    pairs = []
    for match in _LINE_RE.finditer(text):
        chunk = match.group(0)
        if not chunk:
            continue  # the empty match at the very end
        content = chunk.rstrip("\r\n")
        pairs.append((content, chunk[len(content) :]))
    return pairs


def dominant_newline(text: str) -> str:
    """The newline to use for new lines: CRLF if the text uses it, else LF."""
    return "\r\n" if "\r\n" in text else "\n"


def clean_segment(text: str) -> str:
    """Neutralise characters that must not reach the translator (see ``_CONTROL_RE``)."""
    return _CONTROL_RE.sub(" ", text)


def clean_translation(text: str) -> str:
    """A translation must stay on one line: any line break or control character becomes a space."""
    return _CONTROL_RE.sub(" ", text).strip()


class Gap(str):
    """The whitespace between two sentences of a line, as a template literal. It renders as
    it was between sentences that stayed in a spaced script, and as nothing next to a
    translation that ends or starts with a wide (CJK) character: Chinese puts no space
    between sentences (the engine's ``sentence_gap``)."""


class SegmentCollector:
    """Collects the segments of one document; identical segments are stored once per use.

    ``add_text`` turns a piece of text into template items: its leading/trailing whitespace
    and tab separators stay literal, each remaining non-blank piece becomes a segment index.
    With ``sentences=True`` each piece is cut further into its sentences
    (``engine.segment.segment_sentences``), one segment each, joined by :class:`Gap` literals:
    a line as long as a book then becomes many small segments, so the work is linear in the
    text, progress advances sentence by sentence, and a resume loses at most one chunk.
    """

    def __init__(self, sentences: bool = False) -> None:
        self.segments: list[str] = []
        self._sentences = sentences

    def add_segment(self, text: str) -> int:
        """Register one segment (already stripped) and return its index."""
        self.segments.append(text)
        return len(self.segments) - 1

    def add_text(self, text: str) -> Template:
        """Template items for ``text`` (one line, or one DOCX text unit)."""
        items: Template = []
        for piece in _TAB_SPLIT_RE.split(text):
            if not piece:
                continue
            if "\t" in piece or not piece.strip():
                items.append(piece)
                continue
            core = piece.strip()
            lead = piece[: len(piece) - len(piece.lstrip())]
            trail = piece[len(piece.rstrip()) :]
            if lead:
                items.append(lead)
            cleaned = clean_segment(core).strip()
            if not cleaned:  # only control characters: kept as they were, nothing to translate
                items.append(core)
            elif self._sentences:
                items.extend(self._add_sentences(cleaned))
            else:
                items.append(self.add_segment(cleaned))
            if trail:
                items.append(trail)
        return items

    def _add_sentences(self, text: str) -> Template:
        """``text`` (stripped, clean) as one segment per sentence, with :class:`Gap` between."""
        items: Template = []
        ranges = sentence_ranges(text)
        for k, (start, end) in enumerate(ranges):
            items.append(self.add_segment(text[start:end]))
            gap = text[end : ranges[k + 1][0]] if k + 1 < len(ranges) else ""
            if gap:
                items.append(_gap(gap))
        return items


def sentence_ranges(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of each sentence of ``text`` (``engine.segment.segment_sentences``); a
    list or heading marker stays with the first sentence ("1. An item" is no sentence "1."),
    and the engine takes it off again as a literal."""
    if not text.strip():
        return []
    prefix, body = split_marker(text)
    if not body.strip():
        return [(0, len(text))]
    ranges, pos = [], len(prefix)
    for k, (sentence, gap) in enumerate(segment_sentences(body)):
        ranges.append((0 if k == 0 else pos, pos + len(sentence)))
        pos += len(sentence) + len(gap)
    return ranges


@functools.lru_cache(maxsize=64)
def _gap(whitespace: str) -> Gap:
    """One shared :class:`Gap` per whitespace string: a book has a million of them."""
    return Gap(whitespace)


def render(template: Sequence[str | int], translations: Sequence[str]) -> str:
    """Join a template, putting ``translations[i]`` where segment ``i`` was; a :class:`Gap`
    beside a wide character is left out."""
    pieces = [item if isinstance(item, str) else translations[item] for item in template]
    for k, item in enumerate(template):
        if isinstance(item, Gap) and _wide_edge(pieces, k):
            pieces[k] = ""
    return "".join(pieces)


def _wide_edge(pieces: list[str], k: int) -> bool:
    """Whether the text just before or just after ``pieces[k]`` is a wide (CJK) character."""
    before = pieces[k - 1][-1:] if k else ""
    after = pieces[k + 1][:1] if k + 1 < len(pieces) else ""
    return any(c and is_wide(c) for c in (before, after))


def is_wide(char: str) -> bool:
    """A wide or full-width character (CJK): no space goes between it and the next sentence."""
    return unicodedata.east_asian_width(char) in "WF"
