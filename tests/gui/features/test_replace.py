"""Translate and replace (issue 19), offscreen: the flow with scripted key presses.

The offscreen platform has no PRIMARY selection, so the flow takes the path of Windows and
macOS: a simulated Ctrl+C, the clipboard's change, the worker's translation, the Chinese on the
clipboard, a simulated Ctrl+V, the old clipboard back. The real X11 path (xdotool, PRIMARY,
another application as the target) is in test_replace_x11.py.
"""

from __future__ import annotations

import dataclasses
import threading

import pytest
from PySide6.QtCore import QMimeData, QPoint
from PySide6.QtGui import QGuiApplication

from desktop_mt.gui.features import replace
from desktop_mt.gui.platform import hotkey as hk
from desktop_mt.gui.platform.keys import KeySimulationError, KeySimulator, PynputKeys, XdotoolKeys, default_keys
from desktop_mt.gui.settings import Settings

from ..fakes import FakeGlobalHotKeys, wait_emitted


class ScriptedKeys:
    """Plays the focused application: Ctrl+C copies ``selection`` (None: nothing selected),
    Ctrl+V records what the clipboard holds at that moment."""

    def __init__(self, selection: str | None = None, paste_error: str = "") -> None:
        self.selection, self.paste_error = selection, paste_error
        self.pasted: list[str] = []
        self.copies = 0

    def copy(self) -> None:
        self.copies += 1
        if self.selection is not None:
            QGuiApplication.clipboard().setText(self.selection)

    def paste(self) -> None:
        if self.paste_error:
            raise KeySimulationError(self.paste_error)
        self.pasted.append(QGuiApplication.clipboard().text())


@pytest.fixture
def feature(make_controller):
    def make(keys: ScriptedKeys | None, reason: str = "", **fake):
        window, controller = make_controller(**fake)
        made = replace.TranslateReplace(controller.services, None, None, keys=(keys, reason))
        made.flow.restore_delay_ms = 50
        made.flow.copy_timeout_ms = 300
        return window, controller, made

    return make


def run(qtbot, flow, action=None):
    with qtbot.waitSignal(flow.finished, timeout=10_000) as blocker:
        (action or flow.trigger)()
    return blocker.args


def test_the_protocol_is_met_by_each_simulator():
    for keys in (XdotoolKeys(), PynputKeys(mac=True), ScriptedKeys()):
        assert isinstance(keys, KeySimulator)


def test_selection_becomes_chinese_in_place_and_the_clipboard_is_put_back(qtbot, feature):
    keys = ScriptedKeys(" Where is the station?\n")
    window, controller, made = feature(keys)
    QGuiApplication.clipboard().setText("what the user had copied")
    outcome, message = run(qtbot, made.flow)
    assert outcome == "replaced", message
    assert keys.pasted == [" <Where><is><the><station?>\n"]  # the selection's frame is kept
    assert QGuiApplication.clipboard().text() == "what the user had copied"
    assert window.statusBar().currentMessage() == message
    assert window.target_text() == "" and window.source_text() == ""  # the window is not involved
    call = controller.worker.translator.calls[-1]
    assert call["text"] == "Where is the station?"
    assert call["thread"] != threading.get_ident()  # translated in the worker thread


class QuietKeys(ScriptedKeys):
    """Copies without the clipboard's change signal: macOS tells an inactive app nothing."""

    def copy(self) -> None:
        clipboard = QGuiApplication.clipboard()
        clipboard.blockSignals(True)
        try:
            super().copy()
        finally:
            clipboard.blockSignals(False)


def test_a_copy_the_clipboard_does_not_announce_is_noticed(qtbot, feature):
    keys = QuietKeys("See you tomorrow")
    window, controller, made = feature(keys)
    made.flow.copy_timeout_ms = 5_000
    QGuiApplication.clipboard().setText("keep me")
    outcome, message = run(qtbot, made.flow)
    assert outcome == "replaced", message
    assert keys.pasted == ["<See><you><tomorrow>"]
    assert QGuiApplication.clipboard().text() == "keep me"


def test_every_format_of_the_old_clipboard_comes_back(qtbot, feature):
    window, controller, made = feature(ScriptedKeys("Good morning"))
    rich = QMimeData()
    rich.setText("plain words")
    rich.setHtml("<b>bold words</b>")
    QGuiApplication.clipboard().setMimeData(rich)
    assert run(qtbot, made.flow)[0] == "replaced"
    back = QGuiApplication.clipboard().mimeData()
    assert back.text() == "plain words" and "<b>bold words</b>" in back.html()


