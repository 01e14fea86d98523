"""The global "translate clipboard" hotkey, per OS, failing soft.

pynput grabs keys on X11, Windows and macOS. It cannot on Wayland (the compositor does
not let clients grab keys; Crow Translate turns its shortcuts off there too), nor without
a display. In those cases :func:`global_hotkey_support` says why, the settings dialog
shows that text, and the in-app shortcut and the tray action keep working.

pynput is imported lazily: importing it on Linux opens an X connection and raises
without one, so a top-level import would crash the app on Wayland or headless systems.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QObject, Signal

from .logsetup import log_exception

log = logging.getLogger(__name__)

FALLBACK_HINT = 'Use the in-app shortcut Ctrl+Shift+V or the tray icon\'s "Translate clipboard" instead.'
_MODIFIERS = {
    "ctrl": "<ctrl>",
    "control": "<ctrl>",
    "alt": "<alt>",
    "shift": "<shift>",
    "meta": "<cmd>",
    "super": "<cmd>",
    "win": "<cmd>",
    "cmd": "<cmd>",
}
_NAMED = {
    "space": "<space>",
    "tab": "<tab>",
    "esc": "<esc>",
    "escape": "<esc>",
    "return": "<enter>",
    "enter": "<enter>",
    "ins": "<insert>",
    "insert": "<insert>",
    "del": "<delete>",
    "delete": "<delete>",
    "home": "<home>",
    "end": "<end>",
    "pgup": "<page_up>",
    "pgdown": "<page_down>",
}


def _is_unix_desktop(platform: str) -> bool:
    return platform.startswith("linux") or "bsd" in platform


def display_problem(env: Mapping[str, str], platform: str) -> str | None:
    """Why there can be no global hotkey here, judged from the environment (None = fine)."""
    if not _is_unix_desktop(platform):
        return None
    if env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE", "").lower() == "wayland":
        return (
            "Global hotkeys are unavailable on Wayland: the compositor does not let apps "
            "grab keys. You can bind a desktop shortcut to start desktop-mt instead. "
        )
    if not env.get("DISPLAY"):
        return "Global hotkeys are unavailable: there is no X display (DISPLAY is not set). "
    return None


def global_hotkey_support(env: Mapping[str, str] | None = None, platform: str | None = None) -> tuple[bool, str]:
    """(available, reason). Never raises; the reason is fit for the settings dialog."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    problem = display_problem(env, platform)
    if problem:
        return False, problem + FALLBACK_HINT
    try:
        import pynput.keyboard  # type: ignore[import-untyped, unused-ignore]  # noqa: F401 - no stubs; lazy (module docstring)
    except Exception as exc:  # noqa: BLE001 - pynput raises ImportError, Xlib errors, ...
        return False, f"Global hotkeys are unavailable: pynput could not start ({exc}). " + FALLBACK_HINT
    if platform == "darwin":
        return True, (
            "On macOS the global hotkey needs Accessibility permission for this "
            "app (System Settings → Privacy & Security → Accessibility)."
        )
    return True, ""


def to_pynput(sequence: str) -> str:
    """Qt-style "Ctrl+Alt+E" -> pynput "<ctrl>+<alt>+e". Raises ValueError if malformed."""
    parts = [p.strip() for p in sequence.replace(" ", "").split("+")]
    if not sequence.strip() or any(not p for p in parts):
        raise ValueError(f"'{sequence}' is not a key combination like Ctrl+Alt+E")
    out = []
    for part in parts:
        low = part.lower()
        if low in _MODIFIERS:
            out.append(_MODIFIERS[low])
        elif low in _NAMED:
            out.append(_NAMED[low])
        elif low.startswith("f") and low[1:].isdigit() and 1 <= int(low[1:]) <= 24:
            out.append(f"<{low}>")
        elif len(part) == 1:
            out.append(low)
        else:
            raise ValueError(f"Unknown key '{part}' in '{sequence}'")
    if not any(p.startswith("<") and p[1:-1] in ("ctrl", "alt", "cmd") for p in out[:-1]) and not out[-1].startswith(
        "<f"
    ):
        raise ValueError(f"'{sequence}' needs Ctrl, Alt or Meta (or a function key), or it would swallow normal typing")
    return "+".join(out)


class GlobalHotkey(QObject):
    """Registers one global hotkey; ``activated`` fires in the UI thread when pressed."""

    activated = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._listener: Any = None
        self.available, self.reason = global_hotkey_support()
        self.active_sequence: str | None = None

    def start(self, sequence: str) -> tuple[bool, str]:
        """(Re)register ``sequence``. Returns (ok, message); never raises."""
        self.stop()
        if not self.available:
            return False, self.reason
        try:
            combo = to_pynput(sequence)
            from pynput import keyboard

            # The callback runs in pynput's thread; emitting a signal to this UI-thread
            # object is queued by Qt, so the slot runs in the UI thread.
            listener = keyboard.GlobalHotKeys({combo: self.activated.emit})
            listener.daemon = True
            listener.start()
        except ValueError as exc:
            return False, str(exc)
        except Exception as exc:  # noqa: BLE001 - X errors, permission errors, ...
            log_exception("global hotkey start", exc)
            return False, f"Could not register the global hotkey {sequence}: {exc}. " + FALLBACK_HINT
        self._listener = listener
        self.active_sequence = sequence
        return True, f"Global hotkey {sequence} is active."

    def stop(self) -> None:
        """Unregister (idempotent, never raises)."""
        listener, self._listener = self._listener, None
        self.active_sequence = None
        if listener is None:
            return
        try:
            listener.stop()
        except Exception as exc:  # noqa: BLE001
            log_exception("global hotkey stop", exc)
