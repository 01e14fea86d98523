"""Models know their language pair; the store keeps an active model per direction (issue 26)."""

from __future__ import annotations

import json
import shutil

import pytest

from desktop_mt.app.factory import build_translator, catalog_model_for, model_folders
from desktop_mt.app.settings import (
    active_model_dir,
    active_models,
    get_active,
    remove_model,
    set_active,
    settings_path,
)
from desktop_mt.base.errors import ModelFormatError, ModelNotFoundError
from desktop_mt.engine.model_format import bundled_model_dir, inspect_model_dir
from desktop_mt.models import models_dir


@pytest.fixture
def zh_en_copy(tiny_marian_dir, tmp_path):
    """The tiny model's folder told it translates zh->en, three ways: manifest, tokenizer_config, name."""

    def make(how: str):
        folder = tmp_path / f"zh-en-{how}"
        shutil.copytree(tiny_marian_dir, folder)
        manifest = json.loads((folder / "desktop_mt.json").read_text("utf-8"))
        if how == "manifest":
            manifest.update(source_lang="zh", target_lang="en")
            (folder / "desktop_mt.json").write_text(json.dumps(manifest), "utf-8")
            return folder
        (folder / "desktop_mt.json").unlink()  # Optimum layout: facts from the other files
        if how == "tokenizer":
            config = json.loads((folder / "tokenizer_config.json").read_text("utf-8"))
            (folder / "tokenizer_config.json").write_text(
                json.dumps({**config, "source_lang": "zh", "target_lang": "en"}), "utf-8"
            )
        else:
            (folder / "tokenizer_config.json").unlink()
            config = json.loads((folder / "config.json").read_text("utf-8"))
            (folder / "config.json").write_text(
                json.dumps({**config, "_name_or_path": "Helsinki-NLP/opus-mt-zh-en"}), "utf-8"
            )
        return folder

    return make


@pytest.mark.parametrize("how", ["manifest", "tokenizer", "name"])
def test_a_model_folder_knows_its_language_pair(zh_en_copy, how):
    info = inspect_model_dir(zh_en_copy(how))
    assert (info.source_lang, info.target_lang, info.direction) == ("zh", "en", "zh-en")


def test_bundled_model_is_found_per_direction():
    assert inspect_model_dir(bundled_model_dir("en-zh")).direction == "en-zh"
    try:
        found = bundled_model_dir("zh-en")
    except ModelNotFoundError as exc:  # until the zh->en demo is bundled
        assert "no bundled zh-en model" in str(exc)
    else:
        assert inspect_model_dir(found).direction == "zh-en"


def test_old_single_active_model_migrates_to_english_chinese(home, tiny_marian_dir):
    legacy = settings_path().with_name("models.json")  # what desktop-mt wrote before both directions
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_text(json.dumps({"active": str(tiny_marian_dir), "endpoint": ""}), "utf-8")
    assert active_models() == {"en-zh": str(tiny_marian_dir), "zh-en": ""}
    assert active_model_dir("en-zh") == tiny_marian_dir and active_model_dir("zh-en") is None


def test_active_model_per_direction(home, tiny_marian_dir, zh_en_copy):
    zh_en = zh_en_copy("manifest")
    assert set_active(str(zh_en)) == "zh-en"  # placed by the model's own pair
    assert set_active(str(tiny_marian_dir)) == "en-zh"
    assert active_models() == {"en-zh": str(tiny_marian_dir), "zh-en": str(zh_en)}
    saved = json.loads(settings_path().read_text("utf-8"))  # the one settings file
    assert saved["models"]["active"] == {"en-zh": str(tiny_marian_dir), "zh-en": str(zh_en)}
    with pytest.raises(ModelFormatError, match="translates zh-en, not en-zh"):
        set_active(str(zh_en), "en-zh")
    set_active("", "zh-en")
    assert get_active("zh-en") == "" and get_active("en-zh") == str(tiny_marian_dir)
    folders = model_folders()
    assert folders["en-zh"] == tiny_marian_dir


def test_removing_a_model_resets_its_direction_only(home, tiny_marian_dir, zh_en_copy):
    installed = models_dir() / "mine-zh-en"
    shutil.copytree(zh_en_copy("manifest"), installed)
    set_active("mine-zh-en")
    set_active(str(tiny_marian_dir))
    remove_model("mine-zh-en")
    assert active_models() == {"en-zh": str(tiny_marian_dir), "zh-en": ""}


def test_factory_builds_both_directions_and_names_what_is_missing(home, tiny_marian_dir, zh_en_copy):
    zh_en = zh_en_copy("manifest")
    both = build_translator([str(zh_en), str(tiny_marian_dir)], variant="fp32")
    assert both.directions == ("en-zh", "zh-en")
    assert both.translators["zh-en"].model_info.path == zh_en
    only = build_translator([str(tiny_marian_dir)], variant="fp32")
    assert only.directions == ("en-zh",) and only.missing == {"zh-en": catalog_model_for("zh-en")}
    with pytest.raises(ModelFormatError, match="translates zh-en, not en-zh"):
        build_translator({"en-zh": str(zh_en)})


def test_shipped_catalog_has_a_model_per_direction(monkeypatch):
    monkeypatch.delenv("DESKTOP_MT_CATALOG", raising=False)
    assert (catalog_model_for("en-zh"), catalog_model_for("zh-en")) == ("opus-mt-en-zh", "opus-mt-zh-en")
