"""macOS: Carbon's ``RegisterEventHotKey`` (through ctypes) owns the key system-wide.

It needs no Accessibility permission (an event tap, pynput's way, does). One event handler for
``kEventHotKeyPressed`` on the application's event target reads the pressed hotkey's
``EventHotKeyID`` and runs its callback; Cocoa's run loop, which Qt runs, calls it in the main
thread. A combination another program holds fails with ``eventHotKeyExistsErr`` (-9878):
reported as taken.

Qt's portable "Ctrl" is the Command key on macOS and "Meta" the Control key
(``Qt::ControlModifier`` is Command there), so a shortcut typed as Cmd+Option+E in Settings is
stored as "Ctrl+Alt+E" and registered as cmdKey|optionKey.

``carbon`` is the seam the tests use (a fake library): the call shapes are those of the
Carbon headers (HIToolbox/CarbonEvents.h).
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Callable
from typing import Any

from .base import HotkeyError, ShortcutTaken
from .chord import NO_MAC_KEY, Chord

__all__ = [
    "CarbonBackend",
    "EventHotKeyID",
    "fourcc",
    "modifiers",
]


_logger = logging.getLogger(__name__)

_CARBON_PATH = "/System/Library/Frameworks/Carbon.framework/Carbon"


def fourcc(code: str) -> int:
    """A four-character code ('keyb') as Carbon's UInt32."""
    return int.from_bytes(code.encode("ascii"), "big")


_K_EVENT_CLASS_KEYBOARD = fourcc("keyb")
_K_EVENT_HOTKEY_PRESSED = 5
_K_EVENT_PARAM_DIRECT_OBJECT = fourcc("----")
_TYPE_EVENT_HOTKEY_ID = fourcc("hkid")
_SIGNATURE = fourcc("DMTk")  # our hotkeys' signature in their EventHotKeyID
NO_ERR, EVENT_NOT_HANDLED_ERR, EVENT_HOTKEY_EXISTS_ERR = 0, -9874, -9878
CMD_KEY, SHIFT_KEY, OPTION_KEY, CONTROL_KEY = 1 << 8, 1 << 9, 1 << 11, 1 << 12
_MODS = {"ctrl": CMD_KEY, "alt": OPTION_KEY, "shift": SHIFT_KEY, "meta": CONTROL_KEY}


class EventHotKeyID(ctypes.Structure):
    _fields_ = [("signature", ctypes.c_uint32), ("id", ctypes.c_uint32)]


class _EventTypeSpec(ctypes.Structure):
    _fields_ = [("eventClass", ctypes.c_uint32), ("eventKind", ctypes.c_uint32)]


# OSStatus (*EventHandlerProcPtr)(EventHandlerCallRef, EventRef, void *userData)
_EventHandlerProc = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def modifiers(chord: Chord) -> int:
    """Carbon's modifier bits of ``chord`` (see the module docstring for Ctrl and Meta)."""
    value = 0
    for name in chord.modifiers:
        value |= _MODS[name]
    return value


def _load_carbon() -> Any:
    carbon = ctypes.CDLL(_CARBON_PATH)
    carbon.GetApplicationEventTarget.argtypes = []
    carbon.GetApplicationEventTarget.restype = ctypes.c_void_p
    carbon.InstallEventHandler.argtypes = [
        ctypes.c_void_p,
        _EventHandlerProc,
        ctypes.c_ulong,
        ctypes.POINTER(_EventTypeSpec),
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_void_p),
    ]
    carbon.InstallEventHandler.restype = ctypes.c_int32
    carbon.RemoveEventHandler.argtypes = [ctypes.c_void_p]
    carbon.RemoveEventHandler.restype = ctypes.c_int32
    carbon.RegisterEventHotKey.argtypes = [
        ctypes.c_uint32,
        ctypes.c_uint32,
        EventHotKeyID,
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.POINTER(ctypes.c_void_p),
    ]
    carbon.RegisterEventHotKey.restype = ctypes.c_int32
    carbon.UnregisterEventHotKey.argtypes = [ctypes.c_void_p]
    carbon.UnregisterEventHotKey.restype = ctypes.c_int32
    carbon.GetEventParameter.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_uint32,
        ctypes.c_void_p,
        ctypes.c_ulong,
        ctypes.c_void_p,
        ctypes.POINTER(EventHotKeyID),
    ]
    carbon.GetEventParameter.restype = ctypes.c_int32
    return carbon


