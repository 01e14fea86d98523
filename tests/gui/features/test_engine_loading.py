"""``engine_loading``'s texts of the loaded models (issue 26): the status bar's label of one
direction or of all, its tooltip and Help > About with every direction's model, variant and
demo labelling; and the worker's ``LoadedModels`` payload of a router and of one translator."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from desktop_mt.engine.model_format import bundled_model_dir, inspect_model_dir
from desktop_mt.engine.router import TwoWayTranslator
from desktop_mt.engine.testing import ScriptedTranslator
from desktop_mt.gui.features.engine_loading import about_text, is_demo, label_text, label_tooltip
from desktop_mt.gui.workers.translation import LoadedModels


def bundled() -> LoadedModels:
    return LoadedModels(
        {way: inspect_model_dir(bundled_model_dir(way)) for way in ("en-zh", "zh-en")},
        "int8",
    )


def test_the_label_names_one_directions_model_or_all_of_them():
    models = bundled()
    en_zh, zh_en = (models.models[w].name for w in ("en-zh", "zh-en"))
    assert label_text(models, "en-zh") == f"{en_zh} · int8"
    assert label_text(models, "zh-en") == f"{zh_en} · int8"
    assert label_text(models, None) == f"EN→ZH {en_zh} · ZH→EN {zh_en} · int8"


def test_a_missing_direction_is_named_in_the_label_tooltip_and_about():
    info = inspect_model_dir(bundled_model_dir("en-zh"))
    models = LoadedModels({"en-zh": info}, "fp32", {"zh-en": "opus-mt-zh-en"})
    assert models.directions == ("en-zh", "zh-en")
    assert label_text(models, None) == f"EN→ZH {info.name} · ZH→EN: no model · fp32"
    assert label_text(models, "zh-en") == "ZH→EN: no model"
    assert "Chinese → English: no model installed (File > Models… downloads opus-mt-zh-en)" in label_tooltip(models)
    assert "No Chinese → English model: File > Models… downloads opus-mt-zh-en." in about_text(models)


def test_one_model_without_a_missing_one_is_shown_alone():
    models = LoadedModels({"en-zh": inspect_model_dir(bundled_model_dir("en-zh"))}, "int8")
    assert label_text(models, None) == f"{models.primary.name} · int8"
    assert "no model" not in label_tooltip(models) and "No " not in about_text(models)


def test_the_tooltip_and_about_list_both_models_and_say_which_are_the_demo(tmp_path):
    models = bundled()
    assert all(is_demo(info.path) for info in models.models.values())
    tooltip = label_tooltip(models).splitlines()
    assert tooltip == [
        f"English → Chinese: {models.models['en-zh'].name} (int8, bundled demo model)",
        f"Chinese → English: {models.models['zh-en'].name} (int8, bundled demo model)",
    ]
    about = about_text(models)
    assert f"Model: {models.models['en-zh'].name} (int8), English → Chinese" in about
    assert f"Model: {models.models['zh-en'].name} (int8), Chinese → English" in about
    assert "These are the bundled demo models" in about and "not for real text" in about
    for info in models.models.values():  # where each model's licence is
        assert f"{info.name}: its licence" in about or f"{info.name}: its folder" in about
    real = inspect_model_dir(bundled_model_dir("zh-en"))
    copied = LoadedModels({"zh-en": dataclasses.replace(real, path=tmp_path, name="mine")}, "int8")
    assert not is_demo(tmp_path) and "demo" not in about_text(copied) and "demo" not in label_tooltip(copied)
    assert f"mine: its folder ({tmp_path}) has no model card" in about_text(copied)


def test_loaded_models_of_a_router_and_of_one_translator():
    en_zh, zh_en = ScriptedTranslator(name="a"), ScriptedTranslator(name="b")
    router = TwoWayTranslator({"en-zh": en_zh, "zh-en": zh_en})
    assert list(router.model_infos) == ["en-zh", "zh-en"]
    loaded = LoadedModels.of(router)
    assert loaded.models == {"en-zh": en_zh.model_info, "zh-en": zh_en.model_info}
    assert (loaded.variant, loaded.missing, loaded.primary) == ("int8", {}, en_zh.model_info)
    only_zh_en = LoadedModels.of(TwoWayTranslator({"en-zh": None, "zh-en": zh_en}, {"en-zh": "opus-mt-en-zh"}))
    assert only_zh_en.models == {"zh-en": zh_en.model_info} and only_zh_en.missing == {"en-zh": "opus-mt-en-zh"}
    assert only_zh_en.primary is zh_en.model_info
    single = LoadedModels.of(ScriptedTranslator(name="c", variant="fp32"))  # a stand-in: English->Chinese
    assert list(single.models) == ["en-zh"] and single.variant == "fp32" and single.directions == ("en-zh",)


def test_about_of_one_model_info_keeps_its_old_form(tmp_path):
    info = inspect_model_dir(bundled_model_dir("en-zh"))
    text = about_text(info, "int8")
    assert f"Model: {info.name} (int8), English → Chinese" in text and "bundled demo model" in text
    assert Path(info.path).name in text
