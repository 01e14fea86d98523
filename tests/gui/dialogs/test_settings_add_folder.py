"""Settings > "Add model folder…" with a Marian in a downloaded layout (issue 32: a folder added
by the user gets the fastest layout, as a catalog download does): it is installed into the
models folder, converted to the step layout with per-row int8 off the UI thread, and selected;
the user's folder is left as it was; the same folder added again is not converted twice; a
failure is said in the dialog and the button works again."""

from __future__ import annotations

import threading
from pathlib import Path

import shiboken6
from PySide6.QtWidgets import QWidget

from desktop_mt.base.errors import ModelFormatError
from desktop_mt.engine.model_format import inspect_model_dir, verify_files
from desktop_mt.gui.dialogs import folder_adding
from desktop_mt.gui.dialogs.folder_adding import FolderAdder, adds_running
from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog
from desktop_mt.gui.settings import Settings
from tests.models.test_convert import merged_repo, tiny_merged_export  # noqa: F401 - fixture used by name

from ..fakes import wait_emitted

CONVERT_MS = 180_000  # the tiny model converts in seconds; the bound is for a loaded machine


def downloaded_folder(model_dir: Path, folder: Path) -> Path:
    """The tiny model as a user has it after downloading it from the Hub (transformers.js layout)."""
    for rel, data in merged_repo(model_dir).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return folder


def dialog_of(qtbot) -> SettingsDialog:
    dialog = SettingsDialog(Settings(), True, "")
    qtbot.addWidget(dialog)
    return dialog


def selected_paths(dialog: SettingsDialog) -> set[str]:
    return {dialog.models.model_for(way) for way in dialog.models.model_combos}


def test_a_downloaded_layout_is_installed_converted_and_selected(qtbot, app_home, tmp_path, tiny_merged_export):  # noqa: F811
    folder = downloaded_folder(tiny_merged_export, tmp_path / "downloads" / "my-marian")
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    dialog = dialog_of(qtbot)
    with wait_emitted(qtbot, dialog.models.adder.added, timeout=CONVERT_MS) as added:
        assert dialog.add_model_folder(str(folder)) is True
        assert not dialog.add_model_button.isEnabled()  # one add at a time
        assert "Adding my-marian" in dialog.model_error.text() and not dialog.model_error.isHidden()
    target = app_home / "models" / "my-marian"
    assert added.args == [str(folder), str(target)]
    info = inspect_model_dir(target)
    assert info.manifest is not None and info.manifest["converted"]["layout"] == "step"
    assert info.manifest["added_from"] == str(folder.resolve())
    for variant in ("int8", "fp32"):
        verify_files(info, variant)
    assert str(target) in selected_paths(dialog)
    assert dialog.add_model_button.isEnabled() and dialog.model_error.isHidden()
    assert dialog.current_settings().extra_model_dirs == []  # it lives in the models folder now
    assert folder_adding.take_unseen() == (  # the dialog was never shown: the next one would say
        "my-marian was added as the model my-marian: choose it in its direction's row.",
        "quiet",
    )
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before  # the user's folder as it was

    again = dialog_of(qtbot)
    assert again.add_model_folder(str(folder)) is True
    assert not again.models.adder.running  # made from this folder before: selected, not converted again
    assert str(target) in selected_paths(again)
    assert "my-marian was added before" in again.model_error.text() and not again.model_error.isHidden()
    assert sorted(p.name for p in (app_home / "models").iterdir()) == ["my-marian"]


def test_a_refused_conversion_is_said_and_the_model_works_as_downloaded(
    qtbot,
    app_home,
    tmp_path,
    monkeypatch,
    tiny_merged_export,  # noqa: F811
):
    """The converter refuses the graphs (say, a decoder it does not recognise): the model is
    installed in its downloaded layout and selected, and the dialog says why it is the slow one."""
    from desktop_mt.models import convert

    def refuse(folder: Path) -> None:
        raise ModelFormatError("the decoder has no self-attention key projection")

    monkeypatch.setattr(convert, "convert_model_dir", refuse)
    folder = downloaded_folder(tiny_merged_export, tmp_path / "downloads" / "odd-marian")
    dialog = dialog_of(qtbot)
    with wait_emitted(qtbot, dialog.models.adder.added, timeout=CONVERT_MS):
        assert dialog.add_model_folder(str(folder)) is True
    target = app_home / "models" / "odd-marian"
    info = inspect_model_dir(target)
    assert info.manifest is not None and "self-attention" in info.manifest["converted"]["refused"]
    verify_files(info, "int8")  # the int8 row points at the downloaded fp32 files
    assert str(target) in selected_paths(dialog)
    message = dialog.model_error.text()
    assert not dialog.model_error.isHidden()
    assert "kept in its downloaded layout" in message and "no self-attention key projection" in message

    again = dialog_of(qtbot)  # added again: selected, and still said to be the slow layout
    assert again.add_model_folder(str(folder)) is True and not again.models.adder.running
    assert str(target) in selected_paths(again)
    message = again.model_error.text()
    assert "odd-marian was added before" in message and "kept in its downloaded layout" in message


def test_a_failed_install_is_said_and_the_button_works_again(qtbot, app_home, tmp_path, tiny_merged_export):  # noqa: F811
    folder = downloaded_folder(tiny_merged_export, tmp_path / "downloads" / "my-marian")
    app_home.mkdir(parents=True, exist_ok=True)
    (app_home / "models").write_text("a file where the models folder should be")
    dialog = dialog_of(qtbot)
    with wait_emitted(qtbot, dialog.models.adder.failed, timeout=CONVERT_MS):
        assert dialog.add_model_folder(str(folder)) is True
    assert dialog.model_error.text().startswith("Could not add my-marian:")
    assert dialog.add_model_button.isEnabled()
    assert selected_paths(dialog) == {""}  # still the bundled models

    # The dialog was never shown (as if closed during the add): the next one says how it ended, once.
    assert dialog_of(qtbot).model_error.text().startswith("Could not add my-marian:")
    assert dialog_of(qtbot).model_error.isHidden()