class CarbonBackend:
    """Hotkeys registered with ``RegisterEventHotKey``; one handler for all of them."""

    name = "macOS RegisterEventHotKey"
    owns_keys = True
    note = ""

    def __init__(self, carbon: Any = None) -> None:
        self.carbon = carbon if carbon is not None else _load_carbon()
        self.target = self.carbon.GetApplicationEventTarget()
        self._proc = _EventHandlerProc(self._on_event)  # kept: Carbon holds only the C pointer
        self._handler_ref = ctypes.c_void_p()
        spec = _EventTypeSpec(_K_EVENT_CLASS_KEYBOARD, _K_EVENT_HOTKEY_PRESSED)
        status = self.carbon.InstallEventHandler(
            self.target, self._proc, 1, ctypes.pointer(spec), None, ctypes.pointer(self._handler_ref)
        )
        if status != NO_ERR:
            raise OSError(f"InstallEventHandler failed (OSStatus {status})")
        self._refs: dict[Chord, tuple[int, ctypes.c_void_p]] = {}
        self._callbacks: dict[int, Callable[[], None]] = {}
        self._next_id = 1

    def register(self, chord: Chord, callback: Callable[[], None], action: str = "") -> None:
        """``RegisterEventHotKey(code, modifiers, {SIGNATURE, id}, target, 0, &ref)``."""
        code = chord.codes.mac
        if code == NO_MAC_KEY:
            raise HotkeyError(f"{chord.text}: the key {chord.key} is not on a Mac keyboard.")
        hotkey_id = self._next_id
        ref = ctypes.c_void_p()
        status = self.carbon.RegisterEventHotKey(
            code, modifiers(chord), EventHotKeyID(_SIGNATURE, hotkey_id), self.target, 0, ctypes.pointer(ref)
        )
        if status == EVENT_HOTKEY_EXISTS_ERR:
            raise ShortcutTaken(chord)
        if status != NO_ERR:
            raise HotkeyError(f"{chord.text} could not be registered (OSStatus {status}).")
        self._next_id += 1
        self._refs[chord] = (hotkey_id, ref)
        self._callbacks[hotkey_id] = callback

    def unregister(self, chord: Chord) -> None:
        """``UnregisterEventHotKey(ref)``."""
        held = self._refs.pop(chord, None)
        if held is None:
            return
        hotkey_id, ref = held
        self._callbacks.pop(hotkey_id, None)
        status = self.carbon.UnregisterEventHotKey(ref)
        if status != NO_ERR:
            _logger.warning("global shortcut %s: UnregisterEventHotKey gave OSStatus %s", chord.text, status)

    def _on_event(self, _call_ref: int | None, event: int | None, _user_data: int | None) -> int:
        """kEventHotKeyPressed: which of ours was pressed (its EventHotKeyID), run it."""
        hotkey_id = EventHotKeyID()
        status = self.carbon.GetEventParameter(
            event,
            _K_EVENT_PARAM_DIRECT_OBJECT,
            _TYPE_EVENT_HOTKEY_ID,
            None,
            ctypes.sizeof(EventHotKeyID),
            None,
            ctypes.pointer(hotkey_id),
        )
        callback = self._callbacks.get(hotkey_id.id) if hotkey_id.signature == _SIGNATURE else None
        if status != NO_ERR or callback is None:
            return EVENT_NOT_HANDLED_ERR
        try:
            callback()
        except Exception:  # an exception must not unwind into Carbon's C frames
            _logger.exception("global shortcut callback failed")
        return NO_ERR

    def close(self) -> None:
        """Unregister every hotkey and remove the handler."""
        for chord in list(self._refs):
            self.unregister(chord)
        if self._handler_ref:
            self.carbon.RemoveEventHandler(self._handler_ref)
            self._handler_ref = ctypes.c_void_p()
