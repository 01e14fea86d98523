"""The model hash cache must not be fooled by a restored modification time (issue 32): flip three
bytes of a model file that loaded once, set its mtime back, and the model is refused by name."""

from __future__ import annotations

import os
import shutil

import pytest

from desktop_mt import Translator
from desktop_mt.base.errors import ModelFormatError


def test_flipped_bytes_with_the_mtime_restored_are_refused(tiny_marian_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("DESKTOP_MT_HOME", str(tmp_path / "home"))  # a fresh hash cache
    folder = tmp_path / "model"
    shutil.copytree(tiny_marian_dir, folder)
    Translator(folder, variant="fp32").translate("I love you.")  # loaded once: its hashes are cached
    target = folder / "encoder_model.onnx"
    before = target.stat()
    data = bytearray(target.read_bytes())
    middle = len(data) // 2
    for i in range(middle, middle + 3):
        data[i] ^= 0x5A
    target.write_bytes(bytes(data))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # what `touch -d` or `cp -p` can do
    after = target.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)  # the old key matches
    with pytest.raises(ModelFormatError, match="damaged"):
        Translator(folder, variant="fp32")


def test_an_unchanged_model_is_not_hashed_again(tiny_marian_dir, tmp_path, monkeypatch):
    from desktop_mt.engine import model_format

    monkeypatch.setenv("DESKTOP_MT_HOME", str(tmp_path / "home"))
    folder = tmp_path / "model"
    shutil.copytree(tiny_marian_dir, folder)
    Translator(folder, variant="fp32")
    hashed = []
    real = model_format.sha256_file
    monkeypatch.setattr(model_format, "sha256_file", lambda path: hashed.append(path) or real(path))
    Translator(folder, variant="fp32")
    assert hashed == []  # start-up stays fast: the second load reads the cache
