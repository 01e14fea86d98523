"""One global shortcut of the app (translate clipboard, screen region, ...), failing soft.

:class:`GlobalHotkey` registers its sequence with the session's :class:`~.hotkeys.hub.HotkeyHub`,
which owns the key through the OS's own API (X11 ``XGrabKey``, Windows ``RegisterHotKey``, macOS
``RegisterEventHotKey``; see :mod:`.hotkeys`), so the application in front never receives it.
Where no key can be registered (Wayland without the portal, no display), ``available`` is False
and ``reason`` says why; the settings dialog shows that text, and the in-app shortcut and the
tray action keep working. A key another program holds is reported by name ("Ctrl+Alt+O is used
by another program"), never half-registered.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping

from PySide6.QtCore import QObject, Signal

from ..i18n import translate
from ..messages import hotkey_error, hotkey_reason
from .hotkeys.chord import Chord, parse_chord
from .hotkeys.hub import FALLBACK_HINT, HotkeyHub, display_problem, open_backend, shared_hub

_logger = logging.getLogger(__name__)

__all__ = ["FALLBACK_HINT", "GlobalHotkey", "display_problem", "global_hotkey_support"]


def global_hotkey_support(env: Mapping[str, str] | None = None, platform: str | None = None) -> tuple[bool, str]:
    """(available, reason) of a backend opened for ``env``/``platform`` (then closed again).
    Never raises; the reason is fit for the settings dialog."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    backend, reason = open_backend(env, platform)
    if backend is None:
        return False, reason
    backend.close()
    return True, reason


class GlobalHotkey(QObject):
    """One global shortcut; ``activated`` fires in the UI thread when pressed.

    ``action`` names it in messages ("Ctrl+Alt+E is already the shortcut for Translate
    clipboard"); ``hub``: the registry to use (the session's shared one by default)."""

    activated = Signal()

    def __init__(self, parent: QObject | None = None, action: str = "", hub: HotkeyHub | None = None) -> None:
        super().__init__(parent)
        self.action = action or translate("GlobalHotkey", "another action of desktop-mt")
        self.hub = hub if hub is not None else shared_hub()
        self.available, self.reason = self.hub.available, hotkey_reason(self.hub.reason)
        self.active_sequence: str | None = None
        self.message = ""  # what the last start() said
        self._chord: Chord | None = None

    def start(self, sequence: str) -> tuple[bool, str]:
        """(Re)register ``sequence``. Returns (ok, message), the message also kept as
        ``message``; never raises."""
        ok, self.message = self._start(sequence)
        # The log says which global shortcuts hold (keys and action, never text): a user's
        # "the hotkey does nothing" report then shows whether the keys were taken.
        state = "active" if ok else self.message
        _logger.info("global shortcut %s for %s: %s", sequence or "(none)", self.action, state)
        return ok, self.message

    def _start(self, sequence: str) -> tuple[bool, str]:
        self.stop()
        if not self.available:
            return False, self.reason
        try:
            chord = parse_chord(sequence)
        except ValueError as exc:
            return False, hotkey_error(str(exc))
        # pynput calls back in its own thread: the emission is then queued to this object's.
        error = self.hub.register(chord, self._fire, self.action)
        if error is not None:
            return False, hotkey_error(error)
        self._chord = chord
        self.active_sequence = chord.text
        note = f" {self.reason}" if self.reason else ""
        return True, translate("GlobalHotkey", "Global hotkey {keys} is active.{note}").format(
            keys=chord.text, note=note
        )

    def desktop_trigger(self) -> str | None:
        """Where the desktop binds the keys (the Wayland portal): the keys it bound, "" while
        it has not (not confirmed yet, or refused); None where the app owns the keys itself."""
        lookup = getattr(self.hub.backend, "bound_trigger", None)
        if lookup is None or self._chord is None:
            return None
        return str(lookup(self._chord))

    def _fire(self) -> None:
        _logger.info("global shortcut pressed: %s", self.action)
        try:
            self.activated.emit()
        except RuntimeError:  # this object was deleted without stop(): nothing to tell
            _logger.debug("global shortcut pressed for a deleted action")

    def stop(self) -> None:
        """Unregister (idempotent, never raises)."""
        chord, self._chord = self._chord, None
        self.active_sequence, self.message = None, ""
        if chord is None:
            return
        try:
            self.hub.unregister(chord)
        except Exception:
            _logger.exception("global hotkey stop")
