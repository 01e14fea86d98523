"""Configurable global shortcuts: one editor per action in Settings, conflicts refused, kept in
the one settings store, applied on Apply without a restart (under Xvfb, with real key grabs)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QKeySequence, QPalette
from PySide6.QtWidgets import QDialogButtonBox

from desktop_mt.app.settings import load_settings, save_settings
from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog
from desktop_mt.gui.features import shortcuts
from desktop_mt.gui.platform.hotkey import GlobalHotkey
from desktop_mt.gui.platform.hotkeys.hub import HotkeyHub
from desktop_mt.gui.settings import Settings
from desktop_mt.gui.window import theme

from ..platform.hotkeys.test_hotkeys_x11 import Display, _grab


def test_every_shortcut_is_kept_in_the_settings_file(tmp_path):
    path = tmp_path / "settings.json"
    save_settings(Settings(selection_hotkey="Ctrl+Alt+S", region_hotkey="", show_hotkey="Meta+W"), path)
    loaded = load_settings(path)
    s = loaded.settings
    assert (s.selection_hotkey, s.region_hotkey, s.show_hotkey) == ("Ctrl+Alt+S", "", "Meta+W")
    assert loaded.warnings == []
    defaults = Settings()
    assert (defaults.selection_hotkey, defaults.region_hotkey, defaults.show_hotkey) == ("Ctrl+Alt+D", "Ctrl+Alt+O", "")


def test_the_dialog_edits_each_action_s_shortcut(qtbot):
    dialog = SettingsDialog(
        Settings(selection_hotkey="Ctrl+Alt+S", show_hotkey=""), hotkey_available=True, hotkey_reason=""
    )
    qtbot.addWidget(dialog)
    labels = [action.label for action in shortcuts.ACTIONS]
    assert labels == [
        "Translate clipboard",
        "Translate selection",
        "Translate screen region",
        "Show the window",
        "Translate and replace",
    ]
    assert dialog.shortcuts.values() == {
        "hotkey": "Ctrl+Alt+E",
        "selection_hotkey": "Ctrl+Alt+S",
        "region_hotkey": "Ctrl+Alt+O",
        "show_hotkey": "",
        "replace_hotkey": "",
    }
    dialog.shortcuts.edits["show_hotkey"].setKeySequence(QKeySequence("Ctrl+Alt+W"))
    dialog.shortcuts.edits["region_hotkey"].clear()
    new = dialog.current_settings()
    assert (new.show_hotkey, new.region_hotkey, new.selection_hotkey) == ("Ctrl+Alt+W", "", "Ctrl+Alt+S")
    # The clipboard's shortcut cannot be cleared alone (the switch turns them all off).
    dialog.shortcuts.edits["hotkey"].clear()
    assert dialog.current_settings().hotkey == "Ctrl+Alt+E"
    dialog.hotkey_check.setChecked(False)
    assert dialog.current_settings().hotkey_enabled is False


def test_two_actions_with_the_same_keys_are_refused_until_one_changes(qtbot):
    dialog = SettingsDialog(Settings(), hotkey_available=True, hotkey_reason="")
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    apply = dialog.buttons.button(QDialogButtonBox.StandardButton.Apply)
    assert ok.isEnabled() and apply.isEnabled() and dialog.shortcuts.conflict_label.isHidden()
    dialog.shortcuts.edits["show_hotkey"].setKeySequence(QKeySequence("Ctrl+Alt+O"))
    assert not ok.isEnabled() and not apply.isEnabled()
    assert dialog.shortcuts.conflict_label.text() == (
        "Ctrl+Alt+O is the shortcut of both Translate screen region and Show the window: "
        "choose another for one of them."
    )
    assert not dialog.shortcuts.conflict_label.isHidden()
    dialog.shortcuts.edits["show_hotkey"].setKeySequence(QKeySequence("Ctrl+Alt+W"))
    assert ok.isEnabled() and apply.isEnabled() and dialog.shortcuts.conflict_label.isHidden()


def test_conflicts_compare_keys_not_spelling():
    found = shortcuts.conflicts({"hotkey": "ctrl+alt+e", "show_hotkey": "Alt+Ctrl+E", "region_hotkey": "Ctrl+E"})
    assert set(found) == {"hotkey", "show_hotkey"}
    assert shortcuts.conflicts({"hotkey": "", "show_hotkey": "", "region_hotkey": "Banana"}) == {}


def test_settings_show_each_shortcut_s_state(qtbot):
    dialog = SettingsDialog(Settings(), hotkey_available=True, hotkey_reason="Active: Ctrl+Alt+E translates")
    qtbot.addWidget(dialog)
    kind = shortcuts.ShortcutKind  # the colour follows the state's kind, never its (translated) words
    dialog.set_shortcut_states(
        {
            "hotkey": shortcuts.ShortcutState(
                kind.ACTIVE, "Active: Ctrl+Alt+E translates the clipboard from any application."
            ),
            "region_hotkey": shortcuts.ShortcutState(
                kind.NOT_ACTIVE,
                "Not active: Ctrl+Alt+O is used by another program. Choose another shortcut in Settings.",
            ),
            "show_hotkey": shortcuts.ShortcutState(kind.OFF, "Off."),
        }
    )
    region = dialog.shortcuts.states["region_hotkey"]
    assert region.text().startswith("Not active: Ctrl+Alt+O is used by another program")
    error = theme.tone_color(region.window().palette(), "error")
    assert region.palette().color(QPalette.ColorRole.WindowText) == error  # coloured as an error
    assert dialog.hotkey_status.text().startswith("Active: Ctrl+Alt+E")
    assert dialog.shortcuts.states["show_hotkey"].text() == "Off."


def test_unavailable_shortcuts_disable_every_editor(qtbot):
    dialog = SettingsDialog(Settings(), hotkey_available=False, hotkey_reason="Global shortcuts are unavailable: x")
    qtbot.addWidget(dialog)
    assert not any(edit.isEnabled() for edit in dialog.shortcuts.edits.values())
    assert all("unavailable" in label.text() for label in dialog.shortcuts.states.values())


# ---- applied without a restart, with real grabs under Xvfb ---------------------------------


@pytest.fixture
def xdisplay() -> Iterator[Display]:
    from tests import sysdeps

    sysdeps.require("xvfb", "xdotool")
    display = Display()
    yield display
    display.stop()


@pytest.fixture
def hub(xdisplay: Display) -> Iterator[HotkeyHub]:
    from desktop_mt.gui.platform.hotkeys.x11 import X11Backend

    made = HotkeyHub(X11Backend(xdisplay.name))
    yield made
    made.close()


def test_show_window_shortcut_is_applied_and_changed_without_a_restart(qtbot, xdisplay, hub, make_controller):
    from Xlib import X

    window, controller = make_controller(Settings(show_hotkey="Ctrl+Alt+W"))
    extra = shortcuts.SelectionAndShow(
        controller.services, controller.popup, controller.input, controller.direction, hub=hub
    )
    extra.register()
    assert extra.show.active_sequence == "Ctrl+Alt+W"
    window.hide()
    with qtbot.waitSignal(extra.show.activated, timeout=10_000):
        xdisplay.key("ctrl+alt+w")
    assert window.isVisible()

    controller.apply_settings(Settings(show_hotkey="Ctrl+Alt+K"))  # registered again: settings_applied
    assert extra.show.active_sequence == "Ctrl+Alt+K"
    # The old keys are given back: another program can take them now.
    other, error = _grab(xdisplay.name, "w", X.ControlMask | X.Mod1Mask)
    assert error is None
    other.close()
    window.hide()
    with qtbot.waitSignal(extra.show.activated, timeout=10_000):
        xdisplay.key("ctrl+alt+k")
    assert window.isVisible()
    state = shortcuts.states(controller.settings, controller.hotkey_state(), None, extra, None)
    assert state["show_hotkey"] == "Active: Ctrl+Alt+K works from any application."
    assert state["selection_hotkey"] == "Active: Ctrl+Alt+D works from any application."

    controller.apply_settings(Settings(hotkey_enabled=False, show_hotkey="Ctrl+Alt+K"))
    assert extra.show.active_sequence is None and extra.selection.active_sequence is None
    assert shortcuts.states(controller.settings, controller.hotkey_state(), None, extra, None)["show_hotkey"] == "Off."
    extra.shutdown()


def test_a_taken_shortcut_is_said_in_the_window_and_in_settings(qtbot, xdisplay, hub, make_controller):
    from Xlib import X

    other, error = _grab(xdisplay.name, "d", X.ControlMask | X.Mod1Mask)
    assert error is None
    window, controller = make_controller()
    extra = shortcuts.SelectionAndShow(
        controller.services, controller.popup, controller.input, controller.direction, hub=hub
    )
    extra.register()
    assert "Translate selection: Ctrl+Alt+D is used by another program" in window.banner.label.text()
    assert shortcuts.states(controller.settings, controller.hotkey_state(), None, extra, None)["selection_hotkey"] == (
        "Not active: Ctrl+Alt+D is used by another program. Choose another shortcut in Settings."
    )
    other.close()
    extra.shutdown()


def test_the_selection_shortcut_translates_the_selection(qtbot, xdisplay, hub, make_controller, monkeypatch):
    window, controller = make_controller()
    extra = shortcuts.SelectionAndShow(
        controller.services, controller.popup, controller.input, controller.direction, hub=hub
    )
    asked: list[bool] = []
    monkeypatch.setattr(
        shortcuts, "clipboard_text", lambda settings, selection=False: asked.append(selection) or "Hello."
    )
    extra.register()
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        xdisplay.key("ctrl+alt+d")
    assert asked == [True] and window.target_text() == "<Hello.>"


def test_a_press_for_an_action_deleted_without_stop_is_ignored(qtbot, hub):
    import shiboken6

    key = GlobalHotkey(action="Show the window", hub=hub)
    assert key.start("Ctrl+Alt+W")[0]
    fire = key._fire  # what the backend calls on a press
    shiboken6.delete(key)  # its Qt parent went away first
    fire()  # no "C++ object already deleted" error escapes into the event loop


def test_two_actions_swap_their_keys_in_one_apply(qtbot, xdisplay, hub, make_controller):
    from desktop_mt.gui.app import open_settings

    window, controller = make_controller(Settings(hotkey="Ctrl+Alt+E", selection_hotkey="Ctrl+Alt+D"))
    controller.hotkey = GlobalHotkey(action="Translate clipboard", hub=hub)
    assert controller.register_hotkey()[0]
    extra = shortcuts.SelectionAndShow(
        controller.services, controller.popup, controller.input, controller.direction, hub=hub
    )
    extra.register()
    dialog = open_settings(controller, window, None, extra)
    qtbot.addWidget(dialog)
    dialog.shortcuts.edits["hotkey"].setKeySequence(QKeySequence("Ctrl+Alt+D"))
    dialog.shortcuts.edits["selection_hotkey"].setKeySequence(QKeySequence("Ctrl+Alt+E"))
    dialog.apply()
    assert (controller.hotkey.active_sequence, extra.selection.active_sequence) == ("Ctrl+Alt+D", "Ctrl+Alt+E")
    assert not window.banner.isVisibleTo(window)
    assert dialog.hotkey_status.text().startswith("Active: Ctrl+Alt+D")
    assert dialog.shortcuts.states["selection_hotkey"].text().startswith("Active: Ctrl+Alt+E")
    with qtbot.waitSignal(extra.selection.activated, timeout=10_000):
        xdisplay.key("ctrl+alt+e")
    extra.shutdown()
    controller.hotkey.stop()
