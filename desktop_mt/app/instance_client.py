r"""Talk to the running desktop-mt window without Qt (``desktop-mt show``).

The window listens with a ``QLocalServer`` (:mod:`desktop_mt.gui.platform.single_instance`); this is
the same protocol spoken over a plain socket, so a desktop shortcut that runs
``desktop-mt show --clipboard`` starts in a fraction of the time a Qt process needs (no
PySide6 import) and works where global hotkeys cannot (Wayland).

Where the window listens, named :func:`server_name`:

- Linux, macOS: a Unix socket ``QDir::tempPath()/NAME``, i.e. ``$TMPDIR/NAME`` or
  ``/tmp/NAME`` (Qt's ``UserAccessOption``: only this user may connect).
- Windows: the named pipe ``\\.\pipe\NAME``.

Message (version 1): one JSON object and a newline, ``{"version": 1, "argv": [...], "cwd":
"..."}``, where ``argv`` is the window's own command line (``--clipboard``, ``--selection``,
files); the window answers ``{"ok": true}`` or ``{"ok": false, "error": "..."}`` and a
newline.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import socket
import sys
from typing import Any

from ..base.errors import DesktopMTError
from ..base.paths import APP_NAME, config_dir

__all__ = [
    "VERSION",
    "NotRunning",
    "server_name",
    "encode",
    "address",
    "send",
]

VERSION = 1
_CONNECT_TIMEOUT_S = 0.5  # a live window accepts at once
_ANSWER_TIMEOUT_S = 3.0  # it answers from its event loop (busy for a moment at most)
_MAX_ANSWER = 64 * 1024


class NotRunning(DesktopMTError):
    """No desktop-mt window listens for this user (and settings folder)."""


def server_name() -> str:
    """Per user and per settings folder (so a test's DESKTOP_MT_HOME is its own instance)."""
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in the environment: the folder still differs
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    key = hashlib.sha256(f"{user}\0{config_dir()}".encode()).hexdigest()[:16]
    return f"{APP_NAME}-{key}"


def encode(argv: list[str], cwd: str) -> bytes:
    """The message a launch sends to the running window."""
    return (json.dumps({"version": VERSION, "argv": list(argv), "cwd": cwd}) + "\n").encode("utf-8")


def address(name: str | None = None) -> str:
    """The socket path (Unix) or pipe name (Windows) the window listens on, as Qt makes it."""
    name = name or server_name()
    if sys.platform == "win32":
        return rf"\\.\pipe\{name}"
    # QDir::tempPath(): $TMPDIR if set, else /tmp; cleanPath drops a trailing slash (macOS).
    return os.path.join(os.path.normpath(os.environ.get("TMPDIR") or "/tmp"), name)


def send(argv: list[str], cwd: str | None = None, name: str | None = None) -> dict[str, Any]:
    """Hand ``argv`` to the running window and return its answer (``{"ok": ...}``).

    Raises NotRunning when nothing listens, OSError/ValueError when the answer is unusable."""
    message = encode(argv, os.getcwd() if cwd is None else cwd)
    where = address(name)
    answer = _exchange_pipe(where, message) if sys.platform == "win32" else _exchange_unix(where, message)
    try:
        reply = json.loads(answer.split(b"\n", 1)[0].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError(f"the running desktop-mt gave no usable answer ({len(answer)} bytes)") from None
    if not isinstance(reply, dict):
        raise ValueError("the running desktop-mt gave no usable answer")
    return reply


def _exchange_unix(path: str, message: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(_CONNECT_TIMEOUT_S)
        try:
            sock.connect(path)
        except (TimeoutError, FileNotFoundError, ConnectionRefusedError):
            raise NotRunning(path) from None  # a socket file left by a crash refuses too
        sock.settimeout(_ANSWER_TIMEOUT_S)
        sock.sendall(message)
        answer = b""
        while b"\n" not in answer and len(answer) < _MAX_ANSWER:
            chunk = sock.recv(4096)
            if not chunk:  # the window answers, then disconnects
                break
            answer += chunk
        return answer


def _exchange_pipe(path: str, message: bytes) -> bytes:
    try:
        pipe = open(path, "r+b", buffering=0)  # noqa: SIM115 - closed below
    except FileNotFoundError:
        raise NotRunning(path) from None
    with pipe:
        pipe.write(message)
        answer = b""
        while b"\n" not in answer and len(answer) < _MAX_ANSWER:
            chunk = pipe.read(4096)
            if not chunk:
                break
            answer += chunk
        return answer
