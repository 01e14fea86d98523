"""Issue 24: a 2 MB adversarial body to any endpoint is answered, in its API's JSON shape,
while ``/health`` keeps answering (before, 100 KB posted to ``/v1/responses`` froze the server
for 14-20 s: a quadratic parse of 2 MB would take hours).

The real app over a fake translator (the HTTP layer is what is attacked), served by uvicorn on
a free loopback port. ``/health`` is polled on its own connection while the adversarial request
is in flight (at least once, whatever the scheduling). The bounds are generous (10 s for the
answer, 2 s for ``/health``, scaled by how fast ``/health`` answered just before): they catch a
super-linear parse or a blocked event loop by orders of magnitude and do not depend on how
busy the machine is (issue 25: no assertion that depends on scheduling).
"""

from __future__ import annotations

import json
import statistics
import threading
import time
import urllib.parse

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from desktop_mt.server.run import ServerThread  # noqa: E402

from .fakes import WAIT, fake_app  # noqa: E402

BODY_LIMIT = 2_000_000
MB2 = BODY_LIMIT - 1000  # just under the limit: everything below it gets parsed


@pytest.fixture(scope="module")
def server():
    thread = ServerThread(fake_app(max_body_bytes=BODY_LIMIT)).start()
    yield thread
    thread.stop()


def _form(**fields) -> tuple[bytes, str]:
    return urllib.parse.urlencode(fields).encode(), "application/x-www-form-urlencoded"


def _json(value) -> tuple[bytes, str]:
    return json.dumps(value).encode(), "application/json"


def _fill(prefix: str, unit: str, suffix: str = "", size: int = MB2 // 2) -> str:
    return prefix + unit * ((size - len(prefix) - len(suffix)) // len(unit)) + suffix


_BOB = _fill("translate from ", " to ", ":")
_EASYDICT = _fill("Translate the following ", " text into ", ":")
_DEEP = "[" * (MB2 - 10)
# Unclosed <script>, comment and quote openings: each made the old HTML regex scan to the end.
_TEXTS_AT_LIMIT = [_fill("", '<script><!--<a "', size=5000) for _ in range(128)]
_MIXED_AT_LIMIT = [_fill("", "Word 火车 こん ", size=5000) for _ in range(128)]

ATTACKS = {
    # The attack: a form POST any web page can send, Bob's prompt repeated.
    "responses form, Bob's prompt": ("/v1/responses", _form(input=_BOB)),
    "responses json, Bob's prompt": ("/v1/responses", _json({"input": _BOB})),
    "chat, Easydict's prompt": ("/v1/chat/completions", _json({"messages": [{"role": "user", "content": _EASYDICT}]})),
    "chat, deep JSON": ("/v1/chat/completions", (_DEEP.encode(), "application/json")),
    "translate, one huge text": ("/translate", _json({"q": "a " * (MB2 // 2 - 20), "source": "en", "target": "zh"})),
    "translate, 400k form fields": (
        "/translate",
        (b"source=en&target=zh" + b"&q=a" * (MB2 // 4), "application/x-www-form-urlencoded"),
    ),
    "translate, html at the limits": (
        "/translate",
        _json({"q": _TEXTS_AT_LIMIT, "source": "en", "target": "zh", "format": "html"}),
    ),
    "translate, deep JSON": ("/translate", (_DEEP.encode(), "application/json")),
    "stream, huge text": ("/translate/stream", _json({"q": "a " * (MB2 // 2 - 20), "source": "en", "target": "zh"})),
    "detect, texts at the limits": ("/detect", _json({"q": _MIXED_AT_LIMIT})),
    "deeplx, huge text": ("/deeplx/translate", _json({"text": "a " * (MB2 // 2 - 20), "target_lang": "ZH"})),
    "deepl, repeated text fields": (
        "/v2/translate",
        (b"target_lang=ZH" + b"&text=a" * (MB2 // 7), "application/x-www-form-urlencoded"),
    ),
    "deepl, escaped texts": (
        "/v2/translate",
        (b"target_lang=ZH" + (b"&text=" + b"%25" * 19_000) * 34, "application/x-www-form-urlencoded"),
    ),
    "deepl usage, junk form": ("/v2/usage", (b"x=" + b"%25" * (MB2 // 3), "application/x-www-form-urlencoded")),
    "deepl languages, deep JSON": ("/v2/languages", (_DEEP.encode(), "application/json")),
}


def _health_seconds(client) -> float:
    started = time.perf_counter()
    assert client.get("/health").status_code == 200
    return time.perf_counter() - started


@pytest.mark.parametrize("name", list(ATTACKS))
def test_adversarial_body_is_answered_fast_and_health_keeps_answering(server, name):
    path, (body, kind) = ATTACKS[name]
    assert len(body) <= BODY_LIMIT
    with (
        httpx.Client(base_url=server.url, timeout=WAIT) as health,
        httpx.Client(base_url=server.url, timeout=WAIT) as attacker,
    ):
        baseline = statistics.median(_health_seconds(health) for _ in range(9))
        load = max(1.0, baseline / 0.005)  # /health normally answers in ~1 ms
        polled: list[float] = []
        done = threading.Event()

        def poll() -> None:
            polled.append(_health_seconds(health))  # once at least, even after a quick answer
            while not done.is_set():
                polled.append(_health_seconds(health))

        poller = threading.Thread(target=poll)
        poller.start()
        try:
            started = time.perf_counter()
            answer = attacker.post(path, content=body, headers={"Content-Type": kind})
            elapsed = time.perf_counter() - started
        finally:
            done.set()
            poller.join(WAIT)
        assert answer.status_code < 500, answer.text[:300]
        answer.json()  # JSON whatever the status (an error in the endpoint's shape)
    assert elapsed < 10.0 * load, f"{name}: answered in {elapsed:.3f} s (load x{load:.1f})"
    assert max(polled) < 2.0 * load, f"{name}: /health took {max(polled) * 1000:.0f} ms during it (load x{load:.1f})"
