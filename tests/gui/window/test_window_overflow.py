"""The toolbar's » (user test under Xvfb: a click showed nothing): in a window too narrow for
every button it pops up a menu of the commands that do not fit, which work from there; the
direction control, when it does not fit either, comes as a Direction submenu with Swap."""

from __future__ import annotations

from PySide6.QtCore import Qt


def narrow(qtbot, make_controller):
    window, controller = make_controller()
    window.resize(480, 560)
    window.show()
    qtbot.waitExposed(window)
    return window, controller


def test_the_overflow_button_shows_the_hidden_commands_in_a_menu(qtbot, make_controller):
    window, controller = narrow(qtbot, make_controller)
    button = window.overflow.button
    assert button is not None and button.isVisible()  # 480 px: not every button fits
    assert window.settings_button.isHidden() and not window.translate_button.isHidden()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    menu = window.overflow.menu
    qtbot.waitUntil(menu.isVisible, timeout=10_000)
    entries = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert "Settings…" in entries and "Translate file…" in entries
    assert "Translate" not in entries  # shown in the toolbar already
    assert all(window.toolbar.widgetForAction(a).isHidden() for a in menu.actions() if not a.isSeparator())
    settings = next(a for a in menu.actions() if a.text() == "Settings…")
    with qtbot.waitSignal(window.settingsRequested, timeout=10_000):
        settings.trigger()


def test_the_overflow_menu_follows_the_width(qtbot, make_controller):
    window, controller = narrow(qtbot, make_controller)
    window.overflow.fill()
    narrow_entries = len(window.overflow.menu.actions())
    window.resize(1600, 560)
    qtbot.waitUntil(lambda: not window.settings_button.isHidden(), timeout=10_000)
    window.overflow.fill()
    assert len(window.overflow.menu.actions()) < narrow_entries
    assert "Settings…" not in [a.text() for a in window.overflow.menu.actions()]


def test_the_direction_submenu_chooses_a_direction_and_swaps(qtbot, make_controller):
    window, controller = make_controller()
    window.overflow.menu.clear()
    window.overflow._add_directions()  # as when the direction control itself does not fit
    sub = window.overflow.menu.actions()[0].menu()
    entries = {a.text(): a for a in sub.actions() if not a.isSeparator()}
    assert entries["Auto"].isChecked()
    assert window.swap_action in sub.actions()
    zh_en = next(a for text, a in entries.items() if text.startswith("Chinese"))
    zh_en.trigger()
    assert window.direction_bar.target() == "en"
    assert controller.settings.direction == "en"
