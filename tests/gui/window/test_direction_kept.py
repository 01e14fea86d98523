"""Text that is kept as it is (issue 26), what the Auto entry says about it, and the direction
choice across restarts.

- Chinese under a forced English -> Chinese, Japanese or Korean under Auto: the translation pane
  shows the text as it is (the engine copies it through: one literal ``TextDelta``), with the
  status bar's notice saying why ("Japanese: left as it is.").
- The Auto entry says what Auto does with the text in the source pane, in
  ``engine.direction.describe``'s short words: "Auto (Japanese: kept)", never the previous
  text's "Chinese → English".
- The choice (Auto / English -> Chinese / Chinese -> English) is saved and comes back in a new
  window on the same settings file.
"""

from __future__ import annotations

import pytest

from desktop_mt.gui import settings as settings_mod
from desktop_mt.gui.window.direction_bar import LABELS
from desktop_mt.gui.workers.translation import default_translator_factory

from .test_swap_undo import _Directional

JAPANESE = "東京は日本の首都です。"
KOREAN = "안녕하세요."
CHINESE = "今天天气很好。"


def _status(window) -> str:
    return window.statusBar().currentMessage()


def _translate(qtbot, window, controller, text):
    """Put ``text`` into the source pane and translate it as Ctrl+Enter does, to its end."""
    window.set_source(text)
    started = []
    controller.requestStarted.connect(lambda req_id, _text: started.append(req_id))
    # Event-based: a long timeout costs nothing, and the real models decode on a busy machine.
    with qtbot.waitSignal(controller.requestFinished, timeout=60_000) as finished:
        window.translate_action.trigger()
        assert started, "no request started: the window dropped the text before the engine"
    assert finished.args == [started[-1]]


@pytest.mark.parametrize(
    "text, target, notice",
    [
        (JAPANESE, "auto", "Japanese: left as it is."),
        (KOREAN, "auto", "Korean: left as it is."),
        (CHINESE, "zh", "Chinese: already Chinese, left as it is."),
    ],
)
def test_kept_text_is_shown_as_it_is_with_the_notice(qtbot, make_controller, text, target, notice):
    window, controller = make_controller(factory=lambda config: _Directional(config))
    controller.direction.choose(target)
    _translate(qtbot, window, controller, text)
    assert window.target_text() == text
    assert controller.worker.translator.calls[-1].get("copied")
    assert _status(window) == notice


def test_the_real_engine_copies_kept_text_into_the_pane(qtbot, make_controller):
    """The bundled models (both directions): a kept paragraph comes out of the engine as it is
    (``TwoWayTranslator``: one literal TextDelta, no model run) and the window shows it."""
    settings = settings_mod.Settings(intra_op_threads=1, max_output_length=32)
    window, controller = make_controller(settings, factory=default_translator_factory)
    text = f"{JAPANESE}\n\n{KOREAN}"
    _translate(qtbot, window, controller, text)
    assert window.target_text() == text
    assert _status(window) == "Japanese: left as it is."
    controller.direction.choose("zh")  # English -> Chinese chosen: Chinese is kept (translates again)
    _translate(qtbot, window, controller, CHINESE)
    assert window.target_text() == CHINESE
    assert _status(window) == "Chinese: already Chinese, left as it is."


def test_the_auto_entry_says_japanese_and_korean_text_is_kept(qtbot, make_controller):
    window, controller = make_controller(factory=lambda config: _Directional(config))
    bar = window.direction_bar
    _translate(qtbot, window, controller, CHINESE)
    assert bar.detected() == "Auto (Chinese → English)"
    window.set_source(JAPANESE)
    window.translate_action.trigger()  # kept: no request needs to run for the entry to follow
    qtbot.waitUntil(lambda: bar.detected() == "Auto (Japanese: kept)", timeout=10_000)
    window.source.selectAll()
    window.source.insertPlainText("안녕하세요")  # typed: the entry follows the source pane
    qtbot.waitUntil(lambda: bar.detected() == "Auto (Korean: kept)", timeout=10_000)
    _translate(qtbot, window, controller, "The weather is nice.")
    assert bar.detected() == "Auto (English → Chinese)"
    window.set_source(f"{CHINESE} It is sunny.")
    qtbot.waitUntil(lambda: bar.detected() == "Auto (mixed)", timeout=10_000)
    window.set_source("12:30")
    qtbot.waitUntil(lambda: bar.detected() == "Auto", timeout=10_000)


def test_the_auto_entry_is_plain_while_another_direction_is_chosen(qtbot, make_controller):
    window, controller = make_controller(factory=lambda config: _Directional(config))
    _translate(qtbot, window, controller, CHINESE)
    assert window.direction_bar.detected() == "Auto (Chinese → English)"
    controller.direction.choose("zh")
    assert window.direction_bar.detected() == LABELS["auto"]
    controller.direction.choose("auto")
    assert window.direction_bar.detected() == "Auto (Chinese → English)"


@pytest.mark.parametrize("choice", ["en", "zh", "auto"])
def test_the_direction_choice_comes_back_after_a_restart(qtbot, make_controller, tmp_path, choice):
    path = tmp_path / "s.json"  # make_controller's settings file
    window, controller = make_controller(settings_mod.load_settings(path).settings)
    assert window.direction_bar.target() == "auto"
    other = "en" if choice == "auto" else choice  # "auto": chosen back after another direction
    bar = window.direction_bar
    bar.combo.setCurrentIndex(bar.combo.findData(other))
    bar.combo.activated.emit(bar.combo.currentIndex())  # what a user's choice emits
    if choice == "auto":
        bar.combo.setCurrentIndex(bar.combo.findData("auto"))
        bar.combo.activated.emit(bar.combo.currentIndex())
    controller.shutdown()
    saved = settings_mod.load_settings(path).settings
    assert saved.direction == choice
    again, again_controller = make_controller(saved)
    assert again.direction_bar.target() == choice
    assert again_controller.direction.target == choice
    assert again_controller.window_options().target == choice


def test_a_swap_is_saved_as_the_new_choice(qtbot, make_controller, tmp_path):
    path = tmp_path / "s.json"
    window, controller = make_controller(settings_mod.load_settings(path).settings)
    controller.direction.choose("zh")
    window.swap_action.trigger()  # no translation yet: the direction alone flips
    assert controller.direction.target == "en"
    controller.shutdown()
    again, _again_controller = make_controller(settings_mod.load_settings(path).settings)
    assert again.direction_bar.target() == "en"


def test_applying_the_settings_dialog_keeps_the_direction_chosen_meanwhile(qtbot, make_controller, tmp_path):
    """The settings dialog holds a copy of the settings from when it opened; the global hotkey
    switches the window to Auto meanwhile. Apply must not bring the older choice back."""
    import dataclasses

    path = tmp_path / "s.json"
    window, controller = make_controller(settings_mod.load_settings(path).settings)
    controller.direction.choose("en")
    in_dialog = dataclasses.replace(controller.settings)  # what SettingsDialog copies at open
    controller.direction.use_auto()  # the hotkey while the dialog is open
    controller.apply_settings(dataclasses.replace(in_dialog, beams=2))
    assert window.direction_bar.target() == "auto"
    assert controller.settings.direction == "auto"
    assert settings_mod.load_settings(path).settings.direction == "auto"
