"""Issue 43, finding 9: schemathesis (a current version, all its checks) fuzzes every operation
of ``/openapi.json`` against the real app and uvicorn on a loopback port, beside the
hypothesis fuzzing of test_fuzz.py. Fixed seed, a bounded number of examples per operation.

The document says the truth tightly enough for a schema-driven fuzzer to reach the engine:
language codes as each API's enums, required bodies and fields, text lengths, ``Allow`` on
405, the media types of ``/metrics`` and of the streams. Each translating operation is
checked to have reached the (fake) engine.

Every check is on. Two are configured rather than left at their defaults:

- ``positive_data_acceptance`` expects 2xx or 400 (not 2xx only), because some refusals
  depend on the text itself, which JSON Schema cannot express: a text in a third language
  (``Value for 'source_lang' not supported: the text looks Russian``), a text whose language
  is the target with ``source=auto``, a prompt asking for a third language. Every 400 must
  still be in the endpoint's documented error schema (``response_schema_conformance``) and
  nothing may be a 5xx (``not_a_server_error``).
- ``negative_data_rejection`` (schema-violating data must get a 4xx) also takes 413: a text
  over ``maxLength`` (--char-limit) is refused as too large, in the endpoint's error shape.

Where the server was more lenient than the document, the two were made to agree (the cases
below): optional fields admit null (read as absent, as OpenAI's schema says and JSON clients
send); texts in a list, DeepL's text and OpenAI's input may be empty (answered empty); the
server refuses an empty DeepLX text (as DeepLX does), a malformed message anywhere in
``messages``/``input``, a non-object ``stream_options``, a non-string ``instructions`` and
a non-integer ``alternatives`` and an empty ``type`` in ``/v2/languages``.
"""

from __future__ import annotations

import pytest

httpx = pytest.importorskip("httpx")
jsonschema = pytest.importorskip("jsonschema")
schemathesis = pytest.importorskip("schemathesis")
pytest.importorskip("fastapi")

from hypothesis import HealthCheck, seed, settings  # noqa: E402

from desktop_mt.server.run import ServerThread  # noqa: E402

from .fakes import WAIT, FakeTranslator, fake_app  # noqa: E402

EXAMPLES = 25  # per operation (and per phase: examples, fuzzing, negative data)
CONFIG = schemathesis.config.SchemathesisConfig.from_str(
    """
[checks]
positive_data_acceptance.expected-statuses = ["2XX", "400"]
negative_data_rejection.expected-statuses = [
    "400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429",
]
"""
)
ENGINE = FakeTranslator(directions=("en-zh", "zh-en"))
APP = fake_app(ENGINE)
SCHEMA = schemathesis.openapi.from_dict(APP.openapi(), config=CONFIG)
REACHED: dict[str, int] = {}  # operation -> engine calls its cases made
CASES: dict[str, int] = {}  # operation -> cases sent (for docs/SERVER.md: run with -s)


@pytest.fixture(scope="module")
def server():
    thread = ServerThread(APP).start()
    yield thread
    thread.stop()
    print(f"\nschemathesis: {sum(CASES.values())} cases, {len(CASES)} operations, engine calls {REACHED}")


@SCHEMA.parametrize()
@seed(43)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_every_operation_passes_every_check(case, server):
    before = len(ENGINE.batches) + len(ENGINE.searches) + ENGINE.stream_steps
    case.call_and_validate(base_url=server.url)
    made = len(ENGINE.batches) + len(ENGINE.searches) + ENGINE.stream_steps - before
    key = f"{case.method} {case.path}"
    REACHED[key] = REACHED.get(key, 0) + made
    CASES[key] = CASES.get(key, 0) + 1


@pytest.mark.parametrize("operation", ["POST /translate", "POST /v2/translate", "POST /deeplx/translate"])
def test_the_fuzzer_reached_the_engine(operation):
    """Before, with any string allowed for languages, no case of these reached the engine."""
    if operation not in REACHED:
        pytest.skip("the fuzzing test did not run in this session")
    assert REACHED[operation] > 0


CHAT = {"messages": [{"role": "user", "content": "Hello"}]}
AGREED = [  # (path, body, status): what the schema forbids is refused, what it admits answered
    ("/deeplx/translate", {"text": "", "target_lang": "ZH"}, 400),
    ("/deeplx/translate", {"text": "Hello", "source_lang": None, "target_lang": "ZH"}, 200),
    ("/v2/translate", {"text": ["Hello", ""], "target_lang": "ZH", "show_billed_characters": None}, 200),
    ("/v2/translate", {"text": "Hello", "target_lang": "ZH", "tag_handling": None, "auth_key": None}, 200),
    ("/v2/languages", {"type": None}, 200),
    ("/v2/languages", {"type": ""}, 400),
    ("/translate", {"q": "Hello", "source": "en", "target": "zh", "alternatives": None, "api_key": None}, 200),
    ("/translate", {"q": "Hello", "source": "en", "target": "zh", "alternatives": {}}, 400),
    ("/translate", {"q": "Hello", "source": "en", "target": "zh", "alternatives": True}, 400),
    ("/translate", {"q": "Hello", "source": "en", "target": "zh", "alternatives": 1.5}, 400),
    ("/v1/chat/completions", {**CHAT, "n": None, "model": None, "stream": None, "stream_options": None}, 200),
    ("/v1/chat/completions", {**CHAT, "stream_options": [None]}, 400),
    ("/v1/chat/completions", {"messages": [{"role": "system", "content": 1}, *CHAT["messages"]]}, 400),
    ("/v1/chat/completions", {"messages": [{"role": "robot", "content": "x"}, *CHAT["messages"]]}, 400),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": [{"type": "text", "text": 1}]}]}, 400),
    ("/v1/chat/completions", {"messages": [{"role": "developer", "content": "Translate"}, *CHAT["messages"]]}, 200),
    ("/v1/responses", {"input": "", "instructions": None}, 200),
    ("/v1/responses", {"input": "Hello", "instructions": 5}, 400),
    ("/v1/responses", {"input": [{"role": "user", "content": -1}, {"role": "user", "content": "Hello"}]}, 400),
]


@pytest.mark.parametrize(("path", "body", "status"), AGREED)
def test_the_server_and_its_schema_agree(path, body, status, server):
    """Each of these was a schema-violating request the server answered 200 (or a body the
    schema forbade that real clients send): now refused with the endpoint's JSON 400, or
    admitted by the document; both sides checked, the body against the served schema."""
    operation = APP.openapi()["paths"][path]["post"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    assert jsonschema.Draft202012Validator(schema).is_valid(body) == (status == 200)
    with httpx.Client(base_url=server.url, timeout=WAIT) as client:
        reply = client.post(path, json=body)
    assert reply.status_code == status, reply.text
    if status == 400:
        assert reply.headers["content-type"].startswith("application/json")
