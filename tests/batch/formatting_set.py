"""The formatting test set: an SRT (tests/data/formatting/sample.srt) and a .docx built here,
with inline formatting on part of a sentence the way people write it: bold and italic words,
a coloured phrase, underline, two hyperlinks, a footnote reference, a table and bullets.

Used by the tests (every span balanced, on the words it belongs to with the fake) and by
``benchmarks/formatting_spans.py`` (the real model: how many spans land on aligned words).
"""

from __future__ import annotations

from pathlib import Path

SRT = Path(__file__).resolve().parents[1] / "data" / "formatting" / "sample.srt"

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
FOOTNOTES = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:footnotes xmlns:w="{W_NS}">
<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>
<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>
<w:footnote w:id="1"><w:p><w:r><w:t xml:space="preserve">The figures are </w:t></w:r><w:r><w:rPr><w:i/></w:rPr>
<w:t>not audited</w:t></w:r><w:r><w:t>.</w:t></w:r></w:p></w:footnote>
</w:footnotes>"""

# (text, format) runs per paragraph; format: "" plain, "b" bold, "i" italic, "u" underline,
# "c" red, "link:URL" hyperlink, "note" a footnote reference.
PARAGRAPHS: list[tuple[str, list[tuple[str, str]]]] = [
    ("Heading 1", [("Annual report", "")]),
    ("Normal", [("The results were ", ""), ("very good", "b"), (" this year.", "")]),
    ("Normal", [("Please read ", ""), ("the manual", "link:https://example.com/manual"), (" before you start.", "")]),
    ("Normal", [("Our team grew quickly", ""), ("", "note"), (". We hired ", ""), ("ten", "b"), (" new people.", "")]),
    ("List Bullet", [("Open the ", ""), ("red", "c"), (" box.", "")]),
    ("List Bullet", [("Do ", ""), ("not", "i"), (" touch the wire.", "")]),
    ("List Bullet", [("Call ", ""), ("Tom", "b"), (" if you need help.", "")]),
    ("Normal", [("I have never seen anything like this.", "i"), (" It was amazing.", "")]),
    ("Normal", [("Visit ", ""), ("our website", "link:https://example.com"), (" for more information.", "")]),
    ("Normal", [("The meeting is on ", ""), ("Monday", "u"), (".", "")]),
    ("Normal", [("My sister", "b"), (" likes ", ""), ("music", "i"), (".", "")]),
    ("Normal", [("Where is the train station?", "")]),
    ("Normal", [("This is an ", ""), ("important", "c"), (" question.", "")]),
]
TABLE = [[("Name", "b"), ("Role", "b")], [("Tom is our ", ""), ("new teacher", "i")]]


def _run(paragraph, text: str, fmt: str):
    from docx.shared import RGBColor

    run = paragraph.add_run(text)
    run.bold = fmt == "b" or None
    run.italic = fmt == "i" or None
    run.underline = fmt == "u" or None
    if fmt == "c":
        run.font.color.rgb = RGBColor(0xC0, 0x00, 0x00)
    return run


def _hyperlink(paragraph, text: str, url: str) -> None:
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.oxml import parse_xml

    rid = paragraph.part.relate_to(url, RT.HYPERLINK, is_external=True)
    paragraph._p.append(
        parse_xml(
            f'<w:hyperlink xmlns:w="{W_NS}" xmlns:r="{R_NS}" r:id="{rid}"><w:r><w:rPr>'
            f'<w:color w:val="0563C1"/><w:u w:val="single"/></w:rPr><w:t xml:space="preserve">{text}</w:t>'
            f"</w:r></w:hyperlink>"
        )
    )


def _note(paragraph) -> None:
    from docx.oxml import parse_xml

    paragraph._p.append(
        parse_xml(
            f'<w:r xmlns:w="{W_NS}"><w:rPr><w:vertAlign w:val="superscript"/></w:rPr>'
            f'<w:footnoteReference w:id="1"/></w:r>'
        )
    )


def build_docx(path: Path) -> Path:
    """Write the formatting test document to ``path``."""
    import docx
    from docx.opc.constants import CONTENT_TYPE as CT
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    doc = docx.Document()
    for style, parts in PARAGRAPHS:
        paragraph = doc.add_paragraph(style=style)
        for text, fmt in parts:
            if fmt.startswith("link:"):
                _hyperlink(paragraph, text, fmt[5:])
            elif fmt == "note":
                _note(paragraph)
            else:
                _run(paragraph, text, fmt)
    table = doc.add_table(rows=len(TABLE), cols=2)
    for r, row in enumerate(TABLE):
        if r == 0:
            for c, (text, fmt) in enumerate(row):
                _run(table.cell(0, c).paragraphs[0], text, fmt)
        else:
            cell = table.cell(r, 0).paragraphs[0]
            _run(cell, row[0][0], row[0][1])
            _run(cell, row[1][0], row[1][1])
            _run(table.cell(r, 1).paragraphs[0], "Teacher", "")
    notes = Part(PackURI("/word/footnotes.xml"), CT.WML_FOOTNOTES, FOOTNOTES.encode(), doc.part.package)
    doc.part.relate_to(notes, RT.FOOTNOTES)
    doc.save(path)
    return path
