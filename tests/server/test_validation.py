"""Issue 43, findings 3, 4, 5 and 8: one validation layer types every field before use and
refuses text that is not Unicode in every input channel, with the endpoint's JSON 4xx; no
field value reaches a log line.

Before: a non-string ``source_lang`` was a 500 ``AttributeError`` (finding 3); a lone
surrogate escape (``"\\ud800"``) in a field the answer echoes was a 500 ``UnicodeEncodeError``,
and streamed a 200 then a cut body, its traceback logging the value (finding 4);
``Authorization: DeepL-Auth-Key <NBSP>`` with a key set was a 500 ``IndexError`` (finding 5);
invalid UTF-8 in a multipart field or the query string was translated as other characters
(finding 8).

The real app over the fake translator, through uvicorn on a free loopback port; each refused
request is checked to have reached no engine call.
"""

from __future__ import annotations

import json
import logging

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
jsonschema = pytest.importorskip("jsonschema")

from desktop_mt.server.openapi import ERRORS, error_schema  # noqa: E402
from desktop_mt.server.run import ServerThread  # noqa: E402

from .fakes import WAIT, FakeTranslator, fake_app  # noqa: E402

KEY = "k-43"
LONE = "\ud800"  # json.dumps writes it as the escape "\ud800", as the attacker's body did
MARK = "FIELD-VALUE-43"  # a field value that must never be logged


@pytest.fixture(scope="module")
def engine():
    return FakeTranslator()


@pytest.fixture(scope="module")
def server(engine):
    thread = ServerThread(fake_app(engine)).start()
    yield thread
    thread.stop()


@pytest.fixture(scope="module")
def keyed():
    thread = ServerThread(fake_app(api_key=KEY)).start()
    yield thread
    thread.stop()


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.url, timeout=WAIT) as c:
        yield c


def assert_refused(response, shape_path: str, statuses=(400,)) -> dict:
    """A 4xx in ``shape_path``'s documented error schema (JSON), not a 500 or a cut body."""
    assert response.status_code in statuses, (response.status_code, response.text[:300])
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    jsonschema.validate(body, ERRORS[error_schema(shape_path)])
    return body


def post_json(client, path: str, body: dict):
    return client.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})


LIBRE = {"q": "Hello", "source": "en", "target": "zh"}
DEEPL = {"text": ["Hello"], "target_lang": "ZH"}
DEEPLX = {"text": "Hello", "source_lang": "EN", "target_lang": "ZH"}
CHAT = {"model": "desktop-mt", "messages": [{"role": "user", "content": "Hello"}]}
RESPONSES = {"model": "desktop-mt", "input": "Hello"}


# --- finding 3: every field typed ---------------------------------------------------------

NOT_STRINGS = [True, 5, 1.5, ["ZH"], {"a": "ZH"}]
TYPED = [  # (path, body, field, error shape of)
    ("/v2/translate", DEEPL, "source_lang", "/v2/translate"),
    ("/v2/translate", DEEPL, "target_lang", "/v2/translate"),
    ("/v2/translate", DEEPL, "tag_handling", "/v2/translate"),
    ("/deeplx/translate", DEEPLX, "source_lang", "/deeplx/translate"),
    ("/deeplx/translate", DEEPLX, "target_lang", "/deeplx/translate"),
    ("/translate", DEEPLX, "source_lang", "/deeplx/translate"),  # a DeepLX body to /translate
    ("/translate", LIBRE, "source", "/translate"),
    ("/translate", LIBRE, "target", "/translate"),
    ("/translate", LIBRE, "format", "/translate"),
    ("/translate/stream", LIBRE, "format", "/translate/stream"),
    ("/v1/chat/completions", CHAT, "model", "/v1/chat/completions"),
    ("/v1/responses", RESPONSES, "model", "/v1/responses"),
]


