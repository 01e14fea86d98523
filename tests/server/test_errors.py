"""Issue 24: every malformed request gets a 4xx in its endpoint's documented JSON error shape
and the keep-alive connection stays usable (before: RecursionError, OverflowError and
TypeError were 500 text/plain and the connection was dropped; an invalid Host was answered
text/plain; ``"stream": "false"`` started a stream; invalid UTF-8 forms became U+FFFD).

Through uvicorn on a free loopback port, with one httpx client: each check also asserts that
the next request went over the same TCP connection (the same local port).
"""

from __future__ import annotations

import json

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
jsonschema = pytest.importorskip("jsonschema")

from desktop_mt.server.openapi import ERRORS, error_schema  # noqa: E402
from desktop_mt.server.run import ServerThread  # noqa: E402

from .fakes import WAIT, FakeTranslator, fake_app  # noqa: E402

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture(scope="module")
def engine():
    return FakeTranslator()


@pytest.fixture(scope="module")
def server(engine):
    thread = ServerThread(fake_app(engine)).start()
    yield thread
    thread.stop()


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.url, timeout=WAIT) as c:
        yield c


def local_port(response) -> int:
    return response.extensions["network_stream"].get_extra_info("client_addr")[1]


def assert_error(response, path: str, status: int) -> None:
    """``status``, JSON in ``path``'s documented error schema (from the OpenAPI document)."""
    assert response.status_code == status, response.text[:300]
    assert response.headers["content-type"] == "application/json"
    jsonschema.validate(response.json(), ERRORS[error_schema(path)])


def check_then_reuse(client, send, path: str, status: int):
    """``send(client)`` gets ``status`` in the shape, and the connection is still usable."""
    response = send(client)
    assert_error(response, path, status)
    after = client.get("/health")
    assert after.status_code == 200
    assert local_port(after) == local_port(response), "the server dropped the connection"
    return response.json()


