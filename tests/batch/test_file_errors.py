"""File-system failures while writing: the message names the file that could not be written
(the output, or the journal by its real name, never a temp file) and what to do, and nothing
already translated is lost."""

from __future__ import annotations

import errno

import pytest

from desktop_mt.batch import BatchInputError, BatchOutputError, translate_file
from desktop_mt.batch.errors import mount_point
from desktop_mt.batch.journal import journal_path

from .failing_disk import FailingDisk
from .fake_translator import FakeTranslator

LINES = [f"Sentence number {i} of the file." for i in range(40)]


def _src(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return src


def _clean(tmp_path, src):
    return translate_file(src, tmp_path / "clean.txt", FakeTranslator()).read_bytes()


def _leftovers(folder):
    """Files a failed run left besides the input and the journal (temp files must not stay)."""
    return sorted(p.name for p in folder.iterdir() if p.name != "in.txt" and not p.name.endswith(".journal.jsonl"))


def test_disk_full_while_journaling_names_the_journal_and_resume_continues(tmp_path, monkeypatch):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    jpath = journal_path(dst)
    disk = FailingDisk(monkeypatch)
    # The header goes in via a temp file; then one append per chunk of 7: two fit, the third
    # is torn half-way and the disk is full.
    disk.fail_write(lambda name: name == str(jpath), after=2, partial=True)
    first = FakeTranslator()
    with pytest.raises(BatchOutputError) as info:
        translate_file(src, dst, first, chunk_size=7)
    assert str(info.value) == (
        f"{jpath}: cannot write the progress journal of {dst}: the disk is full; free space on "
        f"{mount_point(tmp_path)}, then translate the file again "
        f"(14 of 40 segments translated so far are saved in {jpath})"
    )
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(jpath)
    assert not dst.exists() and _leftovers(tmp_path) == []
    assert first.lines_translated == 21

    disk.heal()
    second = FakeTranslator()
    translate_file(src, dst, second, resume=True, chunk_size=7)
    assert second.lines_translated == 26  # the two saved chunks are not translated again
    assert dst.read_bytes() == _clean(tmp_path, src)


def test_disk_full_while_writing_the_output_keeps_every_segment(tmp_path, monkeypatch):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    jpath = journal_path(dst)
    disk = FailingDisk(monkeypatch)
    disk.fail_write(
        lambda name: name.startswith(str(tmp_path / ".out.txt.")) and ".journal" not in name, partial=True
    )  # the output's temp file
    with pytest.raises(BatchOutputError) as info:
        translate_file(src, dst, FakeTranslator())
    message = str(info.value)
    assert message.startswith(f"{dst}: cannot write the output: the disk is full; free space on ")
    assert message.endswith(f"(40 of 40 segments translated so far are saved in {jpath})")
    assert ".tmp" not in message and "in.txt" not in message
    assert not dst.exists() and _leftovers(tmp_path) == []

    disk.heal()
    again = FakeTranslator()
    translate_file(src, dst, again, resume=True)
    assert again.lines_translated == 0  # everything came from the journal
    assert dst.read_bytes() == _clean(tmp_path, src)


@pytest.mark.parametrize(
    "code, reason, fix",
    [
        (
            errno.EACCES,
            "permission denied in the folder {folder}",
            "choose another output folder, or make {folder} writable",
        ),
        (
            errno.EPERM,
            "permission denied in the folder {folder}",
            "choose another output folder, or make {folder} writable",
        ),
        (errno.EROFS, "{folder} is on a read-only file system", "choose another output folder"),
    ],
)
def test_unwritable_folder_names_the_output_not_the_journal_temp_file(tmp_path, monkeypatch, code, reason, fix):
    src = _src(tmp_path)
    folder = tmp_path / "locked"
    folder.mkdir()
    dst = folder / "out.txt"
    FailingDisk(monkeypatch).fail_open(lambda name: name.startswith(str(folder)), code)
    translator = FakeTranslator()
    with pytest.raises(BatchOutputError) as info:
        translate_file(src, dst, translator)
    expected = f"{dst}: cannot write the output: {reason}; {fix}".format(folder=folder)
    assert str(info.value) == expected
    assert info.value.filename == str(dst) and info.value.errno == code
    assert translator.batches == []  # found before any translating
    assert list(folder.iterdir()) == []


def test_an_old_journal_survives_when_the_disk_is_still_full_on_resume(tmp_path, monkeypatch):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    jpath = journal_path(dst)
    disk = FailingDisk(monkeypatch)
    disk.fail_write(lambda name: name == str(jpath), after=2)
    with pytest.raises(BatchOutputError):
        translate_file(src, dst, FakeTranslator(), chunk_size=7)
    saved = jpath.read_bytes()
    # Resuming rewrites the recovered entries into a fresh journal (a temp file) first.
    disk.fail_write(lambda name: ".out.txt.journal.jsonl." in name)
    with pytest.raises(BatchOutputError) as info:
        translate_file(src, dst, FakeTranslator(), resume=True, chunk_size=7)
    assert str(info.value).startswith(f"{jpath}: cannot write the progress journal of {dst}: the disk is full;")
    assert "(14 of 40 segments translated so far are saved in" in str(info.value)
    assert jpath.read_bytes() == saved and _leftovers(tmp_path) == []


def test_missing_output_folder(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "nope" / "out.txt"
    with pytest.raises(BatchOutputError) as info:
        translate_file(src, dst, FakeTranslator())
    assert str(info.value) == (
        f"{dst}: cannot write the output: the folder {dst.parent} does "
        f"not exist; create it, or choose another output folder"
    )


def test_a_file_where_the_output_folder_should_be(tmp_path):
    src = _src(tmp_path)
    dst = tmp_path / "in.txt" / "out.txt"
    with pytest.raises(BatchOutputError) as info:
        translate_file(src, dst, FakeTranslator())
    assert str(info.value) == (
        f"{dst}: cannot write the output: {src} is a file, not a folder; choose another output folder"
    )


def test_output_or_journal_that_is_a_folder(tmp_path):
    src, dst = _src(tmp_path), tmp_path / "out.txt"
    dst.mkdir()
    with pytest.raises(
        BatchOutputError,
        match=f"^{dst}: cannot write the output: a folder of that name is in the way; remove or rename",
    ):
        translate_file(src, dst, FakeTranslator())
    dst.rmdir()
    journal_path(dst).mkdir()
    with pytest.raises(BatchOutputError) as info:
        translate_file(src, dst, FakeTranslator())
    assert str(info.value).startswith(
        f"{journal_path(dst)}: cannot write the progress journal of {dst}: a folder of that name is in the way;"
    )


def test_input_errors_still_name_the_input(tmp_path):
    with pytest.raises(BatchInputError, match="nope.txt: no such file"):
        translate_file(tmp_path / "nope.txt", tmp_path / "out.txt", FakeTranslator())
    (tmp_path / "dir.txt").mkdir()
    with pytest.raises(BatchInputError, match="dir.txt: is a folder, not a file"):
        translate_file(tmp_path / "dir.txt", tmp_path / "out.txt", FakeTranslator())


def test_describe_words_the_remedies_for_the_front_end(tmp_path):
    error = BatchOutputError(
        OSError(errno.ENOSPC, "No space left on device"),
        tmp_path / "o.txt",
        journal=tmp_path / "o.txt.journal.jsonl",
        journal_failed=True,
        kept=5,
        total=9,
    )
    text = error.describe(resume_hint="then rerun with --resume", choose_folder_hint="use -o")
    assert ", then rerun with --resume (5 of 9 segments" in text
    quota = BatchOutputError(OSError(errno.EDQUOT, "Disk quota exceeded"), tmp_path / "o.txt")
    assert "the disk quota is exceeded; free space on" in str(quota)
    other = BatchOutputError(OSError(errno.EIO, "Input/output error"), tmp_path / "o.txt")
    assert str(other) == (
        f"{tmp_path / 'o.txt'}: cannot write the output: Input/output error; "
        f"check the disk, or choose another output folder"
    )
