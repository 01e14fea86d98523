"""DOCX round trip: body, styles, split runs, tables (nested), every header/footer variant,
fields, images and footnotes."""

from __future__ import annotations

import struct
import zlib

import docx
import pytest
from docx.opc.constants import CONTENT_TYPE as CT
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from docx.oxml import parse_xml
from docx.oxml.ns import qn
from docx.shared import Pt

from desktop_mt.batch import BatchInputError, translate_file

from .fake_translator import fake_translation

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
FOOTNOTES = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:footnotes {W}>
<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>
<w:footnote w:id="1"><w:p><w:r><w:t xml:space="preserve">A footnote explains it.</w:t></w:r></w:p></w:footnote>
</w:footnotes>"""


def _png() -> bytes:
    """A 1x1 PNG, so the document holds a real image."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


def _page_field(paragraph) -> None:
    """Append a complex PAGE field (begin / code / separate / result "1" / end)."""
    for xml in (
        '<w:r {W}><w:fldChar w:fldCharType="begin"/></w:r>',
        '<w:r {W}><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r>',
        '<w:r {W}><w:fldChar w:fldCharType="separate"/></w:r>',
        "<w:r {W}><w:t>1</w:t></w:r>",
        '<w:r {W}><w:fldChar w:fldCharType="end"/></w:r>',
    ):
        paragraph._p.append(parse_xml(xml.format(W=W)))


def _build(path, tmp_path):
    doc = docx.Document()
    doc.add_heading("Annual report", level=1)
    p = doc.add_paragraph("The results were ", style="List Bullet")
    bold = p.add_run("very good")
    bold.bold = True
    p.add_run(" this year.").font.size = Pt(14)
    p = doc.add_paragraph()
    p.add_run("Name:")
    p.add_run().add_tab()
    p.add_run("Alice Smith")
    image = tmp_path / "dot.png"
    image.write_bytes(_png())
    p = doc.add_paragraph("Before the picture. ")
    p.add_run().add_picture(str(image))
    p.add_run(" After the picture.")
    table = doc.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Quarter"
    table.cell(0, 1).text = "Revenue"
    table.cell(1, 0).text = "Quarter"  # repeated cell text
    inner = table.cell(1, 1).add_table(rows=1, cols=1)
    inner.cell(0, 0).text = "Nested cell text"
    doc.add_paragraph("")
    doc.add_paragraph("   ")
    p = doc.add_paragraph("Read ")
    p._p.append(parse_xml(f'<w:hyperlink {W} w:anchor="x"><w:r><w:t>the manual</w:t></w:r></w:hyperlink>'))
    p.add_run(" first.")

    first = doc.sections[0]
    first.different_first_page_header_footer = True
    doc.settings.odd_and_even_pages_header_footer = True
    first.header.paragraphs[0].text = "Default header"
    first.first_page_header.paragraphs[0].text = "First page header"
    first.even_page_header.paragraphs[0].text = "Even page header"
    footer = first.footer.paragraphs[0]
    footer.text = "Page "
    _page_field(footer)
    first.first_page_footer.paragraphs[0].text = "First page footer"
    first.even_page_footer.paragraphs[0].text = "Even page footer"
    second = doc.add_section()
    second.header.is_linked_to_previous = False
    second.header.paragraphs[0].text = "Second section header"
    doc.add_paragraph("Text of the second section.")

    notes = Part(PackURI("/word/footnotes.xml"), CT.WML_FOOTNOTES, FOOTNOTES.encode(), doc.part.package)
    doc.part.relate_to(notes, RT.FOOTNOTES)
    doc.save(path)


@pytest.fixture
def translated(tmp_path, fake):
    src = tmp_path / "report.docx"
    _build(src, tmp_path)
    out = translate_file(src, None, fake)
    assert out.name == "report.zh.docx"
    return docx.Document(src), docx.Document(out), fake


