"""Model files are checked against the manifest's sha256, and hashed once per file version."""

from __future__ import annotations

import os
import shutil

import pytest

from desktop_mt.base.errors import ModelFormatError
from desktop_mt.engine import model_format as mf
from desktop_mt.engine.translator import Translator


@pytest.fixture()
def model_copy(tmp_path, monkeypatch):
    """The bundled model copied to a folder of its own, with a cache folder of its own."""
    monkeypatch.setenv("DESKTOP_MT_HOME", str(tmp_path / "home"))
    dst = tmp_path / "model"
    shutil.copytree(mf.bundled_model_dir(), dst)
    return dst


def _int8_encoder(folder):
    manifest = mf.read_json(folder / mf.MANIFEST)
    return folder / manifest["variants"]["int8"]["files"]["encoder"]["file"]


def _flip_byte(path, offset):
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_flipped_byte_of_the_same_size_is_refused_by_name(model_copy):
    encoder = _int8_encoder(model_copy)
    size = encoder.stat().st_size
    _flip_byte(encoder, size // 2)
    assert encoder.stat().st_size == size  # the byte-count check alone cannot see it
    with pytest.raises(ModelFormatError) as err:
        Translator(model_copy, variant="int8")
    message = str(err.value)
    assert str(encoder) in message and "sha256" in message and "damaged" in message


def test_an_intact_copy_loads_and_each_file_is_hashed_once(model_copy, monkeypatch):
    calls = []
    real = mf.sha256_file
    monkeypatch.setattr(mf, "sha256_file", lambda p: calls.append(p) or real(p))
    Translator(model_copy, variant="int8").close()
    files = mf.read_json(model_copy / mf.MANIFEST)["variants"]["int8"]["files"]
    assert len(calls) == len(files)
    Translator(model_copy, variant="int8").close()  # second start: from the cache
    assert len(calls) == len(files)


def test_a_file_rewritten_after_it_was_cached_is_hashed_again(model_copy):
    Translator(model_copy, variant="int8").close()
    encoder = _int8_encoder(model_copy)
    stat = encoder.stat()
    _flip_byte(encoder, 100)
    os.utime(encoder, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    with pytest.raises(ModelFormatError, match="damaged"):
        Translator(model_copy, variant="int8")


def test_an_unusable_cache_only_means_hashing_again(model_copy, monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("DESKTOP_MT_HOME", str(blocker))  # cache folder cannot be created
    encoder = _int8_encoder(model_copy)
    assert mf.cached_sha256(encoder) == mf.sha256_file(encoder)
    (model_copy / "cache-garbage.json").write_text("{")
    monkeypatch.setattr(mf, "_hash_cache_file", lambda: model_copy / "cache-garbage.json")
    assert mf.cached_sha256(encoder) == mf.sha256_file(encoder)
