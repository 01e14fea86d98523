"""Fixtures of the GUI tests: offscreen Qt, redirected app dirs, a scripted fake engine."""

from __future__ import annotations

import os
import sys
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# PySide6 6.12.0 on Python 3.11 drops a reference to None per void Qt call (see
# desktop_mt/gui/qtcompat.py); without the guard the test process aborts at exit.
from desktop_mt.gui import qtcompat

qtcompat.install_none_refcount_guard(with_timer=False)
qtcompat.top_up()

import pytest  # noqa: E402

from desktop_mt.gui.settings import Settings  # noqa: E402

from .fakes import FakeGlobalHotKeys, FakeTranslator, fake_factory  # noqa: E402,F401


@pytest.fixture(autouse=True)
def _none_reserve():
    """Keep the None-reference reserve topped up between tests (see qtcompat)."""
    qtcompat.top_up()
    yield


@pytest.fixture(autouse=True)
def _clipboard_emptied_after():
    """The clipboard is emptied after each test: a QMimeData made in Python and handed to the
    clipboard (a test's "user's clipboard", the selection copy's or replace's restore) is
    otherwise deleted by QtGui's exit handlers after Python has finalised, and Shiboken's
    destroy callback then crashes the test process at exit (SIGSEGV, exit 139)."""
    yield
    from PySide6.QtGui import QGuiApplication

    if QGuiApplication.instance() is not None:
        QGuiApplication.clipboard().clear()


@pytest.fixture(autouse=True)
def _no_unseen_add_outcome(monkeypatch):
    """No model-folder add's outcome waits for the next Settings dialog from another test (a
    dialog a test never shows counts as closed, so its adds' outcomes are kept as unseen)."""
    from desktop_mt.gui.dialogs import folder_adding

    monkeypatch.setattr(folder_adding, "_UNSEEN", [])


@pytest.fixture(autouse=True)
def app_home(tmp_path, monkeypatch):
    """Every test gets its own config/log/models folders; the real user dirs are never used.
    The display variables are cleared so the hotkey layer sees a headless machine."""
    home = tmp_path / "home"
    monkeypatch.setenv("DESKTOP_MT_HOME", str(home))
    # app.build() installs its exception hooks; put pytest's (and pytest-qt's) back after.
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def fresh_folders(tmp_path, monkeypatch):
    """A new HOME, no folder remembered by the file dialogs yet (``tm_dialog.start_folder``),
    and a working folder the dialogs must never offer; returns the HOME."""
    from desktop_mt.gui.dialogs import tm_dialog

    home = tmp_path / "home-dir"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tm_dialog, "_last_folder", None)
    started_in = tmp_path / "started-in"
    started_in.mkdir()
    monkeypatch.chdir(started_in)  # the folder the app was started from: never offered
    return home


@pytest.fixture
def make_controller(qtbot, tmp_path):
    """Build window + controller on a fake engine; shuts the worker down afterwards."""
    from desktop_mt.gui.controller import Controller
    from desktop_mt.gui.window.main import MainWindow

    made = []

    def make(settings: Settings | None = None, factory=None, wait_loaded: bool = True, **fake_kwargs):
        window = MainWindow()
        qtbot.addWidget(window)
        factory = factory or fake_factory(**fake_kwargs)
        controller = Controller(
            window, settings or Settings(), settings_path=tmp_path / "s.json", translator_factory=factory, hotkey=None
        )
        made.append(controller)
        if wait_loaded:
            with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):
                controller.start()
        else:
            controller.start()
        return window, controller

    yield make
    for controller in made:
        controller.shutdown()


@pytest.fixture
def fake_pynput(monkeypatch):
    """pynput replaced by a module whose GlobalHotKeys is :class:`FakeGlobalHotKeys`, and the
    shortcuts' backend forced to it (``DESKTOP_MT_HOTKEYS=pynput``, a hub of this test's own)."""
    import types

    from desktop_mt.gui.platform.hotkeys import hub

    monkeypatch.setattr(hub, "_HUBS", {})
    monkeypatch.setenv(hub.BACKEND_VARIABLE, "pynput")

    keyboard = types.ModuleType("pynput.keyboard")
    keyboard.GlobalHotKeys = FakeGlobalHotKeys
    package = types.ModuleType("pynput")
    package.keyboard = keyboard
    monkeypatch.setitem(sys.modules, "pynput", package)
    monkeypatch.setitem(sys.modules, "pynput.keyboard", keyboard)
    monkeypatch.setenv("DISPLAY", ":0")
    return keyboard


@pytest.fixture
def session(tmp_path):
    """A real X session (Xvfb + the trayer tray host) for the tests that run the app as a
    process; skipped (failed under CI) where those system packages are missing."""
    from tests import sysdeps

    from .xsession import XSession

    sysdeps.require("xvfb", "xdotool", "xclip", "trayer")
    x = XSession(tmp_path)
    yield x
    x.stop()
