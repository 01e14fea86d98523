"""The window a translator keeps open all day: menus, status bar, text size, tray, one
instance, small screens, dark theme, model fallback, settings words (issue 14)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from desktop_mt.base.errors import ModelNotFoundError
from desktop_mt.base.resources_path import resource_path
from desktop_mt.gui import app as app_mod
from desktop_mt.gui.platform import single_instance
from desktop_mt.gui.settings import Settings, load_settings
from desktop_mt.gui.window import fonts, theme
from desktop_mt.gui.window.main import MIN_WIDTH, MainWindow

from .fakes import FakeTranslator

ROOT = Path(__file__).resolve().parents[2]


def menu_titles(window: MainWindow) -> dict[str, list[str]]:
    menus = {}
    for action in window.menuBar().actions():
        entries = [a.text() for a in action.menu().actions() if a.text()]
        menus[action.text().replace("&", "")] = entries
    return menus


def test_menus_hold_the_everyday_commands(qtbot, make_controller):
    window, controller = make_controller()
    menus = menu_titles(window)
    assert list(menus)[:4] == ["File", "Edit", "View", "Help"]
    assert {"Translate file…", "Recent files", "Quit"} <= set(menus["File"])
    assert {"Undo", "Redo", "Copy translation", "Select all", "Clear"} <= set(menus["Edit"])
    assert {"Larger text", "Smaller text", "Default text size"} <= set(menus["View"])
    assert {"Keyboard shortcuts", "About desktop-mt"} <= set(menus["Help"])
    assert window.quit_action.shortcut().toString() == "Ctrl+Q"
    about = window.about_action.trigger() or window.info_dialogs[-1]
    assert "fake-en-zh" in about.text() and "licence" in about.text()
    window.shortcuts_action.trigger()
    assert "Ctrl+Q" in window.info_dialogs[-1].text() and "Ctrl+Enter" in window.info_dialogs[-1].text()


def test_edit_menu_undo_and_select_all_act_on_the_source(qtbot, make_controller):
    window, controller = make_controller()
    window.set_source("draft")
    window.clearRequested.emit()
    assert window.undo_action.isEnabled()
    window.undo_action.trigger()
    assert window.source_text() == "draft"
    window.select_all_action.trigger()
    assert window.source.textCursor().selectedText() == "draft"


def test_text_size_is_saved_and_restored(qtbot, make_controller, tmp_path):
    window, controller = make_controller()
    window.larger_action.trigger()
    window.larger_action.trigger()
    assert window.source.font().pointSize() == 15 and window.target.font().pointSize() == 16
    assert load_settings(tmp_path / "s.json").settings.font_size == 15
    window2, _ = make_controller(settings=load_settings(tmp_path / "s.json").settings)
    assert window2.source.font().pointSize() == 15
    window2.reset_font_action.trigger()
    assert window2.font_size == 13


def test_recent_files_menu_retranslates(qtbot, make_controller, tmp_path, monkeypatch):
    from .features.test_file_job import batch_factory

    src = tmp_path / "talk.txt"
    src.write_text("one\n", encoding="utf-8")
    window, controller = make_controller(factory=batch_factory())
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000):
        controller.translate_file(str(src))
    assert window.recent_files() == [str(src)]
    monkeypatch.setattr(window, "ask_output_exists", lambda path, keep: "overwrite")
    entry = [a for a in window.recent_menu.actions() if a.data()][0]
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        entry.trigger()
    assert ended.args == ["finished"]


def test_status_bar_is_current_after_stop_and_clear(qtbot, make_controller):
    window, controller = make_controller(delay=0.01)
    controller.translate(" ".join(f"w{i}" for i in range(500)))
    qtbot.waitUntil(lambda: len(window.target_text()) > 0, timeout=10_000)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.stopRequested.emit()
    assert window.state() == "stopped" and "tok/s" in window.stats_label.text()
    window.clearRequested.emit()
    assert window.stats_label.text() == "" and window.state() == "idle"


def test_missing_chosen_model_falls_back_to_the_bundled_one(qtbot, make_controller, tmp_path):
    def factory(config):
        if config.model_dir:
            raise ModelNotFoundError(f"{config.model_dir}: no such model folder")
        return FakeTranslator(config)

    missing = str(tmp_path / "gone-model")
    window, controller = make_controller(settings=Settings(model_path=missing), factory=factory)
    text = window.banner.label.text()
    assert "gone-model" in text and "no such model folder" in text and "bundled model instead" in text
    assert window.model_label.text().startswith("fake-en-zh") and window.state() == "idle"
    assert controller.loaded_config.model_dir is None
    assert controller.settings.model_path == missing  # kept: the folder may come back
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("still works")
    assert window.target_text() == "<still><works>"


# ---- tray and quitting --------------------------------------------------------------------
def test_close_hides_to_tray_and_quit_really_closes(qtbot, make_controller):
    window, controller = make_controller()
    controller.set_tray_available(True)
    window.show()
    qtbot.waitExposed(window)
    closed: list[bool] = []
    window.closing.connect(lambda: closed.append(True))
    with qtbot.waitSignal(window.hiddenToTray, timeout=10_000):
        window.close()
    assert not window.isVisible() and closed == []
    window.bring_forward()  # what the hotkey and the tray do
    assert window.isVisible()
    with qtbot.waitSignal(window.closing, timeout=10_000):
        window.quit_action.trigger()
    assert not window.isVisible()


def test_close_quits_when_the_setting_is_off_or_there_is_no_tray(qtbot, make_controller):
    window, controller = make_controller(settings=Settings(close_to_tray=False))
    controller.set_tray_available(True)
    window.show()
    with qtbot.waitSignal(window.closing, timeout=10_000):
        window.close()
    window2, controller2 = make_controller()
    controller2.set_tray_available(False)
    window2.show()
    with qtbot.waitSignal(window2.closing, timeout=10_000):
        window2.close()


def test_first_hide_to_tray_says_the_app_keeps_running_once(qtbot, make_controller, tmp_path):
    from desktop_mt.gui.window.tray import Tray

    window, controller = make_controller()
    tray = Tray(window.windowIcon(), window)
    app_mod.on_hidden_to_tray(controller, tray)
    assert tray.last_notice and "still running" in tray.last_notice[0]
    assert load_settings(tmp_path / "s.json").settings.tray_notice_shown
    tray.last_notice = None
    app_mod.on_hidden_to_tray(controller, tray)
    assert tray.last_notice is None


# ---- single instance ------------------------------------------------------------------------
def test_second_launch_hands_its_command_line_to_the_first(qtbot):
    name = f"desktop-mt-test-{uuid.uuid4().hex[:8]}"
    first = single_instance.SingleInstance(name)
    assert first.listen()
    assert not single_instance.SingleInstance(name).listen()  # the name is taken
    # The second launch is another process (as in real life: its blocking socket calls hold
    # the GIL, so a thread of this process could not let the server answer).
    code = (
        "import sys; from desktop_mt.gui.platform import single_instance as s; "
        "sys.exit(0 if s.send_to_running(['notes.txt', '--clipboard'], '/home/me', sys.argv[1]) else 3)"
    )
    with qtbot.waitSignal(first.messageReceived, timeout=10_000) as got:
        second = subprocess.Popen([sys.executable, "-c", code, name], cwd=ROOT)
    qtbot.waitUntil(lambda: second.poll() is not None, timeout=10_000)
    assert got.args == [{"version": 1, "argv": ["notes.txt", "--clipboard"], "cwd": "/home/me"}]
    assert second.returncode == 0  # it got the answer and would exit
    first.close()
    assert single_instance.send_to_running([], "/", name) is False  # nobody there: start


def test_single_instance_message_format_is_checked():
    assert json.loads(single_instance.encode(["a"], "/d")) == {"version": 1, "argv": ["a"], "cwd": "/d"}
    for bad in (b"not json", b'{"version": 2}', b'{"version": 1, "argv": "a"}', b"[1]"):
        with pytest.raises(ValueError):
            single_instance.decode(bad)


def test_remote_command_line_translates_clipboard_and_files(qtbot, make_controller, tmp_path):
    from .features.test_file_job import batch_factory

    window, controller = make_controller(factory=batch_factory())
    window.hide()
    QGuiApplication.clipboard().setText("sent from a second launch")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        app_mod.on_remote_message({"version": 1, "argv": ["--clipboard"], "cwd": str(tmp_path)}, window, controller)
    assert window.isVisible() and window.target_text() == "<sent><from><a><second><launch>"
    # --selection (desktop-mt show --selection): the primary selection, or the clipboard
    # where the platform has none (offscreen here, like Windows and macOS).
    clipboard = QGuiApplication.clipboard()
    expected = "selected words" if clipboard.supportsSelection() else "copied words"
    clipboard.setText("copied words")
    if clipboard.supportsSelection():
        clipboard.setText("selected words", clipboard.Mode.Selection)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        app_mod.on_remote_message({"version": 1, "argv": ["--selection"], "cwd": str(tmp_path)}, window, controller)
    assert window.source_text() == expected
    (tmp_path / "doc.txt").write_text("hello\n", encoding="utf-8")
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000):
        app_mod.on_remote_message({"version": 1, "argv": ["doc.txt"], "cwd": str(tmp_path)}, window, controller)
    assert (tmp_path / "doc.zh.txt").read_text(encoding="utf-8") == "译HELLO\n"


# ---- small screens ---------------------------------------------------------------------------
def test_window_works_480_px_wide(qtbot, make_controller):
    window, controller = make_controller()
    window.show()
    window.resize(MIN_WIDTH, 500)
    qtbot.waitUntil(lambda: window.width() == MIN_WIDTH, timeout=10_000)
    assert window.minimumSizeHint().width() <= MIN_WIDTH
    # The toolbar keeps the first commands and moves the rest into its » menu.
    assert window.translate_button.isVisible()
    assert window.toolbar.width() <= MIN_WIDTH and window.target.width() > 100


def test_window_fits_the_screen_it_opens_on(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    free = window.screen().availableGeometry()
    window.resize(free.width() * 3, free.height() * 3)
    window.move(free.right() + 500, free.bottom() + 500)
    window.fit_to_screen()
    assert window.width() <= free.width() and window.height() <= free.height()
    assert free.contains(window.geometry().topLeft())


# ---- dark theme ------------------------------------------------------------------------------
def test_stylesheet_has_no_literal_colours():
    qss = resource_path("styles", "app.qss").read_text(encoding="utf-8")
    assert not re.findall(r"#[0-9a-fA-F]{3,8}\b|rgba?\(", qss)
    assert "palette(" in qss


@pytest.fixture
def dark_app():
    app = QApplication.instance()
    old_palette, old_sheet = app.palette(), app.styleSheet()
    app.setPalette(theme.dark_palette())
    app.setStyleSheet(fonts.stylesheet())
    yield app
    app.setStyleSheet(old_sheet)
    app.setPalette(old_palette)


def test_translation_pane_is_readable_under_a_dark_palette(qtbot, dark_app):
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(700, 400)
    window.show()
    qtbot.waitExposed(window)
    window.append_target("你好，世界。" * 3)
    image = window.target.viewport().grab().toImage()
    background = image.pixelColor(image.width() - 3, image.height() - 3)
    text = window.target.palette().color(QPalette.ColorRole.Text)
    assert background.lightnessF() < 0.3, f"the pane is light: {background.name()}"
    assert theme.contrast_ratio(background, text) >= 7
    # Rendered glyphs really differ from the background (not white on white).
    pixels = [image.pixelColor(x, y) for x in range(0, min(image.width(), 200), 2) for y in range(0, 40, 2)]
    assert max(theme.contrast_ratio(background, p) for p in pixels) >= 4.5


def test_tones_follow_the_palette(qtbot):
    light, dark = QPalette(QColor("#f0f0f0")), theme.dark_palette()
    for tone in ("error", "warning"):
        assert theme.contrast_ratio(theme.tone_color(light, tone), QColor("#ffffff")) >= 4.5
        assert theme.contrast_ratio(theme.tone_color(dark, tone), dark.color(QPalette.ColorRole.Window)) >= 4.5


# ---- settings in a translator's words --------------------------------------------------------
def test_settings_use_a_translators_words_with_tooltips(qtbot):
    from PySide6.QtWidgets import QLabel

    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog

    dialog = SettingsDialog(Settings(), True, "Active: Ctrl+Alt+E translates the clipboard.")
    qtbot.addWidget(dialog)
    labels = [w.text() for w in dialog.findChildren(QLabel)]
    assert "Speed:" in labels and "Quality:" in labels and "Model precision:" in labels
    assert not any("Intra-op" in t or "Variant" in t for t in labels)
    assert dialog.variant_combo.itemText(0) == "faster (int8)"
    for widget in (dialog.intra_spin, dialog.quality_combo, dialog.variant_combo, dialog.max_length_spin):
        assert widget.toolTip()


class _Key:
    def __init__(self, available=True, reason="", active=None):
        self.available, self.reason, self.active_sequence = available, reason, active

    def start(self, sequence):
        return False, f"Could not register the global hotkey {sequence}: BadAccess."

    def stop(self):
        pass


def test_hotkey_state_says_what_really_happened(qtbot, make_controller):
    window, controller = make_controller()
    controller.hotkey = _Key(active="Ctrl+Alt+E")
    assert controller.hotkey_state().startswith("Active: Ctrl+Alt+E")
    controller.hotkey = _Key()
    controller.register_hotkey()
    assert (
        controller.hotkey_state().startswith("Failed to register Ctrl+Alt+E")
        and "BadAccess" in controller.hotkey_state()
    )
    controller.hotkey = _Key(available=False, reason="Global hotkeys are unavailable on Wayland: x")
    assert controller.hotkey_state().startswith("Unavailable: Global hotkeys are unavailable on Wayland")
    controller.settings.hotkey_enabled = False
    controller.hotkey = _Key()
    assert controller.hotkey_state().startswith("Off.")


@pytest.mark.parametrize("button, expected", [("Keep both", "keep"), ("Replace", "overwrite"), ("Cancel", "cancel")])
def test_output_question_returns_the_clicked_answer(qtbot, button, expected):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    window = MainWindow()
    qtbot.addWidget(window)

    def click() -> None:  # runs inside the dialog's own event loop
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox) and "notes.zh (2).txt" in box.text()
        next(b for b in box.buttons() if b.text() == button).click()

    QTimer.singleShot(0, click)
    assert window.ask_output_exists("/d/notes.zh.txt", "notes.zh (2).txt") == expected
