"""desktop_mt.base.fsutil: the one atomic file write."""

from __future__ import annotations

import errno
import os
import stat
import sys

import pytest

from desktop_mt.base import fsutil
from desktop_mt.base.fsutil import atomic_path, atomic_write

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")


def names(folder):
    return sorted(p.name for p in folder.iterdir())


def test_str_is_encoded_without_newline_translation(tmp_path):
    path = tmp_path / "a.txt"
    atomic_write(path, "中文\r\nline\n")
    assert path.read_bytes() == "中文\r\nline\n".encode()
    atomic_write(path, "é", encoding="latin-1")
    assert path.read_bytes() == b"\xe9"
    assert names(tmp_path) == ["a.txt"]


def test_bytes_replace_the_old_content(tmp_path):
    path = tmp_path / "b.bin"
    path.write_bytes(b"old and longer")
    atomic_write(str(path), b"\x00\x01new")
    assert path.read_bytes() == b"\x00\x01new"
    atomic_write(path, b"")
    assert path.read_bytes() == b""
    assert names(tmp_path) == ["b.bin"]


def test_failed_write_mid_way_keeps_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "c.json"
    atomic_write(path, "old")
    real_write, calls = os.write, []

    def disk_fills(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data)[:3])  # a short write, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", disk_fills)
    with pytest.raises(OSError) as info:
        atomic_write(path, "new content " * 1000)
    assert info.value.errno == errno.ENOSPC and len(calls) == 2
    monkeypatch.undo()
    assert path.read_text() == "old"
    assert names(tmp_path) == ["c.json"]


@pytest.mark.parametrize("broken", ["fsync", "replace"])
def test_failure_before_the_rename_keeps_old_file(tmp_path, monkeypatch, broken):
    path = tmp_path / "d.txt"
    atomic_write(path, "old")

    def fail(*args):
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(os, broken, fail)
    with pytest.raises(OSError):
        atomic_write(path, "new")
    monkeypatch.undo()
    assert path.read_text() == "old" and names(tmp_path) == ["d.txt"]


def test_interrupt_is_not_swallowed_and_cleans_up(tmp_path, monkeypatch):
    path = tmp_path / "e.txt"
    monkeypatch.setattr(fsutil, "write_all", lambda fd, data: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, "x")
    assert names(tmp_path) == []


@posix_only
def test_permission_bits_of_the_replaced_file_are_kept(tmp_path):
    path = tmp_path / "f.sh"
    path.write_text("old")
    os.chmod(path, 0o751)
    atomic_write(path, "new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    with atomic_path(path) as tmp:
        tmp.write_text("newer")
    assert stat.S_IMODE(path.stat().st_mode) == 0o751 and path.read_text() == "newer"


@posix_only
def test_new_file_gets_mode_less_umask(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "g", "x")
        atomic_write(tmp_path / "h", "x", mode=0o600)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "g").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "h").stat().st_mode) == 0o600


def test_atomic_path_commits_only_on_success(tmp_path):
    path = tmp_path / "m.onnx"
    path.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_path(path) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".m.onnx.")
        tmp.write_bytes(b"half")
        raise RuntimeError("writer failed")
    assert path.read_bytes() == b"old" and names(tmp_path) == ["m.onnx"]
    with atomic_path(path) as tmp:
        tmp.write_bytes(b"whole")
    assert path.read_bytes() == b"whole" and names(tmp_path) == ["m.onnx"]


def test_missing_folder_is_an_oserror_and_creates_nothing(tmp_path):
    with pytest.raises(FileNotFoundError):
        atomic_write(tmp_path / "no" / "such" / "file", "x")
    assert names(tmp_path) == []


def _in_use(winerror: int) -> PermissionError:
    """The PermissionError of a Windows rename onto a file another process holds open."""
    exc = PermissionError(errno.EACCES, "The file is being used by another process")
    exc.winerror = winerror  # set by Windows' OSError only; os.replace raises it with it there
    return exc


@pytest.fixture
def waits(monkeypatch):
    """The delays the retry slept (recorded, not slept)."""
    slept: list[float] = []
    monkeypatch.setattr(fsutil.time, "sleep", slept.append)
    return slept


@pytest.mark.parametrize("winerror", [5, 32, 33])
def test_a_file_held_open_briefly_is_replaced_after_retries(tmp_path, monkeypatch, waits, winerror):
    """Windows refuses os.replace onto a file another process has open (a virus scan, Word):
    the rename is tried again, with growing delays, until the other process lets go."""
    path = tmp_path / "out.txt"
    path.write_text("old")
    real_replace, refusals = os.replace, [3]

    def replace(src, dst):
        if refusals[0]:
            refusals[0] -= 1
            raise _in_use(winerror)
        real_replace(src, dst)

    monkeypatch.setattr(fsutil.os, "replace", replace)
    atomic_write(path, "new")
    assert path.read_text() == "new"
    assert waits == list(fsutil.REPLACE_RETRY_DELAYS[:3])
    assert names(tmp_path) == ["out.txt"]


def test_a_file_held_open_for_good_is_a_clear_error_and_loses_nothing(tmp_path, monkeypatch, waits):
    path = tmp_path / "译文.docx"
    path.write_bytes(b"old")

    def replace(src, dst):
        raise _in_use(32)

    monkeypatch.setattr(fsutil.os, "replace", replace)
    with pytest.raises(fsutil.FileInUseError) as caught:
        atomic_write(path, b"new")
    assert isinstance(caught.value, PermissionError)  # callers that catch OSError still do
    assert caught.value.filename == str(path)
    assert str(path) in str(caught.value) and "another program has this file open" in str(caught.value)
    assert "Close it" in str(caught.value)
    assert waits == list(fsutil.REPLACE_RETRY_DELAYS)  # about three seconds in all, then the message
    assert path.read_bytes() == b"old"
    assert names(tmp_path) == ["译文.docx"]  # no temp file left behind


def test_atomic_path_retries_too(tmp_path, monkeypatch, waits):
    path = tmp_path / "model.onnx"
    real_replace, refusals = os.replace, [1]

    def replace(src, dst):
        if refusals[0]:
            refusals[0] -= 1
            raise _in_use(5)
        real_replace(src, dst)

    monkeypatch.setattr(fsutil.os, "replace", replace)
    with atomic_path(path) as tmp:
        tmp.write_bytes(b"graph")
    assert path.read_bytes() == b"graph" and waits == [fsutil.REPLACE_RETRY_DELAYS[0]]


def test_a_real_permission_error_is_not_retried(tmp_path, monkeypatch, waits):
    """POSIX (no winerror), or another Windows error: raised at once, nothing slept."""
    path = tmp_path / "a.txt"

    def replace(src, dst):
        raise PermissionError(errno.EACCES, "Permission denied", str(dst))

    monkeypatch.setattr(fsutil.os, "replace", replace)
    with pytest.raises(PermissionError) as caught:
        atomic_write(path, "x")
    assert not isinstance(caught.value, fsutil.FileInUseError)
    assert waits == [] and names(tmp_path) == []
