"""Help > Keyboard shortcuts lists the global shortcuts as the settings have them (issue 46:
Ctrl+Alt+E and Ctrl+Alt+O were missing), with the window's own."""

from __future__ import annotations

from desktop_mt.gui.settings import Settings


def test_help_lists_the_global_shortcuts_as_set(qtbot, make_controller):
    """Issue 46: Help > Keyboard shortcuts omitted Ctrl+Alt+E and Ctrl+Alt+O."""
    window, controller = make_controller(Settings())
    rows = dict(window.shortcut_rows())
    assert "Translate clipboard" in rows["Ctrl+Alt+E"] and "Translate screen region" in rows["Ctrl+Alt+O"]
    box = window.show_shortcuts()
    assert "Translate screen region" in box.text()
    box.close()
    controller.apply_settings(Settings(hotkey_enabled=False))
    assert dict(window.shortcut_rows()).get("Ctrl+Alt+E") is None
