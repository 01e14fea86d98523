"""PDF with a text layer -> a translated .docx (and a bilingual one): lines rebuilt into
paragraphs, columns in reading order, a page break per page; no text layer, a password or a
damaged file is refused by name."""

from __future__ import annotations

import io

import docx
import pytest
from docx.oxml.ns import qn
from pypdf import PdfReader, PdfWriter

from desktop_mt.batch import BatchInputError, default_output_path, translate_file
from desktop_mt.engine.testing import ScriptedTranslator

from .fake_translator import fake_translation
from .pdf_maker import column, make_pdf

LEFT = [
    "The installer copies every file to the back-",
    "up folder. It runs once a day.",
    "",
    "Nothing is sent over the network.",
]
RIGHT = ["Settings are kept in one file.", "You can edit it with any text", "editor."]


def _two_columns(tmp_path):
    src = tmp_path / "paper.pdf"
    first = column(72, 720, LEFT) + column(320, 720, RIGHT)  # drawn column after column
    src.write_bytes(make_pdf([first, column(72, 720, ["Second page: the end."])]))
    return src


def _translator() -> ScriptedTranslator:
    return ScriptedTranslator(fake_translation, name="fake")


def _page_breaks(document) -> int:
    return sum(1 for br in document.element.body.iter(qn("w:br")) if br.get(qn("w:type")) == "page")


def test_a_two_column_pdf_becomes_a_docx_of_paragraphs_with_its_page_breaks(tmp_path):
    src = _two_columns(tmp_path)
    assert default_output_path(src) == tmp_path / "paper.zh.docx"
    dst = translate_file(src, None, _translator())
    assert dst == tmp_path / "paper.zh.docx"
    document = docx.Document(str(dst))
    texts = [p.text for p in document.paragraphs if p.text]
    f = fake_translation
    assert texts == [
        f("The installer copies every file to the backup folder.") + f("It runs once a day."),
        f("Nothing is sent over the network."),
        f("Settings are kept in one file.") + f("You can edit it with any text editor."),
        f("Second page: the end."),
    ]
    assert _page_breaks(document) == 1


def test_the_bilingual_docx_has_source_and_translation_side_by_side(tmp_path):
    src = _two_columns(tmp_path)
    dst = translate_file(src, tmp_path / "both.docx", _translator(), bilingual=True)
    tables = docx.Document(str(dst)).tables
    assert len(tables) == 2  # one per page
    rows = [[cell.text for cell in row.cells] for row in tables[0].rows]
    assert rows[1] == ["Nothing is sent over the network.", fake_translation("Nothing is sent over the network.")]
    assert rows[0][0] == "The installer copies every file to the backup folder. It runs once a day."


def _encrypted(password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf([column(72, 720, ["Secret text."])]))))
    writer.encrypt(user_password=password, owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_pdf_locked_only_against_copying_is_read(tmp_path):
    src = tmp_path / "locked.pdf"
    src.write_bytes(_encrypted(""))  # opens without a password
    dst = translate_file(src, None, _translator())
    assert [p.text for p in docx.Document(str(dst)).paragraphs if p.text] == [fake_translation("Secret text.")]


@pytest.mark.parametrize(
    "data, message",
    [
        (make_pdf([[], []]), "this PDF has no text layer (scanned pages are pictures); read it with OCR"),
        (_encrypted("secret"), "this PDF is encrypted with a password"),
        (b"%PDF-1.4\nthis is not a PDF body", "not a readable PDF"),
    ],
    ids=["scanned", "password", "damaged"],
)
def test_unreadable_pdfs_are_refused_by_name_and_nothing_is_written(tmp_path, data, message):
    src = tmp_path / "input.pdf"
    src.write_bytes(data)
    with pytest.raises(BatchInputError) as caught:
        translate_file(src, None, _translator())
    assert str(caught.value).startswith(f"{src}: {message}")
    assert not (tmp_path / "input.zh.docx").exists()
