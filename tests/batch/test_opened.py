"""A file opened once (``batch.open_file`` / ``plan_file``) names its output and is what
``translate_file(..., opened=...)`` translates, without reading or parsing the input again."""

from __future__ import annotations

import pytest

from desktop_mt import batch

from .fake_translator import fake_translation


def test_the_planned_file_is_translated_without_reading_it_again(fake, tmp_path, monkeypatch):
    src = tmp_path / "notes.txt"
    src.write_text("Where is the station?\n\nI love you.\n", encoding="utf-8")
    output, opened = batch.plan_file(src)
    assert output == tmp_path / "notes.zh.txt" and opened is not None
    src.write_text("changed after the plan\n", encoding="utf-8")  # the job translates what was named
    reads: list[object] = []
    monkeypatch.setattr(batch, "read_input", lambda path: reads.append(path) or b"")
    monkeypatch.setattr(batch, "load_document", lambda *args, **kwargs: reads.append(args) or None)
    assert batch.translate_file(src, None, fake, opened=opened) == output
    assert reads == []
    got = output.read_text(encoding="utf-8").splitlines()
    assert got == [fake_translation("Where is the station?"), "", fake_translation("I love you.")]
    assert opened.data is None  # the input's bytes were let go once keyed


def test_an_opened_file_is_translated_once_and_only_for_its_source(fake, tmp_path):
    src = tmp_path / "notes.txt"
    src.write_text("one\n", encoding="utf-8")
    opened = batch.open_file(src)
    with pytest.raises(ValueError, match="another one"):
        batch.translate_file(tmp_path / "other.txt", None, fake, opened=opened)
    batch.translate_file(src, None, fake, opened=opened)
    with pytest.raises(ValueError, match="translated already"):
        batch.translate_file(src, None, fake, opened=opened)


def test_a_mostly_chinese_file_is_planned_into_english_and_an_unreadable_one_as_zh(tmp_path):
    src = tmp_path / "notes.txt"
    src.write_text("火车站在哪里？\n", encoding="utf-8")
    assert batch.plan_file(src)[0] == tmp_path / "notes.en.txt"
    assert batch.plan_file(src, target="zh")[0] == tmp_path / "notes.zh.txt"
    assert batch.plan_file(tmp_path / "missing.txt") == (tmp_path / "missing.zh.txt", None)
    assert batch.planned_output(src) == tmp_path / "notes.en.txt"