@pytest.mark.parametrize("value", NOT_STRINGS, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("path, body, field, shape", TYPED, ids=lambda x: x if isinstance(x, str) else "")
def test_a_field_of_the_wrong_type_is_a_400_naming_it(client, engine, path, body, field, shape, value):
    calls = len(engine.batches)
    found = assert_refused(post_json(client, path, {**body, field: value}), shape)
    assert field in json.dumps(found)
    assert len(engine.batches) == calls


# --- finding 4: lone surrogates -------------------------------------------------------------

STREAM = {"stream": True}
SURROGATES = {
    "/translate q": ("/translate", {**LIBRE, "q": f"Hi {LONE}"}),
    "/translate q list": ("/translate", {**LIBRE, "q": ["Hi", f"{LONE}"]}),
    "/translate source": ("/translate", {**LIBRE, "source": LONE}),
    "/translate target": ("/translate", {**LIBRE, "target": LONE}),
    "/translate format": ("/translate", {**LIBRE, "format": LONE}),
    "/translate/stream format": ("/translate/stream", {**LIBRE, "format": LONE}),
    "/translate/stream q": ("/translate/stream", {**LIBRE, "q": f"Hi {LONE}"}),
    "/v2/translate target_lang": ("/v2/translate", {**DEEPL, "target_lang": LONE}),
    "/v2/translate source_lang": ("/v2/translate", {**DEEPL, "source_lang": LONE}),
    "/deeplx/translate target_lang": ("/deeplx/translate", {**DEEPLX, "target_lang": f"ZH{LONE}"}),
    "chat model": ("/v1/chat/completions", {**CHAT, "model": LONE}),
    "chat model streamed": ("/v1/chat/completions", {**CHAT, **STREAM, "model": LONE}),
    "chat prompt language": (
        "/v1/chat/completions",
        {**CHAT, **STREAM, "messages": [{"role": "user", "content": f'Translate into {LONE}:\n"""\nHello\n"""'}]},
    ),
    "responses model streamed": ("/v1/responses", {**RESPONSES, **STREAM, "model": LONE}),
    "responses instructions": ("/v1/responses", {**RESPONSES, "instructions": LONE}),
    "responses prompt language": (
        "/v1/responses",
        {**RESPONSES, "input": f"translate from {LONE} to Simplified Chinese:\n\nHello"},
    ),
    "a field name": ("/translate", {**LIBRE, LONE: "x"}),
    "deep inside a value": ("/v1/chat/completions", {**CHAT, "metadata": {"a": [[{"b": LONE}]]}}),
}


@pytest.mark.parametrize("name", list(SURROGATES))
def test_a_lone_surrogate_is_refused_with_the_endpoint_json_400(client, engine, name, caplog):
    path, body = SURROGATES[name]
    calls, steps = len(engine.batches), engine.stream_steps
    with caplog.at_level(logging.INFO):
        assert_refused(post_json(client, path, body), path)
    assert (len(engine.batches), engine.stream_steps) == (calls, steps)
    assert client.get("/health").status_code == 200


def test_a_surrogate_pair_escape_is_one_character_and_is_translated(client, engine):
    answer = post_json(client, "/translate", {**LIBRE, "q": "Hello \ud83d\ude00"})
    assert answer.status_code == 200
    assert answer.json()["translatedText"] == "译[Hello \U0001f600]"


# --- finding 5: the Authorization header --------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [b"DeepL-Auth-Key \xa0", b"DeepL-Auth-Key \xc2\xa0", b"DeepL-Auth-Key \x85", b"DeepL-Auth-Key\xa0" + KEY.encode()],
    ids=["latin-1 NBSP", "UTF-8 NBSP", "NEL", "NBSP as separator"],
)
@pytest.mark.parametrize(
    "method, path",
    [("POST", "/v2/translate"), ("GET", "/v2/usage"), ("POST", "/v2/usage"), ("GET", "/v2/languages")],
)
def test_a_deepl_key_header_of_white_space_is_refused_not_a_500(keyed, method, path, header):
    with httpx.Client(base_url=keyed.url, timeout=WAIT) as c:
        answer = c.request(method, path, headers={"Authorization": header}, json=DEEPL if method == "POST" else None)
        assert_refused(answer, path, (400, 403))
        right = c.request(method, path, headers={"Authorization": f"DeepL-Auth-Key {KEY}"}, json=DEEPL)
        assert right.status_code == 200


