"""gui.file_jobs without a window: the journal's progress as the window asks it, and the
dialog answers as enums that compare equal to the strings the window returns."""

from __future__ import annotations

import json

from desktop_mt.batch.journal import JobKey, Journal, journal_path, read_journal
from desktop_mt.gui.file_jobs import OutputAnswer, ResumeAnswer, journal_progress

SOURCES = ["One.", "Two.", "Three.", "Four.", "Five."]


def _journal(tmp_path, chunks):
    output = tmp_path / "notes.zh.txt"
    key = JobKey.make(b"input bytes", {"format": "txt"})
    journal = Journal(output, key, SOURCES)
    for chunk in chunks:
        journal.append(chunk)
    journal.close()
    return journal_path(output), key


def test_progress_counts_what_the_batch_layer_recovers(tmp_path):
    path, key = _journal(tmp_path, [{0: "一。", 1: "二。"}, {3: "四。"}])
    assert journal_progress(path) == (3, 5)
    assert len(read_journal(path, key, SOURCES).done) == 3  # the same count as a resume's
    with path.open("ab") as f:
        f.write(b'{"done": [[4, "torn')  # a torn last line is skipped, as on resume
    assert journal_progress(path) == (3, 5)


def test_progress_of_no_journal_or_not_ours(tmp_path):
    assert journal_progress(tmp_path / "missing.journal.jsonl") is None
    other = tmp_path / "other.journal.jsonl"
    other.write_text(json.dumps({"segments": 4}) + "\n")  # no desktop-mt header
    assert journal_progress(other) is None
    path, _key = _journal(tmp_path, [{0: "一。"}])
    header, *rest = path.read_text("utf-8").splitlines()
    old = dict(json.loads(header), version=1)  # another version: a resume would start over
    path.write_text("\n".join([json.dumps(old), *rest]) + "\n", "utf-8")
    assert journal_progress(path) is None
    path.write_bytes(b"")
    assert journal_progress(path) is None


def test_answers_compare_equal_to_the_window_strings():
    assert OutputAnswer("keep") is OutputAnswer.KEEP and OutputAnswer.OVERWRITE == "overwrite"
    assert ResumeAnswer("restart") is ResumeAnswer.RESTART and ResumeAnswer.CANCEL == "cancel"
    assert {"resume": 1}[ResumeAnswer.RESUME] == 1  # hashes as its value: dictionary keys still work
    assert f"{OutputAnswer.KEEP}" == str(OutputAnswer.KEEP) == "keep"  # prints as the old string too
