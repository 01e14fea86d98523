"""View > History: entries of finished translations, the dialog's commands, the setting."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from desktop_mt.app.history import History, history_path
from desktop_mt.gui.settings import Settings


def _translate(qtbot, controller, window, text):
    window.set_source(text)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(text)


def test_finished_translation_is_kept(qtbot, make_controller):
    window, controller = make_controller()
    with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000):
        window.set_source("Good morning")
        controller.translate("Good morning")
    [entry] = controller.history.history().search()
    assert (entry.source, entry.translation, entry.model) == ("Good morning", "<Good><morning>", "fake-en-zh")
    assert history_path().is_file()


def test_stopped_and_superseded_translations_are_not_kept(qtbot, make_controller):
    window, controller = make_controller(delay=0.05)
    added = []
    controller.history.entryAdded.connect(added.append)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("one two three four five six")
        controller.stop()
    controller.translate("superseded text here")
    with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000):
        controller.translate("kept")
    assert [e.source for e in controller.history.history().search()] == ["kept"]
    assert len(added) == 1


def test_history_off_writes_nothing(qtbot, make_controller):
    window, controller = make_controller(Settings(keep_history=False))
    _translate(qtbot, controller, window, "Not kept")
    assert controller.history.show_dialog() is None  # opening would create the database
    assert "History is off" in window.statusBar().currentMessage()
    assert not history_path().exists()
    controller.apply_settings(Settings(keep_history=True))
    with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000):
        controller.translate("Kept now")
    assert [e.source for e in controller.history.history().search()] == ["Kept now"]


def test_limit_setting_bounds_the_history(qtbot, make_controller):
    window, controller = make_controller(Settings(history_limit=2))
    for text in ("a", "b", "c"):
        with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000):
            controller.translate(text)
    assert [e.source for e in controller.history.history().search()] == ["c", "b"]


def test_dialog_search_as_you_type_open_copy_delete_clear(qtbot, make_controller):
    window, controller = make_controller()
    history = controller.history.history()
    history.add("The train station is near.", "火车站很近。", "m", when=1.0)
    history.add("A cat sleeps.", "一只猫在睡觉。", "m", when=2.0)
    history.add("Where is the station?", "车站在哪里？", "m", when=3.0)
    window.history_action.trigger()
    dialog = controller.history.dialog
    assert dialog is not None and dialog.isVisible()
    assert [e.source for e in dialog.entries()] == [
        "Where is the station?",
        "A cat sleeps.",
        "The train station is near.",
    ]
    qtbot.keyClicks(dialog.search, "stat")
    assert [e.source for e in dialog.entries()] == ["Where is the station?", "The train station is near."]
    assert dialog.source_view.toPlainText() == "Where is the station?"
    dialog.list.setCurrentRow(1)
    assert dialog.translation_view.toPlainText() == "火车站很近。"

    dialog.copy_button.click()
    assert QGuiApplication.clipboard().text() == "火车站很近。"

    window.set_source("my draft")
    dialog.open_button.click()
    assert window.source_text() == "The train station is near."
    assert window.target_text() == "火车站很近。"
    window.source.undo()  # the draft is one undo away
    assert window.source_text() == "my draft"

    dialog.delete_button.click()
    assert [e.source for e in dialog.entries()] == ["Where is the station?"]
    assert history.count() == 2

    dialog.confirm_clear = lambda: False
    assert not dialog.clear_all()
    assert history.count() == 2
    dialog.confirm_clear = lambda: True
    assert dialog.clear_all()
    assert history.count() == 0 and dialog.entries() == []
    assert dialog.search.text() == ""


def test_ctrl_h_opens_the_dialog_and_new_entries_appear(qtbot, make_controller):
    window, controller = make_controller()
    window.show()
    with qtbot.waitActive(window):
        window.activateWindow()
    window.source.setFocus()
    qtbot.keyClick(window.source, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    dialog = controller.history.dialog
    assert dialog is not None and dialog.isVisible() and dialog.entries() == []
    with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000):
        controller.translate("Fresh")
    assert [e.source for e in dialog.entries()] == ["Fresh"]


def test_corrupt_database_moved_aside_with_a_banner(qtbot, make_controller):
    path = history_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"garbage, not SQLite" * 100)
    window, controller = make_controller()
    assert not window.banner.isHidden()
    assert "moved aside" in window.banner.label.text()
    assert list(path.parent.glob("history.corrupt-*.sqlite3"))
    with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000):
        controller.translate("works again")
    assert History(path).count() == 1


def test_settings_dialog_history_and_hotkey_target(qtbot):
    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog

    dialog = SettingsDialog(Settings(keep_history=False, hotkey_opens="popup"), True, "")
    qtbot.addWidget(dialog)
    assert not dialog.history_check.isChecked()
    assert dialog.hotkey_opens_combo.currentData() == "popup"
    dialog.history_check.setChecked(True)
    dialog.hotkey_opens_combo.setCurrentIndex(dialog.hotkey_opens_combo.findData("window"))
    chosen = dialog.current_settings()
    assert chosen.keep_history and chosen.hotkey_opens == "window"


# ---- post-editing (issue 28) -------------------------------------------------------------
def test_an_edit_updates_the_entry_just_kept_and_the_dialog_compares(qtbot, make_controller):
    window, controller = make_controller()
    with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000) as added:
        window.set_source("Good morning")
        controller.translate("Good morning")
    entry_id = added.args[0]
    with qtbot.waitSignal(controller.history.entryEdited, timeout=10_000) as edited:
        assert controller.history.translation_edited("Good morning", "<Good> <morning>!") == entry_id
    assert edited.args == [entry_id]
    history = controller.history.history()
    entry = history.get(entry_id)
    assert (entry.translation, entry.machine, entry.is_edited) == ("<Good> <morning>!", "<Good><morning>", True)
    assert history.count() == 1

    dialog = controller.history.show_dialog()
    [shown] = dialog.entries()
    assert "✎ edited" in dialog.list.item(0).text()
    assert dialog.translation_view.toPlainText() == "<Good> <morning>!"
    assert dialog.translation_label.text().startswith("Your translation (edited ")
    assert dialog.compare_check.isEnabled() and not dialog.comparing()
    dialog.compare_check.setChecked(True)
    assert dialog.comparing()
    assert dialog.machine_view.toPlainText() == "<Good><morning>"
    assert dialog.highlighted(dialog.translation_view) == [" ", "!"]
    assert dialog.highlighted(dialog.machine_view) == []

    dialog.copy_button.click()
    assert QGuiApplication.clipboard().text() == "<Good> <morning>!"  # the final text
    dialog.open_button.click()
    assert window.target_text() == "<Good> <morning>!"


def test_an_edit_of_another_source_is_a_new_entry_and_unedited_ones_do_not_compare(qtbot, make_controller):
    window, controller = make_controller()
    history = controller.history.history()
    history.add("Plain.", "平。", "m", when=1.0)
    new_id = controller.history.translation_edited("The cat sleeps.", "猫在睡觉。", machine_text="猫睡觉。")
    entry = history.get(new_id)
    assert (entry.translation, entry.machine) == ("猫在睡觉。", "猫睡觉。")
    dialog = controller.history.show_dialog()
    assert [e.source for e in dialog.entries()] == ["The cat sleeps.", "Plain."]
    dialog.compare_check.setChecked(True)
    assert dialog.highlighted(dialog.translation_view) == ["在"]
    dialog.list.setCurrentRow(1)
    assert not dialog.compare_check.isEnabled() and not dialog.comparing()
    assert "✎" not in dialog.list.item(1).text()
    assert dialog.translation_label.text() == "Translation"


def test_no_edit_is_written_with_history_off(qtbot, make_controller):
    window, controller = make_controller(Settings(keep_history=False))
    assert controller.history.translation_edited("a", "b", machine_text="c") is None
    assert not history_path().exists()


def test_a_history_from_before_post_editing_opens_in_the_dialog(qtbot, make_controller):
    import sqlite3

    path = history_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    old = sqlite3.connect(str(path))
    old.execute(
        "CREATE TABLE entries (id INTEGER PRIMARY KEY AUTOINCREMENT, source TEXT NOT NULL, "
        "translation TEXT NOT NULL, model TEXT NOT NULL DEFAULT '', time REAL NOT NULL)"
    )
    old.execute("INSERT INTO entries (source, translation, model, time) VALUES ('Old.', '旧的。', 'm', 5.0)")
    old.commit()
    old.close()
    window, controller = make_controller()
    dialog = controller.history.show_dialog()
    assert [(e.source, e.translation, e.is_edited) for e in dialog.entries()] == [("Old.", "旧的。", False)]
    assert controller.history.history().recovered is None


def test_a_chinese_to_english_row_shows_its_translation_whole(qtbot, make_controller):
    """The row is as tall as its two lines in the fonts they need (a Chinese first line is
    taller than a Latin one): the "→ translation" line is drawn, not elided away."""
    from PySide6.QtWidgets import QStyleOptionViewItem

    from desktop_mt.gui.dialogs.history_dialog import ROW_PADDING, _line_height

    window, controller = make_controller()
    history = controller.history.history()
    history.add("Where is the station? I love you.", "火车站在哪里？我爱你。", "m", when=1.0)
    history.add("火车站在哪里？我爱你。我明天上学会迟到。", "Where is the station? I love you.", "m", when=2.0)
    dialog = controller.history.show_dialog()
    qtbot.waitExposed(dialog)
    assert [e.source[:3] for e in dialog.entries()] == ["火车站", "Whe"]
    for row, translation in ((0, "→ Where is the station? I love you."), (1, "→ 火车站在哪里？我爱你。")):
        item = dialog.list.item(row)
        assert item.text().endswith("\n" + translation)
        assert dialog.row_lines(row)[1] == translation  # shown whole: the row is wide enough
        option = QStyleOptionViewItem()
        option.font = dialog.list.font()
        needed = sum(_line_height(line, option.font) for line in item.text().split("\n"))
        assert dialog.list.visualItemRect(item).height() >= needed + 2 * ROW_PADDING
    # The Chinese line needs more height than a Latin one of the same font: measured, not assumed.
    font = dialog.list.font()
    assert _line_height("火车站在哪里", font) >= _line_height("Where", font)


def test_a_long_chinese_row_is_elided_by_width_not_by_characters(qtbot, make_controller):
    from PySide6.QtGui import QFontMetricsF

    window, controller = make_controller()
    history = controller.history.history()
    source = "我明天上学会迟到。" * 12  # 108 characters: twice the list's width in most fonts
    history.add(source, "I will be late for school tomorrow.", "m", when=1.0)
    dialog = controller.history.show_dialog()
    qtbot.waitExposed(dialog)
    first, second = dialog.row_lines(0)
    assert first.endswith("…") and len(first) < len(source)
    width = dialog.list.visualItemRect(dialog.list.item(0)).width()
    assert QFontMetricsF(dialog.list.font()).horizontalAdvance(first) <= width
    assert second == "→ I will be late for school tomorrow."
    dialog.resize(dialog.width() + 400, dialog.height())
    qtbot.waitUntil(lambda: len(dialog.row_lines(0)[0]) > len(first), timeout=10_000)  # a wider list shows more


def test_a_retranslation_that_keeps_an_edited_sentence_is_kept_as_edited(qtbot, make_controller):
    """The window keeps a sentence the user edited when other sentences change: the entry the
    new translation writes holds the user's text and is marked edited, the machine's kept."""
    from PySide6.QtGui import QTextCursor

    from desktop_mt.engine.testing import FakeModelTranslator
    from desktop_mt.tm import TranslationMemory

    window, controller = make_controller(factory=lambda _config: FakeModelTranslator(lambda s: s.upper()))
    controller.postedit.use_memory(TranslationMemory(":memory:"))
    window.show()
    text = "Hello world. How are you? Fine."
    window.set_source(text)
    with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000):
        controller.translate(text)
    assert window.target_text() == "HELLO WORLD.HOW ARE YOU?FINE."
    start = window.target_text().index("HOW")
    window.target.setFocus()
    cursor = window.target.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(start + len("HOW ARE YOU?"), QTextCursor.MoveMode.KeepAnchor)
    window.target.setTextCursor(cursor)
    qtbot.keyClick(window.target, Qt.Key.Key_Delete)
    qtbot.keyClicks(window.target, "how do you do?")

    again = "Hello world. How are you? Fine, thanks."
    window.set_source(again)
    with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000) as added:
        controller.translate(again)
    entry = controller.history.history().get(added.args[0])
    assert entry.source == again
    assert entry.translation == "HELLO WORLD.how do you do?FINE, THANKS."
    assert entry.machine == "HELLO WORLD.HOW ARE YOU?FINE, THANKS."
    assert entry.is_edited and entry.edited is not None
    dialog = controller.history.show_dialog()
    assert dialog.entries()[0].id == entry.id and "✎ edited" in dialog.list.item(0).text()
    assert dialog.compare_check.isEnabled()
    dialog.compare_check.setChecked(True)
    assert dialog.comparing() and dialog.machine_view.toPlainText() == entry.machine
    assert "how" in dialog.highlighted(dialog.translation_view)
    assert "HOW" in dialog.highlighted(dialog.machine_view)


def test_a_popup_translation_is_not_given_the_windows_machine_text(qtbot, make_controller):
    window, controller = make_controller()
    window.set_source("Good morning")
    with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000):
        controller.translate("Good morning")
    assert controller.history.machine_text_of("something the popup showed") is None
    assert controller.history.machine_text_of(window.target_text()) is None  # nothing edited
