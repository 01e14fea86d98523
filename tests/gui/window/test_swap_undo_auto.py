"""Issue 46 (8): undoing a swap (Ctrl+Shift+S, then Ctrl+Z) leaves no translation of the other
direction in the target pane, under Auto (the default direction) as under an explicit one
(test_swap_undo.py), with Translate as you type on (the default) and off; the next
translation of the restored text goes the restored text's way."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_mt.gui.settings import Settings

from .test_swap_undo import CTRL, _Directional

WAIT_MS = 10_000  # event-based: a long bound costs nothing and holds on a busy machine


def _swapped(qtbot, make_controller, live: bool, text: str, translation: str, swapped: str):
    window, controller = make_controller(
        Settings(translate_as_you_type=live), factory=lambda config: _Directional(config)
    )
    window.set_source(text)
    with qtbot.waitSignal(controller.requestFinished, timeout=WAIT_MS):
        window.translate_action.trigger()
    assert window.target_text() == translation
    with qtbot.waitSignal(controller.requestFinished, timeout=WAIT_MS):
        window.swap_action.trigger()
    assert (window.source_text(), window.target_text()) == (translation, swapped)
    return window, controller


@pytest.mark.parametrize("live", [True, False], ids=["live", "not-live"])
@pytest.mark.parametrize(
    ("text", "translation", "swapped"),
    [("Hello world", "<你好世界>", "<Hello><world>"), ("你好世界", "<Hello><world>", "<你好世界>")],
    ids=["english", "chinese"],
)
def test_undoing_a_swap_under_auto_shows_the_restored_text_s_own_translation(
    qtbot, make_controller, live, text, translation, swapped
):
    window, controller = _swapped(qtbot, make_controller, live, text, translation, swapped)
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL)
    assert (window.source_text(), window.target_text()) == (text, translation)
    with qtbot.waitSignal(controller.requestFinished, timeout=WAIT_MS):
        window.translate_action.trigger()  # and translating it again goes its own way
    assert (window.source_text(), window.target_text()) == (text, translation)
    assert controller.worker.translator.calls[-1]["text"] == text
