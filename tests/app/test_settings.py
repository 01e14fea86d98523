"""The one settings store (issue 25): one file, one schema with a version, migration of the two
files that recorded the model before (settings.json v1/v2 and models.json), nothing lost."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from desktop_mt.app import settings as app_settings
from desktop_mt.app.settings import (
    SETTINGS_VERSION,
    Settings,
    active_models,
    get_active,
    get_endpoint_setting,
    load_models,
    load_settings,
    save_settings,
    set_active,
    set_endpoint_setting,
    settings_path,
    update_models,
)


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("DESKTOP_MT_HOME", str(home))
    (home / "config").mkdir(parents=True)
    return home


@pytest.fixture
def zh_en_model(tiny_marian_dir, tmp_path) -> Path:
    """The tiny Marian, told by its manifest that it translates Chinese into English."""
    folder = tmp_path / "tiny-zh-en"
    shutil.copytree(tiny_marian_dir, folder)
    manifest = json.loads((folder / "desktop_mt.json").read_text("utf-8"))
    manifest.update(source_lang="zh", target_lang="en")
    (folder / "desktop_mt.json").write_text(json.dumps(manifest), "utf-8")
    return folder


# Every field a version-2 window saved, with values that are not the defaults.
V2_WINDOW = {
    "intra_op_threads": 3,
    "inter_op_threads": 2,
    "variant": "fp32",
    "max_output_length": 200,
    "beams": 1,
    "script": "traditional-tw",
    "settings_version": 2,
    "extra_model_dirs": ["/a"],
    "translate_as_you_type": True,
    "hotkey_enabled": False,
    "hotkey": "Ctrl+Shift+F9",
    "use_primary_selection": True,
    "hotkey_opens": "popup",
    "keep_history": False,
    "history_limit": 77,
    "window_geometry": "AAEC",
    "splitter_state": "AAA=",
    "close_to_tray": False,
    "tray_notice_shown": True,
    "font_size": 17,
    "recent_files": ["/x.txt"],
    "join_lines": False,
    "bilingual": True,
    "replace_hotkey": "Ctrl+Alt+R",
    "local_api": True,
    "local_api_port": 5123,
    "local_api_key": "k",
}


def write(path: Path, data: object) -> None:
    path.write_text(json.dumps(data), encoding="utf-8")


def test_both_old_files_migrate_into_one_and_nothing_is_lost(home, tiny_marian_dir, zh_en_model):
    config = home / "config"
    write(config / "settings.json", {**V2_WINDOW, "model_path": str(tiny_marian_dir)})
    write(
        config / "models.json",
        {
            "active_by_direction": {"en-zh": str(tiny_marian_dir), "zh-en": str(zh_en_model)},
            "active": str(tiny_marian_dir),
            "endpoint": "https://hf-mirror.com",
        },
    )
    loaded = load_settings()
    assert loaded.warnings == [] and loaded.backup is None
    for key, value in V2_WINDOW.items():
        if key != "settings_version":
            assert getattr(loaded.settings, key) == value, key
    assert loaded.settings.model_path == str(tiny_marian_dir) and loaded.settings.direction == "auto"
    assert loaded.models.active == {"en-zh": str(tiny_marian_dir), "zh-en": str(zh_en_model)}
    assert loaded.models.endpoint == "https://hf-mirror.com"
    # one file now, version 3; models.json kept aside (renamed), no longer read
    saved = json.loads((config / "settings.json").read_text("utf-8"))
    assert saved["settings_version"] == SETTINGS_VERSION == 3 and "model_path" not in saved
    assert saved["models"] == {
        "active": {"en-zh": str(tiny_marian_dir), "zh-en": str(zh_en_model)},
        "endpoint": "https://hf-mirror.com",
    }
    assert not (config / "models.json").exists() and (config / "models.json.migrated").exists()
    # the model manager's functions read the same file
    assert active_models() == loaded.models.active and get_endpoint_setting() == "https://hf-mirror.com"
    assert load_settings().settings == loaded.settings  # stable on a second read


def test_a_version_1_file_alone_migrates_its_model_and_greedy_default(home, zh_en_model):
    write(home / "config" / "settings.json", {"beams": 1, "model_path": str(zh_en_model), "font_size": 20})
    loaded = load_settings()
    assert loaded.settings.beams == 0 and loaded.settings.font_size == 20  # v1 greedy was the default
    # the window's zh->en model is the active Chinese->English model now
    assert loaded.models.active == {"en-zh": "", "zh-en": str(zh_en_model)}


def test_models_json_alone_migrates(home, tiny_marian_dir):
    write(home / "config" / "models.json", {"active": str(tiny_marian_dir), "endpoint": ""})
    assert get_active("en-zh") == str(tiny_marian_dir) and get_active("zh-en") == ""
    assert load_settings().settings.model_path == str(tiny_marian_dir)
    assert json.loads(settings_path().read_text("utf-8"))["settings_version"] == SETTINGS_VERSION


def test_conflicting_choices_keep_the_command_lines_and_still_offer_the_windows(home, tiny_marian_dir, tmp_path):
    other = tmp_path / "other-en-zh"
    shutil.copytree(tiny_marian_dir, other)
    write(home / "config" / "settings.json", {"settings_version": 2, "model_path": str(other)})
    write(home / "config" / "models.json", {"active_by_direction": {"en-zh": str(tiny_marian_dir), "zh-en": ""}})
    loaded = load_settings()
    assert loaded.models.active["en-zh"] == str(tiny_marian_dir)  # what the app adopted at start before
    assert str(other) in loaded.settings.extra_model_dirs  # not lost: the settings still list it
    assert any(str(other) in w for w in loaded.warnings)


def test_installed_model_names_become_folders_for_the_window(home, tiny_marian_dir):
    shutil.copytree(tiny_marian_dir, home / "models" / "tiny")
    write(home / "config" / "models.json", {"active_by_direction": {"en-zh": "tiny"}})
    assert load_settings().settings.model_path == str(home / "models" / "tiny")
    assert get_active() == "tiny"  # recorded by name, as `desktop-mt models list` shows it


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2, 3]", b"\xff\xfe\x00garbage"])
def test_a_broken_settings_file_is_kept_aside_with_a_clear_message(home, content):
    path = settings_path()
    path.write_bytes(content)
    loaded = load_settings()
    assert loaded.settings == Settings() and loaded.backup is not None
    assert loaded.backup.read_bytes() == content  # kept, not lost
    assert "unreadable" in loaded.warnings[0] and loaded.backup.name in loaded.warnings[0]
    assert load_settings().warnings == []  # the defaults written in its place read cleanly


def test_a_broken_models_json_is_kept_aside_and_the_window_settings_survive(home):
    write(home / "config" / "settings.json", {"settings_version": 2, "font_size": 22})
    (home / "config" / "models.json").write_text("{oops", "utf-8")
    loaded = load_settings()
    assert loaded.settings.font_size == 22 and loaded.models.active == {"en-zh": "", "zh-en": ""}
    kept = list((home / "config").glob("models.corrupt-*.json"))
    assert len(kept) == 1 and kept[0].read_text("utf-8") == "{oops"
    assert any(kept[0].name in w for w in loaded.warnings)


def test_the_windows_save_keeps_a_choice_made_meanwhile_on_the_command_line(home, tiny_marian_dir, zh_en_model):
    window = load_settings().settings  # the app starts: bundled models
    set_active(str(tiny_marian_dir))  # `desktop-mt models use ...` while it runs
    set_active(str(zh_en_model))
    set_endpoint_setting("https://hf-mirror.com")
    save_settings(dataclasses.replace(window, font_size=30))  # the app quits
    loaded = load_settings()
    assert loaded.settings.font_size == 30
    assert loaded.models.active == {"en-zh": str(tiny_marian_dir), "zh-en": str(zh_en_model)}
    assert loaded.models.endpoint == "https://hf-mirror.com"


def test_a_model_chosen_in_the_window_becomes_the_active_model_of_its_direction(home, tiny_marian_dir, zh_en_model):
    window = load_settings().settings
    save_settings(dataclasses.replace(window, model_path=str(zh_en_model)))
    assert active_models() == {"en-zh": "", "zh-en": str(zh_en_model)}
    save_settings(dataclasses.replace(window, model_path=str(tiny_marian_dir)))
    assert active_models() == {"en-zh": str(tiny_marian_dir), "zh-en": str(zh_en_model)}


def test_direction_setting_round_trips_and_is_checked(home):
    save_settings(Settings(direction="zh"))
    assert load_settings().settings.direction == "zh"
    write(settings_path(), {"settings_version": 3, "direction": "fr"})
    loaded = load_settings()
    assert loaded.settings.direction == "auto" and "direction" in loaded.warnings[0]


def test_update_models_leaves_the_window_settings_alone(home):
    save_settings(Settings(font_size=19, hotkey="Ctrl+Alt+Q"))

    def change(models: app_settings.ModelSettings) -> None:
        models.endpoint = "https://mirror.example"

    update_models(change)
    loaded = load_settings()
    assert loaded.settings.font_size == 19 and loaded.settings.hotkey == "Ctrl+Alt+Q"
    assert load_models().endpoint == "https://mirror.example"


def test_a_read_only_config_folder_still_loads_the_migrated_settings(home, tiny_marian_dir, monkeypatch):
    write(home / "config" / "settings.json", {"settings_version": 2, "font_size": 21})
    write(home / "config" / "models.json", {"active": str(tiny_marian_dir)})

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("read-only file system")

    monkeypatch.setattr(app_settings, "atomic_write", refuse)
    loaded = load_settings()
    assert loaded.settings.font_size == 21 and loaded.models.active["en-zh"] == str(tiny_marian_dir)
    assert any("could not be updated" in w for w in loaded.warnings)
    assert (home / "config" / "models.json").exists()  # not retired: it still holds the choice
