"""app.jobs: the file queue, where a job's output goes, and what an interrupted job left behind,
as the window (and any front end) asks them before the batch layer runs a job."""

from __future__ import annotations

import json

from desktop_mt.app.jobs import JobQueue, Resumable, journal_progress, keep_both_path, plan_output, resumable
from desktop_mt.batch.journal import JobKey, Journal, journal_path, read_journal

SOURCES = ["One.", "Two.", "Three.", "Four.", "Five."]


def _journal(tmp_path, chunks, output_name="notes.zh.txt"):
    output = tmp_path / output_name
    key = JobKey.make(b"input bytes", {"format": "txt"})
    journal = Journal(output, key, SOURCES)
    for chunk in chunks:
        journal.append(chunk)
    journal.close()
    return journal_path(output), key


def test_queue_is_first_in_first_out_without_duplicates():
    queue = JobQueue()
    assert not queue and queue.take() is None
    queue.add(["a.txt", "b.txt"])
    queue.add(["b.txt", "c.txt", "a.txt"])  # the ones waiting keep their place
    assert queue.waiting == ["a.txt", "b.txt", "c.txt"] and len(queue) == 3
    assert queue.take() == "a.txt"
    queue.add(["a.txt"])  # taken off: it may come again, at the end
    assert list(queue) == ["b.txt", "c.txt", "a.txt"]
    queue.waiting.clear()  # a copy: the queue is not changed through it
    assert queue.clear() == 3 and queue.waiting == [] and queue.clear() == 0


def test_output_plan_asks_only_when_the_output_exists(tmp_path):
    src = tmp_path / "notes.txt"
    plan = plan_output(src)
    assert plan.output == tmp_path / "notes.zh.txt" and plan.keep_both is None and not plan.exists
    plan.output.write_text("old", "utf-8")
    plan = plan_output(src)
    assert plan.exists and plan.keep_both == tmp_path / "notes.zh (2).txt"
    assert plan_output(tmp_path / "README").output == tmp_path / "README.zh"


def test_keep_both_skips_taken_names_and_their_journals(tmp_path):
    out = tmp_path / "notes.zh.txt"
    (tmp_path / "notes.zh (2).txt").write_text("x", "utf-8")
    _journal(tmp_path, [], output_name="notes.zh (3).txt")  # a stale journal of a "(3)" job
    assert keep_both_path(out).name == "notes.zh (4).txt"
    assert keep_both_path(tmp_path / "README").name == "README (2)"


def test_resumable_says_how_far_the_interrupted_job_got(tmp_path):
    output = tmp_path / "notes.zh.txt"
    assert resumable(output) is None
    path, _key = _journal(tmp_path, [{0: "一。", 1: "二。"}])
    assert resumable(output) == Resumable(path, 2, 5)


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
