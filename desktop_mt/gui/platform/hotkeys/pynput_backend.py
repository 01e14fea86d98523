"""The fallback where no registration API could be used: pynput *listens* (XRecord on X11, a
low-level hook on Windows, an event tap on macOS) and does not own the key, so the press also
reaches the application in front. Settings say so (:data:`_NOTE`).

pynput is imported lazily: importing it on Linux opens an X connection and raises without
one, so a top-level import would crash the app on Wayland or headless systems.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .base import HotkeyError
from .chord import Chord

__all__ = [
    "PynputBackend",
    "pynput_combo",
]


_logger = logging.getLogger(__name__)

_NOTE = (
    "Fallback (pynput): desktop-mt only listens for the shortcut, so the application in front receives the keys too."
)
_NAMED = {
    "Space": "<space>",
    "Tab": "<tab>",
    "Esc": "<esc>",
    "Return": "<enter>",
    "Enter": "<enter>",
    "Backspace": "<backspace>",
    "Ins": "<insert>",
    "Del": "<delete>",
    "Home": "<home>",
    "End": "<end>",
    "PgUp": "<page_up>",
    "PgDown": "<page_down>",
    "Left": "<left>",
    "Up": "<up>",
    "Right": "<right>",
    "Down": "<down>",
    "Print": "<print_screen>",
    "Pause": "<pause>",
}
_PYNPUT_MODIFIERS = {"ctrl": "<ctrl>", "alt": "<alt>", "shift": "<shift>", "meta": "<cmd>"}


def pynput_combo(chord: Chord) -> str:
    """``Chord`` -> pynput's "<ctrl>+<alt>+e"."""
    mods = [_PYNPUT_MODIFIERS[m] for m in ("ctrl", "alt", "shift", "meta") if m in chord.modifiers]
    key = chord.key
    if key in _NAMED:
        name = _NAMED[key]
    elif key.startswith("F") and key[1:].isdigit():
        name = f"<{key.lower()}>"
    else:
        name = key.lower()
    return "+".join([*mods, name])


class PynputBackend:
    """One pynput ``GlobalHotKeys`` listener per shortcut (callbacks in pynput's thread)."""

    name = "pynput"
    owns_keys = False
    note = _NOTE

    def __init__(self) -> None:
        import pynput.keyboard  # type: ignore[import-untyped, unused-ignore]  # noqa: F401 - fails here, not later

        self._listeners: dict[Chord, Any] = {}

    def register(self, chord: Chord, callback: Callable[[], None], action: str = "") -> None:
        """Start listening for ``chord``."""
        from pynput import keyboard

        try:
            listener = keyboard.GlobalHotKeys({pynput_combo(chord): callback})
            listener.daemon = True
            listener.start()
        except Exception as exc:
            raise HotkeyError(f"Could not listen for {chord.text}: {exc}.") from exc
        self._listeners[chord] = listener

    def unregister(self, chord: Chord) -> None:
        """Stop listening for ``chord`` (never raises)."""
        listener = self._listeners.pop(chord, None)
        if listener is None:
            return
        try:
            listener.stop()
        except Exception as exc:  # noqa: BLE001
            _logger.warning("global shortcut %s: pynput did not stop cleanly: %s", chord.text, exc)

    def close(self) -> None:
        """Stop every listener."""
        for chord in list(self._listeners):
            self.unregister(chord)
