"""The "Translation memory" dialog (issue 28) over a real TranslationMemory on tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from desktop_mt.gui.dialogs.tm_dialog import SOURCE_COL, TARGET_COL, TMDialog, open_tm_dialog
from desktop_mt.tm import APPROVED, EDITED, SOURCE, TARGET, TranslationMemory
from desktop_mt.tm.tmx import read_tmx

CAT_TOOL_TMX = Path(__file__).resolve().parents[2] / "tm" / "cat_tool.tmx"


@pytest.fixture
def memory(tmp_path):
    tm = TranslationMemory(tmp_path / "tm.sqlite3")
    tm.add("The train station is near.", "火车站很近。", "en-zh", EDITED, machine="火车站在附近。")
    tm.add("Where is the station?", "车站在哪里？", "en-zh", APPROVED)
    tm.add("A cat sleeps on the sofa.", "一只猫在沙发上睡觉。", "en-zh", EDITED)
    tm.add("早上好。", "Good morning.", "zh-en", APPROVED)
    yield tm
    tm.close()


@pytest.fixture
def dialog(qtbot, memory):
    d = open_tm_dialog(None, memory)
    assert isinstance(d, TMDialog)
    qtbot.addWidget(d)
    assert d.isVisible() and not d.isModal()
    return d


def sources(dialog):
    return [e.source for e in dialog.entries()]


def test_lists_the_direction_with_counts_and_switches(qtbot, dialog):
    assert dialog.direction() == "en-zh"
    assert sources(dialog) == ["A cat sleeps on the sofa.", "Where is the station?", "The train station is near."]
    assert "3 entries" in dialog.note.text() and "Chinese → English: 1" in dialog.note.text()
    assert dialog.direction_box.itemText(0) == "English → Chinese (3)"
    with qtbot.waitSignal(dialog.refreshed, timeout=10_000):
        dialog.set_direction("zh-en")
    assert sources(dialog) == ["早上好。"]
    assert [e.target for e in dialog.entries()] == ["Good morning."]


def test_substring_search_in_source_target_or_both(qtbot, dialog):
    with qtbot.waitSignal(dialog.refreshed, timeout=10_000):
        dialog.search.setText("station")
    assert sources(dialog) == ["Where is the station?", "The train station is near."]
    assert dialog.note.text().startswith("2 of 3 entries with “station”")
    with qtbot.waitSignal(dialog.refreshed, timeout=10_000):
        dialog.search.setText("车站")
    assert sources(dialog) == ["Where is the station?", "The train station is near."]
    with qtbot.waitSignal(dialog.refreshed, timeout=10_000):
        dialog.set_field(SOURCE)
    assert sources(dialog) == []
    assert "No entry with" in dialog.note.text()
    with qtbot.waitSignal(dialog.refreshed, timeout=10_000):
        dialog.set_field(TARGET)
    assert len(dialog.entries()) == 2


def test_fuzzy_search_finds_a_typo_best_first_with_scores(qtbot, dialog):
    with qtbot.waitSignal(dialog.refreshed, timeout=10_000):
        dialog.fuzzy_check.setChecked(True)
    with qtbot.waitSignal(dialog.refreshed, timeout=10_000):
        dialog.search.setText("staton")  # a typo: no substring matches it
    found = sources(dialog)
    assert set(found) == {"Where is the station?", "The train station is near."}
    scores = dialog.scores()
    assert all(s is not None and s >= 75 for s in scores) and scores == sorted(scores, reverse=True)
    assert not dialog.table.isColumnHidden(4)
    with qtbot.waitSignal(dialog.refreshed, timeout=10_000):
        dialog.fuzzy_check.setChecked(False)
    assert sources(dialog) == [] and dialog.table.isColumnHidden(4)


def test_inline_edit_writes_the_memory_and_an_empty_cell_is_refused(qtbot, dialog, memory):
    row = sources(dialog).index("Where is the station?")
    entry_id = dialog.entries()[row].id
    with (
        qtbot.waitSignal(dialog.entryEdited, timeout=10_000) as edited,
        qtbot.waitSignal(dialog.memoryChanged, timeout=10_000),
    ):
        dialog.edit_cell(row, TARGET_COL, "火车站在哪里？")
    assert edited.args == [entry_id]
    assert memory.get(entry_id).target == "火车站在哪里？"
    assert memory.exact("Where is the station?", "en-zh").entry.target == "火车站在哪里？"
    with qtbot.waitSignal(dialog.entryEdited, timeout=10_000):
        dialog.edit_cell(row, SOURCE_COL, "Where is the train station?")
    assert memory.exact("Where is the train station?", "en-zh").entry.id == entry_id
    assert memory.exact("Where is the station?", "en-zh") is None
    assert dialog.entries()[row].source == "Where is the train station?"  # the row stays in place
    with qtbot.assertNotEmitted(dialog.memoryChanged):
        dialog.edit_cell(row, TARGET_COL, "   ")
    assert memory.get(entry_id).target == "火车站在哪里？"
    assert dialog.table.item(row, TARGET_COL).text() == "火车站在哪里？"  # put back
    assert dialog.message.isVisible() and "Not changed" in dialog.message.text()


def test_delete_selected_entries_after_asking(qtbot, dialog, memory):
    asked = []
    dialog.confirm_delete = lambda n: asked.append(n) or False
    dialog.select_row(0)
    assert dialog.delete_button.isEnabled()
    assert dialog.delete_selected() == 0 and memory.count("en-zh") == 3  # cancelled
    dialog.confirm_delete = lambda n: asked.append(n) or True
    with qtbot.waitSignal(dialog.memoryChanged, timeout=10_000):
        dialog.delete_button.click()
    assert asked == [1, 1]
    assert memory.count("en-zh") == 2 and "A cat sleeps on the sofa." not in sources(dialog)
    assert dialog.direction_box.itemText(0) == "English → Chinese (2)"


def test_import_a_cat_tool_tmx_keeps_every_unit(qtbot, dialog, memory):
    dialog.choose_import_path = lambda: str(CAT_TOOL_TMX)
    with (
        qtbot.waitSignal(dialog.imported, timeout=10_000) as imported,
        qtbot.waitSignal(dialog.memoryChanged, timeout=10_000),
    ):
        dialog.import_button.click()
    report = imported.args[0]
    assert report.added == 5 and not report.skipped
    assert memory.count("en-zh") == 8
    assert "Click Save to keep your changes." in sources(dialog)
    assert "Imported cat_tool.tmx into English → Chinese: 5 added" in dialog.message.text()
    again = dialog.import_file(CAT_TOOL_TMX)  # the same file again adds nothing
    assert (again.added, again.duplicates) == (0, 5) and memory.count("en-zh") == 8


def test_a_malformed_tmx_adds_nothing_and_names_the_file_and_line(qtbot, dialog, memory, tmp_path):
    bad = tmp_path / "broken.tmx"
    text = CAT_TOOL_TMX.read_text(encoding="utf-8")
    bad.write_text(text.replace('</tu>\n    <tu tuid="3">', '</tu>\n    <tu tuid="3"', 1), encoding="utf-8")
    dialog.choose_import_path = lambda: str(bad)
    before = [(e.id, e.source, e.target) for e in memory.search(limit=None)]
    with qtbot.assertNotEmitted(dialog.memoryChanged):
        dialog.import_button.click()
    assert [(e.id, e.source, e.target) for e in memory.search(limit=None)] == before
    box = dialog.error_box
    assert box is not None and box.isVisible()
    line = text.splitlines().index('    <tu tuid="3">') + 2  # the broken tag runs into the next line
    assert "broken.tmx" in box.text() and f", line {line}:" in box.text()
    assert "broken.tmx" in dialog.message.text()
    box.button(QMessageBox.StandardButton.Ok).click()


def test_export_then_import_into_a_fresh_memory_is_equal(qtbot, dialog, memory, tmp_path):
    dialog.import_file(CAT_TOOL_TMX)
    out = tmp_path / "out" / "mine"
    dialog.choose_export_path = lambda suggested: (suggested == "translation-memory-en-zh.tmx" or None) and str(out)
    with qtbot.waitSignal(dialog.exported, timeout=10_000) as exported:
        dialog.export_button.click()
    assert exported.args == [8]
    written = out.with_suffix(".tmx")
    assert "Exported 8 entries" in dialog.message.text() and written.is_file()
    entries, skipped = read_tmx(written, "en-zh")
    assert not skipped

    def key(e):
        return (e.source, e.target, e.origin, e.machine, e.note, e.props, e.source_seg, e.target_seg)

    assert sorted(map(key, entries)) == sorted(map(key, memory.search(direction="en-zh", limit=None)))
    fresh = TranslationMemory(tmp_path / "fresh.sqlite3")
    other = open_tm_dialog(None, fresh, "en-zh")
    qtbot.addWidget(other)
    report = other.import_file(written)
    assert report.added == 8
    assert sorted(map(key, fresh.search(limit=None))) == sorted(map(key, memory.search(direction="en-zh", limit=None)))
    other.close()
    fresh.close()


def test_export_to_an_unwritable_place_is_shown(qtbot, dialog, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with qtbot.assertNotEmitted(dialog.exported):
        assert dialog.export_file(blocker / "sub" / "x.tmx") is None
    assert dialog.error_box is not None and "x.tmx" in dialog.error_box.text()


def test_without_the_tm_extra_the_dialog_says_what_is_missing(qtbot, dialog, memory, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "rapidfuzz", None)  # import rapidfuzz raises ImportError
    for name in ("translate", "translate.storage", "translate.storage.tmx"):
        monkeypatch.setitem(sys.modules, name, None)
    dialog.fuzzy_check.setChecked(True)
    with qtbot.waitSignal(dialog.refreshed, timeout=10_000):
        dialog.search.setText("station")
    assert dialog.entries() == [] and "rapidfuzz" in dialog.message.text()
    with qtbot.waitSignal(dialog.refreshed, timeout=10_000):
        dialog.fuzzy_check.setChecked(False)
    assert len(dialog.entries()) == 2  # substring search needs nothing more
    assert dialog.import_file(CAT_TOOL_TMX) is None and "translate-toolkit" in dialog.error_box.text()
    assert memory.count("en-zh") == 3


def test_the_tmx_file_dialogs_open_in_home_then_in_the_last_folder_chosen(
    qtbot, dialog, tmp_path, monkeypatch, fresh_folders
):
    from PySide6.QtWidgets import QFileDialog

    from desktop_mt.gui.dialogs import tm_dialog

    home = fresh_folders
    chosen = tmp_path / "exports" / "memory.tmx"
    chosen.parent.mkdir()
    asked: list[str] = []
    answers = [str(chosen), ""]

    def save_name(_parent, _title, start, _filter):
        asked.append(start)
        return answers.pop(0), _filter

    def open_name(_parent, _title, start, _filter):
        asked.append(start)
        return answers.pop(0), _filter

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_name))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(open_name))
    assert dialog.choose_and_export() == 3
    assert asked[0] == str(home / "translation-memory-en-zh.tmx")
    assert chosen.is_file()
    assert dialog.choose_and_import() is None  # cancelled: opened where the export went
    assert asked[1] == str(chosen.parent)
    # Remembered for the session (a new dialog too); a folder that is gone falls back to home.
    assert tm_dialog.start_folder() == chosen.parent
    chosen.unlink()
    chosen.parent.rmdir()
    assert tm_dialog.start_folder() == home
