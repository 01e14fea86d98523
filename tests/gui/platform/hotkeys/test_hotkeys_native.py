"""Windows RegisterHotKey and macOS RegisterEventHotKey at the ctypes boundary: the calls the
backends make (arguments as the Win32 and Carbon headers define them) and how they handle the
OS's messages, with fake libraries in place of user32 and Carbon. The same backends, given the
real libraries, run on Windows and macOS."""

from __future__ import annotations

import ctypes

import pytest
from PySide6.QtCore import QByteArray

from desktop_mt.gui.platform.hotkey import GlobalHotkey
from desktop_mt.gui.platform.hotkeys import macos, windows
from desktop_mt.gui.platform.hotkeys.base import HotkeyError, ShortcutTaken
from desktop_mt.gui.platform.hotkeys.chord import parse_chord
from desktop_mt.gui.platform.hotkeys.hub import HotkeyHub

# ---- Windows ------------------------------------------------------------------------------


class FakeUser32:
    """RegisterHotKey/UnregisterHotKey as user32 has them; ``taken`` holds (modifiers, vk)
    another program registered (error 1409)."""

    def __init__(self, taken=(), error: int = windows.ERROR_HOTKEY_ALREADY_REGISTERED) -> None:
        self.calls: list[tuple] = []
        self.taken, self.error, self._last = set(taken), error, 0

    def RegisterHotKey(self, hwnd, hotkey_id, modifiers, vk):
        self.calls.append(("RegisterHotKey", hwnd, hotkey_id, modifiers, vk))
        if (modifiers & ~windows.MOD_NOREPEAT, vk) in self.taken:
            self._last = self.error
            return 0
        return 1

    def UnregisterHotKey(self, hwnd, hotkey_id):
        self.calls.append(("UnregisterHotKey", hwnd, hotkey_id))
        return 1

    def last_error(self) -> int:
        return self._last


def _filter(backend, message: int, w_param: int, event_type: bytes = windows.EVENT_TYPE):
    msg = windows.MSG(hwnd=None, message=message, wParam=w_param, lParam=0)
    return backend.nativeEventFilter(QByteArray(event_type), ctypes.addressof(msg))


def test_msg_has_the_win64_layout():
    # Win64 MSG: HWND at 0, UINT message at 8, WPARAM at 16, LPARAM at 24, 48 bytes in all.
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        pytest.skip("the layout below is the 64-bit one")
    assert (windows.MSG.message.offset, windows.MSG.wParam.offset, windows.MSG.lParam.offset) == (8, 16, 24)
    assert ctypes.sizeof(windows.MSG) == 48


def test_windows_registers_with_registerhotkey_and_runs_on_wm_hotkey(qtbot):
    user32 = FakeUser32()
    backend = windows.WindowsBackend(user32=user32, last_error=user32.last_error, install=False)
    pressed: list[str] = []
    backend.register(parse_chord("Ctrl+Alt+E"), lambda: pressed.append("E"))
    backend.register(parse_chord("Meta+Shift+F9"), lambda: pressed.append("F9"))
    no_repeat = windows.MOD_NOREPEAT
    assert user32.calls == [
        ("RegisterHotKey", None, 0xB000, windows.MOD_CONTROL | windows.MOD_ALT | no_repeat, 0x45),
        ("RegisterHotKey", None, 0xB001, windows.MOD_WIN | windows.MOD_SHIFT | no_repeat, 0x78),
    ]
    assert _filter(backend, windows.WM_HOTKEY, 0xB001) == (True, 0) and pressed == ["F9"]
    assert _filter(backend, windows.WM_HOTKEY, 0xB000) == (True, 0) and pressed == ["F9", "E"]
    # Not ours: another id, another message, another event type, no message at all.
    assert _filter(backend, windows.WM_HOTKEY, 0x0001) == (False, 0)
    assert _filter(backend, 0x0100, 0xB000) == (False, 0)  # WM_KEYDOWN
    assert _filter(backend, windows.WM_HOTKEY, 0xB000, b"xcb_generic_event_t") == (False, 0)
    assert backend.nativeEventFilter(QByteArray(windows.EVENT_TYPE), 0) == (False, 0)
    assert pressed == ["F9", "E"]

    backend.unregister(parse_chord("Ctrl+Alt+E"))
    assert user32.calls[-1] == ("UnregisterHotKey", None, 0xB000)
    assert _filter(backend, windows.WM_HOTKEY, 0xB000) == (False, 0)
    backend.close()
    assert user32.calls[-1] == ("UnregisterHotKey", None, 0xB001)


