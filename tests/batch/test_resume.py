"""The journal and resume, in-process: cancel, torn lines, changed inputs and options."""

from __future__ import annotations

import json
import threading

import pytest

from desktop_mt import TranslationCancelled
from desktop_mt.batch import translate_file
from desktop_mt.batch.journal import journal_path, read_journal
from .fake_translator import FakeTranslator

LINES = [f"Sentence number {i} of the file." for i in range(40)] + ["", "Sentence number 3 of the file."]


def _src(tmp_path, lines=LINES):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return src


def _clean_run(tmp_path, src):
    return translate_file(src, tmp_path / "clean.txt", FakeTranslator()).read_bytes()


def _cancelled_run(src, dst, chunks_before_cancel=2):
    translator = FakeTranslator(cancel_after_calls=chunks_before_cancel)
    with pytest.raises(TranslationCancelled):
        translate_file(src, dst, translator, cancel=translator.cancel_event, chunk_size=7)
    return translator


def test_cancel_keeps_journal_and_resume_finishes_without_repeats(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    first = _cancelled_run(src, dst)
    assert not dst.exists()
    assert journal_path(dst).exists()
    assert first.lines_translated == 14  # two chunks of 7, then the cancel

    progress = []
    second = FakeTranslator()
    translate_file(src, dst, second, resume=True, chunk_size=7,
                   progress=lambda d, t: progress.append((d, t)))
    done_before = set(s for c in first.calls for s in c)
    done_after = [s for c in second.calls for s in c]
    assert not done_before & set(done_after)  # nothing translated twice
    assert len(done_before) + len(done_after) == 40  # 40 distinct segments, none lost
    assert progress[0] == (14, 40) and progress[-1] == (40, 40)
    assert dst.read_bytes() == _clean_run(tmp_path, src)
    assert not journal_path(dst).exists()


def test_without_resume_the_journal_is_ignored(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_run(src, dst)
    again = FakeTranslator()
    translate_file(src, dst, again)
    assert again.lines_translated == 40


def test_changed_input_is_not_resumed(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_run(src, dst)
    changed = [line.replace("file", "book") for line in LINES]
    _src(tmp_path, changed)
    again = FakeTranslator()
    translate_file(src, dst, again, resume=True)
    assert again.lines_translated == 40
    assert dst.read_bytes() == _clean_run(tmp_path, src)


def test_changed_options_are_not_resumed(tmp_path):
    from desktop_mt import GenerationOptions

    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_run(src, dst)
    again = FakeTranslator()
    translate_file(src, dst, again, resume=True, options=GenerationOptions(beams=2))
    assert again.lines_translated == 40


def test_torn_last_line_is_tolerated(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_run(src, dst)
    jpath = journal_path(dst)
    lines = jpath.read_bytes().split(b"\n")
    # Simulate power loss in the middle of writing the second chunk.
    jpath.write_bytes(b"\n".join(lines[:2]) + b"\n" + lines[2][: len(lines[2]) // 2])
    again = FakeTranslator()
    translate_file(src, dst, again, resume=True, chunk_size=7)
    assert again.lines_translated == 33  # the torn chunk's 7 are redone, no more, no less
    assert dst.read_bytes() == _clean_run(tmp_path, src)


def test_resume_twice_after_a_torn_line(tmp_path):
    """The recovered entries are rewritten, so appending after a torn line stays readable."""
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_run(src, dst, chunks_before_cancel=1)
    jpath = journal_path(dst)
    jpath.write_bytes(jpath.read_bytes() + b'{"done": [[3, "ab')  # torn
    second = FakeTranslator(cancel_after_calls=1)
    with pytest.raises(TranslationCancelled):
        translate_file(src, dst, second, resume=True, cancel=second.cancel_event, chunk_size=7)
    third = FakeTranslator()
    translate_file(src, dst, third, resume=True, chunk_size=7)
    assert second.lines_translated + third.lines_translated == 33
    assert dst.read_bytes() == _clean_run(tmp_path, src)


def test_journal_entries_with_a_wrong_source_hash_are_dropped(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_run(src, dst)
    jpath = journal_path(dst)
    header, *chunks = jpath.read_text("utf-8").splitlines()
    entry = json.loads(chunks[0])
    entry["done"][0][1] = "0" * 16
    jpath.write_text("\n".join([header, json.dumps(entry), *chunks[1:]]) + "\n", "utf-8")
    again = FakeTranslator()
    translate_file(src, dst, again, resume=True)
    assert again.lines_translated == 27
    assert dst.read_bytes() == _clean_run(tmp_path, src)


def test_read_journal_of_garbage_is_empty(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_bytes(b"\xff\xfe not json\n")
    assert read_journal(path, "key", ["a"]) == {}
    assert read_journal(tmp_path / "missing.jsonl", "key", ["a"]) == {}


def test_cancel_from_another_thread(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(TranslationCancelled):
        translate_file(src, dst, FakeTranslator(), cancel=cancel)
    assert not dst.exists() and journal_path(dst).exists()
