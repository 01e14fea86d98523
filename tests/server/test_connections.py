"""Issue 24: connections that send nothing, or send slowly, are closed; open connections are
bounded with a 503 instead of a refused accept(); the port is checked before the model loads,
with the documented exit code; ``localhost`` listens on both loopback families; Pot's web
view gets CORS.

The timeouts are set small (fractions of a second) and every wait is a blocking read with a
generous bound: the assertions are on what the server sends (408, 503, end of stream), not
on how long it took.
"""

from __future__ import annotations

import errno
import json
import socket
import threading

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from desktop_mt.server.config import ServeConfigError, ServerConfig, check_safe  # noqa: E402
from desktop_mt.server.connections import GuardedH11Protocol  # noqa: E402
from desktop_mt.server.run import EXIT_USAGE, ServerThread, bind_sockets, serve  # noqa: E402

from .fakes import WAIT, FakeTranslator, fake_app  # noqa: E402
from .helpers import wait_for  # noqa: E402

SHORT = 0.3  # seconds: header, body and keep-alive timeouts of the test server


@pytest.fixture(scope="module")
def server():
    thread = ServerThread(
        fake_app(
            header_timeout_s=SHORT, body_timeout_s=SHORT, keep_alive_s=SHORT, max_connections=4, cors_origins=("pot",)
        )
    ).start()
    yield thread
    thread.stop()


