"""Which backend owns the app's global shortcuts here, and the one registry of them.

:func:`open_backend` picks the OS's own registration API (X11 ``XGrabKey``, Windows
``RegisterHotKey``, macOS ``RegisterEventHotKey``); pynput only where none of them can be used,
and it says so. Wayland lets no client grab keys: there :func:`open_backend` reports why, and
the portal (:mod:`.portal`) is tried by the caller. :class:`HotkeyHub` keeps which action holds
which shortcut, so a second action asking for the same keys is told which one has them.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from collections.abc import Callable, Mapping

from .base import Backend, HotkeyError
from .chord import Chord
from .macos import CarbonBackend
from .pynput_backend import PynputBackend

__all__ = [
    "BACKEND_VARIABLE",
    "FALLBACK_HINT",
    "HotkeyHub",
    "NO_X_DISPLAY",
    "WAYLAND_PROBLEM",
    "display_problem",
    "open_backend",
    "shared_hub",
]


_logger = logging.getLogger(__name__)

FALLBACK_HINT = 'Use the in-app shortcut Ctrl+Shift+V or the tray icon\'s "Translate clipboard" instead.'
# "pynput" forces the listening fallback (to compare, or where a grab misbehaves).
BACKEND_VARIABLE = "DESKTOP_MT_HOTKEYS"
WAYLAND_PROBLEM = (
    "Global shortcuts need the desktop's GlobalShortcuts portal on Wayland (KDE Plasma 6, GNOME 48 "
    "or newer): apps may not grab keys there. Without it, bind `desktop-mt show` or "
    "`desktop-mt --clipboard` to a shortcut in the desktop's keyboard settings. "
)
NO_X_DISPLAY = "Global shortcuts are unavailable: there is no X display (DISPLAY is not set). "


def _is_unix_desktop(platform: str) -> bool:
    """Linux and the BSDs: X11 or Wayland."""
    return platform.startswith("linux") or "bsd" in platform


def _is_wayland(env: Mapping[str, str]) -> bool:
    """A Wayland session (an X display beside it is XWayland, whose grabs see no native app)."""
    return bool(env.get("WAYLAND_DISPLAY")) or env.get("XDG_SESSION_TYPE", "").lower() == "wayland"


def display_problem(env: Mapping[str, str], platform: str) -> str | None:
    """Why no key can be grabbed here, judged from the environment (None = fine)."""
    if not _is_unix_desktop(platform):
        return None
    if _is_wayland(env):
        return WAYLAND_PROBLEM
    if not env.get("DISPLAY"):
        return NO_X_DISPLAY
    return None


def _pynput(why: str) -> tuple[Backend | None, str]:
    try:
        return PynputBackend(), why
    except Exception as exc:  # noqa: BLE001 - pynput raises ImportError, Xlib errors, ...
        return None, f"Global shortcuts are unavailable: {why}pynput could not start either ({exc}). " + FALLBACK_HINT


def _portal(env: Mapping[str, str]) -> tuple[Backend | None, str]:
    """Wayland: the GlobalShortcuts portal, or why not (and the desktop-shortcut way)."""
    try:
        from .portal import open_portal_backend  # jeepney: only a Wayland session needs it
    except ImportError as exc:
        return None, WAYLAND_PROBLEM + f"(jeepney is missing: {exc}) " + FALLBACK_HINT
    backend, why = open_portal_backend(env)
    if backend is None:
        return None, WAYLAND_PROBLEM + f"Here {why}" + FALLBACK_HINT
    return backend, backend.note


def open_backend(env: Mapping[str, str] | None = None, platform: str | None = None) -> tuple[Backend | None, str]:
    """(backend, note): the backend for this session, or None and why not, in words for
    Settings. Never raises."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if env.get(BACKEND_VARIABLE, "").lower() == "pynput":
        return _pynput(f"{BACKEND_VARIABLE}=pynput is set. ")
    if _is_unix_desktop(platform) and _is_wayland(env):
        return _portal(env)
    problem = display_problem(env, platform)
    if problem:
        return None, problem + FALLBACK_HINT
    try:
        backend, failure = _native(env, platform), ""
    except ImportError as exc:
        return _pynput(f"the key-grab module is missing ({exc}). ")
    except Exception as exc:  # noqa: BLE001 - Xlib display errors, OS errors, ...
        backend, failure = None, str(exc)  # a string: the exception would keep python-xlib's socket alive
    if failure:
        where = f"the X display {env.get('DISPLAY')}" if _is_unix_desktop(platform) else "the shortcut API"
        _logger.warning("global shortcuts: %s could not be opened: %s", where, failure)
        if _is_unix_desktop(platform):
            return None, f"Global shortcuts are unavailable: {where} could not be opened ({failure}). " + FALLBACK_HINT
        return _pynput(f"{where} could not be used ({failure}). ")
    if backend is None:
        return _pynput(f"there is no key registration API for {platform}. ")
    return backend, backend.note


def _native(env: Mapping[str, str], platform: str) -> Backend | None:
    if _is_unix_desktop(platform):
        from .x11 import X11Backend

        # python-xlib does not close the sockets of a failed connect (Xlib.support.unix_connect);
        # they are freed with its exception, and their ResourceWarning says nothing to act on.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "unclosed <socket.socket", ResourceWarning)
            try:
                return X11Backend(env.get("DISPLAY"))
            except Exception as exc:  # noqa: BLE001 - re-raised as text, without the frames
                message = str(exc)
        raise OSError(message)
    if platform == "win32":
        from .windows import WindowsBackend

        return WindowsBackend()
    if platform == "darwin":
        return CarbonBackend()
    return None


class HotkeyHub:
    """The app's global shortcuts on one backend: which action holds which chord."""

    def __init__(self, backend: Backend | None, reason: str = "") -> None:
        self.backend = backend
        self.reason = reason  # why there is no backend, or the backend's note
        self._owners: dict[Chord, str] = {}

    @property
    def available(self) -> bool:
        """Whether shortcuts can be registered at all."""
        return self.backend is not None

    def register(self, chord: Chord, callback: Callable[[], None], action: str) -> str | None:
        """Give ``chord`` to ``action``; None, or what went wrong in words (taken by another
        program, held by another action of the app, ...)."""
        if self.backend is None:
            return self.reason
        owner = self._owners.get(chord)
        if owner is not None:
            return f"{chord.text} is already the shortcut for {owner}."
        try:
            self.backend.register(chord, callback, action)
        except HotkeyError as exc:
            return str(exc)
        self._owners[chord] = action
        return None

    def unregister(self, chord: Chord) -> None:
        """Give ``chord`` back (nothing when it is not held)."""
        if self._owners.pop(chord, None) is not None and self.backend is not None:
            self.backend.unregister(chord)

    def close(self) -> None:
        """Give every shortcut back and close the backend."""
        self._owners.clear()
        if self.backend is not None:
            self.backend.close()


_HUBS: dict[tuple[str, ...], HotkeyHub] = {}


def shared_hub() -> HotkeyHub:
    """The process's hub for the current session (made on first use). Keyed by the variables
    that choose the backend, so a changed DISPLAY (tests) gets its own."""
    key = (sys.platform, *(os.environ.get(v, "") for v in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE")))
    key += (os.environ.get(BACKEND_VARIABLE, ""),)
    hub = _HUBS.get(key)
    if hub is None:
        hub = _HUBS[key] = HotkeyHub(*open_backend())
    return hub
