"""Issue 24: property-based fuzzing of every endpoint from the server's own OpenAPI document
(``GET /openapi.json``), with hypothesis and hypothesis-jsonschema.

Each operation gets requests built from its documented body schema (valid bodies), arbitrary
JSON values and arbitrary bytes under each content type (malformed bodies), as JSON or as a
urlencoded form; GET operations get arbitrary query strings. For every case: no 5xx, every
4xx body in the error schema the document names for that path, and ``/health`` still answers
on the same connection. A fast fake translator stands behind the app, so the HTTP layer is
what is exercised. Fixed seed (``derandomize``) and a bounded number of examples per operation.
"""

from __future__ import annotations

import collections
import json
import urllib.parse

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
hypothesis = pytest.importorskip("hypothesis")
hjs = pytest.importorskip("hypothesis_jsonschema")
jsonschema = pytest.importorskip("jsonschema")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from desktop_mt.server.run import ServerThread  # noqa: E402

from .fakes import WAIT, fake_app  # noqa: E402

POST_EXAMPLES, GET_EXAMPLES = 150, 30
TRIED: collections.Counter = collections.Counter()  # cases per status (printed at the end)

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)
CONTENT_TYPES = ("application/json", "application/x-www-form-urlencoded", "multipart/form-data", "text/plain", "")


@pytest.fixture(scope="module")
def server():
    thread = ServerThread(fake_app(max_streams=8)).start()
    yield thread
    thread.stop()
    print(f"\nfuzz cases: {sum(TRIED.values())}, by status: {dict(sorted(TRIED.items()))}")


@pytest.fixture(scope="module")
def client(server):
    with httpx.Client(base_url=server.url, timeout=WAIT) as c:
        yield c


@pytest.fixture(scope="module")
def document(client):
    return client.get("/openapi.json").json()


def operations() -> list[tuple[str, str]]:
    """(method, path) of every documented operation (read from a fresh app's document)."""
    paths = fake_app().openapi()["paths"]
    return [(method, path) for path, ops in paths.items() for method in ops]


def _form(value) -> bytes:
    """A JSON object as a urlencoded form (lists repeat the field); anything else as JSON."""
    if not isinstance(value, dict):
        return json.dumps(value).encode()
    pairs = []
    for key, item in value.items():
        for one in item if isinstance(item, list) else [item]:
            pairs.append((key, one if isinstance(one, str) else json.dumps(one)))
    return urllib.parse.urlencode(pairs).encode()


def from_schema(schema: dict):
    """Values of ``schema``. Objects are built here (required properties always, the others
    sometimes): hypothesis-jsonschema 0.23's object strategy uses a hypothesis internal that
    hypothesis 6.170 no longer has; it still builds every other kind of schema."""
    if "anyOf" in schema:
        return st.one_of([from_schema(option) for option in schema["anyOf"]])
    if schema.get("type") == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", ()))
        return st.fixed_dictionaries(
            {name: from_schema(sub) for name, sub in properties.items() if name in required},
            optional={name: from_schema(sub) for name, sub in properties.items() if name not in required},
        )
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return st.lists(from_schema(schema["items"]), max_size=4)
    return hjs.from_schema(schema)


def bodies(schema: dict):
    """(content type, body bytes): documented bodies, any JSON value, any bytes."""
    documented = from_schema(schema)
    as_json = (documented | JSON_VALUES).map(lambda value: ("application/json", json.dumps(value).encode()))
    as_form = documented.map(lambda value: ("application/x-www-form-urlencoded", _form(value)))
    raw = st.tuples(st.sampled_from(CONTENT_TYPES), st.binary(max_size=200))
    return st.one_of(as_json, as_json, as_form, raw)


def check(client, document, method: str, path: str, response) -> None:
    """No 5xx; errors in the documented shape; /health answers on the same connection."""
    assert response.status_code < 500, (method, path, response.status_code, response.text[:300])
    if response.status_code >= 400:
        assert response.headers["content-type"] == "application/json", response.text[:200]
        error = document["paths"][path][method.lower()]["responses"]["4XX"]
        name = error["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        jsonschema.validate(response.json(), document["components"]["schemas"][name])
    health = client.get("/health")
    assert health.status_code == 200
    port = health.extensions["network_stream"].get_extra_info("client_addr")[1]
    assert port == response.extensions["network_stream"].get_extra_info("client_addr")[1], "the connection was dropped"


_SETTINGS = dict(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("method, path", [op for op in operations() if op[0] == "post"])
def test_fuzz_post(client, document, method, path):
    schema = (
        document["paths"][path]["post"]
        .get("requestBody", {})
        .get("content", {})
        .get("application/json", {})
        .get("schema", {"type": "object"})
    )

    @settings(max_examples=POST_EXAMPLES, **_SETTINGS)
    @given(body=bodies(schema))
    def case(body):
        kind, content = body
        headers = {"Content-Type": kind} if kind else {}
        response = client.post(path, content=content, headers=headers)
        response.read()  # a stream is read to its end
        TRIED[response.status_code] += 1
        check(client, document, "POST", path, response)

    case()


@pytest.mark.parametrize("method, path", [op for op in operations() if op[0] == "get"])
def test_fuzz_get(client, document, method, path):
    @settings(max_examples=GET_EXAMPLES, **_SETTINGS)
    @given(query=st.dictionaries(st.text(max_size=10), st.text(max_size=20), max_size=4))
    def case(query):
        response = client.get(path, params=query)
        TRIED[response.status_code] += 1
        check(client, document, "GET", path, response)

    case()
