"""Plain text: one output line per input line.

Each line's terminator (CRLF, LF, lone CR, none on the last line), its leading/trailing
whitespace and the whitespace around tabs are kept literally; each tab-separated cell is one
segment. Blank lines stay blank. The BOM and the encoding are kept (see ``textio``).
"""

from __future__ import annotations

from typing import BinaryIO, Sequence

from .textio import DecodedText, SegmentCollector, Template, decode_text, render, split_lines


class TextDocument:
    """A parsed text file: ``segments`` to translate and the template to rebuild it."""

    def __init__(self, decoded: DecodedText) -> None:
        self._decoded = decoded
        collector = SegmentCollector()
        self._template: Template = []
        for content, terminator in split_lines(decoded.text):
            self._template.extend(collector.add_text(content))
            if terminator:
                self._template.append(terminator)
        self.segments = collector.segments

    def render_text(self, translations: Sequence[str]) -> str:
        """The translated text (before encoding)."""
        return render(self._template, translations)

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """Write the translated file in the input's encoding."""
        fileobj.write(self._decoded.encode(self.render_text(translations)))


def load(data: bytes, filename: str, encoding: str | None = None) -> TextDocument:
    """Parse a text file's bytes (strict decoding, see :func:`textio.decode_text`)."""
    return TextDocument(decode_text(data, filename, encoding))
