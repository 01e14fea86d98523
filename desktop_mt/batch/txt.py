"""Plain text: one output line per input line.

Each line's terminator (CRLF, LF, lone CR, none on the last line), its leading/trailing
whitespace and the whitespace around tabs are kept literally; each tab-separated cell is cut
into its sentences, one segment each (``textio.SegmentCollector``: a line as long as a book is
translated sentence by sentence, in linear time, with progress per sentence). Blank lines stay
blank. Fenced code blocks (``` or ~~~ lines and what is between them) are copied, not
translated: the engine sees one line at a time and could not tell. The BOM and the encoding
are kept (see ``textio``).

Options: ``join_lines`` first joins the hard line breaks of text copied from a PDF
(``pasted.join_lines``: one line per paragraph, list item, heading or table row; the
file's newline style and final newline are kept). ``bilingual`` writes each line that was
translated twice: the source line, then its translation on the next line; a line with
nothing translated (blank, code, numbers, or already Chinese) is written once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import BinaryIO

from ..engine.pasted import join_lines as join_pasted_lines
from ..engine.textproc import is_fence
from .textio import DecodedText, SegmentCollector, Template, decode_text, dominant_newline, render, split_lines

__all__ = [
    "TextDocument",
    "load",
]


class TextDocument:
    """A parsed text file: ``segments`` to translate and, per line, the template to rebuild it."""

    def __init__(self, decoded: DecodedText, bilingual: bool = False) -> None:
        # Only the encoding is kept, not the text: a one-line book would be held twice.
        self._decoded = dataclasses.replace(decoded, text="")
        self._bilingual = bilingual
        self._newline = dominant_newline(decoded.text)
        collector = SegmentCollector(sentences=True)
        # (source line, bilingual output only; template; terminator)
        self._lines: list[tuple[str, Template, str]] = []
        in_code = False
        for content, terminator in split_lines(decoded.text):
            if in_code or is_fence(content):
                in_code ^= is_fence(content)  # a fence line opens or closes the block
                self._lines.append((content if bilingual else "", [content], terminator))
            else:
                self._lines.append((content if bilingual else "", collector.add_text(content), terminator))
        self.segments = collector.segments

    def render_text(self, translations: Sequence[str]) -> str:
        """The translated text (before encoding)."""
        out = []
        for source, template, terminator in self._lines:
            translated = render(template, translations)
            if self._bilingual and _changed(template, translations, self.segments):
                out.append(source + (terminator or self._newline))
            out.append(translated + terminator)
        return "".join(out)

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """Write the translated file in the input's encoding."""
        fileobj.write(self._decoded.encode(self.render_text(translations)))


def _changed(template: Template, translations: Sequence[str], segments: Sequence[str]) -> bool:
    """Whether any segment of a line's template came back different from its source."""
    return any(translations[i] != segments[i] for i in template if isinstance(i, int))


def _joined(decoded: DecodedText) -> DecodedText:
    """``decoded`` with its PDF line breaks joined, in the file's newline style, with the
    final newline it had."""
    newline = dominant_newline(decoded.text)
    text = join_pasted_lines(decoded.text)
    if text and decoded.text.endswith(("\n", "\r")):
        text += "\n"
    return DecodedText(text.replace("\n", newline), decoded.bom, decoded.output_encoding)


def load(
    data: bytes, filename: str, encoding: str | None = None, *, bilingual: bool = False, join_lines: bool = False
) -> TextDocument:
    """Parse a text file's bytes (strict decoding, see :func:`textio.decode_text`)."""
    decoded = decode_text(data, filename, encoding)
    return TextDocument(_joined(decoded) if join_lines else decoded, bilingual)
