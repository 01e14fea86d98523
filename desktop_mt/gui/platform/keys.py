"""Simulated copy and paste key presses in the focused window of another application, per OS.

"Translate and replace" (see :mod:`.replace`) presses Ctrl+C / Ctrl+V (Cmd on macOS) for the
user. How that is done depends on the platform, so the flow only sees the small
:class:`KeySimulator` protocol; tests use the real X11 implementation under Xvfb or a scripted
one offscreen.

- X11: ``xdotool key --clearmodifiers ctrl+v`` (XTEST). ``--clearmodifiers`` lifts the hotkey's
  Ctrl/Alt the user may still hold, so the target sees Ctrl+V and not Ctrl+Alt+V.
- Windows, macOS (and X11 without xdotool): pynput's keyboard controller. macOS lets an app
  send key presses only with the Accessibility permission (System Settings → Privacy & Security
  → Accessibility); without it the presses are dropped silently, which the flow reports as "no
  selection was copied".
- Wayland: clients cannot send key presses to other clients; :func:`default_keys` returns None
  and says why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from desktop_mt.base.errors import DesktopMTError

from ..i18n import translate

__all__ = [
    "KeySimulationError",
    "KeySimulator",
    "PynputKeys",
    "XdotoolKeys",
    "default_keys",
]


_XDOTOOL_TIMEOUT_S = 5


class KeySimulationError(DesktopMTError, RuntimeError):
    """A key press could not be sent (the message says why, for the status bar)."""


@runtime_checkable
class KeySimulator(Protocol):
    """Presses the platform's copy / paste shortcut in the focused window. Both may raise
    :class:`KeySimulationError`; neither waits for the target to react."""

    def copy(self) -> None:
        """Press Ctrl+C (Cmd+C on macOS)."""

    def paste(self) -> None:
        """Press Ctrl+V (Cmd+V on macOS)."""


class XdotoolKeys:
    """X11: key presses through ``xdotool`` (XTEST), with the held modifiers cleared."""

    def __init__(self, xdotool: str = "xdotool", env: Mapping[str, str] | None = None) -> None:
        self.xdotool = xdotool
        self.env = dict(os.environ if env is None else env)

    def _key(self, combo: str) -> None:
        try:
            done = subprocess.run(
                [self.xdotool, "key", "--clearmodifiers", combo],
                env=self.env,
                capture_output=True,
                text=True,
                timeout=_XDOTOOL_TIMEOUT_S,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise KeySimulationError(f"Could not press {combo} with xdotool: {exc}") from exc
        if done.returncode:
            raise KeySimulationError(
                f"Could not press {combo} with xdotool: {done.stderr.strip() or f'exit status {done.returncode}'}"
            )

    def copy(self) -> None:
        self._key("ctrl+c")

    def paste(self) -> None:
        self._key("ctrl+v")


class PynputKeys:
    """Windows and macOS (X11 too): pynput's keyboard controller. The hotkey's modifiers are
    released first, so a user still holding Ctrl+Alt does not turn Ctrl+V into Ctrl+Alt+V."""

    def __init__(self, mac: bool | None = None) -> None:
        self.mac = sys.platform == "darwin" if mac is None else mac

    def _press(self, letter: str) -> None:
        try:
            from pynput.keyboard import Controller, Key  # type: ignore[import-untyped, unused-ignore]  # no stubs; lazy: see hotkey.py

            keyboard = Controller()
            for held in (Key.alt, Key.shift, Key.ctrl, Key.cmd):
                keyboard.release(held)
            with keyboard.pressed(Key.cmd if self.mac else Key.ctrl):
                keyboard.tap(letter)
        except Exception as exc:
            shortcut = ("Cmd+" if self.mac else "Ctrl+") + letter.upper()
            raise KeySimulationError(f"Could not press {shortcut}: {exc}") from exc

    def copy(self) -> None:
        self._press("c")

    def paste(self) -> None:
        self._press("v")


def default_keys(env: Mapping[str, str] | None = None, platform: str | None = None) -> tuple[KeySimulator | None, str]:
    """The key simulator for this session, or None and why there is none."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if platform.startswith("linux") or "bsd" in platform:
        if env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE", "").lower() == "wayland":
            return None, translate(
                "Keys",
                "Translate and replace is unavailable on Wayland: apps cannot send key presses to other windows there.",
            )
        if not env.get("DISPLAY"):
            return None, translate("Keys", "Translate and replace is unavailable: there is no X display.")
        xdotool = shutil.which("xdotool")
        if xdotool:
            return XdotoolKeys(xdotool, env), ""
    return PynputKeys(mac=platform == "darwin"), ""
