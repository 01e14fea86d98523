"""View > History: entries of finished translations, the dialog's commands, the setting."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from desktop_mt.gui.settings import Settings
from desktop_mt.history import History, history_path


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
    from desktop_mt.gui.settings_dialog import SettingsDialog

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
    with qtbot.waitSignal(controller.history.entryEdited) as edited:
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
