"""TMX 1.4b import and export (translate-toolkit): a CAT tool's file keeps every unit, and
export then import gives the same entries."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from desktop_mt.tm import TranslationMemory
from desktop_mt.tm.tmx import TMXError, export_tmx, import_tmx, read_tmx

CAT_FILE = Path(__file__).with_name("cat_tool.tmx")


def _comparable(entries):
    return sorted((dataclasses.replace(e, id=0) for e in entries), key=repr)


def test_a_cat_tool_file_keeps_every_unit_and_its_details():
    entries, skipped = read_tmx(CAT_FILE)
    assert skipped == [] and len(entries) == 5
    assert {e.direction for e in entries} == {"en-zh"}  # from the header's srclang EN-US
    first = entries[0]
    assert first.source == "Click Save to keep your changes." and first.target == "单击保存以保留更改。"
    assert '<bpt i="1" type="bold">&lt;b&gt;</bpt>Save<ept i="1">&lt;/b&gt;</ept>' in first.source_seg
    assert (first.created, first.changed, first.creator) == ("20240115T093000Z", "20240116T101500Z", "TRANSLATOR01")
    assert first.note == "Checked by reviewer"
    assert first.props == (("x-Project:MultiplePicklist", "Manual"), ("x-Origin", "TM"))
    assert dict(first.extra) == {
        "tuid": "1",
        "changeid": "REVIEWER02",
        "lastusagedate": "20240301T080000Z",
        "usagecount": "3",
    }
    assert (first.source_lang, first.target_lang) == ("EN-US", "zh-CN")
    assert entries[1].source == "Press Enter." and entries[1].target == "按回车键。"
    assert [e.target for e in entries if e.source == "The file was saved."] == ["文件已保存。", "文件已经保存。"]
    assert entries[4].source == "Version & build: <1.2>" and entries[4].source_seg is None  # escapes, no codes
    assert entries[4].target_lang == "zh-Hans"


def test_import_into_the_memory_matches_the_plain_text():
    memory = TranslationMemory(":memory:")
    report = import_tmx(memory, CAT_FILE)
    assert (report.added, report.duplicates, report.skipped) == (5, 0, [])
    assert memory.exact("Click Save to keep your changes.", "en-zh").entry.target == "单击保存以保留更改。"
    again = import_tmx(memory, CAT_FILE)
    assert (again.added, again.duplicates) == (0, 5) and memory.count() == 5  # importing twice adds nothing


def test_the_chinese_side_serves_the_other_direction():
    memory = TranslationMemory(":memory:")
    import_tmx(memory, CAT_FILE, direction="zh-en")
    assert memory.exact("按回车键。", "zh-en").entry.target == "Press Enter."
    assert memory.count("en-zh") == 0


def test_round_trip_export_then_import_is_equal(tmp_path):
    memory = TranslationMemory(":memory:")
    import_tmx(memory, CAT_FILE)
    memory.add("Good night.", "晚安。", "en-zh", machine="好夜。", note="first line\nsecond line")
    memory.add("晚安。", "Good night.", "zh-en")
    out = tmp_path / "export.tmx"
    assert export_tmx(memory, out, "en-zh") == 6
    fresh = TranslationMemory(":memory:")
    report = import_tmx(fresh, out)
    assert report.added == 6 and report.skipped == []
    assert _comparable(fresh.search(limit=None)) == _comparable(memory.search(direction="en-zh", limit=None))
    text = out.read_text(encoding="utf-8")
    assert '<ph x="1" type="lb">&lt;br/&gt;</ph>' in text and 'srclang="en-US"' in text
    # a second round gives the same file body (only the header's date may differ)
    second = tmp_path / "second.tmx"
    export_tmx(fresh, second, "en-zh")
    body = lambda p: p.read_text(encoding="utf-8").split("<body>")[1]  # noqa: E731
    assert body(second) == body(out)


def test_units_without_both_languages_are_reported(tmp_path):
    path = tmp_path / "partial.tmx"
    path.write_text(
        '<?xml version="1.0"?><tmx version="1.4"><header srclang="en" datatype="plaintext" '
        'segtype="sentence" adminlang="en" o-tmf="x" creationtool="x" creationtoolversion="1"/><body>'
        '<tu><tuv xml:lang="en"><seg>Only English.</seg></tuv><tuv xml:lang="de"><seg>Nur.</seg></tuv></tu>'
        '<tu><tuv xml:lang="en"><seg>Yes.</seg></tuv><tuv xml:lang="zh"><seg>是。</seg></tuv></tu>'
        "</body></tmx>",
        encoding="utf-8",
    )
    memory = TranslationMemory(":memory:")
    report = import_tmx(memory, path)
    assert report.added == 1 and report.skipped == ["unit 1: no zh segment"]
    assert "1 skipped" in str(report)


@pytest.mark.parametrize(
    "content, message",
    [("not xml at all <", "not a TMX file"), ("<?xml version='1.0'?><html><body/></html>", "not a TMX file")],
)
def test_a_bad_file_is_named(tmp_path, content, message):
    path = tmp_path / "bad.tmx"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(TMXError, match=message) as caught:
        read_tmx(path)
    assert "bad.tmx" in str(caught.value)
    with pytest.raises(TMXError, match="cannot be read"):
        read_tmx(tmp_path / "missing.tmx")


def test_broken_xml_names_the_file_and_the_line(tmp_path):
    path = tmp_path / "broken.tmx"
    lines = CAT_FILE.read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines, start=1) if 'tuid="2"' in line)
    lines[number - 1] = lines[number - 1].replace('tuid="2"', 'tuid="2" <oops')
    path.write_text("\n".join(lines), encoding="utf-8")
    memory = TranslationMemory(":memory:")
    with pytest.raises(TMXError) as caught:
        import_tmx(memory, path)
    assert caught.value.line == number and caught.value.path == path
    assert str(caught.value).startswith(f"{path}, line {number}: not a TMX file (")
    assert memory.count() == 0
