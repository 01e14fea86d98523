"""Settings: JSON round trip, defaults, validation, corrupt-file recovery, the dialog."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

from desktop_mt.gui import settings as settings_mod
from desktop_mt.gui.settings import Settings, load_settings, save_settings, settings_path


def test_default_location_is_under_the_redirected_config_dir(app_home):
    assert settings_path() == app_home / "config" / "settings.json"


def test_round_trip_keeps_every_field(tmp_path):
    path = tmp_path / "settings.json"
    original = Settings(
        intra_op_threads=3,
        inter_op_threads=2,
        variant="fp32",
        max_output_length=200,
        beams=4,
        model_path="/models/x",
        extra_model_dirs=["/a", "/b"],
        translate_as_you_type=True,
        hotkey_enabled=False,
        hotkey="Ctrl+Shift+F9",
        use_primary_selection=True,
        window_geometry="AAEC",
        splitter_state="AAA=",
    )
    save_settings(original, path)
    result = load_settings(path)
    assert result.settings == original and result.warnings == []


def test_missing_file_gives_defaults_silently(tmp_path):
    result = load_settings(tmp_path / "nope.json")
    assert result.settings == Settings() and result.warnings == []


def test_missing_keys_take_defaults(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"beams": 3}))
    result = load_settings(path)
    assert result.settings == dataclasses.replace(Settings(), beams=3)
    assert result.warnings == []


@pytest.mark.parametrize(
    "key,bad",
    [
        ("beams", "four"),
        ("beams", 17),
        ("script", "klingon"),
        ("variant", "fp16"),
        ("intra_op_threads", True),
        ("intra_op_threads", -1),
        ("translate_as_you_type", "yes"),
        ("extra_model_dirs", [1, 2]),
        ("max_output_length", 1e9),
        ("hotkey", None),
    ],
)
def test_invalid_values_fall_back_with_a_warning(tmp_path, key, bad):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({key: bad, "beams": 2} if key != "beams" else {key: bad}))
    result = load_settings(path)
    assert getattr(result.settings, key) == getattr(Settings(), key)
    assert len(result.warnings) == 1 and key in result.warnings[0]
    if key != "beams":
        assert result.settings.beams == 2  # the good values around it survive


def test_unknown_keys_are_ignored_with_a_warning(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"colour": "blue", "beams": 2}))
    result = load_settings(path)
    assert result.settings.beams == 2
    assert any("colour" in w for w in result.warnings)


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2, 3]", b"\xff\xfe\x00garbage", b""])
def test_corrupt_file_is_backed_up_and_replaced_by_defaults(tmp_path, content):
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    result = load_settings(path)
    assert result.settings == Settings()
    assert result.backup is not None and result.backup.read_bytes() == content
    assert result.backup.name in result.warnings[0]
    on_disk = json.loads(path.read_text())  # defaults on disk, no model chosen
    assert {k: v for k, v in on_disk.items() if k != "models"} == settings_mod.to_dict(Settings())
    assert on_disk["models"] == {"active": {"en-zh": "", "zh-en": ""}, "endpoint": ""}
    again = load_settings(path)  # the replacement reads cleanly
    assert again.warnings == [] and again.backup is None


def test_second_corruption_does_not_overwrite_first_backup(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{bad 1")
    first = load_settings(path).backup
    path.write_text("{bad 2")
    second = load_settings(path).backup
    assert first != second and first.read_text() == "{bad 1" and second.read_text() == "{bad 2"


def test_atomic_write_leaves_old_file_when_replace_fails(tmp_path, monkeypatch):
    path = tmp_path / "settings.json"
    save_settings(Settings(beams=2), path)

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        save_settings(Settings(beams=5), path)
    monkeypatch.undo()
    assert load_settings(path).settings.beams == 2
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]  # no temp file left


def test_corrupt_file_shows_visible_warning_in_app(qtbot, app_home):
    from desktop_mt.gui.app import build

    from .fakes import fake_factory

    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text("{{{")
    window, controller, _tray = build([], translator_factory=fake_factory())
    qtbot.addWidget(window)
    try:
        assert window.banner.isVisibleTo(window)
        assert "unreadable" in window.banner.label.text()
        assert list(path.parent.glob("settings.corrupt-*.json"))
    finally:
        controller.shutdown()


def test_geometry_and_splitter_are_saved_on_shutdown(qtbot, make_controller, tmp_path):
    window, controller = make_controller()
    window.show()
    qtbot.waitExposed(window)
    window.resize(777, 444)
    window.splitter.setSizes([100, 600])
    controller.shutdown()
    saved = load_settings(tmp_path / "s.json").settings
    assert saved.window_geometry and saved.splitter_state
    from desktop_mt.gui.window.main import MainWindow

    other = MainWindow()
    qtbot.addWidget(other)
    other.restore_layout(saved.window_geometry, saved.splitter_state)
    other.show()
    qtbot.waitExposed(other)
    assert other.size().width() == 777 and other.size().height() == 444
    assert other.splitter.sizes()[0] < other.splitter.sizes()[1]


def test_dialog_reflects_and_edits_settings(qtbot):
    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog

    dialog = SettingsDialog(
        Settings(beams=3, intra_op_threads=2, translate_as_you_type=True), hotkey_available=True, hotkey_reason=""
    )
    qtbot.addWidget(dialog)
    assert dialog.quality_combo.currentData() == 3 and dialog.intra_spin.value() == 2
    assert dialog.as_you_type_check.isChecked()
    dialog.quality_combo.setCurrentIndex(dialog.quality_combo.findData(1))
    dialog.max_length_spin.setValue(128)
    dialog.intra_spin.setValue(0)
    with qtbot.waitSignal(dialog.applied, timeout=10_000) as blocker:
        dialog.apply()
    new = blocker.args[0]
    assert (new.beams, new.max_output_length, new.intra_op_threads) == (1, 128, 0)
    assert new.hotkey == Settings().hotkey
    assert dialog.intra_spin.text() == "Use all processor cores (automatic)"  # 0 as what it means


@pytest.mark.parametrize("shared", [None, 2])
def test_the_cores_row_says_when_a_change_takes_effect(qtbot, monkeypatch, shared):
    """The ``desktop-mt`` window runs every session on one thread pool sized at start."""
    from desktop_mt.engine import runtime
    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog

    monkeypatch.setattr(runtime, "shared_thread_pool", lambda: shared)
    dialog = SettingsDialog(Settings(intra_op_threads=2), hotkey_available=True, hotkey_reason="")
    qtbot.addWidget(dialog)
    assert ("starts again" in dialog.intra_spin.toolTip()) is (shared is not None)


def test_dialog_applies_to_controller_and_persists(qtbot, make_controller, tmp_path):
    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog

    from .fakes import FakeTranslator

    window, controller = make_controller()
    dialog = SettingsDialog(controller.settings, True, "")
    qtbot.addWidget(dialog)
    dialog.applied.connect(controller.apply_settings)
    dialog.variant_combo.setCurrentIndex(dialog.variant_combo.findData("fp32"))
    with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):
        dialog.apply()
    assert FakeTranslator.instances[-1].config.variant == "fp32"
    assert load_settings(tmp_path / "s.json").settings.variant == "fp32"


def test_add_model_folder_rejects_incomplete_folder_with_engine_message(qtbot, tmp_path):
    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog

    bad = tmp_path / "half-export"
    bad.mkdir()
    (bad / "config.json").write_text(json.dumps({"model_type": "marian"}))
    dialog = SettingsDialog(Settings(), True, "")
    qtbot.addWidget(dialog)
    count = dialog.model_combo.count()
    assert dialog.add_model_folder(str(bad)) is False
    assert dialog.model_error.isVisibleTo(dialog)
    assert str(bad) in dialog.model_error.text()
    assert "encoder_model.onnx" in dialog.model_error.text()  # the engine names the missing file
    assert dialog.model_combo.count() == count
    assert dialog.current_settings().extra_model_dirs == []


def test_dialog_lists_models_from_user_models_folder(qtbot, app_home, monkeypatch):
    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog
    from desktop_mt.gui.features import models

    fake = models.ModelChoice("/m/user-model", "user-model (en→zh)", ("fp32",))
    monkeypatch.setattr(models, "_user_folder_choices", lambda: [fake])
    dialog = SettingsDialog(Settings(model_path="/m/user-model", variant="int8"), True, "")
    qtbot.addWidget(dialog)
    labels = [dialog.model_combo.itemText(i) for i in range(dialog.model_combo.count())]
    assert labels[0].startswith("Bundled") and "user-model (en→zh)" in labels
    assert dialog.model_combo.currentData() == "/m/user-model"
    # The model only has fp32: the variant list says so and int8 cannot be picked.
    assert [dialog.variant_combo.itemData(i) for i in range(dialog.variant_combo.count())] == ["fp32"]
    assert dialog.variant_combo.itemText(0) == "exact (fp32)"  # in a translator's words
    assert dialog.current_settings().variant == "fp32"
