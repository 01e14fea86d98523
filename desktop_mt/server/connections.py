"""Connection limits below the app: a deadline for the request line and headers, and a bound
on open connections.

uvicorn closes an idle keep-alive connection after ``timeout_keep_alive``, but a connection
that never sends a complete request (nothing at all, or headers a byte at a time) is held
forever, and once the process runs out of file descriptors ``accept()`` fails for everyone.
:func:`_protocol_class` returns uvicorn's h11 protocol with these additions:

- the request line and headers must arrive within ``header_timeout_s`` of the connection
  (or of the previous answer, on a kept-alive connection); then the client gets 408 and the
  connection is closed;
- TCP_NODELAY on every connection (see :func:`_no_delay`);
- at most ``max_connections`` open connections, serving real clients first: when a new one
  would exceed the bound, the oldest connection that has no request in progress (it has not
  sent a complete request yet, or is idle between kept-alive requests) is closed to admit it;
  only when every connection has a request in progress is the new one answered ``503``
  (JSON, with ``Retry-After``) and closed at once. The server keeps accepting and keeps file
  descriptors free instead of refusing connections, and sockets that send nothing cannot
  hold the table against clients that send requests (a client's request follows its connect
  at once; a silent socket is always older than it);
- under pressure (the table three quarters full) a new connection's header deadline is
  ``pressure_header_s`` (1 s) instead of ``header_timeout_s``;
- malformed HTTP (a bad, negative or conflicting Content-Length, a bad chunk size, two Host
  headers...: h11's RemoteProtocolError) is answered 400 in LibreTranslate's JSON shape, not
  uvicorn's text/plain;
- a connection closed while the client is still sending its request body (the app answered
  before reading it: 413 for a declared length over the limit, 408 for a body too slow) is
  closed *lingering* (:class:`_LingeringTransport`): the answer and a FIN go out at once, what
  the client still sends is read and dropped for up to ``linger_s`` (5 s), then the socket
  closes. Closed at once with unread data, the kernel resets the connection and a client
  still writing a 10 MB body saw "connection reset" instead of the 413.

The body's own deadline is the app's (:func:`.requests._read_body`, 408 in the endpoint's
shape).

Graceful shutdown: uvicorn calls each open connection's ``shutdown()`` when it starts to shut
down (SIGTERM, Ctrl+C, ``should_exit``); the protocol first calls the app's drain hook, which
the app's lifespan puts in the lifespan state (:data:`DRAIN_STATE`): the service answers
waiting requests 503 and gives running work ``drain_s`` seconds
(:meth:`.service.TranslationService.drain`). uvicorn waits for the connections to finish for
``drain_s`` + :data:`_ANSWER_MARGIN_S` (the interrupted work's answers and error events must
get out before it cancels what is left).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import socket
from collections.abc import Callable, Iterable
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .config import CONFIG_ENV, ServerConfig

__all__ = [
    "DRAIN_STATE",
    "INVALID_HTTP",
    "GuardedH11Protocol",
    "WorkerProtocol",
    "uvicorn_options",
]

DRAIN_STATE = "desktop_mt.drain"  # the lifespan state's key of the app's drain hook
_ANSWER_MARGIN_S = 3.0  # after the drain time: for the interrupted work's answers to be sent
_SEQUENCE = itertools.count()  # orders the connections' waits (oldest first), whatever the clock
INVALID_HTTP = "Invalid HTTP request: the request line, headers or body framing are malformed"


def _raw_response(status: str, message: str, extra: str = "") -> bytes:
    body = json.dumps({"error": message}).encode()
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n{extra}\r\n"
    ).encode() + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header deadline and a connection bound (class attributes
    set by :func:`_protocol_class`)."""

    header_timeout_s = 10.0
    pressure_header_s = 1.0  # the header deadline while the table is three quarters full
    max_connections = 256
    retry_after_s = 1
    _waiting_since = 0  # when the connection last had no request in progress (a sequence number)

    _header_timer = None
    _cycle_seen: object = None

    linger_s = 5.0  # most seconds a closed connection reads and drops a request body still arriving
    _lingering = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as uvicorn's own (h11_impl), narrower than BaseProtocol's
        _no_delay(transport)
        super().connection_made(_LingeringTransport(transport, self))
        self._waiting_since = next(_SEQUENCE)
        if len(self.connections) > self.max_connections and not self._evict_oldest_waiting():
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
        if self._lingering:
            return  # the rest of a body nobody will read (see _LingeringTransport)
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle:  # a request's headers are complete
            self._disarm()
        elif self._header_timer is None and (cycle is None or cycle.response_complete):
            self._arm()  # bytes of a next request on a kept-alive connection

    def _waiting(self) -> bool:
        """Open, and no request in progress (none sent yet, or between kept-alive requests)."""
        return not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete)

    def _evict_oldest_waiting(self) -> bool:
        """Close the connection that has waited longest without a request in progress, to
        make room for this one; False when every other open connection has a request in
        progress (or the table holds closing connections enough to make room)."""
        live, oldest = 0, None
        for other in self.connections:
            if not isinstance(other, GuardedH11Protocol) or other.transport.is_closing():
                continue
            live += 1
            if (
                other is not self
                and other._waiting()
                and (oldest is None or other._waiting_since < oldest._waiting_since)
            ):
                oldest = other
        if live <= self.max_connections:
            return True  # connections still closing are counted until they are gone
        if oldest is None:
            return False
        oldest._disarm()
        oldest.transport.close()
        return True

    def on_response_complete(self) -> None:
        self._waiting_since = next(_SEQUENCE)
        super().on_response_complete()
        self._disarm()  # idle from here: uvicorn's keep-alive timeout applies

    def send_400_response(self, msg: str) -> None:
        """Malformed HTTP (uvicorn's handler of h11's RemoteProtocolError): 400 in
        LibreTranslate's JSON shape (the request's path may not be known), then closed."""
        body = json.dumps({"error": INVALID_HTTP}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body)):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        self.transport.close()

    def body_unread(self) -> bool:
        """Whether the client is still sending a request body the app did not read."""
        return self.conn.their_state is h11.SEND_BODY

    def linger(self, raw: asyncio.Transport) -> None:
        """Close ``raw`` lingering (see :class:`_LingeringTransport`)."""
        self._lingering = True
        self._disarm()
        raw.write_eof()  # after the answer still buffered: the client reads it, then EOF
        raw.resume_reading()
        self.loop.call_later(self.linger_s, raw.close)

    def shutdown(self) -> None:
        """The server shuts down: the app drains (once; see the module docstring), then
        uvicorn's own: an idle connection is closed, an answered one after its answer."""
        drain: Callable[[], None] | None = self.app_state.get(DRAIN_STATE)
        if drain is not None:
            drain()
        super().shutdown()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(deadline := self._header_deadline(), self._headers_late, deadline)

    def _header_deadline(self) -> float:
        """``header_timeout_s``, or ``pressure_header_s`` while the table is 3/4 full."""
        if len(self.connections) * 4 >= self.max_connections * 3:
            return min(self.header_timeout_s, self.pressure_header_s)
        return self.header_timeout_s

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self, deadline: float) -> None:
        self._header_timer = None
        if self.transport is None or self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request is being answered: its body has the app's deadline
        self.transport.write(
            _raw_response("408 Request Timeout", f"Request headers not received within {deadline:g} s")
        )
        self.transport.close()


