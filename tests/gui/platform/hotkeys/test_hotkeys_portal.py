"""Wayland: global shortcuts through the desktop's GlobalShortcuts portal. A fake portal
(tools/fake_shortcuts_portal.py) on a private session bus answers CreateSession and
BindShortcuts as the real one does and emits Activated when told to; the app's shortcut fires."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_mt.gui.features import shortcuts
from desktop_mt.gui.platform.hotkey import GlobalHotkey
from desktop_mt.gui.platform.hotkeys.hub import HotkeyHub, open_backend

TOOL = Path(__file__).resolve().parents[2] / "tools" / "fake_shortcuts_portal.py"
WAYLAND = {"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}


@pytest.fixture
def bus_address() -> Iterator[str]:
    from tests import sysdeps

    sysdeps.require("dbus-daemon")
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()
    yield address
    daemon.terminate()
    daemon.wait(timeout=10)
    daemon.stdout.close()


class FakePortal:
    """The fake portal process; ``lines`` fill from its stdout."""

    def __init__(self, address: str, *args: str) -> None:
        env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": address}
        self.proc = subprocess.Popen(
            [sys.executable, str(TOOL), *args], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "ready"
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def activate(self, sid: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"activate {sid}\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.kill()
        self.proc.wait(timeout=10)
        self._reader.join(timeout=10)
        self.proc.stdin.close()
        self.proc.stdout.close()


@pytest.fixture
def portal(bus_address: str) -> Iterator[FakePortal]:
    fake = FakePortal(bus_address)
    yield fake
    fake.stop()


def _hub(address: str) -> HotkeyHub:
    backend, note = open_backend({**WAYLAND, "DBUS_SESSION_BUS_ADDRESS": address}, "linux")
    assert backend is not None and backend.name == "GlobalShortcuts portal", note
    return HotkeyHub(backend, note)


def test_shortcuts_are_bound_through_the_portal_and_fire_when_activated(qtbot, bus_address, portal):
    hub = _hub(bus_address)
    clipboard = GlobalHotkey(action="Translate clipboard", hub=hub)
    show = GlobalHotkey(action="Show the window", hub=hub)
    ok, message = clipboard.start("Ctrl+Alt+E")
    assert ok and "GlobalShortcuts portal" in message
    assert show.start("Meta+Shift+W")[0]
    backend = hub.backend
    # One bind for both (the user confirms one dialog), with the names and keys asked for.
    qtbot.waitUntil(lambda: len(backend.bound) == 2, timeout=10_000)
    assert backend.bound == {"ctrl-alt-e": "CTRL+ALT+e", "meta-shift-w": "SHIFT+LOGO+w"}
    bound = [line for line in portal.lines if line.startswith("bound")]
    assert bound == [
        "bound ctrl-alt-e CTRL+ALT+e desktop-mt: Translate clipboard",
        "bound meta-shift-w SHIFT+LOGO+w desktop-mt: Show the window",
    ]
    assert len([line for line in portal.lines if line.startswith("session")]) == 1

    with qtbot.waitSignal(show.activated, timeout=10_000):
        portal.activate("meta-shift-w")
    with qtbot.waitSignal(clipboard.activated, timeout=10_000):
        portal.activate("ctrl-alt-e")

    # A change of the set: the old session closes, the rest is bound in a new one.
    show.stop()
    qtbot.waitUntil(lambda: any(line.startswith("closed") for line in portal.lines), timeout=10_000)
    qtbot.waitUntil(lambda: backend.bound == {"ctrl-alt-e": "CTRL+ALT+e"}, timeout=10_000)
    fired: list[bool] = []
    show.activated.connect(lambda: fired.append(True))
    with qtbot.waitSignal(clipboard.activated, timeout=10_000):
        portal.activate("meta-shift-w")  # no longer ours: nothing fires for it...
        portal.activate("ctrl-alt-e")  # ...and the one after it does, so it was handled first
    assert fired == []
    hub.close()
    qtbot.waitUntil(lambda: len([line for line in portal.lines if line.startswith("closed")]) == 2, timeout=10_000)


def test_a_shortcut_the_desktop_refused_is_not_bound(qtbot, bus_address):
    fake = FakePortal(bus_address, "--refuse", "ctrl-alt-o")
    try:
        hub = _hub(bus_address)
        region = GlobalHotkey(action="Translate screen region", hub=hub)
        clipboard = GlobalHotkey(action="Translate clipboard", hub=hub)
        assert region.start("Ctrl+Alt+O")[0] and clipboard.start("Ctrl+Alt+E")[0]
        qtbot.waitUntil(lambda: bool(hub.backend.bound), timeout=10_000)
        assert hub.backend.bound == {"ctrl-alt-e": "CTRL+ALT+e"}
        # Settings say which one the desktop bound, and which one it did not.
        assert shortcuts.state(clipboard, "Ctrl+Alt+E") == (
            "Active: the desktop bound it to CTRL+ALT+e; it works from any application."
        )
        assert shortcuts.state(region, "Ctrl+Alt+O").startswith("Not active: the desktop has not bound Ctrl+Alt+O")
        hub.close()
    finally:
        fake.stop()


def test_without_the_portal_wayland_says_how_to_bind_a_desktop_shortcut(bus_address):
    backend, why = open_backend({**WAYLAND, "DBUS_SESSION_BUS_ADDRESS": bus_address}, "linux")
    assert backend is None
    assert "GlobalShortcuts interface" in why and "desktop-mt show" in why
    backend, why = open_backend(WAYLAND, "linux")
    assert backend is None and "no session bus" in why