CASES = {
    # RecursionError in the JSON decoder
    "deep JSON /translate": ("/translate", {"content": DEEP}, 400),
    "deep JSON /v2/translate": ("/v2/translate", {"content": DEEP}, 400),
    "deep JSON /deeplx/translate": ("/deeplx/translate", {"content": DEEP}, 400),
    "deep JSON /v1/chat/completions": ("/v1/chat/completions", {"content": DEEP}, 400),
    "deep JSON inside q": ("/translate", {"content": '{"q": ' + DEEP + "}"}, 400),
    # OverflowError, NaN
    "alternatives 1e400": (
        "/translate",
        {"content": '{"q": "Hi", "source": "en", "target": "zh", "alternatives": 1e400}'},
        400,
    ),
    "alternatives NaN": (
        "/translate",
        {"content": '{"q": "Hi", "source": "en", "target": "zh", "alternatives": NaN}'},
        400,
    ),
    "a 5000-digit number": (
        "/translate",
        {"content": '{"q": "Hi", "source": "en", "target": "zh", "alternatives": ' + "9" * 5000 + "}"},
        400,
    ),
    # TypeError on content parts
    "chat part text 5": (
        "/v1/chat/completions",
        {"json": {"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]}},
        400,
    ),
    "chat part text null": (
        "/v1/chat/completions",
        {"json": {"messages": [{"role": "user", "content": [{"type": "text", "text": None}]}]}},
        400,
    ),
    "responses part text 5": (
        "/v1/responses",
        {"json": {"input": [{"role": "user", "content": [{"type": "input_text", "text": 5}]}]}},
        400,
    ),
    # strict booleans
    "chat stream 'false'": (
        "/v1/chat/completions",
        {"json": {"stream": "false", "messages": [{"role": "user", "content": "Hi"}]}},
        400,
    ),
    "responses stream 'false'": ("/v1/responses", {"json": {"stream": "false", "input": "Hi"}}, 400),
    "include_usage 1": (
        "/v1/chat/completions",
        {
            "json": {
                "stream": True,
                "stream_options": {"include_usage": 1},
                "messages": [{"role": "user", "content": "Hi"}],
            }
        },
        400,
    ),
    # invalid UTF-8 forms: raw bytes and percent-escapes
    "form raw 0xff": (
        "/translate",
        {"content": b"q=\xff&source=en&target=zh", "headers": {"Content-Type": "application/x-www-form-urlencoded"}},
        400,
    ),
    "form %FF": (
        "/translate",
        {"content": b"q=%FF&source=en&target=zh", "headers": {"Content-Type": "application/x-www-form-urlencoded"}},
        400,
    ),
    "deepl form %C3": (
        "/v2/translate",
        {"content": b"text=%C3&target_lang=ZH", "headers": {"Content-Type": "application/x-www-form-urlencoded"}},
        400,
    ),
    "JSON not UTF-8": (
        "/deeplx/translate",
        {"content": b'{"text": "\xff", "target_lang": "ZH"}', "headers": {"Content-Type": "application/json"}},
        400,
    ),
    # shapes of the routing errors
    "unknown path": ("/v2/nothing", {"json": {}}, 404),
    "multipart without boundary": (
        "/v1/responses",
        {"content": b"x", "headers": {"Content-Type": "multipart/form-data"}},
        400,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_malformed_body_gets_a_4xx_in_the_endpoint_shape_and_the_connection_stays(client, name):
    path, request, status = CASES[name]
    headers = {"Content-Type": "application/json", **request.get("headers", {})}
    body = {key: value for key, value in request.items() if key != "headers"}
    if "json" in body:
        body = {"content": json.dumps(body["json"])}
    check_then_reuse(client, lambda c: c.post(path, headers=headers, **body), path, status)


def test_a_string_false_starts_no_stream(client, engine):
    """``"stream": "false"`` used to be truthy: a stream. Now refused, and nothing ran."""
    steps = engine.stream_steps
    body = check_then_reuse(
        client,
        lambda c: c.post(
            "/v1/chat/completions", json={"stream": "false", "messages": [{"role": "user", "content": "Hello there"}]}
        ),
        "/v1/chat/completions",
        400,
    )
    assert body["error"]["param"] == "stream"
    assert engine.stream_steps == steps


def test_invalid_utf8_is_refused_not_translated_as_replacement_characters(client, engine):
    calls = len(engine.batches)
    check_then_reuse(
        client,
        lambda c: c.post(
            "/translate",
            content=b"q=caf%E9&source=en&target=zh",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        ),
        "/translate",
        400,
    )
    assert len(engine.batches) == calls


@pytest.mark.parametrize(
    "path, method", [("/translate", "POST"), ("/v1/models", "GET"), ("/v2/usage", "GET"), ("/deeplx/translate", "POST")]
)
def test_foreign_host_is_refused_in_the_endpoint_shape(client, path, method):
    check_then_reuse(client, lambda c: c.request(method, path, headers={"Host": "evil.example"}, json={}), path, 400)


def test_method_not_allowed_is_json(client):
    check_then_reuse(client, lambda c: c.get("/translate"), "/translate", 405)


def test_an_unexpected_exception_is_a_json_500_and_the_connection_stays(client, engine):
    """A bug (here: the engine raising KeyError, which nothing maps) is the guard's: a 500 in
    the endpoint's shape, logged, the connection kept."""
    engine.fail_with = KeyError("bug")
    try:
        for path, body in (
            ("/translate", {"q": "Hi", "source": "en", "target": "zh"}),
            ("/v1/chat/completions", {"messages": [{"role": "user", "content": "Hi"}]}),
        ):
            found = check_then_reuse(client, lambda c, p=path, b=body: c.post(p, json=b), path, 500)
            assert "KeyError" in json.dumps(found)
    finally:
        engine.fail_with = None


def test_get_v1_responses_answers_bobs_check(client):
    answer = client.get("/v1/responses")
    assert answer.status_code == 200
    assert "POST /v1/responses" in answer.json()["message"]


def test_get_v1_responses_checks_the_key():
    thread = ServerThread(fake_app(api_key="k-123")).start()
    try:
        with httpx.Client(base_url=thread.url, timeout=WAIT) as c:
            assert_error(c.get("/v1/responses", headers={"Authorization": "Bearer wrong"}), "/v1/responses", 401)
            assert c.get("/v1/responses", headers={"Authorization": "Bearer k-123"}).status_code == 200
    finally:
        thread.stop()