def connect(server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def status_and_json(data: bytes) -> tuple[int, dict]:
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_a_connection_that_sends_nothing_gets_408_and_is_closed(server):
    with connect(server) as sock:
        status, body = status_and_json(read_all(sock))
    assert status == 408 and "headers not received" in body["error"]


def test_headers_sent_a_byte_at_a_time_hit_the_same_deadline(server):
    with connect(server) as sock:
        sock.sendall(b"POST /translate HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # ...and no more
        status, _ = status_and_json(read_all(sock))
    assert status == 408


def test_a_body_that_does_not_arrive_gets_408_in_the_endpoint_shape(server):
    with connect(server) as sock:
        sock.sendall(
            b"POST /v2/translate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
            b'application/json\r\nContent-Length: 100\r\n\r\n{"text": '
        )
        status, body = status_and_json(read_all(sock))
    assert status == 408 and set(body) == {"message"}  # DeepL's shape


def test_an_idle_kept_alive_connection_is_closed(server):
    with connect(server) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        data = read_all(sock)  # returns because the server closes the idle connection
    assert data.startswith(b"HTTP/1.1 200")
    assert b"408" not in data.split(b"\r\n", 1)[0]


def test_a_full_table_closes_the_oldest_silent_connection_to_admit_a_client(monkeypatch):
    """Issue 43, finding 1: four silent sockets fill the table; a client connecting then is
    admitted (the oldest silent socket is closed, without an answer) and served."""
    monkeypatch.setattr(GuardedH11Protocol, "pressure_header_s", WAIT * 10)  # no 408 meanwhile
    server = ServerThread(fake_app(max_connections=4, header_timeout_s=WAIT * 10)).start()
    idle = [connect(server) for _ in range(4)]
    try:
        with connect(server) as client:
            client.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            status, body = status_and_json(read_all(client))
        assert status == 200 and body["status"] == "ok"
        assert read_all(idle[0]) == b""  # closed to make room, nothing sent
    finally:
        for sock in idle:
            sock.close()
        server.stop()


def test_connections_beyond_the_bound_get_503_when_all_have_requests_and_the_server_recovers():
    """Four connections whose requests are in progress (the engine held) fill the table: a
    fifth is answered 503 at once; once they are answered the server takes new ones."""
    hold = threading.Event()
    engine = FakeTranslator(hold=hold)
    server = ServerThread(fake_app(engine, max_connections=4)).start()
    busy = [connect(server) for _ in range(4)]
    try:
        for number, sock in enumerate(busy):
            body = json.dumps({"q": f"Text {number}", "source": "en", "target": "zh"}).encode()
            sock.sendall(
                b"POST /translate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
            )
        service = server._server.config.app.state.service
        wait_for(
            lambda: sum(map(len, engine.batches)) + service.batcher.queued_texts == 4,
            "four texts in the engine or queue",
        )
        with connect(server) as extra:
            status, body = status_and_json(read_all(extra))
        assert status == 503 and body["error"].startswith("Server busy")
        hold.set()
        for sock in busy:
            assert status_and_json(read_all(sock))[0] == 200
        with httpx.Client(base_url=server.url, timeout=WAIT) as c:
            wait_for(lambda: c.get("/health").status_code == 200, "a free connection")
    finally:
        hold.set()
        for sock in busy:
            sock.close()
        server.stop()


def test_pot_preflight_is_allowed_with_its_api_key_header(server):
    with httpx.Client(base_url=server.url, timeout=WAIT) as c:
        answer = c.options(
            "/v1/chat/completions",
            headers={
                "Origin": "tauri://localhost",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "api-key, content-type",
            },
        )
        assert answer.status_code == 200
        assert answer.headers["access-control-allow-origin"] == "tauri://localhost"
        assert "api-key" in answer.headers["access-control-allow-headers"].lower()
        other = c.options(
            "/v1/chat/completions", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
        )
        assert "access-control-allow-origin" not in other.headers
        assert (
            other.status_code == 400 and other.json()["error"]["message"] == "Disallowed CORS origin"
        )  # JSON in OpenAI's shape, as every error
        streamed = c.post(
            "/v1/chat/completions",
            headers={"Origin": "https://tauri.localhost"},
            json={"messages": [{"role": "user", "content": "Hi"}]},
        )
        assert streamed.headers["access-control-allow-origin"] == "https://tauri.localhost"


def test_cors_presets_are_named_or_refused():
    check_safe(ServerConfig(cors_origins=("pot",)))
    with pytest.raises(ServeConfigError, match="preset: pot"):
        check_safe(ServerConfig(cors_origins=("potato",)))


def test_a_port_in_use_is_found_before_the_model_loads_and_exits_2(capsys, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        # A model folder that does not exist: had the model been loaded first, its error
        # (exit 1) would be the one reported.
        code = serve(ServerConfig(port=port, model=str(tmp_path / "missing")))
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert f"port {port} is in use" in err and "--port" in err and "Traceback" not in err


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def test_localhost_listens_on_both_loopback_families():
    sockets = bind_sockets("localhost", 0)
    try:
        families = {sock.family for sock in sockets}
        ports = {sock.getsockname()[1] for sock in sockets}
        assert socket.AF_INET in families and len(ports) == 1
        if _has_ipv6_loopback():
            assert socket.AF_INET6 in families
    finally:
        for sock in sockets:
            sock.close()


@pytest.mark.skipif(not _has_ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_a_server_on_localhost_answers_on_ipv6_and_ipv4():
    thread = ServerThread(fake_app(host="localhost"), host="localhost").start()
    try:
        for host in ("127.0.0.1", "[::1]"):
            answer = httpx.get(f"http://{host}:{thread.port}/health", timeout=WAIT)
            assert answer.status_code == 200
    finally:
        thread.stop()


def test_bind_reports_a_port_in_use_as_oserror():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError) as info:
            bind_sockets("127.0.0.1", taken.getsockname()[1])
    assert info.value.errno == errno.EADDRINUSE


def test_worker_processes_get_the_protocol_by_import_string(monkeypatch):
    """uvicorn pickles its settings to --workers processes: the protocol travels by name and
    reads its limits from the config the parent put in the environment."""
    import pickle

    from uvicorn.importer import import_from_string

    from desktop_mt.server.config import CONFIG_ENV
    from desktop_mt.server.connections import WorkerProtocol, uvicorn_options

    config = ServerConfig(max_connections=7, header_timeout_s=3.0)
    options = uvicorn_options(config, workers=True)
    assert pickle.loads(pickle.dumps(options))["http"] == options["http"]
    assert import_from_string(options["http"]) is WorkerProtocol
    monkeypatch.setenv(CONFIG_ENV, config.to_json())
    import asyncio

    import uvicorn
    from uvicorn.server import ServerState

    app, loop = fake_app(), asyncio.new_event_loop()
    try:
        protocol = WorkerProtocol(uvicorn.Config(app), ServerState(), {}, _loop=loop)
        assert (protocol.max_connections, protocol.header_timeout_s) == (7, 3.0)
    finally:
        loop.close()
        app.state.service.close()
