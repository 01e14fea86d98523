"""X11: the key is grabbed on the root window with ``XGrabKey`` (python-xlib), so its press
goes to desktop-mt only, never to the application in front.

The backend has its own X connection, used only from the Qt main thread: a
``QSocketNotifier`` on its socket says when events arrive, and each of our own round trips
(a grab is checked with a sync) is followed by a drain of the events python-xlib may have
read meanwhile (the socket then has nothing left to signal). A grab another client holds
fails with ``BadAccess``: the shortcut is reported as taken, and the variants already
grabbed are released (never a half-working shortcut). Each combination is grabbed four
times: alone and with CapsLock, NumLock, both (the X server compares the whole state).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QSocketNotifier, QTimer
from Xlib import XK, X
from Xlib import display as xdisplay
from Xlib import error as xerror

from .base import HotkeyError, ShortcutTaken
from .chord import Chord

__all__ = [
    "X11Backend",
]


_logger = logging.getLogger(__name__)

_MASKS = {"shift": X.ShiftMask, "ctrl": X.ControlMask, "alt": X.Mod1Mask, "meta": X.Mod4Mask}
_COMPARED = X.ShiftMask | X.ControlMask | X.Mod1Mask | X.Mod4Mask  # the state bits a press must match


def _modifier_mask(chord: Chord) -> int:
    """The X modifier state of ``chord`` (Alt is Mod1, Meta/Super is Mod4, as on every
    desktop's default map)."""
    mask = 0
    for name in chord.modifiers:
        mask |= _MASKS[name]
    return mask


class X11Backend(QObject):
    """Global shortcuts grabbed on the root window of ``display_name`` (None: $DISPLAY).

    Raises ``Xlib.error.DisplayError`` (and other Xlib errors) when the display cannot be
    opened; the caller reports that."""

    name = "X11 key grab"
    owns_keys = True
    note = ""

    def __init__(self, display_name: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.display = xdisplay.Display(display_name)
        self.root = self.display.screen().root
        self._lock_variants = self._variants()
        self._grabs: dict[tuple[int, int], tuple[Chord, Callable[[], None]]] = {}  # (keycode, mask)
        self._notifier = QSocketNotifier(self.display.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._drain)

    def _variants(self) -> tuple[int, ...]:
        """The lock states a grab must also cover: CapsLock, NumLock (whichever ModN holds
        Num_Lock here; Mod2 on nearly every map) and both."""
        numlock = X.Mod2Mask
        code = self.display.keysym_to_keycode(XK.string_to_keysym("Num_Lock"))
        for index, codes in enumerate(self.display.get_modifier_mapping()):
            if code and code in codes:
                numlock = 1 << index
        return (0, X.LockMask, numlock, X.LockMask | numlock)

    def _keycode(self, chord: Chord) -> int:
        keysym = XK.string_to_keysym(chord.codes.x11)
        keycode = int(self.display.keysym_to_keycode(keysym)) if keysym else 0
        if not keycode:
            raise HotkeyError(f"{chord.text}: the key is not on this keyboard layout.")
        return keycode

    def register(self, chord: Chord, callback: Callable[[], None], action: str = "") -> None:
        """Grab ``chord`` in all lock variants, or none (raises :class:`ShortcutTaken`)."""
        keycode, mask = self._keycode(chord), _modifier_mask(chord)
        catcher = xerror.CatchError()
        for extra in self._lock_variants:
            self.root.grab_key(keycode, mask | extra, False, X.GrabModeAsync, X.GrabModeAsync, onerror=catcher)
        self.display.sync()  # the grabs' errors, if any, arrive before this returns
        error = catcher.get_error()
        if error is not None:
            self._ungrab(keycode, mask)  # only our own grabs are released: the other client keeps its own
            self.display.sync()
            self._after_round_trip()
            if isinstance(error, xerror.BadAccess):
                raise ShortcutTaken(chord)
            raise HotkeyError(f"{chord.text} could not be grabbed: {error.__class__.__name__}.")
        self._grabs[(keycode, mask)] = (chord, callback)
        self._after_round_trip()

    def unregister(self, chord: Chord) -> None:
        """Release ``chord`` (all lock variants)."""
        for key, (held, _callback) in list(self._grabs.items()):
            if held == chord:
                del self._grabs[key]
                self._ungrab(*key)
                self.display.sync()
                self._after_round_trip()

    def _ungrab(self, keycode: int, mask: int) -> None:
        for extra in self._lock_variants:
            self.root.ungrab_key(keycode, mask | extra)

    def _after_round_trip(self) -> None:
        # Events read during our sync sit in python-xlib's queue; the socket will not signal
        # them. Drained from the event loop, not here: a callback must not run inside register.
        QTimer.singleShot(0, self._drain)

    def _drain(self) -> None:
        """Handle every event that has arrived (KeyPress of a grab, keyboard remapping)."""
        try:
            while self.display.pending_events():
                self._handle(self.display.next_event())
        except xerror.ConnectionClosedError as exc:
            _logger.warning("global shortcuts: the X connection closed (%s); shortcuts stop", exc)
            self._notifier.setEnabled(False)
            self._grabs.clear()

    def _handle(self, event: Any) -> None:
        if event.type == X.KeyPress:
            found = self._grabs.get((event.detail, event.state & _COMPARED))
            if found is not None:
                found[1]()
        elif event.type == X.MappingNotify and event.request == X.MappingKeyboard:
            self._regrab(event)

    def _regrab(self, event: Any) -> None:
        """The keyboard map changed (another layout): the keys' codes may have moved."""
        self.display.refresh_keyboard_mapping(event)
        held = [entry for entry in self._grabs.values()]
        for keycode, mask in list(self._grabs):
            self._ungrab(keycode, mask)
        self._grabs.clear()
        for chord, callback in held:
            try:
                self.register(chord, callback)
            except HotkeyError as exc:
                _logger.warning("global shortcut %s lost after a keyboard change: %s", chord.text, exc)

    def close(self) -> None:
        """Release every grab and the connection."""
        self._notifier.setEnabled(False)
        try:
            for keycode, mask in list(self._grabs):
                self._ungrab(keycode, mask)
            self._grabs.clear()
            self.display.close()
        except xerror.ConnectionClosedError:
            pass
