"""Windows: ``RegisterHotKey`` (user32, through ctypes) owns the key system-wide.

Registered with no window (``hWnd`` NULL), the hotkey's ``WM_HOTKEY`` is posted to the
registering thread's queue, the Qt main thread's; Qt hands every message it takes from that
queue to the native event filters as "windows_generic_MSG", where :class:`WindowsBackend`
(installed on the application) finds it by the id it registered. ``MOD_NOREPEAT``: holding the
keys down fires once. A combination another program holds fails with
``ERROR_HOTKEY_ALREADY_REGISTERED`` (1409): reported as taken.

``user32`` and the message pointer are the seams the tests use (a fake library, a ctypes
``MSG`` of their own): the call shapes are the ones documented for the Win32 API.
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractNativeEventFilter, QByteArray, QCoreApplication

from .base import HotkeyError, ShortcutTaken
from .chord import Chord

__all__ = [
    "ERROR_HOTKEY_ALREADY_REGISTERED",
    "EVENT_TYPE",
    "MSG",
    "WM_HOTKEY",
    "WindowsBackend",
    "modifiers",
]


_logger = logging.getLogger(__name__)

WM_HOTKEY = 0x0312
MOD_ALT, MOD_CONTROL, MOD_SHIFT, MOD_WIN, MOD_NOREPEAT = 0x0001, 0x0002, 0x0004, 0x0008, 0x4000
ERROR_HOTKEY_ALREADY_REGISTERED = 1409
EVENT_TYPE = b"windows_generic_MSG"
_MODS = {"alt": MOD_ALT, "ctrl": MOD_CONTROL, "shift": MOD_SHIFT, "meta": MOD_WIN}
_FIRST_ID = 0xB000  # ids of an application's hotkeys are 0x0000..0xBFFF


class _POINT(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int32), ("y", ctypes.c_int32)]  # LONG is 32-bit on Windows


class MSG(ctypes.Structure):
    """The Win32 ``MSG`` structure, with fixed-width fields so that its layout is Windows'
    on any platform (the tests build one on Linux; C ``long`` is 64-bit there)."""

    _fields_ = [
        ("hwnd", ctypes.c_void_p),
        ("message", ctypes.c_uint32),  # UINT
        ("wParam", ctypes.c_size_t),  # WPARAM: pointer-sized unsigned; the hotkey's id
        ("lParam", ctypes.c_ssize_t),  # LPARAM: pointer-sized signed; modifiers and key
        ("time", ctypes.c_uint32),  # DWORD
        ("pt", _POINT),
    ]


def modifiers(chord: Chord) -> int:
    """``fsModifiers`` of ``chord``, with MOD_NOREPEAT."""
    value = MOD_NOREPEAT
    for name in chord.modifiers:
        value |= _MODS[name]
    return value


def _load_user32() -> tuple[Any, Callable[[], int]]:
    user32 = ctypes.WinDLL("user32", use_last_error=True)  # type: ignore[attr-defined, unused-ignore]
    user32.RegisterHotKey.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_uint]
    user32.RegisterHotKey.restype = ctypes.c_int
    user32.UnregisterHotKey.argtypes = [ctypes.c_void_p, ctypes.c_int]
    user32.UnregisterHotKey.restype = ctypes.c_int
    return user32, ctypes.get_last_error  # type: ignore[attr-defined, unused-ignore]


class WindowsBackend(QAbstractNativeEventFilter):
    """Hotkeys registered with ``RegisterHotKey`` and caught as ``WM_HOTKEY`` in Qt's filter.

    ``user32``/``last_error``: the library and its error reader (the real ones by default);
    ``install``: add the filter to the running application (tests call ``nativeEventFilter``
    themselves)."""

    name = "Windows RegisterHotKey"
    owns_keys = True
    note = ""

    def __init__(self, user32: Any = None, last_error: Callable[[], int] | None = None, install: bool = True) -> None:
        super().__init__()
        if user32 is None:
            user32, last_error = _load_user32()
        self.user32 = user32
        self.last_error = last_error or (lambda: 0)
        self._ids: dict[Chord, int] = {}
        self._callbacks: dict[int, Callable[[], None]] = {}
        self._next_id = _FIRST_ID
        app = QCoreApplication.instance()
        if install and app is not None:
            app.installNativeEventFilter(self)

    def register(self, chord: Chord, callback: Callable[[], None], action: str = "") -> None:
        """``RegisterHotKey(NULL, id, modifiers, vk)``; raises on failure, naming why."""
        hotkey_id = self._next_id
        if not self.user32.RegisterHotKey(None, hotkey_id, modifiers(chord), chord.codes.windows):
            code = self.last_error()
            if code == ERROR_HOTKEY_ALREADY_REGISTERED:
                raise ShortcutTaken(chord)
            raise HotkeyError(f"{chord.text} could not be registered (Windows error {code}).")
        self._next_id += 1
        self._ids[chord] = hotkey_id
        self._callbacks[hotkey_id] = callback

    def unregister(self, chord: Chord) -> None:
        """``UnregisterHotKey(NULL, id)``."""
        hotkey_id = self._ids.pop(chord, None)
        if hotkey_id is None:
            return
        self._callbacks.pop(hotkey_id, None)
        if not self.user32.UnregisterHotKey(None, hotkey_id):
            _logger.warning("global shortcut %s: UnregisterHotKey failed (error %s)", chord.text, self.last_error())

    def nativeEventFilter(self, event_type: QByteArray | bytes | bytearray | memoryview, message: int) -> object:
        """A WM_HOTKEY of one of our ids runs its callback and is consumed; anything else passes."""
        kind = event_type.data() if isinstance(event_type, QByteArray) else bytes(event_type)
        if kind != EVENT_TYPE or not message:
            return False, 0
        msg = MSG.from_address(int(message))
        if msg.message != WM_HOTKEY:
            return False, 0
        callback = self._callbacks.get(int(msg.wParam))
        if callback is None:
            return False, 0
        callback()
        return True, 0

    def close(self) -> None:
        """Unregister every hotkey and remove the filter."""
        for chord in list(self._ids):
            self.unregister(chord)
        app = QCoreApplication.instance()
        if app is not None:
            app.removeNativeEventFilter(self)
