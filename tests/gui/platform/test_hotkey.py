"""The global hotkey layer degrades gracefully; a working backend triggers clipboard translate."""

from __future__ import annotations

import gc
import warnings

import pytest

from desktop_mt.gui.platform import hotkey as hk
from desktop_mt.gui.platform.hotkeys.chord import parse_chord
from desktop_mt.gui.platform.hotkeys.pynput_backend import pynput_combo
from desktop_mt.gui.settings import Settings

from ..fakes import FakeGlobalHotKeys


def test_no_display_reports_unavailable_without_raising():
    ok, reason = hk.global_hotkey_support(env={}, platform="linux")
    assert ok is False and "DISPLAY" in reason and "Ctrl+Shift+V" in reason


@pytest.mark.parametrize("env", [{"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, {"XDG_SESSION_TYPE": "wayland"}])
def test_wayland_reports_unavailable(env):
    ok, reason = hk.global_hotkey_support(env=env, platform="linux")
    assert ok is False and "Wayland" in reason


def test_broken_x_display_is_caught(monkeypatch):
    # A DISPLAY that points nowhere: opening it raises; the layer must report it.
    monkeypatch.setenv("DISPLAY", ":987")
    ok, reason = hk.global_hotkey_support(platform="linux")
    assert ok is False and "the X display :987 could not be opened" in reason
    # python-xlib does not close the sockets of its failed connects (Xlib.support.unix_connect):
    # collect them here, where that is known, instead of as a ResourceWarning in a later test.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "unclosed <socket.socket", ResourceWarning)
        gc.collect()


def test_hotkey_object_in_headless_test_env_is_unavailable_and_start_does_not_raise(qtbot):
    key = hk.GlobalHotkey()
    assert key.available is False
    ok, message = key.start("Ctrl+Alt+E")
    assert ok is False and message == key.reason and key.active_sequence is None
    key.stop()  # idempotent


@pytest.mark.parametrize(
    "qt,expected",
    [
        ("Ctrl+Alt+E", "<ctrl>+<alt>+e"),
        ("Meta+Shift+T", "<shift>+<cmd>+t"),
        ("F9", "<f9>"),
        ("Ctrl+Space", "<ctrl>+<space>"),
        ("Ctrl+Alt+1", "<ctrl>+<alt>+1"),
        ("Ctrl+Alt+PgDown", "<ctrl>+<alt>+<page_down>"),
    ],
)
def test_qt_sequences_convert_to_pynput(qt, expected):
    assert pynput_combo(parse_chord(qt)) == expected


@pytest.mark.parametrize("bad", ["", "E", "Shift+E", "Ctrl+", "Ctrl+Banana", "Hyper+E"])
def test_bad_sequences_are_rejected(bad):
    with pytest.raises(ValueError):
        parse_chord(bad)


def test_hotkey_press_translates_clipboard(qtbot, fake_pynput, make_controller):
    from PySide6.QtGui import QGuiApplication

    from desktop_mt.gui.controller import Controller

    key = hk.GlobalHotkey()
    assert key.available
    window, controller = make_controller()
    controller.hotkey = key
    key.activated.connect(controller.translate_clipboard)
    ok, _ = controller.register_hotkey()
    assert ok and FakeGlobalHotKeys.last.started
    assert list(FakeGlobalHotKeys.last.mapping) == ["<ctrl>+<alt>+e"]
    QGuiApplication.clipboard().setText("pressed from anywhere")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        FakeGlobalHotKeys.last.press("<ctrl>+<alt>+e")
    assert window.target_text() == "<pressed><from><anywhere>"
    first = FakeGlobalHotKeys.last
    controller.apply_settings(Settings(hotkey="Ctrl+Shift+F9"))
    assert first.stopped and list(FakeGlobalHotKeys.last.mapping) == ["<ctrl>+<shift>+<f9>"]
    controller.apply_settings(Settings(hotkey_enabled=False, hotkey="Ctrl+Shift+F9"))
    assert FakeGlobalHotKeys.last.stopped and key.active_sequence is None
    assert isinstance(controller, Controller)


def test_invalid_hotkey_becomes_a_visible_warning(qtbot, fake_pynput, make_controller):
    window, controller = make_controller()
    controller.hotkey = hk.GlobalHotkey()
    controller.apply_settings(Settings(hotkey="Shift+E"))
    assert window.banner.isVisibleTo(window) and "Shift+E" in window.banner.label.text()


def test_settings_dialog_says_why_hotkey_is_unavailable(qtbot):
    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog

    key = hk.GlobalHotkey()
    dialog = SettingsDialog(Settings(), key.available, key.reason)
    qtbot.addWidget(dialog)
    assert not dialog.hotkey_check.isEnabled() and not dialog.hotkey_edit.isEnabled()
    assert "unavailable" in dialog.hotkey_status.text()
    assert dialog.hotkey_edit.keySequence().toString() == Settings().hotkey
