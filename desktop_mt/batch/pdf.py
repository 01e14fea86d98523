"""PDF files with a text layer: the text translated into a Word document (layout not kept).

The text of each page is read with pypdf (BSD licence, pure Python) in the order the page
draws it (a two-column paper draws its columns one after the other), and its lines are
rebuilt into paragraphs as text pasted from a PDF is (:func:`desktop_mt.engine.pasted.join_lines`:
lines inside a sentence joined, a word hyphenated at the margin rejoined, list items,
headings and blank-line paragraphs kept). The output is a .docx: one Word paragraph per
paragraph, a page break where the PDF's page ended; ``bilingual`` writes each page as a
two-column table, source | translation, one row per paragraph.

Not kept: the layout (columns, fonts, pictures, tables' grid, headers and footers are text
like the rest). A page without a text layer (a scan) has nothing to read: a PDF with no text
at all is refused with the advice to use the window's OCR (Translate image) on it; an
encrypted PDF that needs a password is refused as such.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any, BinaryIO

from ..engine.pasted import join_lines
from .errors import BatchInputError
from .textio import SegmentCollector, Template, clean_segment, render

__all__ = [
    "PdfDocument",
    "load",
]


class PdfDocument:
    """A parsed PDF: ``segments`` (sentences of its paragraphs); ``write`` makes the .docx."""

    def __init__(self, data: bytes, filename: str, bilingual: bool = False) -> None:
        pages = _page_texts(data, filename)
        if not any(text.strip() for text in pages):
            raise BatchInputError(
                f"{filename}: this PDF has no text layer (scanned pages are pictures); read it with "
                "OCR instead: export its pages as images and use Translate image in the window, "
                "or desktop-mt ocr",
                filename=filename,
            )
        self._bilingual = bilingual
        collector = SegmentCollector(sentences=True)
        self._pages: list[list[tuple[str, Template]]] = []
        for text in pages:
            paragraphs = [p for p in join_lines(text).split("\n") if p.strip()]
            self._pages.append([(p, collector.add_text(clean_segment(p).strip())) for p in paragraphs])
        self.segments = collector.segments

    def write(self, translations: Sequence[str], fileobj: BinaryIO) -> None:
        """The translation as a .docx (see the module docstring)."""
        import docx  # python-docx: .docx output only

        document = docx.Document()
        for number, page in enumerate(self._pages):
            if number:
                page_break: Any = document.add_page_break  # python-docx leaves it untyped
                page_break()
            if self._bilingual and page:
                table = document.add_table(rows=0, cols=2)
                table.style = "Table Grid"
                for source, template in page:
                    cells = table.add_row().cells
                    cells[0].text = source
                    cells[1].text = render(template, translations)
            else:
                for _source, template in page:
                    document.add_paragraph(render(template, translations))
        document.save(fileobj)


def _page_texts(data: bytes, filename: str) -> list[str]:
    """Each page's text, in drawing order; BatchInputError for a damaged or locked PDF."""
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not _opened_without_password(reader):
            raise BatchInputError(
                f"{filename}: this PDF is encrypted with a password; save an unlocked copy "
                "(print to PDF, or your PDF viewer's 'remove security') and translate that",
                filename=filename,
            )
        return [_page_text(page) for page in reader.pages]
    except FileNotDecryptedError:
        raise BatchInputError(f"{filename}: this PDF is encrypted with a password", filename=filename) from None
    except (PdfReadError, ValueError, KeyError, TypeError, IndexError, OSError) as exc:
        raise BatchInputError(f"{filename}: not a readable PDF ({exc})", filename=filename) from None


def _page_text(page: Any) -> str:
    """A page's text as lines, with a blank line where a paragraph ends: where the gap to the
    next line is clearly more than the page's usual line spacing, or where the next line is
    higher up the page (the top of the next column)."""
    pieces: list[tuple[float, float, str]] = []  # (x, y, text) of each text-showing operation

    def visit(text: str, cm: Any, tm: Any, _font: Any, _size: Any) -> None:
        if text.strip():
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            pieces.append((x, y, text.replace("\n", " ")))

    page.extract_text(visitor_text=visit)
    lines: list[tuple[float, str]] = []  # (y, text)
    for _x, y, text in pieces:
        if lines and abs(lines[-1][0] - y) < 1:
            lines[-1] = (lines[-1][0], lines[-1][1] + text)
        else:
            lines.append((y, text))
    gaps = sorted(a[0] - b[0] for a, b in zip(lines, lines[1:]) if a[0] > b[0])
    leading = gaps[len(gaps) // 2] if gaps else 0.0
    out: list[str] = []
    for k, (y, text) in enumerate(lines):
        if k:
            gap = lines[k - 1][0] - y
            if gap < 0 or (leading and gap > 1.5 * leading):
                out.append("")
        out.append(text.strip())
    return "\n".join(out)


def _opened_without_password(reader: Any) -> bool:
    """An encrypted PDF that opens with the empty password (only printing or copying is
    restricted) can be read."""
    try:
        return bool(reader.decrypt(""))
    except (NotImplementedError, ValueError):  # an encryption pypdf cannot undo without extras
        return False


def load(
    data: bytes, filename: str, encoding: str | None = None, *, bilingual: bool = False, join_lines: bool = False
) -> PdfDocument:
    """Parse a PDF's bytes (``encoding`` and ``join_lines`` do not apply: the lines are always
    joined into paragraphs)."""
    return PdfDocument(data, filename, bilingual)
