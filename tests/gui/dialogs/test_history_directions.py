"""The history in both directions (issue 26): a Chinese -> English translation made in the window
is kept and its row shows the source and the translation whole; text kept as it is makes no
entry."""

from __future__ import annotations

from PySide6.QtWidgets import QStyleOptionViewItem

from desktop_mt.gui.dialogs.history_dialog import ROW_PADDING, _line_height

from ..window.test_swap_undo import _Directional


def _translate(qtbot, window, controller, text):
    window.set_source(text)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.translate_action.trigger()


def test_a_chinese_to_english_translation_made_in_the_window_is_listed_whole(qtbot, make_controller):
    window, controller = make_controller(factory=lambda config: _Directional(config))
    with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000):
        _translate(qtbot, window, controller, "今天天气很好。")
    with qtbot.waitSignal(controller.history.entryAdded, timeout=10_000):
        _translate(qtbot, window, controller, "Hello world")
    dialog = controller.history.show_dialog()
    qtbot.waitExposed(dialog)
    entries = [(e.source, e.translation) for e in dialog.entries()]
    assert entries == [("Hello world", "<你好世界>"), ("今天天气很好。", "<Hello><world>")]
    first, second = dialog.row_lines(1)
    assert first.endswith("今天天气很好。")
    assert second == "→ <Hello><world>"  # the English translation under a Chinese source: drawn whole
    item = dialog.list.item(1)
    option = QStyleOptionViewItem()
    option.font = dialog.list.font()
    needed = sum(_line_height(line, option.font) for line in item.text().split("\n"))
    assert dialog.list.visualItemRect(item).height() >= needed + 2 * ROW_PADDING
    assert dialog.row_lines(0)[1] == "→ <你好世界>"
    dialog.list.setCurrentRow(1)
    assert dialog.translation_view.toPlainText() == "<Hello><world>"


def test_text_kept_as_it_is_makes_no_entry(qtbot, make_controller):
    window, controller = make_controller(factory=lambda config: _Directional(config))
    feature = controller.history
    assert feature.record("東京は日本の首都です。", "東京は日本の首都です。") is None
    assert feature.record("今天天气很好。", " 今天天气很好。\n") is None  # Chinese under English -> Chinese
    assert feature.record("今天天气很好。", "The weather is nice today.") is not None
    assert [e.source for e in feature.history().search()] == ["今天天气很好。"]
