"""Bilingual output, joined PDF lines and already-Chinese counts in file jobs (txt, srt, docx)."""

from __future__ import annotations

import docx
import pytest

from desktop_mt import GenerationOptions, TranslationCancelled, Translator
from desktop_mt.batch import JobSummary, translate_file

from .fake_translator import FakeTranslator, fake_translation

SRT = (
    "1\n00:00:01,000 --> 00:00:03,500\nWhere is the train station?\n\n"
    "2\n00:00:04,000 --> 00:00:06,000\n<i>I love you.</i>\n\n"
    "3\n00:00:06,500 --> 00:00:09,000\n- Are you coming tomorrow?\n- Yes, I will be there.\n\n"
    "4\n00:00:09,500 --> 00:00:11,000\n你好，世界。\n"
)


def _summaries(src, dst, translator, **kwargs) -> tuple[str, list[JobSummary]]:
    found: list[JobSummary] = []
    translate_file(src, dst, translator, on_summary=found.append, **kwargs)
    return dst.read_bytes().decode("utf-8"), found


def test_txt_bilingual_puts_each_translation_under_its_line(tmp_path, fake):
    src = tmp_path / "a.txt"
    src.write_bytes("Hello there.\r\n\r\n```\ncode line\n```\n你好。\r\n42\r\nLast line".encode())
    out, (summary,) = _summaries(src, tmp_path / "a.zh.txt", fake, bilingual=True)
    assert out == (
        "Hello there.\r\n"
        + fake_translation("Hello there.")
        + "\r\n\r\n```\ncode line\n```\n"
        + "你好。\r\n"
        + fake_translation("你好。")
        + "\r\n42\r\n"
        + fake_translation("42")
        + "\r\n"
        + "Last line\r\n"
        + fake_translation("Last line")
    )
    assert (summary.segments, summary.kept) == (4, 1)
    assert str(summary) == "4 segments, 1 kept as they were (no Chinese->English model)"


def test_txt_join_lines_joins_pdf_lines_and_keeps_crlf(tmp_path, fake):
    src = tmp_path / "p.txt"
    src.write_bytes(b"The first sen-\r\ntence goes on\r\nhere.\r\n\r\n1. An item\r\n2. Another\r\n")
    translate_file(src, tmp_path / "p.zh.txt", fake, join_lines=True)
    assert sorted(fake.batches[0]) == sorted(["The first sentence goes on here.", "1. An item", "2. Another"])
    assert (tmp_path / "p.zh.txt").read_bytes().decode() == (
        fake_translation("The first sentence goes on here.")
        + "\r\n\r\n"
        + fake_translation("1. An item")
        + "\r\n"
        + fake_translation("2. Another")
        + "\r\n"
    )


def test_srt_bilingual_keeps_the_english_above(tmp_path, fake):
    src = tmp_path / "t.srt"
    src.write_text(SRT, encoding="utf-8")
    out, (summary,) = _summaries(src, tmp_path / "t.zh.srt", fake, bilingual=True)
    cues = out.split("\n\n")
    first = cues[0].split("\n")[2:]  # the Chinese is wrapped to two lines of at most 16 characters
    assert first[0] == "Where is the train station?" and "".join(first[1:]) == fake_translation(first[0])
    assert cues[1].split("\n")[2:] == ["<i>I love you.</i>", "<i>" + fake_translation("I love you.") + "</i>"]
    assert cues[2].split("\n")[2:] == [
        "- Are you coming tomorrow?",
        "- Yes, I will be there.",
        "- " + fake_translation("Are you coming tomorrow?"),
        "- " + fake_translation("Yes, I will be there."),
    ]
    assert summary.kept == 1


def test_srt_bilingual_already_chinese_cue_is_written_once(tmp_path):
    src = tmp_path / "t.srt"
    src.write_text(SRT, encoding="utf-8")
    out = translate_file(src, tmp_path / "t.zh.srt", Translator(), bilingual=True).read_text("utf-8")
    assert out.endswith("4\n00:00:09,500 --> 00:00:11,000\n你好，世界。\n")
    assert out.startswith("1\n00:00:01,000 --> 00:00:03,500\nWhere is the train station?\n")
    assert out.count("-->") == 4


def _docx_with(tmp_path, texts: list[str]):
    path = tmp_path / "d.docx"
    document = docx.Document()
    document.add_heading(texts[0], level=1)
    for text in texts[1:]:
        paragraph = document.add_paragraph(text)
        paragraph.runs[0].bold = True
    document.save(path)
    return path


def test_docx_bilingual_adds_a_translated_copy_after_each_paragraph(tmp_path, fake):
    src = _docx_with(tmp_path, ["Annual report", "Sales grew.", "这段已经是中文。"])
    translate_file(src, tmp_path / "d.zh.docx", fake, bilingual=True)
    paragraphs = docx.Document(tmp_path / "d.zh.docx").paragraphs
    assert [p.text for p in paragraphs] == [
        "Annual report",
        fake_translation("Annual report"),
        "Sales grew.",
        fake_translation("Sales grew."),
        "这段已经是中文。",
        fake_translation("这段已经是中文。"),
    ]
    assert paragraphs[1].style.name == "Heading 1" and paragraphs[3].runs[0].bold


