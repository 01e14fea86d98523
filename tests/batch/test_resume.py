"""The journal and resume, in-process: cancel, torn lines, changed inputs and options."""

from __future__ import annotations

import json
import threading

import pytest

from desktop_mt import TranslationCancelled
from desktop_mt.batch import translate_file
from desktop_mt.batch.journal import JobKey, journal_path, read_journal

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
    translate_file(src, dst, second, resume=True, chunk_size=7, progress=lambda d, t: progress.append((d, t)))
    done_before = set(s for c in first.batches for s in c)
    done_after = [s for c in second.batches for s in c]
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
    key = JobKey.make(b"input", {"format": "txt"})
    garbage = read_journal(path, key, ["a"])
    assert garbage.done == {} and garbage.problem == f"{path} is not a desktop-mt journal"
    missing = read_journal(tmp_path / "missing.jsonl", key, ["a"])
    assert missing.done == {} and "there is no journal" in missing.problem


def test_cancel_from_another_thread(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(TranslationCancelled):
        translate_file(src, dst, FakeTranslator(), cancel=cancel)
    assert not dst.exists() and journal_path(dst).exists()


# --- what --resume says ------------------------------------------------------------------


def _resume(src, dst, translator=None, **kwargs):
    """Resume with ``translator``; returns (the ResumeReport, the translator)."""
    reports = []
    translator = translator or FakeTranslator()
    translate_file(src, dst, translator, resume=True, on_resume=reports.append, **kwargs)
    assert len(reports) == 1
    return reports[0], translator


def test_resume_reports_how_many_segments_it_recovered(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_run(src, dst)
    report, again = _resume(src, dst, chunk_size=7)
    assert report.resumed and (report.recovered, report.total) == (14, 40)
    assert str(report) == (
        f"resuming {src}: 14 of 40 segments recovered from {journal_path(dst)}, 26 left to translate"
    )
    assert again.lines_translated == 26


def test_resume_without_a_journal_says_it_starts_from_the_beginning(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    report, again = _resume(src, dst)
    assert not report.resumed and report.recovered == 0
    assert str(report) == (
        f"not resuming {src}, starting over: there is no journal {journal_path(dst)} of an earlier run"
    )
    assert again.lines_translated == 40


def _fp32():
    translator = FakeTranslator()
    translator.model_info.variant = "fp32"
    return translator


@pytest.mark.parametrize(
    "lines, translator, options, changed",
    [
        (LINES + ["One more line."], FakeTranslator, {}, "the input changed since the journal {j} was written"),
        (
            LINES,
            FakeTranslator,
            {"beams": 2, "max_length": 50},
            "the translation options changed "
            "since the journal {j} was written (beams default -> 2, max_length default -> 50)",
        ),
        (
            LINES[:-1],
            _fp32,
            {},
            "the input and the model or its variant changed since the journal {j} was written (variant int8 -> fp32)",
        ),
    ],
)
def test_resume_after_a_change_names_what_changed(tmp_path, lines, translator, options, changed):
    from desktop_mt import GenerationOptions

    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_run(src, dst)
    _src(tmp_path, lines)
    report, again = _resume(src, dst, translator(), options=GenerationOptions(**options))
    assert not report.resumed and report.recovered == 0
    assert str(report) == (f"not resuming {src}, starting over: " + changed.format(j=journal_path(dst)))
    assert again.lines_translated == len(set(lines) - {""})  # nothing reused


@pytest.mark.parametrize(
    "damage, problem",
    [
        (lambda text: "not a journal at all\n" + text, "{journal} is not a desktop-mt journal"),
        (
            lambda text: text.replace('"version": 2', '"version": 1', 1),
            "the journal {journal} was written by another version of desktop-mt",
        ),
        (lambda text: text.replace('"key": "', '"key": "0', 1), "the journal {journal} does not match this job"),
    ],
)
def test_resume_from_an_unusable_journal_says_why(tmp_path, damage, problem):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_run(src, dst)
    jpath = journal_path(dst)
    jpath.write_text(damage(jpath.read_text("utf-8")), "utf-8")
    report, again = _resume(src, dst)
    assert str(report) == f"not resuming {src}, starting over: " + problem.format(journal=jpath)
    assert again.lines_translated == 40


def test_an_unreadable_journal_is_reported_and_then_named_as_unwritable(tmp_path):
    from desktop_mt.batch import BatchOutputError

    src, dst = _src(tmp_path), tmp_path / "out.txt"
    journal_path(dst).mkdir()
    reports = []
    with pytest.raises(BatchOutputError, match="^" + str(journal_path(dst))):
        translate_file(src, dst, FakeTranslator(), resume=True, on_resume=reports.append)
    assert str(reports[0]) == (
        f"not resuming {src}, starting over: the journal {journal_path(dst)} cannot be read (Is a directory)"
    )


# --- the journal key and the batch size ----------------------------------------------------


def _cancelled_with_batch(src, dst, batch_size, invariant):
    translator = FakeTranslator(cancel_after_calls=2, batch_invariant=invariant, batch_size=batch_size)
    with pytest.raises(TranslationCancelled):
        translate_file(src, dst, translator, cancel=translator.cancel_event, chunk_size=7)


def test_batch_size_is_in_the_key_only_when_the_model_is_not_batch_invariant(tmp_path):
    from desktop_mt import GenerationOptions
    from desktop_mt.batch import job_key

    data = b"some input"

    def key(size, invariant):
        return job_key(data, "txt", None, FakeTranslator(batch_invariant=invariant, batch_size=size), None)

    assert key(16, True) == key(32, True) and "batch_size" not in key(16, True).settings
    assert key(16, False) != key(32, False) and key(16, False).settings["batch_size"] == 16
    assert key(16, False).digest != key(16, True).digest
    # The options are decoding options only: no batch size to strip from them.
    call = job_key(data, "txt", None, FakeTranslator(batch_invariant=False, batch_size=8), GenerationOptions())
    assert call.settings["batch_size"] == 8 and "batch_size" not in call.settings["options"]


def test_resume_with_another_batch_size_starts_over_for_dynamic_int8(tmp_path):

    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_with_batch(src, dst, 16, invariant=False)
    translator = FakeTranslator(batch_invariant=False, batch_size=32)
    report, again = _resume(src, dst, translator, chunk_size=7)
    assert str(report) == (
        f"not resuming {src}, starting over: the batch size changed since the "
        f"journal {journal_path(dst)} was written (16 -> 32, and this model's "
        f"int8 output depends on the batch size)"
    )
    assert again.lines_translated == 40


def test_resume_with_the_same_batch_size_continues_for_dynamic_int8(tmp_path):

    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_with_batch(src, dst, 16, invariant=False)
    translator = FakeTranslator(batch_invariant=False, batch_size=16)
    report, again = _resume(src, dst, translator, chunk_size=7)
    assert report.resumed and again.lines_translated == 26


def test_resume_with_another_batch_size_continues_for_a_batch_invariant_model(tmp_path):

    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_with_batch(src, dst, 16, invariant=True)
    translator = FakeTranslator(batch_invariant=True, batch_size=32)
    report, again = _resume(src, dst, translator, chunk_size=7)
    assert report.resumed and report.recovered == 14 and again.lines_translated == 26
    assert dst.read_bytes() == _clean_run(tmp_path, src)


def test_a_re_exported_model_is_named_without_its_file_hashes(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    _cancelled_run(src, dst)
    manifest = {"variants": {"int8": {"encoder": {"sha256": "f" * 64}}}}
    re_exported = FakeTranslator()
    re_exported.model_info.manifest = manifest
    report, _ = _resume(src, dst, re_exported)
    assert str(report) == (
        f"not resuming {src}, starting over: the model or its variant changed "
        f"since the journal {journal_path(dst)} was written (its files changed)"
    )
