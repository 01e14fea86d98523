"""The translation history database (desktop_mt.history): no Qt."""

from __future__ import annotations

import sqlite3

import pytest

from desktop_mt.history import History, history_path


@pytest.fixture
def history(tmp_path):
    h = History(tmp_path / "history.sqlite3")
    yield h
    h.close()


def test_default_path_is_in_the_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("DESKTOP_MT_HOME", str(tmp_path / "home"))
    assert history_path() == tmp_path / "home" / "data" / "history.sqlite3"


def test_wal_mode_and_round_trip(history, tmp_path):
    history.add("Hello.", "你好。", "opus-mt-en-zh", when=100.0)
    mode = sqlite3.connect(str(tmp_path / "history.sqlite3")).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    [entry] = history.search()
    assert (entry.source, entry.translation, entry.model, entry.time) == ("Hello.", "你好。", "opus-mt-en-zh", 100.0)
    assert history.get(entry.id) == entry
    history.close()
    reopened = History(tmp_path / "history.sqlite3")
    assert [e.source for e in reopened.search()] == ["Hello."]
    assert reopened.recovered is None
    reopened.close()


def test_search_is_substring_newest_first_in_both_columns(history):
    history.add("The train station.", "火车站。")
    history.add("A cat.", "一只猫。")
    history.add("Where is the station?", "车站在哪里？")
    assert [e.source for e in history.search("station")] == ["Where is the station?", "The train station."]
    assert [e.source for e in history.search("STATION")] == ["Where is the station?", "The train station."]
    assert [e.source for e in history.search("猫")] == ["A cat."]
    assert [e.source for e in history.search()] == ["Where is the station?", "A cat.", "The train station."]
    assert len(history.search("", limit=2)) == 2


def test_search_wildcards_are_literal(history):
    history.add("100% sure", "百分之百")
    history.add("1000 sure", "一千")
    history.add("a_b", "x")
    history.add("aXb", "y")
    assert [e.source for e in history.search("0%")] == ["100% sure"]
    assert [e.source for e in history.search("a_b")] == ["a_b"]


def test_delete_and_clear(history):
    first = history.add("one", "一")
    history.add("two", "二")
    history.delete(first)
    assert [e.source for e in history.search()] == ["two"]
    assert history.get(first) is None
    history.clear()
    assert history.count() == 0


def test_bounded_to_the_newest(tmp_path):
    h = History(tmp_path / "h.sqlite3", limit=3)
    for i in range(5):
        h.add(f"s{i}", f"t{i}")
    assert [e.source for e in h.search()] == ["s4", "s3", "s2"]
    h.set_limit(1)
    assert [e.source for e in h.search()] == ["s4"]
    h.close()


def test_corrupt_database_is_moved_aside(tmp_path):
    path = tmp_path / "history.sqlite3"
    path.write_bytes(b"this is not a database" * 200)
    h = History(path)
    assert h.recovered is not None and h.recovered.exists()
    assert h.recovered.name.startswith("history.corrupt-") and h.recovered.suffix == ".sqlite3"
    assert h.recovered.read_bytes().startswith(b"this is not a database")
    h.add("still works", "还能用")
    assert [e.source for e in h.search()] == ["still works"]
    h.close()


def test_damaged_pages_found_on_open(tmp_path):
    path = tmp_path / "history.sqlite3"
    h = History(path)
    for i in range(200):
        h.add(f"sentence {i} " * 20, "句子" * 20)
    h.close()
    sqlite3.connect(str(path)).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    data = bytearray(path.read_bytes())
    data[4096 * 2 : 4096 * 2 + 2000] = b"\xff" * 2000  # wreck a b-tree page
    path.write_bytes(bytes(data))
    again = History(path)
    assert again.recovered is not None
    assert again.count() == 0
    again.close()
