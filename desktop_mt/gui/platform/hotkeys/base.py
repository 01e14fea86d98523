"""What every global-shortcut backend offers, and the errors it reports in the user's words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from desktop_mt.base.errors import DesktopMTError

from .chord import Chord

__all__ = [
    "Backend",
    "HotkeyError",
    "ShortcutTaken",
]


class HotkeyError(DesktopMTError):
    """A shortcut could not be registered; the message is fit for Settings."""


class ShortcutTaken(HotkeyError):
    """Another program holds the shortcut (X11 BadAccess, Windows error 1409, macOS
    eventHotKeyExistsErr)."""

    def __init__(self, chord: Chord) -> None:
        super().__init__(f"{chord.text} is used by another program. Choose another shortcut in Settings.")
        self.chord = chord


class Backend(Protocol):
    """One platform's way of owning a key combination.

    ``owns_keys`` is False only for the pynput fallback, which listens beside the application
    in front instead of taking the key from it. ``note`` is a sentence for Settings ("" when
    there is nothing to say). Callbacks run in the Qt main thread, except the pynput fallback's
    (the caller queues them: a Qt signal emitted from its thread is)."""

    name: str
    owns_keys: bool
    note: str

    def register(self, chord: Chord, callback: Callable[[], None], action: str = "") -> None:
        """Own ``chord``; ``callback`` on each press; ``action`` names it where the OS shows
        names (the Wayland portal's dialog). Raises :class:`HotkeyError`."""
        ...

    def unregister(self, chord: Chord) -> None:
        """Give ``chord`` back (no error when it was not registered)."""
        ...

    def close(self) -> None:
        """Give every shortcut back and release the OS resources."""
        ...
