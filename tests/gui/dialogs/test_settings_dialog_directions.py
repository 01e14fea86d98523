"""The settings dialog chooses a model per direction (user test: one "Model:" row offered the
English -> Chinese models only): one row per direction, each listing that direction's models
(the bundled demo of it, the models folder, added folders), the Chinese -> English choice saved
as that direction's active model, and Apply loading it."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_mt.app import settings as app_settings
from desktop_mt.engine.model_format import bundled_model_dir
from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog
from desktop_mt.gui.settings import Settings


def linked_copy(source: Path, folder: Path) -> Path:
    """A model folder whose files link to ``source``'s (a second installed model, cheaply)."""
    folder.mkdir(parents=True)
    for item in source.iterdir():
        (folder / item.name).symlink_to(item, target_is_directory=item.is_dir())
    return folder


@pytest.fixture
def zh_en_installed(app_home) -> Path:
    return linked_copy(bundled_model_dir("zh-en"), app_home / "models" / "my-zh-en")


def dialog_of(qtbot, settings: Settings | None = None) -> SettingsDialog:
    dialog = SettingsDialog(settings or Settings(), True, "")
    qtbot.addWidget(dialog)
    return dialog


def entries(combo) -> list[tuple[str, str]]:
    return [(combo.itemText(i), str(combo.itemData(i))) for i in range(combo.count())]


def test_one_row_per_direction_each_with_its_directions_models(qtbot, zh_en_installed):
    dialog = dialog_of(qtbot)
    combos = dialog.models.model_combos
    assert set(combos) == {"en-zh", "zh-en"}
    form = dialog._rows.layout()
    labels = []
    for i in range(form.rowCount()):
        item = form.itemAt(i, form.ItemRole.LabelRole)
        if item is not None and item.widget() is not None:
            labels.append(item.widget().text())
    assert "English → Chinese:" in labels and "Chinese → English:" in labels
    assert "Model:" not in labels
    en_zh, zh_en = entries(combos["en-zh"]), entries(combos["zh-en"])
    assert en_zh[0][1] == "" and "tatoeba-en-zh-small" in en_zh[0][0]  # the bundled demo of each
    assert zh_en[0][1] == "" and "tatoeba-zh-en-small" in zh_en[0][0]
    assert str(zh_en_installed) in [path for _text, path in zh_en]
    assert str(zh_en_installed) not in [path for _text, path in en_zh]
    assert not any("zh-en" in text for text, _path in en_zh)
    assert dialog.model_combo is combos["en-zh"]  # the window's model, as before


def test_the_chinese_to_english_choice_is_saved_to_its_direction(qtbot, zh_en_installed):
    app_settings.set_active("", "en-zh")
    dialog = dialog_of(qtbot)
    combo = dialog.models.model_combos["zh-en"]
    assert combo.currentData() == ""  # the active one (bundled) is shown
    combo.setCurrentIndex(combo.findData(str(zh_en_installed)))
    with qtbot.waitSignal(dialog.applied, timeout=10_000) as applied:
        dialog.apply()
    assert dialog.models_saved
    assert applied.args[0].model_path == ""  # the English -> Chinese row: unchanged
    assert app_settings.active_models() == {"en-zh": "", "zh-en": "my-zh-en"}
    again = dialog_of(qtbot)
    assert again.models.model_combos["zh-en"].currentData() == str(zh_en_installed)
    assert again.models.model_combos["en-zh"].currentData() == ""


def test_an_added_chinese_to_english_folder_goes_to_its_row(qtbot, app_home, tmp_path):
    folder = linked_copy(bundled_model_dir("zh-en"), tmp_path / "elsewhere" / "zh-en-model")
    dialog = dialog_of(qtbot)
    assert dialog.add_model_folder(str(folder)) is True
    assert dialog.models.model_combos["zh-en"].currentData() == str(folder)
    assert dialog.models.model_combos["en-zh"].currentData() == ""
    assert dialog.current_settings().model_path == ""
    assert dialog.current_settings().extra_model_dirs == [str(folder)]


def test_apply_reloads_the_engine_with_the_new_chinese_to_english_model(qtbot, zh_en_installed, make_controller):
    window, controller = make_controller()
    dialog = dialog_of(qtbot, controller.settings)
    dialog.applied.connect(controller.apply_settings)
    combo = dialog.models.model_combos["zh-en"]
    combo.setCurrentIndex(combo.findData(str(zh_en_installed)))
    with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):
        dialog.apply()
    assert app_settings.active_models()["zh-en"] == "my-zh-en"
