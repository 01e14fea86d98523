"""One app per user: a second launch hands its command line to the running window and exits.

The first instance listens on a ``QLocalServer`` (a Unix socket only this user may open; a
named pipe on Windows). A later launch connects with ``QLocalSocket``, sends one message and
waits for the answer; if nobody answers (no instance, or a socket left by a crash) it becomes
the instance itself.

Message format (version 1): one JSON object per connection, UTF-8, ended by a newline::

    {"version": 1, "argv": ["notes.txt", "--clipboard"], "cwd": "/home/me/docs"}

``argv`` is the GUI's own command line (what ``desktop-mt gui ARGS`` takes, see
``app.parse_args``: files to translate, ``--clipboard``); relative paths are resolved
against ``cwd``. The instance answers ``{"ok": true}`` (or ``{"ok": false, "error": ...}``
for a message it cannot read) and a newline, then brings its window forward and acts on the
arguments. Any program can trigger the window this way (e.g. a desktop shortcut running
``desktop-mt gui --clipboard``).
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

# The name and message format live in a Qt-free module, shared with `desktop-mt show`.
from ...app.instance_client import VERSION, encode, server_name

__all__ = [
    "SingleInstance",
    "decode",
    "send_to_running",
]


_logger = logging.getLogger(__name__)

_CONNECT_MS = 500  # a live instance accepts at once; waiting longer only delays a first start
_ANSWER_MS = 3000  # the instance answers from its event loop (busy for at most a moment)
_MAX_MESSAGE = 64 * 1024


def decode(data: bytes) -> dict[str, Any]:
    """Parse and check a message; raises ValueError naming what is wrong."""
    try:
        message = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a JSON message ({exc})") from None
    if not isinstance(message, dict) or message.get("version") != VERSION:
        raise ValueError(f'expected an object with "version": {VERSION}')
    argv, cwd = message.get("argv", []), message.get("cwd", "")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv) or not isinstance(cwd, str):
        raise ValueError('"argv" must be a list of strings and "cwd" a string')
    return {"version": VERSION, "argv": argv, "cwd": cwd}


def send_to_running(argv: list[str], cwd: str | None = None, name: str | None = None) -> bool:
    """Hand ``argv`` to a running instance. True if it answered (this launch should exit)."""
    socket = QLocalSocket()
    socket.connectToServer(name or server_name())
    if not socket.waitForConnected(_CONNECT_MS):
        return False
    socket.write(encode(argv, cwd if cwd is not None else os.getcwd()))
    socket.flush()
    answer = b""
    while b"\n" not in answer:
        # The answer may already be buffered together with the server's disconnect, in
        # which case waitForReadyRead reports False: read what is there either way.
        ready = socket.waitForReadyRead(_ANSWER_MS)
        answer += bytes(socket.readAll().data())
        if not ready:
            break
    socket.abort()
    try:
        return bool(json.loads(answer.decode("utf-8")).get("ok"))
    except (UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        _logger.warning("the running instance gave no usable answer")
        return False


class SingleInstance(QObject):
    """The first instance's server; ``messageReceived`` carries each decoded message."""

    messageReceived = Signal(dict)

    def __init__(self, name: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name or server_name()
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._on_connection)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def listen(self) -> bool:
        """Start listening, unless a live instance answers on the name (False). A socket left
        behind by a crashed instance is removed first. The probe comes first because with
        UserAccessOption Qt renames its socket into place, replacing a live one silently."""
        if _send_probe(self.name):
            return False
        QLocalServer.removeServer(self.name)
        ok = self.server.listen(self.name)
        if not ok:
            _logger.warning("single-instance server not started: %s", self.server.errorString())
        return ok

    def close(self) -> None:
        """Stop listening (on quit), so the next launch starts a new instance at once."""
        self.server.close()

    def _on_connection(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            self._buffers[socket] = b""
            socket.readyRead.connect(lambda s=socket: self._on_ready(s))
            socket.disconnected.connect(lambda s=socket: self._forget(s))

    def _on_ready(self, socket: QLocalSocket) -> None:
        data = self._buffers.get(socket, b"") + bytes(socket.readAll().data())
        self._buffers[socket] = data
        if b"\n" not in data and len(data) < _MAX_MESSAGE:
            return  # the rest is still on its way
        try:
            message = decode(data.split(b"\n", 1)[0])
        except ValueError as exc:
            socket.write((json.dumps({"ok": False, "error": str(exc)}) + "\n").encode("utf-8"))
            socket.disconnectFromServer()
            return
        socket.write(b'{"ok": true}\n')
        socket.flush()
        socket.disconnectFromServer()
        self.messageReceived.emit(message)

    def _forget(self, socket: QLocalSocket) -> None:
        self._buffers.pop(socket, None)
        socket.deleteLater()


def _send_probe(name: str) -> bool:
    """Whether something answers on ``name`` (a live instance), without sending a message."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    alive = socket.waitForConnected(_CONNECT_MS)
    socket.abort()
    return alive
