"""The translation memory's database: exact and fuzzy matches, per direction, edit/search/delete."""

from __future__ import annotations

import dataclasses

import pytest

from desktop_mt.tm import (
    APPROVED,
    BOTH,
    EDITED,
    IMPORTED,
    SOURCE,
    TARGET,
    Entry,
    TranslationMemory,
    format_tmx_date,
    match_key,
)


@pytest.fixture
def memory(tmp_path):
    with TranslationMemory(tmp_path / "tm.sqlite3") as tm:
        yield tm


def test_an_exact_match_gives_the_newest_translation_of_its_direction(memory):
    memory.add("Where is the station?", "车站在哪里？", "en-zh", machine="哪里是车站？")
    memory.add("车站在哪里？", "Where is the station?", "zh-en", origin=APPROVED)
    found = memory.exact("  Where is  the station? ", "en-zh")  # whitespace does not matter, case does
    assert found is not None and found.exact and found.entry.target == "车站在哪里？"
    assert found.entry.machine == "哪里是车站？" and found.entry.origin == EDITED
    assert memory.exact("where is the station?", "en-zh") is None
    assert memory.exact("Where is the station?", "zh-en") is None
    assert memory.exact("车站在哪里？", "zh-en").entry.origin == APPROVED


def test_adding_the_same_source_again_updates_it(memory):
    first = memory.add("Good morning.", "早上好。", "en-zh")
    second = memory.add("Good morning.", "早安。", "en-zh")
    assert second.id == first.id and memory.count() == 1
    assert memory.exact("Good morning.", "en-zh").entry.target == "早安。"
    assert second.created == first.created and second.changed >= first.changed


def test_fuzzy_matches_from_75_percent_best_first(memory):
    memory.add("Please close the door when you leave.", "离开时请关门。", "en-zh")
    memory.add("Please close the window when you leave.", "离开时请关窗。", "en-zh")
    memory.add("Completely different sentence here.", "完全不同。", "en-zh")
    found = memory.fuzzy("Please close the door when you go.", "en-zh")
    assert [m.entry.target for m in found] == ["离开时请关门。", "离开时请关窗。"]
    assert all(75 <= m.score < 100 for m in found) and found[0].score > found[1].score
    assert memory.fuzzy("Nothing like any of them at all.", "en-zh") == []
    assert memory.fuzzy("Please close the door when you go.", "zh-en") == []
    # an exact match is not a fuzzy one; lookup prefers it
    assert all(not m.exact for m in memory.fuzzy("Please close the door when you leave.", "en-zh"))
    assert memory.lookup("Please close the door when you leave.", "en-zh").exact


def test_the_fuzzy_threshold_is_a_floor(memory):
    memory.add("abcdefghij", "x", "en-zh")
    assert memory.fuzzy("abcdef", "en-zh")[0].score == 75.0  # 2 x 6 / 16: 75 % is a match
    assert memory.fuzzy("abcde", "en-zh") == []  # 2 x 5 / 15: 66.7 %
    assert memory.fuzzy("abcde", "en-zh", threshold=60)


def test_search_edit_delete_for_the_dialog(memory):
    a = memory.add("The cat sleeps.", "猫在睡觉。", "en-zh")
    memory.add("The dog barks.", "狗在叫。", "en-zh")
    memory.add("猫在睡觉。", "The cat sleeps.", "zh-en")
    assert {e.source for e in memory.search("cat")} == {"The cat sleeps.", "猫在睡觉。"}
    assert [e.source for e in memory.search("cat", direction="en-zh")] == ["The cat sleeps."]
    assert [e.source for e in memory.search("100%")] == []  # LIKE wildcards are literal
    edited = memory.update(a.id, target="那只猫在睡觉。", note="checked")
    assert memory.get(a.id) == edited and edited.note == "checked"
    assert memory.exact("The cat sleeps.", "en-zh").entry.target == "那只猫在睡觉。"
    memory.update(a.id, source="The cat is sleeping.")
    assert memory.exact("The cat sleeps.", "en-zh") is None
    assert memory.exact("The cat is sleeping.", "en-zh") is not None
    assert memory.fuzzy("The cat is sleeping!", "en-zh")[0].entry.id == a.id  # fuzzy sees the edit
    assert memory.delete(a.id) and not memory.delete(a.id)
    assert memory.get(a.id) is None and memory.fuzzy("The cat is sleeping!", "en-zh") == []
    assert memory.count("en-zh") == 1 and memory.count() == 2


def test_bad_input_is_refused_with_a_message(memory):
    with pytest.raises(ValueError, match="direction"):
        memory.add("a", "b", "en-fr")
    with pytest.raises(ValueError, match="source sentence and a translation"):
        memory.add("  ", "b", "en-zh")
    with pytest.raises(ValueError, match="origin"):
        memory.add("a", "b", "en-zh", origin="guessed")
    with pytest.raises(KeyError):
        memory.update(12345, target="x")
    assert memory.count() == 0


