"""The memory's matches as CAT tools show them (issue 46, defect 4): the whole source of each
match with its word-level differences to the sentence marked, its score, origin and target;
a panel that stays when the pointer moves onto it; Ctrl+1..3 and Tab-reachable Use buttons;
listed in Help > Keyboard shortcuts."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_mt.gui.features.tm_matches import diff_ops, tokens
from desktop_mt.gui.window.chrome import SHORTCUTS

from .test_postedit import _put_cursor, _retranslate, make_ready

SENTENCE = "Please save the file before you close the window."


def test_the_difference_is_marked_word_by_word():
    ops = diff_ops("Save the file before you close it.", "Save the file before you quit it.")
    assert [op for op in ops if op[0] != "equal"] == [("delete", "quit"), ("insert", "close")]
    assert "".join(t for kind, t in ops if kind != "insert") == "Save the file before you quit it."
    assert "".join(t for kind, t in ops if kind != "delete") == "Save the file before you close it."
    chinese = diff_ops("我明天去北京。", "我今天去北京。")
    assert [op for op in chinese if op[0] != "equal"] == [("delete", "今"), ("insert", "明")]
    assert tokens("火车站 ok") == ["火", "车", "站", " ", "ok"]


def _with_matches(qtbot, make_controller):
    window, controller, fake = make_ready(qtbot, make_controller)
    memory = controller.postedit.memory
    memory.add("Please save the file before you close the program.", "关闭程序前请保存文件。", "en-zh", "approved")
    memory.add("Please save the file before you close the window now.", "现在关窗前请保存文件。", "en-zh", "imported")
    memory.add("Please save the files before you close the window.", "关窗前请保存这些文件。", "en-zh", "approved")
    _retranslate(qtbot, window, controller, SENTENCE)
    _put_cursor(window, 1)
    return window, controller


def test_the_panel_shows_three_whole_matches_with_their_differences(qtbot, make_controller):
    window, controller = _with_matches(qtbot, make_controller)
    bar = window.suggestion_bar
    assert bar.isVisible() and all(label.isVisible() for label in bar.labels)
    texts = [label.text() for label in bar.labels]
    assert [t.split("</b>")[0] for t in texts] == ["<b>Ctrl+1", "<b>Ctrl+2", "<b>Ctrl+3"]
    assert all("…" not in t for t in texts)  # the whole source, never cut at the word that differs
    program = next(t for t in texts if "program" in t)
    assert "<s" in program and ">program</s>" in program and ">window</u>" in program and "(approved)" in program


def test_the_panel_stays_when_the_pointer_moves_onto_it(qtbot, make_controller):
    window, controller = _with_matches(qtbot, make_controller)
    bar, view = window.suggestion_bar, controller.alignment.view
    view.hover("target", 0)
    view.hover(None, 0)  # the pointer leaves the panes, straight onto the panel
    assert bar.isVisible()
    best = bar_target(controller, 0)
    bar.use_button.click()
    assert window.target_text() == best


def bar_target(controller, index):
    return controller.postedit.matches_for(controller.alignment.view.alignment.pairs[0])[index].entry.target


def test_ctrl_2_inserts_the_second_match_and_tab_reaches_use(qtbot, make_controller):
    window, controller = _with_matches(qtbot, make_controller)
    bar = window.suggestion_bar
    window.activateWindow()
    window.target.setFocus()
    qtbot.waitUntil(window.target.hasFocus, timeout=10_000)
    qtbot.keyClick(window.target, Qt.Key.Key_Tab)
    assert bar.buttons[0].hasFocus()
    second = bar_target(controller, 1)
    qtbot.keyClick(bar.buttons[0], Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert window.target_text() == second
    assert not bar.isVisible()


def test_help_lists_the_match_shortcuts():
    assert "match 1, 2 or 3" in dict(SHORTCUTS)["Ctrl+1 / Ctrl+2 / Ctrl+3"]
