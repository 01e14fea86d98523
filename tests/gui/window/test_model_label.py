"""The status bar's model label names the model of the direction in use (issue 26): the
direction control's choice, under Auto the latest request's direction (both models before any
text); a direction without a model says so. The engine is a router over two scripted models."""

from __future__ import annotations

import pytest

from desktop_mt.engine.router import TwoWayTranslator
from desktop_mt.engine.testing import ScriptedTranslator

EN_ZH_MODEL = "tatoeba-en-zh-small"
ZH_EN_MODEL = "tatoeba-zh-en-small"
BOTH = f"EN→ZH {EN_ZH_MODEL} · ZH→EN {ZH_EN_MODEL} · int8"


def two_way_factory(zh_en: bool = True):
    """A factory of routers over two scripted translators (the Chinese->English one left out,
    and named missing, when ``zh_en`` is False)."""

    def factory(config):
        variant = config.variant
        translators = {
            "en-zh": ScriptedTranslator(lambda text: "中文", name=EN_ZH_MODEL, variant=variant),
            "zh-en": ScriptedTranslator(lambda text: "English", name=ZH_EN_MODEL, variant=variant) if zh_en else None,
        }
        return TwoWayTranslator(translators, {} if zh_en else {"zh-en": "opus-mt-zh-en"})

    return factory


@pytest.fixture
def two_way(make_controller):
    return make_controller(factory=two_way_factory())


def translate(qtbot, controller, text):
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(text)


def test_auto_without_text_names_both_models_and_the_tooltip_and_about_list_them(two_way):
    window, controller = two_way
    assert window.direction_bar.target() == "auto"
    assert window.model_label.text() == BOTH
    tooltip = window.model_label.toolTip()
    assert f"English → Chinese: {EN_ZH_MODEL} (int8)" in tooltip
    assert f"Chinese → English: {ZH_EN_MODEL} (int8)" in tooltip
    assert f"Model: {EN_ZH_MODEL} (int8), English → Chinese" in window.about_text
    assert f"Model: {ZH_EN_MODEL} (int8), Chinese → English" in window.about_text
    assert controller.model_info.name == EN_ZH_MODEL  # modelLoaded / history: the en-zh model, as before


def test_auto_names_the_model_of_the_latest_requests_direction(qtbot, two_way):
    window, controller = two_way
    translate(qtbot, controller, "今天天气很好。")
    assert window.model_label.text() == f"{ZH_EN_MODEL} · int8"
    assert window.target_text() == "English"  # the zh->en model did translate it
    translate(qtbot, controller, "The weather is nice today.")
    assert window.model_label.text() == f"{EN_ZH_MODEL} · int8"
    translate(qtbot, controller, "今天天气很好。The weather is nice.")  # needs both
    assert window.model_label.text() == BOTH
    assert f"Chinese → English: {ZH_EN_MODEL}" in window.model_label.toolTip()  # the tooltip keeps both


def test_an_explicit_direction_names_its_model_whatever_the_text(qtbot, two_way):
    window, controller = two_way
    window.set_source("今天天气很好。")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.translate_action.trigger()
    assert window.model_label.text() == f"{ZH_EN_MODEL} · int8"
    bar = window.direction_bar
    bar.combo.setCurrentIndex(bar.combo.findData("zh"))  # English -> Chinese, as a user's choice
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        bar.combo.activated.emit(bar.combo.currentIndex())
    assert controller.direction.target == "zh"
    assert window.model_label.text() == f"{EN_ZH_MODEL} · int8"
    controller.direction.swap()  # the translation becomes the source; Chinese -> English now
    qtbot.waitUntil(lambda: window.model_label.text() == f"{ZH_EN_MODEL} · int8", timeout=10_000)
    assert controller.direction.target == "en"


def test_choosing_a_direction_without_text_names_its_model_and_auto_names_both_again(two_way):
    window, controller = two_way
    controller.direction.choose("en")
    assert window.model_label.text() == f"{ZH_EN_MODEL} · int8"
    controller.direction.choose("zh")
    assert window.model_label.text() == f"{EN_ZH_MODEL} · int8"
    controller.direction.choose("auto")
    assert window.model_label.text() == BOTH


def test_the_saved_direction_is_shown_from_the_start(make_controller):
    from desktop_mt.gui.settings import Settings

    if "direction" not in Settings.__dataclass_fields__:
        pytest.skip("the settings keep no direction")
    window, _controller = make_controller(Settings(direction="en"), factory=two_way_factory())
    assert window.model_label.text() == f"{ZH_EN_MODEL} · int8"


def test_a_direction_without_a_model_says_so(qtbot, make_controller):
    window, controller = make_controller(factory=two_way_factory(zh_en=False))
    assert window.model_label.text() == f"EN→ZH {EN_ZH_MODEL} · ZH→EN: no model · int8"
    assert "Chinese → English: no model installed (File > Models… downloads opus-mt-zh-en)" in (
        window.model_label.toolTip()
    )
    assert "No Chinese → English model: File > Models… downloads opus-mt-zh-en." in window.about_text
    controller.direction.choose("en")
    assert window.model_label.text() == "ZH→EN: no model"
    controller.direction.choose("auto")
    translate(qtbot, controller, "The weather is nice today.")
    assert window.model_label.text() == f"{EN_ZH_MODEL} · int8"


def test_japanese_text_under_auto_leaves_the_label_as_it_is(qtbot, two_way):
    window, controller = two_way
    translate(qtbot, controller, "今天天气很好。")
    controller.engine.on_text_shown("こんにちは。")  # a request's kept text: no model runs
    assert window.model_label.text() == f"{ZH_EN_MODEL} · int8"


def test_a_reload_keeps_following_the_direction(qtbot, two_way):
    window, controller = two_way
    controller.direction.choose("en")
    controller.settings.variant = "fp32"
    with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):
        controller.reload_engine()
    assert window.model_label.text() == f"{ZH_EN_MODEL} · fp32"