def test_the_memory_persists(tmp_path):
    with TranslationMemory(tmp_path / "tm.sqlite3") as tm:
        tm.add("Hello.", "你好。", "en-zh")
    with TranslationMemory(tmp_path / "tm.sqlite3") as tm:
        assert tm.exact("Hello.", "en-zh").entry.target == "你好。"


def test_match_key_normalises_width_and_spaces():
    assert match_key(" Ｈｅｌｌｏ\u3000 world ") == "Hello world"


# ---- the dialog's search (issue 28) ----------------------------------------------------------
def test_search_in_the_source_or_the_target_only(memory):
    memory.add("The station.", "车站。", "en-zh")
    memory.add("A station nearby.", "附近的车站。", "en-zh")
    memory.add("车站。", "The station.", "zh-en")
    assert {e.source for e in memory.search("station", "en-zh", field=SOURCE)} == {"The station.", "A station nearby."}
    assert memory.search("station", "en-zh", field=TARGET) == []
    assert [e.source for e in memory.search("附近", "en-zh", field=TARGET)] == ["A station nearby."]
    assert [e.source for e in memory.search("station", "zh-en", field=BOTH)] == ["车站。"]
    with pytest.raises(ValueError, match="field"):
        memory.search("x", field="notes")


def test_fuzzy_search_finds_typos_best_first_in_the_field_asked(memory):
    memory.add("Where is the railway station?", "火车站在哪里？", "en-zh")
    memory.add("The station is closed.", "车站关门了。", "en-zh")
    memory.add("A cat sleeps.", "一只猫在睡觉。", "en-zh")
    found = memory.search_fuzzy("STATOIN", "en-zh")  # typo and case
    assert {m.entry.source for m in found} == {"Where is the railway station?", "The station is closed."}
    assert all(75 <= m.score < 100 for m in found) and [m.score for m in found] == sorted(
        (m.score for m in found), reverse=True
    )
    assert [m.entry.source for m in memory.search_fuzzy("火车站在哪", "en-zh", field=TARGET)] == [
        "Where is the railway station?"
    ]
    assert memory.search_fuzzy("火车站在哪", "en-zh", field=SOURCE) == []
    assert memory.search_fuzzy("   ", "en-zh") == []
    assert memory.search_fuzzy("statoin", "zh-en") == []


def test_an_import_is_all_or_none(memory):
    memory.add("Kept.", "保留。", "en-zh")
    good = Entry(0, "en-zh", "New.", "新的。", IMPORTED, created="20240101T000000Z", changed="20240101T000000Z")
    bad = dataclasses.replace(good, source="Bad.", target="  ")
    with pytest.raises(ValueError):
        memory.add_entries([good, bad])
    assert [e.source for e in memory.search()] == ["Kept."]
    assert memory.exact("New.", "en-zh") is None  # the fuzzy cache and the table agree
    assert memory.add_entries([good, good]) == (1, 1)


def test_tmx_dates_are_shown_in_local_time():
    import time

    shown = format_tmx_date("20240116T101500Z")
    assert shown == time.strftime("%Y-%m-%d %H:%M", time.localtime(1705400100))
    assert format_tmx_date("") == "" and format_tmx_date("2024-01-16") == "2024-01-16"


def test_fuzzy_search_sees_every_write(memory):
    first = memory.add("The station.", "车站。", "en-zh")
    assert [m.entry.id for m in memory.search_fuzzy("statoin", "en-zh")] == [first.id]
    memory.update(first.id, source="The harbour.")
    assert memory.search_fuzzy("statoin", "en-zh") == []
    second = memory.add("A station.", "一个车站。", "en-zh")
    assert [m.entry.id for m in memory.search_fuzzy("statoin", "en-zh")] == [second.id]
    memory.delete(second.id)
    assert memory.search_fuzzy("statoin", "en-zh") == []
    memory.add_entries([dataclasses.replace(second, id=0)])
    assert [m.entry.source for m in memory.search_fuzzy("statoin", "en-zh")] == ["A station."]
    memory.clear("en-zh")
    assert memory.search_fuzzy("statoin", "en-zh") == []


def test_an_unapproved_edit_never_replaces_an_approved_or_imported_entry(memory):
    for origin in (APPROVED, IMPORTED):
        source = f"We decided to walk ({origin})."
        memory.add(source, "我们决定走路。", "en-zh", origin=origin)
        kept = memory.add(source, "我们决定走路", "en-zh", origin=EDITED, machine="我们决定走路。")
        assert (kept.target, kept.origin) == ("我们决定走路。", origin)
        match = memory.exact(source, "en-zh")
        assert match is not None and (match.entry.target, match.entry.origin) == ("我们决定走路。", origin)
        assert memory.confirmed(source, "en-zh") == match
        approved = memory.add(source, "我们决定步行。", "en-zh", origin=APPROVED)  # an approval replaces it
        assert (approved.target, approved.origin) == ("我们决定步行。", APPROVED)
        assert memory.count("en-zh") == 1
        memory.clear("en-zh")
    memory.add("Hello.", "你好", "en-zh")  # an edit replaces an edit; it is never "confirmed"
    assert memory.add("Hello.", "你好！", "en-zh").target == "你好！"
    assert memory.confirmed("Hello.", "en-zh") is None
