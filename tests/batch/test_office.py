"""PowerPoint and Excel: text (and run formatting) translated in the package's XML; formulas,
numbers, dates, pictures and every other part untouched; the files reopen in python-pptx and
openpyxl, the libraries that write them."""

from __future__ import annotations

import datetime
import io
import zipfile

import openpyxl
import pytest
from openpyxl.cell.rich_text import CellRichText, TextBlock
from openpyxl.cell.text import InlineFont
from pptx import Presentation
from pptx.util import Inches

from desktop_mt.batch import BatchInputError, translate_file
from desktop_mt.engine.testing import ScriptedTranslator

from .fake_translator import fake_translation


def _translator() -> ScriptedTranslator:
    return ScriptedTranslator(fake_translation, name="fake")


def _workbook(path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws["A1"] = "Monthly sales report"
    ws["A2"], ws["B2"], ws["C2"] = "Units sold", 120, 3.5
    ws["A3"], ws["B3"] = "Total", "=SUM(B2:B2)"
    ws["A4"] = datetime.date(2024, 3, 1)
    ws["A5"] = CellRichText(["Sales are ", TextBlock(InlineFont(b=True), "up"), " this month."])
    second = wb.create_sheet("Notes")
    second["A1"] = "Prices include tax."
    wb.save(path)


def _deck(path) -> None:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = "Quarterly review"
    frame = slide.placeholders[1].text_frame
    frame.text = "Sales grew in every region."
    paragraph = frame.add_paragraph()
    for text, bold in (("The ", None), ("new model", True), (" sold best.", None)):
        run = paragraph.add_run()
        run.text = text
        run.font.bold = bold
    table = slide.shapes.add_table(2, 2, Inches(1), Inches(4), Inches(4), Inches(1)).table
    for (row, col), text in {(0, 0): "Region", (0, 1): "Growth", (1, 0): "North", (1, 1): "12%"}.items():
        table.cell(row, col).text = text
    slide.notes_slide.notes_text_frame.text = "Mention the new model first."
    prs.save(path)


def _untouched_entries(before: bytes, after: bytes, changed: set[str]) -> None:
    """Every ZIP entry but the text parts is byte for byte what it was."""
    old, new = zipfile.ZipFile(io.BytesIO(before)), zipfile.ZipFile(io.BytesIO(after))
    assert old.namelist() == new.namelist()
    for name in old.namelist():
        if name not in changed:
            assert old.read(name) == new.read(name), name


def test_a_workbook_keeps_formulas_numbers_and_dates_and_reopens(tmp_path):
    src = tmp_path / "sales.xlsx"
    _workbook(src)
    dst = translate_file(src, None, _translator())
    assert dst == tmp_path / "sales.zh.xlsx"
    # (openpyxl writes text cells as inline strings, in the sheets themselves)
    texts = {"xl/sharedStrings.xml", "xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml"}
    _untouched_entries(src.read_bytes(), dst.read_bytes(), texts)
    wb = openpyxl.load_workbook(dst, rich_text=True)
    ws = wb["Sales"]
    assert ws["A1"].value == fake_translation("Monthly sales report")
    assert (ws["B2"].value, ws["C2"].value) == (120, 3.5)
    assert ws["B3"].value == "=SUM(B2:B2)"
    assert ws["A4"].value == datetime.datetime(2024, 3, 1)
    rich = ws["A5"].value
    assert isinstance(rich, CellRichText)
    bold = [block for block in rich if isinstance(block, TextBlock) and block.font.b]
    assert [block.text for block in bold] == [fake_translation("up")]
    assert wb["Notes"]["A1"].value == fake_translation("Prices include tax.")
    assert wb.sheetnames == ["Sales", "Notes"]


def test_a_deck_keeps_its_runs_table_and_notes_and_reopens(tmp_path):
    src = tmp_path / "review.pptx"
    _deck(src)
    dst = translate_file(src, None, _translator())
    assert dst == tmp_path / "review.zh.pptx"
    _untouched_entries(src.read_bytes(), dst.read_bytes(), {"ppt/slides/slide1.xml", "ppt/notesSlides/notesSlide1.xml"})
    slide = Presentation(str(dst)).slides[0]
    assert slide.shapes.title.text == fake_translation("Quarterly review")
    body = slide.placeholders[1].text_frame.paragraphs
    assert body[0].text == fake_translation("Sales grew in every region.")
    runs = [(run.text, run.font.bold) for run in body[1].runs]
    assert (fake_translation("new model"), True) in runs
    assert "".join(text for text, _ in runs) == fake_translation("The new model sold best.")
    table = next(shape for shape in slide.shapes if shape.has_table).table
    assert [[c.text for c in row.cells] for row in table.rows] == [
        [fake_translation("Region"), fake_translation("Growth")],
        [fake_translation("North"), "12%"],
    ]
    assert slide.notes_slide.notes_text_frame.text == fake_translation("Mention the new model first.")


def test_a_line_break_in_a_slide_paragraph_is_kept_between_its_sentences(tmp_path):
    src = tmp_path / "br.pptx"
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text_frame.text = "First line.\vSecond line."  # \v: python-pptx's a:br
    prs.save(src)
    dst = translate_file(src, None, _translator())
    title = Presentation(str(dst)).slides[0].shapes.title.text_frame.text
    assert title == fake_translation("First line.") + "\v" + fake_translation("Second line.")


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("bad.xlsx", b"not a zip at all", "not a valid .xlsx file"),
        ("bad.pptx", b"PK\x05\x06" + bytes(18), "not a .pptx file"),
    ],
)
def test_a_broken_office_file_is_named_and_nothing_is_written(tmp_path, name, data, message):
    src = tmp_path / name
    src.write_bytes(data)
    with pytest.raises(BatchInputError, match=message) as caught:
        translate_file(src, None, _translator())
    assert str(caught.value).startswith(f"{src}: ")
    assert not list(tmp_path.glob("bad.zh.*"))
