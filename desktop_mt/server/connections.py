"""Connection limits below the app: a deadline for the request line and headers, and a bound
on open connections.

uvicorn closes an idle keep-alive connection after ``timeout_keep_alive``, but a connection
that never sends a complete request (nothing at all, or headers a byte at a time) is held
forever, and once the process runs out of file descriptors ``accept()`` fails for everyone.
:func:`protocol_class` returns uvicorn's h11 protocol with these additions:

- the request line and headers must arrive within ``header_timeout_s`` of the connection
  (or of the previous answer, on a kept-alive connection); then the client gets 408 and the
  connection is closed;
- TCP_NODELAY on every connection (see :func:`_no_delay`);
- beyond ``max_connections`` open connections a new one is answered ``503`` (JSON, with
  ``Retry-After``) and closed at once, so the server keeps accepting and keeps file
  descriptors free instead of refusing connections.

The body's own deadline is the app's (:func:`.requests.read_body`, 408 in the endpoint's
shape).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from .config import CONFIG_ENV, ServerConfig


def _raw_response(status: str, message: str, extra: str = "") -> bytes:
    body = json.dumps({"error": message}).encode()
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n{extra}\r\n"
    ).encode() + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header deadline and a connection bound (class attributes
    set by :func:`protocol_class`)."""

    header_timeout_s = 10.0
    max_connections = 256
    retry_after_s = 1

    _header_timer = None
    _cycle_seen: object = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as uvicorn's own (h11_impl), narrower than BaseProtocol's
        _no_delay(transport)
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            transport.write(
                _raw_response(
                    "503 Service Unavailable",
                    f"Server busy: {self.max_connections} connections are open; retry later",
                    f"Retry-After: {self.retry_after_s}\r\n",
                )
            )
            transport.close()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle:  # a request's headers are complete
            self._disarm()
        elif self._header_timer is None and (cycle is None or cycle.response_complete):
            self._arm()  # bytes of a next request on a kept-alive connection

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._disarm()  # idle from here: uvicorn's keep-alive timeout applies

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        if self.transport is None or self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request is being answered: its body has the app's deadline
        self.transport.write(
            _raw_response("408 Request Timeout", f"Request headers not received within {self.header_timeout_s:g} s")
        )
        self.transport.close()


def _no_delay(transport: asyncio.BaseTransport) -> None:
    """Send small writes at once. uvicorn writes an answer's headers and body separately; on
    the sockets it is handed (``sockets=``) Nagle's algorithm was left on, and with the
    client's delayed ACK every answer on a kept-alive connection waited ~40 ms."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # not a TCP socket after all
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def protocol_class(config: ServerConfig) -> type[GuardedH11Protocol]:
    """The protocol for ``config``'s limits (uvicorn's ``http=`` setting)."""
    return type("DesktopMTProtocol", (GuardedH11Protocol,), _limits(config))


def _limits(config: ServerConfig) -> dict[str, float | int]:
    return {
        "header_timeout_s": config.header_timeout_s,
        "max_connections": config.max_connections,
        "retry_after_s": config.retry_after_s,
    }


class WorkerProtocol(GuardedH11Protocol):
    """The protocol of ``--workers`` processes, named by an import string (uvicorn sends its
    settings to the worker processes, and a class made at run time cannot travel): its limits
    come from the config the parent puts in the environment (:data:`.config.CONFIG_ENV`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        config = ServerConfig.from_json(os.environ[CONFIG_ENV])
        for name, value in _limits(config).items():
            setattr(self, name, value)
        super().__init__(*args, **kwargs)


def uvicorn_options(config: ServerConfig, workers: bool = False) -> dict[str, Any]:
    """uvicorn.Config keywords for ``config``: the protocol above (for ``--workers``, by
    import string), the idle keep-alive timeout, no access log (it could carry query
    strings)."""
    http = "desktop_mt.server.connections:WorkerProtocol" if workers else protocol_class(config)
    return dict(http=http, timeout_keep_alive=config.keep_alive_s, access_log=False, log_config=None)
