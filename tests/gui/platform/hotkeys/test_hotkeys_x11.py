"""Global shortcuts under a real X server (Xvfb): desktop-mt owns the key.

A second X client (tools/key_logger.py) has the input focus and logs every KeyPress it gets;
xdotool presses keys through XTEST, as a keyboard would. The app's shortcut must fire in the
app and never reach the focused client (pynput, the old way, only listened: the focused
application got every shortcut too). A shortcut another client has grabbed is reported by
name, and none of its variants stay half-grabbed.

Ordering, not timing, proves "the other client got nothing": after the shortcut, a plain key
is pressed, and once the logger has logged that key it has read everything sent before it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_mt.gui.platform.hotkey import GlobalHotkey
from desktop_mt.gui.platform.hotkeys.hub import HotkeyHub
from desktop_mt.gui.settings import Settings

from ...xsession import wait_for

LOGGER = Path(__file__).resolve().parents[2] / "tools" / "key_logger.py"


class Display:
    """Xvfb on a free display and the environment of its clients."""

    def __init__(self) -> None:
        read, write = os.pipe()
        self.server = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "640x480x24", "-nolisten", "tcp", "-noreset"],
            pass_fds=(write,),
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        with os.fdopen(read) as f:
            self.name = ":" + f.readline().strip()
        self.env = {**os.environ, "DISPLAY": self.name}

    def key(self, *keys: str) -> None:
        """Press and release ``keys`` (xdotool's names, "ctrl+alt+e") through XTEST."""
        subprocess.run(["xdotool", "key", *keys], env=self.env, check=True, timeout=30, capture_output=True)

    def stop(self) -> None:
        self.server.terminate()
        self.server.wait(timeout=10)


class KeyLogger:
    """tools/key_logger.py, focused; ``lines`` fill from a reader thread."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(LOGGER)], env=env, stdout=subprocess.PIPE, text=True
        )  # its errors go to the test's output
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        wait_for(lambda: any(line.startswith("ready") for line in self.lines), 30, "the key logger's window")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def presses(self) -> list[str]:
        """The keysym names it received, in order."""
        return [line.split()[1] for line in list(self.lines) if line.startswith("press ")]

    def wait_press(self, name: str, count: int = 1) -> list[str]:
        """Wait until ``name`` arrived ``count`` times; every press so far."""
        return wait_for(lambda: self.presses().count(name) >= count and self.presses(), 30, f"the logger to get {name}")

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        self._reader.join(timeout=10)
        assert self.proc.stdout is not None
        self.proc.stdout.close()


@pytest.fixture
def xdisplay() -> Iterator[Display]:
    from tests import sysdeps

    sysdeps.require("xvfb", "xdotool")
    display = Display()
    yield display
    display.stop()


@pytest.fixture
def logger(xdisplay: Display) -> Iterator[KeyLogger]:
    client = KeyLogger(xdisplay.env)
    yield client
    client.stop()


@pytest.fixture
def hub(xdisplay: Display) -> Iterator[HotkeyHub]:
    from desktop_mt.gui.platform.hotkeys.x11 import X11Backend

    made = HotkeyHub(X11Backend(xdisplay.name))
    yield made
    made.close()


def _grab(display_name: str, keysym: str, mask: int):
    """Another client's grab of ``keysym`` with ``mask`` on the root window: (its display,
    the X error or None)."""
    from Xlib import XK, X, display, error

    other = display.Display(display_name)
    keycode = other.keysym_to_keycode(XK.string_to_keysym(keysym))
    catcher = error.CatchError()
    other.screen().root.grab_key(keycode, mask, False, X.GrabModeAsync, X.GrabModeAsync, onerror=catcher)
    other.sync()
    return other, catcher.get_error()


def test_the_shortcut_fires_in_the_app_and_the_focused_client_gets_nothing(qtbot, xdisplay, logger, hub):
    key = GlobalHotkey(action="Translate clipboard", hub=hub)
    ok, message = key.start("Ctrl+Alt+E")
    assert ok, message
    xdisplay.key("x")
    logger.wait_press("x")  # the logger has the focus and logs keys

    with qtbot.waitSignal(key.activated, timeout=10_000):
        xdisplay.key("ctrl+alt+e")
    xdisplay.key("y")
    seen = logger.wait_press("y")
    assert "e" not in seen, seen

    # With NumLock on, the state differs; the lock variants are grabbed too.
    xdisplay.key("Num_Lock")
    with qtbot.waitSignal(key.activated, timeout=10_000):
        xdisplay.key("ctrl+alt+e")
    xdisplay.key("y")
    seen = logger.wait_press("y", 2)
    assert "e" not in seen, seen
    xdisplay.key("Num_Lock")

    # Stopped: the key goes to the focused client again, and the app is not told.
    key.stop()
    fired = []
    key.activated.connect(lambda: fired.append(True))
    xdisplay.key("ctrl+alt+e")
    seen = logger.wait_press("e")
    qtbot.wait_until(lambda: not hub.backend.display.pending_events())  # type: ignore[union-attr]
    assert fired == []


def test_a_shortcut_another_program_grabbed_is_reported_by_name_and_not_half_held(qtbot, xdisplay, hub):
    from Xlib import X

    other, error = _grab(xdisplay.name, "o", X.ControlMask | X.Mod1Mask)
    assert error is None
    key = GlobalHotkey(action="Translate screen region", hub=hub)
    ok, message = key.start("Ctrl+Alt+O")
    assert not ok and message.startswith("Ctrl+Alt+O is used by another program")
    assert key.active_sequence is None
    # The variants desktop-mt did get (CapsLock, NumLock) were given back: a third client can take them.
    third, error = _grab(xdisplay.name, "o", X.ControlMask | X.Mod1Mask | X.Mod2Mask)
    assert error is None
    # Once the other program lets go, the same shortcut registers.
    other.close()
    third.close()
    ok, message = key.start("Ctrl+Alt+O")
    assert ok, message
    key.stop()


def test_two_actions_of_the_app_cannot_share_a_shortcut(qtbot, hub):
    first = GlobalHotkey(action="Translate clipboard", hub=hub)
    second = GlobalHotkey(action="Show window", hub=hub)
    assert first.start("Ctrl+Alt+E")[0]
    ok, message = second.start("ctrl+alt+e")
    assert not ok and message == "Ctrl+Alt+E is already the shortcut for Translate clipboard."
    first.stop()
    assert second.start("Ctrl+Alt+E")[0]
    second.stop()


def test_the_window_and_settings_say_which_shortcut_is_taken(qtbot, xdisplay, hub, make_controller):
    from Xlib import X

    other, error = _grab(xdisplay.name, "e", X.ControlMask | X.Mod1Mask)
    assert error is None
    window, controller = make_controller(Settings(hotkey="Ctrl+Alt+E"))
    controller.hotkey = GlobalHotkey(action="Translate clipboard", hub=hub)
    ok, _message = controller.register_hotkey()
    assert not ok
    assert "Ctrl+Alt+E is used by another program" in window.banner.label.text()
    assert controller.hotkey_state() == (
        "Failed to register Ctrl+Alt+E. Ctrl+Alt+E is used by another program. Choose another shortcut in Settings."
    )
    other.close()