def test_windows_reports_a_hotkey_another_program_holds_by_name(qtbot):
    user32 = FakeUser32(taken={(windows.MOD_CONTROL | windows.MOD_ALT, ord("O"))})
    backend = windows.WindowsBackend(user32=user32, last_error=user32.last_error, install=False)
    with pytest.raises(ShortcutTaken, match=r"^Ctrl\+Alt\+O is used by another program"):
        backend.register(parse_chord("Ctrl+Alt+O"), lambda: None)
    other = FakeUser32(taken={(windows.MOD_CONTROL | windows.MOD_ALT, ord("O"))}, error=5)
    backend = windows.WindowsBackend(user32=other, last_error=other.last_error, install=False)
    with pytest.raises(HotkeyError, match="Windows error 5"):
        backend.register(parse_chord("Ctrl+Alt+O"), lambda: None)


def test_windows_hotkey_reaches_the_app_through_globalhotkey(qtbot):
    user32 = FakeUser32()
    backend = windows.WindowsBackend(user32=user32, last_error=user32.last_error, install=False)
    key = GlobalHotkey(action="Translate clipboard", hub=HotkeyHub(backend))
    assert key.start("Ctrl+Alt+E") == (True, "Global hotkey Ctrl+Alt+E is active.")
    with qtbot.waitSignal(key.activated, timeout=10_000):
        _filter(backend, windows.WM_HOTKEY, user32.calls[-1][2])


def test_windows_filter_is_installed_on_the_application_and_removed_on_close(qtbot, monkeypatch):
    from PySide6.QtCore import QCoreApplication

    app = QCoreApplication.instance()
    installed: list[object] = []
    monkeypatch.setattr(app, "installNativeEventFilter", installed.append)
    monkeypatch.setattr(app, "removeNativeEventFilter", installed.remove)
    user32 = FakeUser32()
    backend = windows.WindowsBackend(user32=user32, last_error=user32.last_error)
    assert installed == [backend]
    backend.close()
    assert installed == []


# ---- macOS --------------------------------------------------------------------------------


class FakeCarbon:
    """The Carbon calls the backend makes. ``taken``: (modifiers, key code) another program
    holds; ``events``: event ref -> the EventHotKeyID GetEventParameter gives for it."""

    TARGET = 0xA11

    def __init__(self, taken=()) -> None:
        self.calls: list[tuple] = []
        self.taken = set(taken)
        self.events: dict[int, tuple[int, int]] = {}
        self.handler = None

    def GetApplicationEventTarget(self):
        return self.TARGET

    def InstallEventHandler(self, target, proc, count, specs, user_data, out_ref):
        spec = specs.contents
        self.calls.append(("InstallEventHandler", target, count, (spec.eventClass, spec.eventKind), user_data))
        self.handler = proc
        out_ref.contents.value = 0xB0B
        return 0

    def RemoveEventHandler(self, ref):
        self.calls.append(("RemoveEventHandler", ref.value))
        return 0

    def RegisterEventHotKey(self, code, modifiers, hotkey_id, target, options, out_ref):
        self.calls.append(
            ("RegisterEventHotKey", code, modifiers, (hotkey_id.signature, hotkey_id.id), target, options)
        )
        if (modifiers, code) in self.taken:
            return macos.EVENT_HOTKEY_EXISTS_ERR
        out_ref.contents.value = 0x1000 + hotkey_id.id
        return 0

    def UnregisterEventHotKey(self, ref):
        self.calls.append(("UnregisterEventHotKey", ref.value))
        return 0

    def GetEventParameter(self, event, name, kind, out_type, size, out_size, out):
        self.calls.append(("GetEventParameter", event, name, kind, out_type, size, out_size))
        if event not in self.events:
            return macos.EVENT_NOT_HANDLED_ERR
        out.contents.signature, out.contents.id = self.events[event]
        return 0


