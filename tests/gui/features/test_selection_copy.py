"""Translate selection where there is no PRIMARY selection (Windows, macOS; here the offscreen
platform, which has none either): opted in, a simulated copy reads the selected text and the
user's clipboard, every format of it, is put back; not opted in, the clipboard is translated
and no key is pressed."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QMimeData
from PySide6.QtGui import QClipboard, QColor, QGuiApplication, QImage

from desktop_mt.gui.features import shortcuts
from desktop_mt.gui.platform.keys import KeySimulationError
from desktop_mt.gui.settings import Settings

CUSTOM = "application/x-desktop-mt-test"


class CopyKeys:
    """The application in front: on Ctrl+C its selection (None: nothing selected) becomes the
    clipboard, as a real copy would."""

    def __init__(self, selected: str | None, fail: bool = False) -> None:
        self.selected, self.fail, self.copies = selected, fail, 0

    def copy(self) -> None:
        self.copies += 1
        if self.fail:
            raise KeySimulationError("xdotool is not installed")
        if self.selected is not None:
            QGuiApplication.clipboard().setText(self.selected)

    def paste(self) -> None:
        raise AssertionError("translate selection never pastes")


def _users_clipboard() -> None:
    """Text, an image and a format of another program's own."""
    mime = QMimeData()
    mime.setText("what the user had copied")
    image = QImage(4, 3, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    mime.setImageData(image)
    mime.setData(CUSTOM, QByteArray(b"\x00private\xff"))
    QGuiApplication.clipboard().setMimeData(mime, QClipboard.Mode.Clipboard)


def _assert_users_clipboard_is_back() -> None:
    mime = QGuiApplication.clipboard().mimeData(QClipboard.Mode.Clipboard)
    assert mime.text() == "what the user had copied"
    assert mime.hasImage() and QImage(mime.imageData()).size().width() == 4
    assert bytes(mime.data(CUSTOM).data()) == b"\x00private\xff"


def test_opted_in_the_selection_is_copied_translated_and_the_clipboard_put_back(qtbot, make_controller):
    assert not QGuiApplication.clipboard().supportsSelection()  # as on Windows and macOS
    window, controller = make_controller(Settings(selection_copy=True))
    keys = CopyKeys("Selected words.")
    extra = shortcuts.SelectionAndShow(
        controller.services, controller.popup, controller.input, controller.direction, keys=keys
    )
    _users_clipboard()
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        extra.translate_selection()
    assert keys.copies == 1
    assert window.target_text() == "<Selected><words.>"
    _assert_users_clipboard_is_back()


def test_nothing_selected_leaves_the_clipboard_alone_and_says_so(qtbot, make_controller):
    window, controller = make_controller(Settings(selection_copy=True))
    extra = shortcuts.SelectionAndShow(
        controller.services, controller.popup, controller.input, controller.direction, keys=CopyKeys(None)
    )
    _users_clipboard()
    extra.translate_selection()
    with qtbot.waitSignal(extra.copier.done, timeout=10_000) as done:  # the copy's deadline passes
        pass
    assert done.args == [""]
    assert window.statusBar().currentMessage() == "No text was selected to translate."
    assert window.source_text() == ""
    _assert_users_clipboard_is_back()


def test_keys_that_cannot_be_sent_end_the_copy_at_once(qtbot, make_controller):
    window, controller = make_controller(Settings(selection_copy=True))
    keys = CopyKeys("x", fail=True)
    extra = shortcuts.SelectionAndShow(
        controller.services, controller.popup, controller.input, controller.direction, keys=keys
    )
    _users_clipboard()
    extra.translate_selection()
    assert keys.copies == 1 and not extra.copier.busy
    assert window.statusBar().currentMessage() == "No text was selected to translate."
    _assert_users_clipboard_is_back()


def test_not_opted_in_the_clipboard_is_translated_and_no_key_pressed(qtbot, make_controller):
    window, controller = make_controller()
    assert Settings().selection_copy is False
    keys = CopyKeys("Selected words.")
    extra = shortcuts.SelectionAndShow(
        controller.services, controller.popup, controller.input, controller.direction, keys=keys
    )
    QGuiApplication.clipboard().setText("Copied words.")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        extra.translate_selection()
    assert keys.copies == 0 and window.target_text() == "<Copied><words.>"


def test_the_settings_offer_the_copy_where_there_is_no_primary_selection(qtbot):
    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog

    dialog = SettingsDialog(Settings(), hotkey_available=True, hotkey_reason="")
    qtbot.addWidget(dialog)
    check = dialog.shortcuts.copy_check
    assert check.isEnabled() and not check.isChecked() and not check.isHidden()
    check.setChecked(True)
    assert dialog.current_settings().selection_copy is True
