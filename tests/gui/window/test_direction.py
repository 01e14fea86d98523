"""The window's direction control and swap (issue 26): Auto / English -> Chinese / Chinese ->
English, passed to the engine as ``GenerationOptions.target``; swap puts the translation into
the source pane (undoable) and flips the direction; a direction without a model is named."""

from __future__ import annotations

from desktop_mt.engine.direction import TARGETS, DirectionUnavailableError
from desktop_mt.gui.ports import EngineConfig
from desktop_mt.gui.window.direction_bar import CHOICES, swapped
from desktop_mt.gui.workers.translation import chosen_models

from ..fakes import FakeTranslator


def test_the_combo_box_chooses_the_target_of_every_request(qtbot, make_controller):
    window, controller = make_controller()
    bar = window.direction_bar
    assert bar.target() == "auto"
    window.set_source("今天天气很好。")
    bar.combo.setCurrentIndex(bar.combo.findData("en"))
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        bar.combo.activated.emit(bar.combo.currentIndex())  # what a user's choice emits
    assert controller.direction.target == "en"
    assert controller.worker.translator.calls[-1]["options"].target == "en"


def test_auto_shows_what_it_decided_for_the_text(qtbot, make_controller):
    window, controller = make_controller()
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("今天天气很好。")
    assert window.direction_bar.combo.itemText(0) == "Auto (Chinese → English)"
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("The weather is nice today.")
    assert window.direction_bar.combo.itemText(0) == "Auto (English → Chinese)"


class _Flipping(FakeTranslator):
    """English comes out as Chinese and Chinese as English."""

    def translate_stream(self, text, options=None, cancel=None, prefix=None, look_ahead=False):
        flipped = "你好世界" if text.isascii() else "Hello world"
        yield from super().translate_stream(flipped, options, cancel)


def test_swap_puts_the_translation_into_the_source_and_flips_the_direction(qtbot, make_controller):
    window, controller = make_controller(factory=lambda config: _Flipping(config))
    controller.direction.choose("zh")
    window.set_source("Hello world")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.translate_action.trigger()
    translation = window.target_text()
    assert translation == "<你好世界>"
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.swap_action.trigger()
    assert window.source_text() == translation
    assert window.direction_bar.target() == "en"
    assert controller.worker.translator.calls[-1]["options"].target == "en"
    assert window.target_text() == "<Hello><world>"
    window.source.undo()  # the swap is one undoable step of the source pane
    assert window.source_text() == "Hello world"


def test_swapped_flips_an_explicit_direction_and_keeps_auto():
    assert swapped("zh") == "en"
    assert swapped("en") == "zh"
    assert swapped("auto") == "auto"


def test_the_combo_lists_the_engine_s_targets_once_each():
    assert sorted(CHOICES) == sorted(TARGETS) and len(CHOICES) == len(TARGETS)


class _NoZhEn(FakeTranslator):
    def translate_stream(self, text, options=None, cancel=None, prefix=None, look_ahead=False):
        if any("\u4e00" <= c <= "\u9fff" for c in text):
            raise DirectionUnavailableError("zh-en", model="opus-mt-zh-en")
        return super().translate_stream(text, options, cancel)


def test_a_direction_without_a_model_names_the_model_to_download(qtbot, make_controller):
    window, controller = make_controller(factory=lambda config: _NoZhEn(config))
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("今天天气很好。")
    assert any("opus-mt-zh-en" in line for line in window.banner.lines())
    assert window.error_dialogs == []  # a banner, not a modal error
    assert window.state() == "idle"


def test_the_default_factory_builds_a_two_way_translator():
    from desktop_mt.engine.router import TwoWayTranslator
    from desktop_mt.gui.workers.translation import default_translator_factory

    translator = default_translator_factory(EngineConfig(intra_op_threads=1))
    try:
        assert isinstance(translator, TwoWayTranslator)
        assert "en-zh" in translator.directions
    finally:
        translator.close()


def test_a_chosen_model_goes_to_its_own_direction():
    from desktop_mt.engine.model_format import bundled_model_dir

    folder = str(bundled_model_dir("en-zh"))
    assert chosen_models(folder) == {"en-zh": folder}
    assert chosen_models(None) is None and chosen_models("") is None


def test_the_hotkey_translates_in_auto(qtbot, make_controller):
    from PySide6.QtGui import QGuiApplication

    window, controller = make_controller()
    controller.direction.choose("en")  # Chinese -> English chosen in the window
    QGuiApplication.clipboard().setText("Good morning.")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.hotkey_pressed()  # English text from another application
    assert window.direction_bar.target() == "auto"
    assert controller.worker.translator.calls[-1]["options"].target == "auto"
    assert window.target_text() == "<Good><morning.>"
