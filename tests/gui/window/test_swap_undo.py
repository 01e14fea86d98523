"""Undo and redo of a swap (issue 26): Ctrl+Z in the source pane brings back the text AND the
direction chosen before the swap, so the next translation fills the pane in that direction;
Ctrl+Shift+Z brings the swap back, direction included."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_mt.engine import direction
from desktop_mt.engine.events import Finished, SegmentDone, TextDelta, TranslationStats
from desktop_mt.gui import settings as settings_mod

from ..fakes import FakeTranslator

CTRL = Qt.KeyboardModifier.ControlModifier
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


class _Directional(FakeTranslator):
    """The engine's contract in small: text that needs no direction for the requested target is
    copied through as it is (one literal, as ``TwoWayTranslator`` does); English comes out as
    ``<你好世界>``, Chinese as ``<Hello><world>``."""

    def translate_stream(self, text, options=None, cancel=None, prefix=None, look_ahead=False):
        target = getattr(options, "target", "auto")
        copied = not direction.directions_needed(text, target)
        self.calls.append({"text": text, "options": options, "copied": copied})
        if copied:
            yield TextDelta(text, -1)
            yield Finished(TranslationStats(0, 0, 0.0, None))
            return
        tokens = [f"<{word}>" for word in ("你好世界" if text.isascii() else "Hello world").split()]
        for token in tokens:
            if cancel is not None and cancel.is_set():
                break
            yield TextDelta(token, 0)
        else:
            yield SegmentDone(0, text, "".join(tokens), len(tokens))
        cancelled = cancel is not None and cancel.is_set()
        yield Finished(TranslationStats(1, len(tokens), 0.0, None, cancelled))


def _make(make_controller):
    return make_controller(factory=lambda config: _Directional(config))


def _translate(qtbot, window, controller):
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.translate_action.trigger()


def _swapped_once(qtbot, make_controller):
    window, controller = _make(make_controller)
    controller.direction.choose("zh")  # English -> Chinese
    window.set_source("Hello world")
    _translate(qtbot, window, controller)
    assert window.target_text() == "<你好世界>"
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.swap_action.trigger()
    assert window.source_text() == "<你好世界>"
    assert window.direction_bar.target() == "en"
    assert window.target_text() == "<Hello><world>"
    return window, controller


def test_undo_of_a_swap_brings_back_the_direction_and_the_next_translation_fills_the_pane(qtbot, make_controller):
    window, controller = _swapped_once(qtbot, make_controller)
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL)
    assert window.source_text() == "Hello world"
    assert window.direction_bar.target() == "zh"
    assert controller.direction.target == "zh"
    assert controller.settings.direction == "zh"
    assert window.target_text() == "<你好世界>"  # its own translation, not the swapped text's
    _translate(qtbot, window, controller)  # Ctrl+Enter again: translated, not emptied
    assert controller.worker.translator.calls[-1]["options"].target == "zh"
    assert window.target_text() == "<你好世界>"


def test_redo_of_a_swap_brings_back_the_swapped_direction(qtbot, make_controller):
    window, controller = _swapped_once(qtbot, make_controller)
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL)
    assert window.direction_bar.target() == "zh"
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL_SHIFT)
    assert window.source_text() == "<你好世界>"
    assert window.direction_bar.target() == "en"
    assert controller.settings.direction == "en"
    assert window.target_text() == "<Hello><world>"
    _translate(qtbot, window, controller)
    assert controller.worker.translator.calls[-1]["options"].target == "en"
    assert window.target_text() == "<Hello><world>"


def test_typing_after_a_swap_is_undone_first_and_the_swap_after_it(qtbot, make_controller):
    window, controller = _swapped_once(qtbot, make_controller)
    window.source.moveCursor(window.source.textCursor().MoveOperation.End)
    qtbot.keyClicks(window.source, "!")
    assert window.source_text() == "<你好世界>!"
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL)  # the typing
    assert window.source_text() == "<你好世界>"
    assert window.direction_bar.target() == "en"
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL)  # the swap
    assert window.source_text() == "Hello world"
    assert window.direction_bar.target() == "zh"


def test_an_edit_after_undoing_a_swap_leaves_the_direction_alone(qtbot, make_controller):
    window, controller = _swapped_once(qtbot, make_controller)
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL)
    window.source.moveCursor(window.source.textCursor().MoveOperation.End)
    qtbot.keyClicks(window.source, "!")  # the swap cannot be redone any more
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL_SHIFT)
    assert window.source_text() == "Hello world!"
    assert window.direction_bar.target() == "zh"
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL)  # the typing only
    assert window.source_text() == "Hello world"
    assert window.direction_bar.target() == "zh"


def test_undoing_two_swaps_goes_back_through_both_directions(qtbot, make_controller):
    window, controller = _swapped_once(qtbot, make_controller)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.swap_action.trigger()  # back into English, English -> Chinese again
    assert window.source_text() == "<Hello><world>"
    assert window.direction_bar.target() == "zh"
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL)
    assert (window.source_text(), window.direction_bar.target()) == ("<你好世界>", "en")
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL)
    assert (window.source_text(), window.direction_bar.target()) == ("Hello world", "zh")
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL_SHIFT)
    assert (window.source_text(), window.direction_bar.target()) == ("<你好世界>", "en")
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL_SHIFT)
    assert (window.source_text(), window.direction_bar.target()) == ("<Hello><world>", "zh")


def test_the_direction_restored_by_undo_is_saved(qtbot, make_controller, tmp_path):
    window, controller = _swapped_once(qtbot, make_controller)
    assert settings_mod.load_settings(tmp_path / "s.json").settings.direction == "en"
    qtbot.keyClick(window.source, Qt.Key.Key_Z, CTRL)
    assert settings_mod.load_settings(tmp_path / "s.json").settings.direction == "zh"
