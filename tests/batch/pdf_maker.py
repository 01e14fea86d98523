"""A minimal PDF writer for the tests: pages of text lines at given positions (Helvetica), as a
word processor or LaTeX draws them, so a PDF with a real text layer is made without a PDF
library (the app reads PDFs; it never writes them)."""

from __future__ import annotations

Line = tuple[float, float, str]  # x, y (points from the bottom left), text


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[Line]], size: tuple[float, float] = (612, 792)) -> bytes:
    """A PDF whose pages draw ``pages``' lines in the order given."""
    objects: list[bytes] = []
    font = 3 + 2 * len(pages)
    kids = " ".join(f"{3 + 2 * k} 0 R" for k in range(len(pages)))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    for k, lines in enumerate(pages):
        stream = "".join(f"BT /F1 11 Tf {x} {y} Td ({_escape(text)}) Tj ET\n" for x, y, text in lines).encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {size[0]} {size[1]}] "
            f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {4 + 2 * k} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"endstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def column(x: float, top: float, lines: list[str], leading: float = 14) -> list[Line]:
    """``lines`` one under the other from ``top`` down, at ``x``."""
    return [(x, top - k * leading, text) for k, text in enumerate(lines)]