def test_body_paragraphs_and_styles(translated):
    before, after, _ = translated
    assert [p.style.name for p in before.paragraphs] == [p.style.name for p in after.paragraphs]
    assert after.paragraphs[0].text == fake_translation("Annual report")
    assert after.paragraphs[-1].text == fake_translation("Text of the second section.")
    assert [p.text for p in after.paragraphs[4:6]] == ["", "   "]


def test_split_runs_follow_the_rule(translated):
    """Each run's formatting lands on the translation of its own words (tag projection)."""
    _, after, _ = translated
    runs = after.paragraphs[1].runs
    assert [r.text for r in runs] == [
        fake_translation("The results were"),
        fake_translation("very good"),
        fake_translation("this year."),
    ]
    assert [bool(r.bold) for r in runs] == [False, True, False]
    assert runs[2].font.size == Pt(14) and runs[0].font.size is None  # run formatting copied
    assert after.paragraphs[1].text == fake_translation("The results were very good this year.")


def test_tabs_images_and_fields_are_kept(translated):
    before, after, _ = translated
    assert after.paragraphs[2].text == (fake_translation("Name:") + "\t" + fake_translation("Alice Smith"))
    pic = after.paragraphs[3]
    assert len(pic._p.findall(".//" + qn("w:drawing"))) == 1
    assert pic.text == (
        fake_translation("Before the picture.") + "  " + fake_translation("After the picture.")
    )  # both spaces kept
    footer = after.sections[0].footer.paragraphs[0]
    assert [e.text for e in footer._p.iter(qn("w:instrText"))] == [" PAGE "]
    assert len(list(footer._p.iter(qn("w:fldChar")))) == 3
    assert footer.text == fake_translation("Page") + " 1"  # field result untouched


def test_hyperlinks_keep_their_text_inside_the_sentence(translated):
    """The link's words are translated with their sentence (one segment, one full stop) and
    the link sits on their translation."""
    _, after, fake = translated
    p = next(p for p in after.paragraphs if p._p.find(qn("w:hyperlink")) is not None)
    (link,) = p._p.findall(qn("w:hyperlink"))
    assert link.get(qn("w:anchor")) == "x"
    assert "".join(t.text for t in link.iter(qn("w:t"))) == fake_translation("the manual")
    assert "".join(t.text for t in p._p.iter(qn("w:t"))) == fake_translation("Read the manual first.")
    assert "Read the manual first." in [s for c in fake.batches for s in c]


def test_tables_nested_too(translated):
    _, after, fake = translated
    table = after.tables[0]
    assert table.cell(0, 0).text == table.cell(1, 0).text == fake_translation("Quarter")
    assert table.cell(0, 1).text == fake_translation("Revenue")
    assert table.cell(1, 1).tables[0].cell(0, 0).text == fake_translation("Nested cell text")
    assert [s for c in fake.batches for s in c].count("Quarter") == 1


def test_every_header_and_footer_variant(translated):
    _, after, _ = translated
    first, second = after.sections
    assert first.header.paragraphs[0].text == fake_translation("Default header")
    assert first.first_page_header.paragraphs[0].text == fake_translation("First page header")
    assert first.even_page_header.paragraphs[0].text == fake_translation("Even page header")
    assert first.first_page_footer.paragraphs[0].text == fake_translation("First page footer")
    assert first.even_page_footer.paragraphs[0].text == fake_translation("Even page footer")
    assert second.header.paragraphs[0].text == fake_translation("Second section header")
    assert first.different_first_page_header_footer
    assert after.settings.odd_and_even_pages_header_footer


def test_footnotes(translated):
    _, after, _ = translated
    part = next(r.target_part for r in after.part.rels.values() if r.reltype == RT.FOOTNOTES)
    assert fake_translation("A footnote explains it.").encode() in part.blob
    assert b"w:separator" in part.blob


def test_not_a_docx(tmp_path, fake):
    src = tmp_path / "broken.docx"
    src.write_bytes(b"this is not a zip file")
    with pytest.raises(BatchInputError, match="broken.docx: not a valid .docx"):
        translate_file(src, None, fake)