def test_macos_registers_with_registereventhotkey_and_handles_hotkey_pressed(qtbot):
    carbon = FakeCarbon()
    backend = macos.CarbonBackend(carbon)
    keyboard, pressed_kind = macos.fourcc("keyb"), 5
    assert carbon.calls == [("InstallEventHandler", FakeCarbon.TARGET, 1, (keyboard, pressed_kind), None)]
    pressed: list[str] = []
    backend.register(parse_chord("Ctrl+Alt+E"), lambda: pressed.append("E"))  # Cmd+Option+E on a Mac
    backend.register(parse_chord("Meta+Shift+F9"), lambda: pressed.append("F9"))  # Control+Shift+F9
    signature = macos.fourcc("DMTk")
    assert carbon.calls[1:] == [
        ("RegisterEventHotKey", 0x0E, macos.CMD_KEY | macos.OPTION_KEY, (signature, 1), FakeCarbon.TARGET, 0),
        ("RegisterEventHotKey", 0x65, macos.CONTROL_KEY | macos.SHIFT_KEY, (signature, 2), FakeCarbon.TARGET, 0),
    ]
    # Carbon calls the handler through its C pointer: the CFUNCTYPE object, with event refs.
    carbon.events = {0x51: (signature, 2), 0x52: (signature, 1), 0x53: (macos.fourcc("othr"), 1)}
    assert carbon.handler(None, 0x51, None) == 0 and pressed == ["F9"]
    assert carbon.calls[-1] == (
        "GetEventParameter",
        0x51,
        macos.fourcc("----"),
        macos.fourcc("hkid"),
        None,
        ctypes.sizeof(macos.EventHotKeyID),
        None,
    )
    assert carbon.handler(None, 0x52, None) == 0 and pressed == ["F9", "E"]
    # Another program's hotkey id (another signature) and an event without one are passed on.
    assert carbon.handler(None, 0x53, None) == macos.EVENT_NOT_HANDLED_ERR
    assert carbon.handler(None, 0x54, None) == macos.EVENT_NOT_HANDLED_ERR
    assert pressed == ["F9", "E"]

    backend.unregister(parse_chord("Ctrl+Alt+E"))
    assert carbon.calls[-1] == ("UnregisterEventHotKey", 0x1001)
    assert carbon.handler(None, 0x52, None) == macos.EVENT_NOT_HANDLED_ERR
    backend.close()
    assert carbon.calls[-2:] == [("UnregisterEventHotKey", 0x1002), ("RemoveEventHandler", 0xB0B)]


def test_macos_reports_a_hotkey_another_program_holds_by_name(qtbot):
    carbon = FakeCarbon(taken={(macos.CMD_KEY | macos.OPTION_KEY, 0x1F)})  # Cmd+Option+O
    backend = macos.CarbonBackend(carbon)
    key = GlobalHotkey(action="Translate screen region", hub=HotkeyHub(backend))
    ok, message = key.start("Ctrl+Alt+O")
    assert not ok and message.startswith("Ctrl+Alt+O is used by another program")
    ok, message = key.start("Ctrl+Alt+Print")
    assert not ok and message == "Ctrl+Alt+Print: the key Print is not on a Mac keyboard."


def test_macos_hotkey_reaches_the_app_through_globalhotkey(qtbot):
    carbon = FakeCarbon()
    key = GlobalHotkey(action="Show window", hub=HotkeyHub(macos.CarbonBackend(carbon)))
    assert key.start("Ctrl+Shift+Space")[0]
    carbon.events = {0x60: (macos.fourcc("DMTk"), 1)}
    with qtbot.waitSignal(key.activated, timeout=10_000):
        assert carbon.handler(None, 0x60, None) == 0


def test_a_failing_callback_does_not_unwind_into_carbon(qtbot):
    carbon = FakeCarbon()
    backend = macos.CarbonBackend(carbon)

    def boom() -> None:
        raise ValueError("boom")

    backend.register(parse_chord("Ctrl+Alt+E"), boom)
    carbon.events = {0x70: (macos.fourcc("DMTk"), 1)}
    assert carbon.handler(None, 0x70, None) == 0