class _LingeringTransport(asyncio.Transport):
    """The connection's transport as uvicorn sees it, with one change: :meth:`close` while the
    client is still sending a request body the app did not read closes lingering
    (:meth:`GuardedH11Protocol.linger`: the answer and a FIN now, the rest of the body read
    and dropped for up to ``linger_s``). Everything else is the socket transport's."""

    def __init__(self, raw: asyncio.Transport, protocol: GuardedH11Protocol) -> None:
        super().__init__()
        self._raw, self._protocol, self._closing = raw, protocol, False

    def close(self) -> None:
        if self._closing or self._raw.is_closing():
            return
        self._closing = True
        if self._raw.can_write_eof() and self._protocol.body_unread():
            self._protocol.linger(self._raw)
        else:
            self._raw.close()

    def is_closing(self) -> bool:
        return self._closing or self._raw.is_closing()

    def abort(self) -> None:
        self._raw.abort()

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._closing:
            self._raw.write(data)

    def writelines(self, list_of_data: Iterable[bytes | bytearray | memoryview]) -> None:
        for data in list_of_data:
            self.write(data)

    def write_eof(self) -> None:
        self._raw.write_eof()

    def can_write_eof(self) -> bool:
        return self._raw.can_write_eof()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._raw.get_extra_info(name, default)

    def pause_reading(self) -> None:
        if not self._closing:
            self._raw.pause_reading()

    def resume_reading(self) -> None:
        self._raw.resume_reading()

    def is_reading(self) -> bool:
        return self._raw.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._raw.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._raw.get_protocol()

    def get_write_buffer_size(self) -> int:
        return self._raw.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._raw.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._raw.set_write_buffer_limits(high, low)


def _no_delay(transport: asyncio.BaseTransport) -> None:
    """Send small writes at once. uvicorn writes an answer's headers and body separately; on
    the sockets it is handed (``sockets=``) Nagle's algorithm was left on, and with the
    client's delayed ACK every answer on a kept-alive connection waited ~40 ms."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # not a TCP socket after all
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _protocol_class(config: ServerConfig) -> type[GuardedH11Protocol]:
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
    import string), the idle keep-alive timeout, the shutdown's wait (the drain time and the
    margin for the last answers), no access log (it could carry query strings)."""
    http = "desktop_mt.server.connections:WorkerProtocol" if workers else _protocol_class(config)
    return dict(
        http=http,
        timeout_keep_alive=config.keep_alive_s,
        timeout_graceful_shutdown=config.drain_s + _ANSWER_MARGIN_S,
        access_log=False,
        log_config=None,
    )
