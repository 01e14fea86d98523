"""Join lines on paste and already-Chinese text in the window (issue 19).

Text copied from a PDF (the samples in tests/data/pdf_paste) is joined by the engine's
``join_lines`` when it is pasted (Ctrl+V, the context menu's Paste, a text drop) or brought in
by Translate clipboard; one Ctrl+Z brings back the text as pasted. The toggle is in the Edit
menu and remembered. Japanese and Korean text is not translated, nor text already in the
chosen language; Chinese text is translated into English (issue 26).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QGuiApplication
from PySide6.QtWidgets import QApplication

from desktop_mt.engine.pasted import join_lines
from desktop_mt.gui.features import pasting
from desktop_mt.gui.settings import Settings, load_settings

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "pdf_paste"
NAMES = ("two_column", "hyphenation", "numbered_list", "table", "heading")


def sample(name: str) -> tuple[str, str]:
    before = (SAMPLES / f"{name}_before.txt").read_text(encoding="utf-8")
    after = (SAMPLES / f"{name}_after.txt").read_text(encoding="utf-8")
    return before, after


def undo(qtbot, window) -> None:
    window.source.setFocus()
    qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def paste_with_keys(qtbot, window) -> None:
    window.source.setFocus()
    qtbot.keyClick(window.source, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)


def paste_from_context_menu(qtbot, window) -> None:
    menu = window.source.createStandardContextMenu()
    action = next(a for a in menu.actions() if a.text().replace("&", "").startswith("Paste"))
    assert action.isEnabled()
    action.trigger()
    menu.deleteLater()


def drop_text(qtbot, window) -> None:
    mime = QMimeData()
    mime.setText(QGuiApplication.clipboard().text())
    viewport = window.source.viewport()
    point = viewport.rect().center()
    buttons, keys = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(point, Qt.DropAction.CopyAction, mime, buttons, keys)
    QApplication.sendEvent(viewport, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(viewport, QDragMoveEvent(point, Qt.DropAction.CopyAction, mime, buttons, keys))
    QApplication.sendEvent(viewport, QDropEvent(QPointF(point), Qt.DropAction.CopyAction, mime, buttons, keys))


@pytest.mark.parametrize("name", NAMES)
def test_pdf_samples_are_joined_on_ctrl_v_and_one_undo_gives_the_paste_back(qtbot, make_controller, name):
    before, after = sample(name)
    window, controller = make_controller()
    qtbot.keyClicks(window.source, "draft ")
    QGuiApplication.clipboard().setText(before)
    with qtbot.waitSignal(window.source.pasteTransformed, timeout=10_000):
        paste_with_keys(qtbot, window)
    assert window.source_text() == "draft " + after.rstrip("\n")
    assert window.statusBar().currentMessage() == pasting.JOINED
    undo(qtbot, window)
    assert window.source_text() == "draft " + before  # the text exactly as pasted
    undo(qtbot, window)
    assert window.source_text() == "draft "  # and then the draft before the paste


@pytest.mark.parametrize("paste", [paste_from_context_menu, drop_text], ids=["context-menu", "drop"])
def test_context_menu_paste_and_text_drops_are_joined_too(qtbot, make_controller, paste):
    before, after = sample("two_column")
    window, controller = make_controller()
    QGuiApplication.clipboard().setText(before)
    with qtbot.waitSignal(window.source.pasteTransformed, timeout=10_000):
        paste(qtbot, window)
    assert window.source_text() == after.rstrip("\n")
    window.source.undo()
    assert window.source_text() == before


def test_text_without_line_breaks_to_join_is_pasted_as_one_plain_step(qtbot, make_controller):
    window, controller = make_controller()
    QGuiApplication.clipboard().setText("One line.\n\nAnother paragraph.")
    with qtbot.assertNotEmitted(window.source.pasteTransformed):
        paste_with_keys(qtbot, window)
    assert window.source_text() == "One line.\n\nAnother paragraph."
    undo(qtbot, window)
    assert window.source_text() == ""


def test_the_edit_menu_toggle_turns_joining_off_and_is_remembered(qtbot, make_controller, tmp_path):
    before, _after = sample("hyphenation")
    window, controller = make_controller()
    assert window.join_lines_action.isChecked() and Settings().join_lines
    window.join_lines_action.trigger()  # the user unticks Edit > Join lines on paste
    assert not controller.settings.join_lines
    assert load_settings(tmp_path / "s.json").settings.join_lines is False
    QGuiApplication.clipboard().setText(before)
    paste_with_keys(qtbot, window)
    assert window.source_text() == before
    # The dialog's Apply (opened before the toggle) does not undo it.
    controller.apply_settings(Settings(join_lines=True))
    assert not controller.settings.join_lines


def test_a_remembered_off_toggle_is_shown_and_used(qtbot, make_controller):
    before, _after = sample("two_column")
    window, controller = make_controller(Settings(join_lines=False))
    assert not window.join_lines_action.isChecked()
    QGuiApplication.clipboard().setText(before)
    paste_with_keys(qtbot, window)
    assert window.source_text() == before


def test_translate_clipboard_translates_the_joined_text_and_undo_gives_the_raw_copy(qtbot, make_controller):
    before, after = sample("two_column")
    window, controller = make_controller()
    qtbot.keyClicks(window.source, "my draft")
    QGuiApplication.clipboard().setText(before)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate_clipboard()
    assert window.source_text() == after.rstrip("\n") == join_lines(before)
    assert controller.worker.translator.calls[-1]["text"] == join_lines(before)
    undo(qtbot, window)
    assert window.source_text() == before
    undo(qtbot, window)
    assert window.source_text() == "my draft"


def test_translate_clipboard_with_joining_off_translates_the_copy_as_it_is(qtbot, make_controller):
    before, _after = sample("two_column")
    window, controller = make_controller(Settings(join_lines=False))
    QGuiApplication.clipboard().setText(before)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate_clipboard()
    assert window.source_text() == before
    assert controller.worker.translator.calls[-1]["text"] == before


@pytest.mark.parametrize(
    ("text", "said"),
    [("日本語の文章です。", "Japanese: left as it is."), ("이것은 한국어 문장입니다.", "Korean: left as it is.")],
)
def test_japanese_and_korean_text_is_left_as_it_is(qtbot, make_controller, text, said):
    from ..window.test_swap_undo import _Directional  # copies kept text through, as the engine does

    window, controller = make_controller(factory=lambda config: _Directional(config))
    window.set_source(text)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.translate_action.trigger()
    assert window.statusBar().currentMessage() == said
    assert window.source_text() == text and window.target_text() == text  # shown as it is
    assert window.state() == "idle" and controller.current is None
    assert controller.worker.translator.calls[-1]["copied"]


def test_chinese_text_goes_to_the_model_into_english(qtbot, make_controller):
    window, controller = make_controller()
    text = "这是一段中文的文字。我们需要翻译它。"
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.set_source(text)
        window.translate_action.trigger()
    call = controller.worker.translator.calls[-1]
    assert call["text"] == text and call["options"].target == "auto"
    assert window.target_text() != ""


def test_chinese_with_english_chosen_as_target_is_left_as_it_is(qtbot, make_controller):
    from ..window.test_swap_undo import _Directional  # copies kept text through, as the engine does

    window, controller = make_controller(factory=lambda config: _Directional(config))
    controller.direction.choose("zh")  # English -> Chinese
    window.set_source("我爱你。")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.translate_action.trigger()
    assert window.statusBar().currentMessage() == "Chinese: already Chinese, left as it is."
    assert window.target_text() == "我爱你。"
    assert controller.worker.translator.calls[-1]["copied"]


def test_the_left_as_is_note_goes_when_the_text_is_translated_after_all(qtbot, make_controller):
    """Chinese kept with English -> Chinese chosen, then swapped to Chinese -> English: it is
    translated now, so the status bar no longer says it was left as it is (seen in the real
    window: the note stayed 10 s over the model's name beside the English translation)."""
    from ..window.test_swap_undo import _Directional

    window, controller = make_controller(factory=lambda config: _Directional(config))
    controller.direction.choose("zh")
    window.set_source("我爱你。")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.translate_action.trigger()
    assert window.statusBar().currentMessage() == "Chinese: already Chinese, left as it is."
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.direction.choose("en")  # Chinese -> English: re-translated
    assert window.statusBar().currentMessage() == ""


def test_mixed_text_is_translated_by_the_engine(qtbot, make_controller):
    window, controller = make_controller()
    text = "这是中文。This sentence is English and much longer than the Chinese one."
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(text)
    assert controller.worker.translator.calls[-1]["text"] == text
    assert controller.worker.translator.calls[-1]["options"].keep_cjk


def test_chinese_on_the_clipboard_is_shown_and_translated(qtbot, make_controller):
    window, controller = make_controller()
    QGuiApplication.clipboard().setText("我爱你。")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        assert controller.translate_clipboard() is not None
    assert window.source_text() == "我爱你。"
    assert controller.worker.translator.calls[-1]["text"] == "我爱你。"
