"""Issue 43, findings 6 and 7, over a real uvicorn server and raw sockets: malformed HTTP is
answered in JSON, a body over the limit gets its 413 before it is read (and the client still
sending it reads the 413, not a reset), and the connection is closed after a 408.

Before: framing errors got uvicorn's text/plain ``400 Invalid HTTP request received.``; a
10 MB body without ``Expect`` got a connection reset; after the body timeout's 408 the
connection stayed open and a trickling client got a second 408.

Every wait is a blocking read bounded by WAIT: the assertions are on what the server sends.
"""

from __future__ import annotations

import json
import socket

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from desktop_mt.server.connections import INVALID_HTTP, GuardedH11Protocol  # noqa: E402
from desktop_mt.server.run import ServerThread  # noqa: E402

from .fakes import WAIT, FakeTranslator, fake_app  # noqa: E402

SHORT = 0.3  # the body timeout of the test server
LIMIT = 100_000  # its body limit


@pytest.fixture(scope="module")
def engine():
    return FakeTranslator()


@pytest.fixture(scope="module")
def server(engine):
    thread = ServerThread(fake_app(engine, body_timeout_s=SHORT, max_body_bytes=LIMIT)).start()
    yield thread
    thread.stop()


def exchange(server, data: bytes) -> bytes:
    """Send ``data``, then read everything until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
        sock.sendall(data)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def responses(data: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    """The HTTP responses in ``data`` (each with a Content-Length): status, headers, body."""
    found = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
        length = int(headers["content-length"])
        found.append((int(lines[0].split()[1]), headers, rest[:length]))
        data = rest[length:]
    return found


def request(head: str, body: bytes = b"") -> bytes:
    return head.replace("\n", "\r\n").encode() + b"\r\n" + body


FRAMING = {
    "Content-Length not a number": "POST /translate HTTP/1.1\nHost: 127.0.0.1\nContent-Length: abc\n",
    "negative Content-Length": "POST /translate HTTP/1.1\nHost: 127.0.0.1\nContent-Length: -1\n",
    "conflicting Content-Length": "POST /translate HTTP/1.1\nHost: 127.0.0.1\nContent-Length: 5\nContent-Length: 6\n",
    "bad chunk size": "POST /translate HTTP/1.1\nHost: 127.0.0.1\nTransfer-Encoding: chunked\n\nzz\r\nhello",
    "two Host headers": "GET /health HTTP/1.1\nHost: 127.0.0.1\nHost: localhost\n",
    "no Host": "GET /health HTTP/1.1\n",
    "a header without a colon": "GET /health HTTP/1.1\nHost: 127.0.0.1\nnot a header\n",
    "a bad request line": "GET /health HTTP/9.9 extra\nHost: 127.0.0.1\n",
}


@pytest.mark.parametrize("name", list(FRAMING))
def test_malformed_http_is_answered_400_in_json_and_closed(server, name):
    [(status, headers, body)] = responses(exchange(server, request(FRAMING[name])))
    assert status == 400
    assert headers["content-type"] == "application/json"
    assert json.loads(body) == {"error": INVALID_HTTP}


def test_a_declared_body_over_the_limit_is_refused_before_it_is_read(server, engine):
    """413 answered on the headers alone; no body ever sent."""
    head = f"POST /translate HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\nContent-Length: {LIMIT + 1}\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
        sock.sendall(request(head))
        [(status, headers, body)] = responses(_read_until_closed(sock))
    assert status == 413 and headers["connection"] == "close"
    assert "too large" in json.loads(body)["error"]


def _read_until_closed(sock: socket.socket) -> bytes:
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


@pytest.mark.parametrize("path, key", [("/translate", "error"), ("/v2/translate", "message")])
def test_a_client_sending_a_10_mb_body_reads_the_413_not_a_reset(server, monkeypatch, path, key):
    """A client that writes its whole body before it reads (no ``Expect: 100-continue``):
    the server reads and drops the rest (lingering close), so the client's writes succeed
    and the 413 sent first is there to read. (The linger time is raised so that a loaded
    machine cannot make the client slower than it.)"""
    monkeypatch.setattr(GuardedH11Protocol, "linger_s", WAIT)
    size = 10_000_000
    head = f"POST {path} HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\nContent-Length: {size}\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
        sock.sendall(request(head))
        block = b"x" * 65536
        for _ in range(size // len(block)):
            sock.sendall(block)
        sock.sendall(b"x" * (size % len(block)))
        [(status, headers, body)] = responses(_read_until_closed(sock))
    assert status == 413 and headers["connection"] == "close"
    assert "too large" in json.loads(body)[key]


def test_after_the_body_timeout_408_the_connection_is_closed(server):
    """A client trickling its body gets one 408 and the end of the connection (before: the
    connection stayed open, and the header deadline sent a second 408)."""
    head = "POST /v2/translate HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\nContent-Length: 100\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
        sock.sendall(request(head, b'{"text": '))
        received = b""
        while b"\r\n\r\n" not in received:
            received += sock.recv(65536)
        with_more = b""
        try:
            sock.sendall(b'"more body"')  # the trickle goes on; the server drops it
            with_more = _read_until_closed(sock)
        except ConnectionResetError:
            pass  # closed: what matters is that it ends
    [(status, headers, body)] = responses(received + with_more)
    assert status == 408 and headers["connection"] == "close"
    assert set(json.loads(body)) == {"message"}  # DeepL's shape


def test_a_good_request_after_all_that_is_answered(server):
    assert httpx.get(f"{server.url}/health", timeout=WAIT).status_code == 200