def test_nothing_selected_leaves_the_clipboard_as_it_was(qtbot, feature):
    keys = ScriptedKeys(None)
    window, controller, made = feature(keys)
    QGuiApplication.clipboard().setText("keep me")
    outcome, message = run(qtbot, made.flow)
    assert (outcome, message) == ("failed", replace.NO_SELECTION)
    assert keys.copies == 1 and keys.pasted == []
    assert QGuiApplication.clipboard().text() == "keep me"
    assert window.statusBar().currentMessage() == replace.NO_SELECTION
    assert controller.worker.translator.calls == []


def test_an_empty_clipboard_stays_empty_after_a_failure(qtbot, feature):
    window, controller, made = feature(ScriptedKeys("   "))
    QGuiApplication.clipboard().clear()
    assert run(qtbot, made.flow)[1] == replace.NO_SELECTION
    assert QGuiApplication.clipboard().text() == ""


def test_a_translation_error_leaves_the_clipboard_and_says_why(qtbot, feature):
    keys = ScriptedKeys("this will boom")
    window, controller, made = feature(keys, fail_on="boom")
    QGuiApplication.clipboard().setText("keep me")
    outcome, message = run(qtbot, made.flow)
    assert outcome == "failed" and "translation failed" in message and "exploded" in message
    assert keys.pasted == [] and QGuiApplication.clipboard().text() == "keep me"
    assert made.flow.state == "idle" and run(qtbot, made.flow)[0] == "failed"  # ready again


def test_cancelling_during_the_translation_pastes_nothing(qtbot, feature):
    keys = ScriptedKeys("one two three four five six seven eight")
    window, controller, made = feature(keys, delay=0.5)
    QGuiApplication.clipboard().setText("keep me")
    with wait_emitted(qtbot, controller.worker.started, timeout=10_000):
        made.flow.trigger()
    assert made.flow.state == "translating"
    outcome, _message = run(qtbot, made.flow, made.flow.cancel)
    assert outcome == "cancelled" and keys.pasted == []
    assert QGuiApplication.clipboard().text() == "keep me"


def test_a_failed_paste_puts_the_clipboard_back(qtbot, feature):
    window, controller, made = feature(ScriptedKeys("Hello", paste_error="no XTEST"))
    QGuiApplication.clipboard().setText("keep me")
    outcome, message = run(qtbot, made.flow)
    assert outcome == "failed" and "no XTEST" in message
    assert QGuiApplication.clipboard().text() == "keep me"


def test_a_chinese_selection_is_translated_too(qtbot, feature):
    """Auto direction (issue 26): Chinese goes into English as English goes into Chinese; the
    flow asks for target "auto" whatever the window's options say."""
    keys = ScriptedKeys("这是 一个 句子。")
    window, controller, made = feature(keys)
    made.flow.options = lambda: dataclasses.replace(controller.generation_options(), target="zh")
    QGuiApplication.clipboard().setText("keep me")
    assert run(qtbot, made.flow)[0] == "replaced"
    assert keys.pasted == ["<这是><一个><句子。>"]
    (call,) = controller.worker.translator.calls
    assert call["text"] == "这是 一个 句子。" and call["options"].target == "auto"
    assert QGuiApplication.clipboard().text() == "keep me"


def test_a_japanese_selection_is_left_as_it_is(qtbot, feature):
    keys = ScriptedKeys("これは日本語の文です。")
    window, controller, made = feature(keys)
    QGuiApplication.clipboard().setText("keep me")
    assert run(qtbot, made.flow) == ["failed", "Translate and replace: Japanese: left as it is."]
    assert keys.pasted == [] and controller.worker.translator.calls == []
    assert QGuiApplication.clipboard().text() == "keep me"


def test_a_second_press_while_translating_cancels(qtbot, feature):
    keys = ScriptedKeys("one two three four five six seven eight")
    window, controller, made = feature(keys, delay=0.5)
    QGuiApplication.clipboard().setText("keep me")
    with wait_emitted(qtbot, controller.worker.started, timeout=10_000):
        assert made.flow.trigger()
    outcome, message = run(qtbot, made.flow, lambda: made.flow.trigger())
    assert outcome == "cancelled" and window.statusBar().currentMessage() == message
    assert keys.pasted == [] and QGuiApplication.clipboard().text() == "keep me"


def test_its_requests_never_take_output_of_the_popup_or_the_window(qtbot, feature):
    window, controller, made = feature(ScriptedKeys("Good night"), delay=0.05)
    QGuiApplication.clipboard().setText("keep me")
    with qtbot.waitSignal(made.flow.finished, timeout=10_000) as blocker:
        controller.popup.show_for("the popup translates this first", QPoint(10, 10))
        made.flow.trigger()
        controller.translate("and the window this meanwhile")
    assert blocker.args[0] == "replaced"
    assert made.flow.keys.pasted == ["<Good><night>"]
    controller.popup.close()


