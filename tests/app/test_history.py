"""The translation history database (desktop_mt.app.history): no Qt."""

from __future__ import annotations

import sqlite3

import pytest

from desktop_mt.app.history import History, history_path


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


# ---- post-editing (issue 28): final text, machine text, migration --------------------------
def test_add_with_machine_text_marks_the_entry_edited(history):
    plain = history.add("Hello.", "你好。", when=10.0)
    same = history.add("Hi.", "嗨。", when=11.0, machine_text="嗨。")
    edited = history.add("Good.", "很好。", when=12.0, machine_text="好。")
    p, s, e = history.get(plain), history.get(same), history.get(edited)
    assert (p.machine, p.edited, p.is_edited, p.machine_text) == (None, None, False, "你好。")
    assert (s.machine, s.edited, s.is_edited) == (None, None, False)
    assert (e.translation, e.machine, e.edited, e.is_edited, e.machine_text) == ("很好。", "好。", 12.0, True, "好。")


def test_update_final_keeps_the_first_machine_text(history):
    entry_id = history.add("The cat sleeps.", "猫睡觉。", when=1.0)
    first = history.update_final(entry_id, "猫在睡觉。", when=2.0)
    assert (first.translation, first.machine, first.edited) == ("猫在睡觉。", "猫睡觉。", 2.0)
    second = history.update_final(entry_id, "那只猫在睡觉。", when=3.0)
    assert (second.translation, second.machine, second.edited) == ("那只猫在睡觉。", "猫睡觉。", 3.0)
    assert history.get(entry_id) == second
    back = history.update_final(entry_id, "猫睡觉。", when=4.0)  # back to the machine's: not edited
    assert (back.translation, back.machine, back.edited, back.is_edited) == ("猫睡觉。", None, None, False)
    assert history.update_final(9999, "x") is None


def test_choosing_an_alternative_is_the_machines_text(history):
    entry_id = history.add("A.", "甲。", machine_text="乙。")
    history.set_translation(entry_id, "丙。")
    entry = history.get(entry_id)
    assert (entry.translation, entry.machine, entry.is_edited) == ("丙。", None, False)


def test_edited_entries_are_found_by_their_final_text(history):
    entry_id = history.add("The station.", "车站。")
    history.update_final(entry_id, "火车站。")
    assert [e.id for e in history.search("火车")] == [entry_id]


def test_schema_1_database_is_migrated_and_keeps_every_entry(tmp_path):
    """A history written before post-editing (no machine/edited columns) loads as it was."""
    path = tmp_path / "history.sqlite3"
    old = sqlite3.connect(str(path))
    old.execute("PRAGMA journal_mode=WAL")
    old.execute(
        "CREATE TABLE entries (id INTEGER PRIMARY KEY AUTOINCREMENT, source TEXT NOT NULL, "
        "translation TEXT NOT NULL, model TEXT NOT NULL DEFAULT '', time REAL NOT NULL)"
    )
    old.execute("CREATE INDEX entries_time ON entries(time)")
    old.executemany(
        "INSERT INTO entries (source, translation, model, time) VALUES (?, ?, ?, ?)",
        [("Hello.", "你好。", "opus-mt-en-zh", 100.0), ("早上好。", "Good morning.", "opus-mt-zh-en", 200.0)],
    )
    old.commit()
    old.close()
    h = History(path)
    assert h.recovered is None
    entries = h.search()
    assert [(e.source, e.translation, e.model, e.time, e.machine, e.edited) for e in entries] == [
        ("早上好。", "Good morning.", "opus-mt-zh-en", 200.0, None, None),
        ("Hello.", "你好。", "opus-mt-en-zh", 100.0, None, None),
    ]
    edited = h.update_final(entries[1].id, "您好。", when=300.0)
    assert (edited.machine, edited.is_edited) == ("你好。", True)
    new_id = h.add("Bye.", "再见。", machine_text="拜拜。")
    h.close()
    conn = sqlite3.connect(str(path))
    columns = [row[1] for row in conn.execute("PRAGMA table_info(entries)")]
    assert columns == ["id", "source", "translation", "model", "time", "machine", "edited"]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    conn.close()
    again = History(path)
    assert again.count() == 3 and again.get(new_id).machine == "拜拜。"
    again.close()


def test_compare_marks_words_in_english_and_characters_in_chinese():
    from desktop_mt.app.history import compare

    machine, final = "The cat is sleeping on sofa.", "The cat sleeps on the sofa."
    removed, added = compare(machine, final)
    assert [machine[i:j] for i, j in removed] == ["is sleeping"]
    assert [final[i:j] for i, j in added] == ["sleeps", "the "]
    removed, added = compare("猫睡觉。", "那只猫在睡觉。")
    assert removed == [] and [("那只猫在睡觉。")[i:j] for i, j in added] == ["那只", "在"]
    assert compare("same", "same") == ([], [])


def test_update_final_can_name_the_machines_text(history):
    """The entry was written with sentences the user had already edited in it: the window
    knows the machine's text and says so."""
    entry_id = history.add("A. B.", "甲（我的）。乙。")
    entry = history.update_final(entry_id, "甲（我的）。乙（我的）。", when=5.0, machine_text="甲。乙。")
    assert (entry.translation, entry.machine, entry.edited) == ("甲（我的）。乙（我的）。", "甲。乙。", 5.0)