def test_docx_bilingual_leaves_an_unchanged_paragraph_alone(tmp_path):
    src = _docx_with(tmp_path, ["Annual report", "这段已经是中文。"])
    translate_file(src, tmp_path / "d.zh.docx", Translator(), bilingual=True)
    texts = [p.text for p in docx.Document(tmp_path / "d.zh.docx").paragraphs]
    assert texts[0] == "Annual report" and texts[2:] == ["这段已经是中文。"] and texts[1] != texts[0]


def test_no_summary_count_when_keep_cjk_is_off(tmp_path, fake):
    src = tmp_path / "a.txt"
    src.write_text("你好。\nHello.\n", encoding="utf-8")
    _out, (summary,) = _summaries(src, tmp_path / "b.txt", fake, options=GenerationOptions(keep_cjk=False))
    assert summary.kept == 0 and str(summary) == "2 segments"


@pytest.mark.parametrize(
    "first, second",
    [
        ({}, {"bilingual": True}),
        ({"bilingual": True}, {}),
        ({}, {"join_lines": True}),
    ],
)
def test_resume_with_another_layout_starts_over(tmp_path, first, second):
    src = tmp_path / "in.txt"  # lines of one wrapped paragraph (join_lines makes it one line)
    src.write_text("\n".join(f"line {i} of a wrapped paragraph" for i in range(40)) + "\n", encoding="utf-8")
    dst = tmp_path / "out.txt"
    stopped = FakeTranslator(cancel_after_calls=2)
    with pytest.raises(TranslationCancelled):
        translate_file(src, dst, stopped, cancel=stopped.cancel_event, chunk_size=7, **first)
    reports = []
    again = FakeTranslator()
    translate_file(src, dst, again, resume=True, on_resume=reports.append, **second)
    assert not reports[0].resumed and "the output layout changed" in str(reports[0])
    name, message = next(iter(first or second)), str(reports[0])
    assert f"({name} default -> True)" in message or f"({name} True -> default)" in message, message
    assert again.lines_translated == (1 if second.get("join_lines") else 40)  # joined: one paragraph


def test_resume_with_the_same_layout_continues(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(f"Line {i}." for i in range(40)) + "\n", encoding="utf-8")
    dst = tmp_path / "out.txt"
    stopped = FakeTranslator(cancel_after_calls=2)
    with pytest.raises(TranslationCancelled):
        translate_file(src, dst, stopped, cancel=stopped.cancel_event, chunk_size=7, bilingual=True)
    again = FakeTranslator()
    translate_file(src, dst, again, resume=True, bilingual=True)
    assert again.lines_translated == 40 - stopped.lines_translated
    assert dst.read_text("utf-8").splitlines()[:2] == ["Line 0.", fake_translation("Line 0.")]


def test_docx_bilingual_on_a_full_document(tmp_path, fake):
    """Tables, a picture, fields, headers/footers and footnotes: the copies hold the
    translation, the picture stays only in the source paragraph, the file opens again."""
    from docx.oxml.ns import qn

    from .test_docx import _build

    src = tmp_path / "report.docx"
    _build(src, tmp_path)
    out = translate_file(src, tmp_path / "report.zh.docx", fake, bilingual=True)
    before, after = docx.Document(src), docx.Document(out)
    texts = [p.text for p in after.paragraphs]
    assert texts[:2] == ["Annual report", fake_translation("Annual report")]
    pictures = [p for p in after.paragraphs if p._p.findall(".//" + qn("w:drawing"))]
    assert len(pictures) == 1 and pictures[0].text.startswith("Before the picture.")
    picture_copy = after.paragraphs[texts.index(pictures[0].text) + 1]
    assert picture_copy.text == fake_translation("Before the picture.") + "  " + fake_translation("After the picture.")
    cell = after.tables[0].cell(0, 0)
    assert [p.text for p in cell.paragraphs] == ["Quarter", fake_translation("Quarter")]
    header = after.sections[0].header
    assert [p.text for p in header.paragraphs] == ["Default header", fake_translation("Default header")]
    assert len(after.paragraphs) == len(before.paragraphs) + sum(1 for p in before.paragraphs if p.text.strip())


def test_docx_copy_drops_unique_ids_and_bookmarks(tmp_path, fake):
    from docx.oxml import parse_xml

    src = tmp_path / "ids.docx"
    document = docx.Document()
    paragraph = document.add_paragraph()
    w14 = "http://schemas.microsoft.com/office/word/2010/wordml"
    paragraph._p.set(f"{{{w14}}}paraId", "1A2B3C4D")
    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    paragraph._p.append(parse_xml(f'<w:bookmarkStart {w} w:id="0" w:name="intro"/>'))
    paragraph.add_run("Introduction text.")
    paragraph._p.append(parse_xml(f'<w:bookmarkEnd {w} w:id="0"/>'))
    document.save(src)
    translate_file(src, tmp_path / "ids.zh.docx", fake, bilingual=True)
    original, copy = docx.Document(tmp_path / "ids.zh.docx").paragraphs
    assert copy.text == fake_translation("Introduction text.") and original.text == "Introduction text."
    assert original._p.get(f"{{{w14}}}paraId") == "1A2B3C4D" and copy._p.get(f"{{{w14}}}paraId") is None
    assert len(original._p.findall(".//{*}bookmarkStart")) == 1 and not copy._p.findall(".//{*}bookmarkStart")