def test_an_invalid_folder_is_refused_at_once(qtbot, tmp_path):
    (tmp_path / "empty").mkdir()
    dialog = dialog_of(qtbot)
    assert dialog.add_model_folder(str(tmp_path / "empty")) is False
    assert dialog.model_error.text().startswith("Cannot use") and not dialog.models.adder.running


def test_an_install_that_ends_after_its_dialog_closed_is_not_an_error(qtbot, tmp_path):
    """The dialog (the adder's parent) is gone when the conversion ends: the thread's report
    finds no receiver, and nothing is raised in it."""
    release, raised = threading.Event(), []
    owner = QWidget()

    def installer(folder: Path, target: Path) -> Path:
        release.wait()
        return target

    adder = FolderAdder(owner, installer=installer)
    previous = threading.excepthook
    threading.excepthook = lambda args: raised.append(args.exc_value)
    try:
        assert adder.start(tmp_path / "a", tmp_path / "b") is True
        assert adder.start(tmp_path / "c", tmp_path / "d") is False  # one at a time
        thread = adder._thread
        shiboken6.delete(owner)  # the dialog closed: its children go with it
        assert not shiboken6.isValid(adder)
        release.set()
        assert thread is not None
        thread.join(timeout=30)
        assert not thread.is_alive()
    finally:
        threading.excepthook = previous
    assert raised == []


def test_an_installer_error_becomes_a_message(qtbot, tmp_path):
    def installer(folder: Path, target: Path) -> Path:
        raise ModelFormatError(f"{folder}/onnx/decoder_model_merged.onnx is not a Marian decoder")

    adder = FolderAdder(installer=installer)
    with wait_emitted(qtbot, adder.failed, timeout=30_000) as failed:
        adder.start(tmp_path / "odd", tmp_path / "models" / "odd")
    assert failed.args[0] == str(tmp_path / "odd")
    assert failed.args[1].startswith("Could not add odd:") and "not a Marian decoder" in failed.args[1]


def test_quitting_while_a_folder_is_added_asks_first(qtbot, make_controller, tmp_path):
    """The add outlives its dialog (closed meanwhile), so the quit question names it."""
    window, controller = make_controller()
    release = threading.Event()

    def installer(folder: Path, target: Path) -> Path:
        release.wait()
        return target

    owner = QWidget()
    adder = FolderAdder(owner, installer=installer)
    asked: list[str] = []
    controller.quit_guard.ask = lambda parent, text: asked.append(text) or False
    try:
        assert adder.start(tmp_path / "my-marian", tmp_path / "models" / "my-marian")
        thread = adder._thread
        shiboken6.delete(owner)  # the dialog closed
        assert window.may_quit() is False  # asked, and the answer was "Keep running"
        assert len(asked) == 1 and "my-marian is being added as a model" in asked[0]
    finally:
        release.set()
    assert thread is not None
    thread.join(60)
    assert not thread.is_alive() and adds_running() == []  # it leaves the list before it ends
    assert window.may_quit() is True and len(asked) == 1  # nothing runs: no question


def test_a_dialog_opened_while_an_add_runs_says_so_and_starts_no_second(qtbot, app_home, tmp_path, tiny_merged_export):  # noqa: F811
    """The add was started from a Settings dialog since closed (it outlives it): a new dialog
    says so, and adding the same folder again does not start a second add into the same target."""
    folder = downloaded_folder(tiny_merged_export, tmp_path / "downloads" / "my-marian")
    release = threading.Event()

    def installer(folder: Path, target: Path) -> Path:
        release.wait()
        return target

    first = FolderAdder(installer=installer)  # the closed dialog's adder
    try:
        assert first.start(folder, app_home / "models" / "my-marian") is True
        dialog = dialog_of(qtbot)
        assert "my-marian is still being added" in dialog.model_error.text()
        assert not dialog.model_error.isHidden()
        assert dialog.add_model_folder(str(folder)) is False
        assert not dialog.models.adder.running  # no second add
        assert "my-marian is still being added" in dialog.model_error.text()
        assert dialog.add_model_button.isEnabled()
    finally:
        release.set()
        if first._thread is not None:
            first._thread.join(timeout=CONVERT_MS / 1000)  # no add left running for the next test
    assert adds_running() == []


def test_a_safetensors_checkpoint_folder_is_built_and_selected(qtbot, app_home, tmp_path, tiny_marian_hf):
    """A Marian checkpoint as the Hub has it (config.json + model.safetensors + tokenizer, no ONNX
    files) goes the same background way: built into the step layout without torch (issue 44)."""
    import shutil

    folder = tmp_path / "downloads" / "opus-mt-tiny"
    folder.mkdir(parents=True)
    from tests.models.test_checkpoint import HF_FILES

    for name in HF_FILES:
        shutil.copy2(Path(tiny_marian_hf) / name, folder / name)
    dialog = dialog_of(qtbot)
    with wait_emitted(qtbot, dialog.models.adder.added, timeout=CONVERT_MS) as added:
        assert dialog.add_model_folder(str(folder)) is True
    target = app_home / "models" / "opus-mt-tiny"
    assert added.args == [str(folder), str(target)]
    info = inspect_model_dir(target)
    assert info.manifest is not None and info.manifest["converted"]["by"] == "desktop_mt.models.convert.checkpoint"
    assert str(target) in selected_paths(dialog)