def test_no_key_simulation_here_says_why(qtbot, feature):
    window, controller, made = feature(None, "Translate and replace is unavailable on Wayland.")
    QGuiApplication.clipboard().setText("keep me")
    assert run(qtbot, made.flow) == ["failed", "Translate and replace is unavailable on Wayland."]
    assert QGuiApplication.clipboard().text() == "keep me"


def test_default_keys_per_platform(monkeypatch):
    assert default_keys({"WAYLAND_DISPLAY": "wayland-0"}, "linux")[0] is None
    assert "no X display" in default_keys({}, "linux")[1]
    monkeypatch.setattr("shutil.which", lambda name: "/usr/bin/xdotool")
    assert isinstance(default_keys({"DISPLAY": ":0"}, "linux")[0], XdotoolKeys)
    mac = default_keys({}, "darwin")[0]
    assert isinstance(mac, PynputKeys) and mac.mac
    assert isinstance(default_keys({}, "win32")[0], PynputKeys)


# --- the hotkey -------------------------------------------------------------------------------


def test_the_hotkey_is_off_until_set_and_a_press_replaces(qtbot, fake_pynput, make_controller):
    window, controller = make_controller()
    keys = ScriptedKeys("Thank you")
    made = replace.TranslateReplace(controller.services, None, hk.GlobalHotkey(), keys=(keys, ""))
    made.flow.restore_delay_ms = 50
    assert made.register() == (False, "Translate and replace is off (no hotkey set).")
    assert Settings().replace_hotkey == ""
    controller.settings.replace_hotkey = "Ctrl+Alt+R"
    ok, message = made.register()
    assert ok and list(FakeGlobalHotKeys.last.mapping) == ["<ctrl>+<alt>+r"], message
    QGuiApplication.clipboard().setText("keep me")
    with qtbot.waitSignal(made.flow.finished, timeout=10_000) as blocker:
        threading.Thread(target=FakeGlobalHotKeys.last.mapping["<ctrl>+<alt>+r"]).start()
    assert blocker.args[0] == "replaced" and keys.pasted == ["<Thank><you>"]
    assert QGuiApplication.clipboard().text() == "keep me"
    controller.settings.replace_hotkey = controller.settings.hotkey
    assert not made.register()[0] and "clipboard hotkey too" in window.banner.label.text()
    made.shutdown()
    assert FakeGlobalHotKeys.last.stopped


def test_settings_applied_register_the_replace_hotkey_again(qtbot, fake_pynput, make_controller):
    """Apply in Settings: the feature follows the app's settings_applied (no one calls it)."""
    window, controller = make_controller()
    made = replace.TranslateReplace(controller.services, None, hk.GlobalHotkey(), keys=(ScriptedKeys("Hi"), ""))
    assert made.hotkey is not None and made.hotkey.active_sequence is None
    controller.apply_settings(dataclasses.replace(controller.settings, replace_hotkey="Ctrl+Alt+T"))
    assert made.hotkey.active_sequence == "Ctrl+Alt+T"
    assert list(FakeGlobalHotKeys.last.mapping) == ["<ctrl>+<alt>+t"]
    controller.apply_settings(dataclasses.replace(controller.settings, replace_hotkey=""))
    assert made.hotkey.active_sequence is None and FakeGlobalHotKeys.last.stopped
    made.shutdown()


def test_settings_dialog_sets_and_clears_the_replace_hotkey(qtbot):
    from PySide6.QtGui import QKeySequence

    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog

    dialog = SettingsDialog(Settings(), True, "")
    qtbot.addWidget(dialog)
    assert dialog.current_settings().replace_hotkey == ""
    dialog.replace_edit.setKeySequence(QKeySequence("Ctrl+Alt+R"))
    assert dialog.current_settings().replace_hotkey == "Ctrl+Alt+R"
    dialog.replace_edit.clear()
    assert dialog.current_settings().replace_hotkey == ""


def test_x_windows_of_one_client_share_the_bits_outside_the_resource_mask():
    mask = 0x1FFFFF  # the X.org server's usual mask
    assert replace.same_x_client(0x3A00007, 0x3A0001C, mask)
    assert not replace.same_x_client(0x3A00007, 0x3C00003, mask)


def test_primary_from_another_application_is_not_the_selection(qtbot, feature, monkeypatch):
    """On X11 PRIMARY may hold text selected long ago in another window; when its owner is not
    the focused application the press fails as "nothing selected" and nothing is translated."""
    keys = ScriptedKeys("unused")
    window, controller, made = feature(keys)
    monkeypatch.setattr(QGuiApplication.clipboard(), "supportsSelection", lambda: True, raising=False)
    made.flow.primary_in_focus = lambda: False
    QGuiApplication.clipboard().setText("keep me")
    outcome, message = run(qtbot, made.flow)
    assert (outcome, message) == ("failed", replace.NO_SELECTION)
    assert keys.pasted == [] and controller.worker.translator.calls == []
    assert QGuiApplication.clipboard().text() == "keep me"