@pytest.mark.parametrize(
    "path, scheme", [("/translate", "Bearer"), ("/deeplx/translate", "Bearer"), ("/v1/chat/completions", "Bearer")]
)
def test_other_key_headers_of_white_space_are_refused_not_a_500(keyed, path, scheme):
    with httpx.Client(base_url=keyed.url, timeout=WAIT) as c:
        for header in (scheme.encode() + b" \xa0", scheme.encode() + b" \xc2\x85"):
            body = {"/translate": LIBRE, "/deeplx/translate": DEEPLX}.get(path, CHAT)
            answer = c.post(path, headers={"Authorization": header}, json=body)
            assert_refused(answer, path, (400, 401, 403))


# --- finding 8: invalid UTF-8 in every channel --------------------------------------------

BOUNDARY = "b43"


def multipart(**fields: bytes) -> bytes:
    parts = [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode() + value + b"\r\n"
        for name, value in fields.items()
    ]
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


@pytest.mark.parametrize(
    "path, fields",
    [
        ("/translate", {"q": b"caf\xe9", "source": b"en", "target": b"zh"}),
        ("/translate", {"q": b"Hello", "source": b"en", "target": b"zh\xff"}),
        ("/v2/translate", {"text": b"\xff\xfeHello", "target_lang": b"ZH"}),
        ("/deeplx/translate", {"text": b"\xed\xa0\x80", "target_lang": b"ZH"}),  # an encoded surrogate
        ("/detect", {"q": b"\xc3"}),
    ],
)
def test_invalid_utf8_in_a_multipart_field_is_refused(client, engine, path, fields):
    calls = len(engine.batches)
    answer = client.post(
        path, content=multipart(**fields), headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
    )
    assert "not valid" in json.dumps(assert_refused(answer, path))
    assert len(engine.batches) == calls


def test_a_valid_multipart_body_is_still_translated(client):
    answer = client.post(
        "/translate",
        content=multipart(q="café".encode(), source=b"en", target=b"zh"),
        headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
    )
    assert answer.status_code == 200 and answer.json()["translatedText"] == "译[café]"


@pytest.mark.parametrize(
    "path, query",
    [
        ("/translate", "q=%FF%FE%FD&source=en&target=zh"),
        ("/translate", "q=Hello&source=en&target=zh%C3"),
        ("/detect", "q=%ED%A0%80"),
        ("/v2/translate", "text=%FFHello&target_lang=ZH"),
        ("/metrics", "api_key=%FF"),
    ],
)
def test_invalid_utf8_in_the_query_string_is_refused(client, engine, path, query):
    calls = len(engine.batches)
    method = "GET" if path == "/metrics" else "POST"
    answer = client.request(method, f"{path}?{query}")
    assert "query string is not valid UTF-8" in json.dumps(assert_refused(answer, path))
    assert len(engine.batches) == calls


def test_a_valid_query_string_is_still_read(client):
    answer = client.post("/translate?q=caf%C3%A9&source=en&target=zh")
    assert answer.status_code == 200 and answer.json()["translatedText"] == "译[café]"


def test_invalid_utf8_in_a_key_header_is_refused(keyed):
    with httpx.Client(base_url=keyed.url, timeout=WAIT) as c:
        answer = c.get("/v1/models", headers={"api-key": b"\xff" + KEY.encode()})
        assert_refused(answer, "/v1/models", (400,))


# --- no field value in a log line ---------------------------------------------------------


def test_a_bug_is_logged_by_type_and_place_never_with_the_field_values(client, engine, caplog):
    """The engine raising KeyError(text) is a bug the guard answers as 500; the log names the
    type and where, not the message (which here quotes the request's text)."""
    engine.fail_with = KeyError(MARK)
    try:
        with caplog.at_level(logging.INFO):
            answer = post_json(client, "/translate", {**LIBRE, "q": MARK})
            assert answer.status_code == 500
            for body in SURROGATES.values():
                post_json(client, body[0], {**body[1], "model": MARK, "source_lang": MARK + LONE})
    finally:
        engine.fail_with = None
    assert "KeyError at " in caplog.text
    assert MARK not in caplog.text
