"""The real server (uvicorn on a free loopback port, the bundled model) through the official
LibreTranslate client ``libretranslatepy`` and ``httpx``: shapes, errors, streaming, batching,
the bounded queue, disconnect cancellation and the safety defaults.

Waits are bounded polls of /metrics (the server's own counters in the real code path), never
sleeps used as assertions.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import urllib.error

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
libretranslatepy = pytest.importorskip("libretranslatepy")

from desktop_mt.engine.model_format import bundled_model_dir  # noqa: E402
from desktop_mt.server.app import create_app  # noqa: E402
from desktop_mt.server.config import ServerConfig  # noqa: E402
from desktop_mt.server.run import ServerThread  # noqa: E402

from .helpers import KEY, WAIT, has_chinese, metric, sentences, wait_for  # noqa: E402
from .helpers import start_server as _start  # noqa: E402

ALLOWED_ORIGIN = "http://allowed.example"


@pytest.fixture(scope="module")
def server():
    """No key; limits small enough to test, large enough for a long stream."""
    thread = _start(char_limit=20_000, batch_limit=600, max_body_bytes=100_000, batch_window_ms=5)
    yield thread
    thread.stop()


@pytest.fixture(scope="module")
def keyed():
    """A key, one CORS origin, a one-text queue, one stream at a time, no batching."""
    thread = _start(
        api_key=KEY,
        cors_origins=(ALLOWED_ORIGIN,),
        queue_size=1,
        max_batch=1,
        batch_window_ms=0,
        max_streams=1,
        batch_limit=600,
        char_limit=20_000,
        max_body_bytes=100_000,
    )
    yield thread
    thread.stop()


# --- the official client -----------------------------------------------------------------


def test_official_client_translate_languages_detect(server):
    lt = libretranslatepy.LibreTranslateAPI(server.url)
    text = lt.translate("Where is the train station?", "en", "zh")
    assert has_chinese(text)
    codes = {row["code"]: row for row in lt.languages()}
    assert codes["en"]["targets"] == ["zh-Hans", "zh-Hant"]
    assert lt.detect("Where is the train station?")[0]["language"] == "en"
    assert lt.detect("火车站在哪里？")[0]["language"] == "zh"


def test_official_client_with_key_and_wrong_key(keyed):
    assert has_chinese(libretranslatepy.LibreTranslateAPI(keyed.url, api_key=KEY).translate("I love you.", "en", "zh"))
    with pytest.raises(urllib.error.HTTPError) as info:
        libretranslatepy.LibreTranslateAPI(keyed.url, api_key="wrong").translate("Hi", "en", "zh")
    assert info.value.code == 403
    assert json.loads(info.value.read()) == {"error": "Invalid API key"}


# --- /translate shapes -------------------------------------------------------------------


def test_list_keeps_order_and_matches_single_requests(client):
    texts = ["I love you.", "", "Where is the train station?\nI will be late for school."]
    body = client.post("/translate", json={"q": texts, "source": "en", "target": "zh"}).json()
    assert list(body) == ["translatedText"]
    out = body["translatedText"]
    assert len(out) == 3 and out[1] == "" and out[2].count("\n") == 1
    for text, translated in zip(texts, out):
        if text:
            single = client.post("/translate", json={"q": text, "source": "en", "target": "zh"})
            assert single.json()["translatedText"] == translated


def test_form_body_auto_source_alternatives_and_traditional(client):
    body = client.post(
        "/translate", data={"q": "I love you.", "source": "auto", "target": "zt", "alternatives": "2"}
    ).json()
    assert body["detectedLanguage"] == {"language": "en", "confidence": 100.0}
    assert len(body["alternatives"]) == 2 and body["translatedText"] not in body["alternatives"]
    simplified = client.post("/translate", json={"q": "I love you.", "source": "en", "target": "zh-Hans"}).json()[
        "translatedText"
    ]
    assert "愛" in body["translatedText"] and "爱" in simplified


def test_multipart_form_with_repeated_q_is_a_list(client):
    files = [
        ("q", (None, "I love you.")),
        ("q", (None, "Thank you.")),
        ("source", (None, "en")),
        ("target", (None, "zh")),
    ]
    out = client.post("/translate", files=files).json()["translatedText"]
    assert isinstance(out, list) and len(out) == 2 and all(has_chinese(t) for t in out)


def test_html_with_more_unclosed_tags_than_the_limit_is_a_400_not_a_quadratic_scan(client):
    from desktop_mt.batch.html import MAX_UNCLOSED_TAGS

    html = "<p>Hi.</p>" + "<a " * (MAX_UNCLOSED_TAGS + 1)  # each '<a ' would rescan to the end
    r = client.post("/translate", json={"q": html, "source": "en", "target": "zh", "format": "html"})
    assert r.status_code == 400 and "never end a tag" in r.json()["error"]
    html = "<p>Hi.</p>" + "<a " * MAX_UNCLOSED_TAGS  # at the limit: translated as before
    r = client.post("/translate", json={"q": html, "source": "en", "target": "zh", "format": "html"})
    assert r.status_code == 200 and has_chinese(r.json()["translatedText"])


def test_html_keeps_tags(client):
    html = '<p class="x">I love you.</p><ul><li><a href="/s">Where is the station?</a></li></ul>'
    out = client.post("/translate", json={"q": html, "source": "en", "target": "zh", "format": "html"}).json()[
        "translatedText"
    ]
    assert re.sub(r">[^<]*<", "><", out) == re.sub(r">[^<]*<", "><", html)
    assert has_chinese(out)


def test_region_tags_are_accepted(client):
    body = client.post("/translate", json={"q": "I love you.", "source": "en-US", "target": "zh-CN"}).json()
    assert has_chinese(body["translatedText"])


def test_auto_source_keeps_text_already_in_the_target_and_refuses_japanese(client):
    body = client.post("/translate", json={"q": "我爱你。", "source": "auto", "target": "zh"}).json()
    assert body == {"translatedText": "我爱你。", "detectedLanguage": {"language": "zh", "confidence": 100.0}}
    r = client.post("/translate", json={"q": "日本語のテキストです", "source": "auto", "target": "zh"})
    assert r.status_code == 400 and r.json()["error"].startswith("ja is not supported")


def test_a_direction_without_a_model_is_a_400_naming_the_model_to_download(client):
    # The bundled models translate English->Chinese only (in this test's server).
    for source in ("zh", "auto"):
        r = client.post("/translate", json={"q": "我爱你。", "source": source, "target": "en"})
        assert r.status_code == 400, r.text
        assert "desktop-mt models download opus-mt-zh-en" in r.json()["error"]
    r = client.post("/v2/translate", json={"text": ["我爱你。"], "target_lang": "EN-US"})
    assert r.status_code == 400 and "opus-mt-zh-en" in r.json()["message"]


# --- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload, message",
    [
        ({"source": "en", "target": "zh"}, "Invalid request: missing q parameter"),
        ({"q": "Hi", "target": "zh"}, "Invalid request: missing source parameter"),
        ({"q": "Hi", "source": "en"}, "Invalid request: missing target parameter"),
        ({"q": "Hi", "source": "en", "target": "fr"}, "fr is not supported"),
        ({"q": "Hi", "source": "de", "target": "zh"}, "de is not supported"),
        ({"q": "Hi", "source": "en", "target": "zh", "format": "pdf"}, "pdf format is not supported"),
        (
            {"q": "Hi", "source": "en", "target": "zh", "alternatives": "x"},
            "Invalid request: alternatives parameter is not a number",
        ),
        ({"q": [1, 2], "source": "en", "target": "zh"}, "Invalid request: q must be a string or a list of strings"),
        (
            {"q": "x" * 20_001, "source": "en", "target": "zh"},
            "Invalid request: request (20001) exceeds text limit (20000)",
        ),
        ({"q": ["a"] * 601, "source": "en", "target": "zh"}, "Invalid request: request (601) exceeds text limit (600)"),
    ],
)
def test_bad_requests_get_400_and_libretranslate_error(client, payload, message):
    r = client.post("/translate", json=payload)
    assert r.status_code == 400
    assert r.json() == {"error": message}


def test_invalid_json_and_non_object_json(client):
    r = client.post("/translate", content=b'{"q": "Hi",', headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"].startswith("Invalid JSON format")
    r = client.post("/translate", json=["Hi"])
    assert r.status_code == 400 and r.json()["error"].startswith("Invalid JSON format")


def test_oversized_body_gets_413(client):
    r = client.post("/translate", json={"q": "word " * 30_000, "source": "en", "target": "zh"})
    assert r.status_code == 413 and "100000 bytes" in r.json()["error"]


def test_unknown_path_and_method_use_the_error_shape(client):
    assert client.get("/nope").json() == {"error": "Not Found"}
    r = client.get("/translate")
    assert r.status_code == 405 and "error" in r.json()


def test_missing_key_is_400_wrong_key_403_bearer_accepted(keyed):
    with httpx.Client(base_url=keyed.url, timeout=WAIT) as c:
        body = {"q": "Hi", "source": "en", "target": "zh"}
        missing = c.post("/translate", json=body)
        assert missing.status_code == 400 and "API key" in missing.json()["error"]
        wrong = c.post("/translate", json={**body, "apiKey": "nope"})
        assert wrong.status_code == 403 and wrong.json() == {"error": "Invalid API key"}
        ok = c.post("/translate", json=body, headers={"Authorization": f"Bearer {KEY}"})
        assert ok.status_code == 200
        assert c.get("/metrics").status_code == 400  # figures are behind the key too
        assert c.get("/languages").status_code == 200  # as LibreTranslate: no key needed


# --- other endpoints ---------------------------------------------------------------------


def test_frontend_settings_health_and_metrics(client, keyed):
    settings = client.get("/frontend/settings").json()
    assert settings["charLimit"] == 20_000 and settings["keyRequired"] is False
    assert settings["language"]["target"]["code"] == "zh-Hans"
    with httpx.Client(base_url=keyed.url) as c:
        assert c.get("/frontend/settings").json()["keyRequired"] is True
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["variant"] == "int8"
    before = metric(client, "desktop_mt_requests_total", endpoint="/detect", status="200")
    client.post("/detect", json={"q": "Hello"})
    assert metric(client, "desktop_mt_requests_total", endpoint="/detect", status="200") == before + 1
    assert metric(client, "desktop_mt_source_tokens_total") > 0
    assert metric(client, "desktop_mt_tokens_per_second") > 0


def test_cors_only_for_listed_origins(client, keyed):
    def preflight(url, origin):
        return httpx.options(url + "/translate", headers={"Origin": origin, "Access-Control-Request-Method": "POST"})

    assert preflight(keyed.url, ALLOWED_ORIGIN).headers.get("access-control-allow-origin") == ALLOWED_ORIGIN
    assert "access-control-allow-origin" not in preflight(keyed.url, "http://evil.example").headers
    r = client.post("/detect", json={"q": "Hello"}, headers={"Origin": "http://evil.example"})
    assert "access-control-allow-origin" not in r.headers


def test_foreign_host_header_is_refused_on_loopback(client):
    assert client.get("/health", headers={"Host": "attacker.example"}).status_code == 400


def test_logs_carry_sizes_never_text(client, caplog):
    secret = "Zanzibar quokka marmalade"
    with caplog.at_level("INFO", logger="desktop_mt.server"):
        client.post("/translate", json={"q": secret, "source": "en", "target": "zh"})
        client.post("/translate", json={"q": "x" * 20_001, "source": "en", "target": "zh"})
        # A line is written once its answer has been sent: the client may read it first.
        wait_for(
            lambda: any("POST /translate 200 texts=1 chars=25" in r.getMessage() for r in caplog.records),
            "the log line",
        )
    lines = [record.getMessage() for record in caplog.records]
    assert not any("Zanzibar" in line or "xxxx" in line for line in lines)


# --- streaming ---------------------------------------------------------------------------


def read_events(response):
    event = None
    for line in response.iter_lines():
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            yield event, json.loads(line[6:])


def test_stream_deltas_join_to_the_translation(client):
    text = "I love you. Where is the train station?\nI will be late for school."
    with client.stream("POST", "/translate/stream", json={"q": text, "source": "en", "target": "zh"}) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        events = list(read_events(r))
    deltas = [data["text"] for kind, data in events if kind == "delta"]
    kind, done = events[-1]
    assert kind == "done" and len(deltas) > 3
    assert "".join(deltas) == done["translatedText"]
    assert done["segments"] == 3 and done["tokens"] > 0
    whole = client.post("/translate", json={"q": text, "source": "en", "target": "zh"})
    assert done["translatedText"] == whole.json()["translatedText"]


def test_stream_takes_one_text(client):
    r = client.post("/translate/stream", json={"q": ["a", "b"], "source": "en", "target": "zh"})
    assert r.status_code == 400 and "one text" in r.json()["error"]


def test_client_disconnect_cancels_the_generation(client):
    cancelled = metric(client, "desktop_mt_streams_total", outcome="cancelled")
    completed = metric(client, "desktop_mt_streams_total", outcome="completed")
    long_text = " ".join(sentences(300))
    with client.stream("POST", "/translate/stream", json={"q": long_text, "source": "en", "target": "zh"}) as r:
        events = read_events(r)  # kept referenced: a dropped generator closes the connection
        assert next(events)[0] == "delta"
        assert metric(client, "desktop_mt_streams_active") == 1
    # Leaving the block closed the connection: the engine's cancel flag stops the decode.
    wait_for(
        lambda: metric(client, "desktop_mt_streams_total", outcome="cancelled") == cancelled + 1,
        "the stream to be cancelled",
    )
    assert metric(client, "desktop_mt_streams_total", outcome="completed") == completed
    assert metric(client, "desktop_mt_streams_active") == 0


# --- batching and back-pressure ----------------------------------------------------------


def _post_in_thread(url: str, payload: dict, results: list, headers=None) -> threading.Thread:
    def run():
        results.append(httpx.post(url + "/translate", json=payload, headers=headers, timeout=120))

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_big_request_is_split_and_requests_arriving_meanwhile_ride_in_its_next_piece(server, client):
    """64 texts with --max-batch 32 are two engine calls' worth; six one-text requests that
    queue while the first piece runs take their turn in the next call (one text per request
    per pass), so they are answered before the big request, in three calls in all."""
    calls_before = metric(client, "desktop_mt_batch_requests_count")
    results: list = []
    big = _post_in_thread(server.url, {"q": sentences(64), "source": "en", "target": "zh"}, results)
    wait_for(lambda: metric(client, "desktop_mt_batch_running") == 1, "the first piece")
    small = [
        _post_in_thread(server.url, {"q": f"Thank you {i}.", "source": "en", "target": "zh"}, results) for i in range(6)
    ]
    wait_for(
        lambda: metric(client, "desktop_mt_queue_texts") == 32 + 6 or metric(client, "desktop_mt_batch_running") == 0,
        "six queued requests",
    )
    queued_while_busy = metric(client, "desktop_mt_queue_texts") == 32 + 6
    for thread in [big, *small]:
        thread.join(120)
    assert [r.status_code for r in results] == [200] * 7
    if not queued_while_busy:
        pytest.skip("the first piece finished before the others queued (very fast machine)")
    # (The figures of a call are recorded just after its answers go out: wait for them.)
    wait_for(lambda: metric(client, "desktop_mt_batch_requests_count") >= calls_before + 3, "the third call's figures")
    assert metric(client, "desktop_mt_batch_requests_count") == calls_before + 3
    assert isinstance(results[-1].json()["translatedText"], list)  # the big one ends last
    assert metric(client, "desktop_mt_batch_requests_bucket", le="8.0") > metric(
        client, "desktop_mt_batch_requests_bucket", le="4.0"
    )  # the 7-request call


def test_full_queue_answers_503_with_retry_after(keyed):
    auth = {"Authorization": f"Bearer {KEY}"}
    with httpx.Client(base_url=keyed.url, headers=auth, timeout=WAIT) as c:
        results: list = []
        # One long text (--max-batch 1 would split a list into one-text pieces, which would
        # fill the one-text queue themselves).
        busy = _post_in_thread(
            keyed.url, {"q": " ".join(sentences(300)), "source": "en", "target": "zh"}, results, auth
        )
        wait_for(lambda: metric(c, "desktop_mt_batch_running") == 1, "the long batch")
        waiting = _post_in_thread(keyed.url, {"q": "I love you.", "source": "en", "target": "zh"}, results, auth)
        wait_for(lambda: metric(c, "desktop_mt_queue_texts") == 1, "the queue to fill")
        refused = c.post("/translate", json={"q": "Hello.", "source": "en", "target": "zh"})
        still_busy = metric(c, "desktop_mt_batch_running") == 1
        busy.join(120)
        waiting.join(120)
    assert still_busy, "the long batch ended before the check (machine far too slow/fast)"
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["error"].startswith("Server busy")
    assert sorted(r.status_code for r in results) == [200, 200]


def test_stream_slots_are_bounded(keyed):
    auth = {"Authorization": f"Bearer {KEY}"}
    body = {"q": " ".join(sentences(200)), "source": "en", "target": "zh"}
    with httpx.Client(base_url=keyed.url, headers=auth, timeout=WAIT) as c:
        cancelled = metric(c, "desktop_mt_streams_total", outcome="cancelled")
        with c.stream("POST", "/translate/stream", json=body) as first:
            events = read_events(first)  # kept referenced: dropping it closes the connection
            assert next(events)[0] == "delta"
            assert metric(c, "desktop_mt_streams_active") == 1  # the first one is generating
            second = c.post("/translate/stream", json=body)
            outcomes = {
                o: metric(c, "desktop_mt_streams_total", outcome=o) for o in ("completed", "cancelled", "failed")
            }
            assert second.status_code == 503, (second.status_code, outcomes)
            assert second.headers["retry-after"] == "1"
        wait_for(
            lambda: metric(c, "desktop_mt_streams_total", outcome="cancelled") == cancelled + 1,
            "the first stream to stop",
        )
        with c.stream("POST", "/translate/stream", json={**body, "q": "Thank you."}) as r:
            assert [kind for kind, _ in read_events(r)][-1] == "done"


# --- the command -------------------------------------------------------------------------


def test_serve_refuses_a_network_host_without_a_key(capsys):
    from desktop_mt.cli.main import main

    assert main(["serve", "--host", "0.0.0.0", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "refusing to listen on 0.0.0.0 without an API key" in err and "--api-key" in err


def test_translate_command_never_imports_the_server_stack():
    code = (
        "import sys; from desktop_mt.cli.main import build_parser; "
        "build_parser().parse_args(['translate', 'x.txt']); "
        "print(sorted(m for m in ('fastapi', 'uvicorn', 'starlette') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_stopping_the_server_stops_its_streams_and_releases_the_model():
    model = bundled_model_dir()
    # drain_s: the stream is cut at the shutdown's drain time (issue 43), not run to its end
    config = ServerConfig(model=str(model), threads=1, char_limit=20_000, max_body_bytes=100_000, drain_s=0.5)
    app = create_app(config)
    service = app.state.service
    thread = ServerThread(app).start()
    body = {"q": " ".join(sentences(300)), "source": "en", "target": "zh"}
    with httpx.Client(base_url=thread.url, timeout=WAIT) as c, c.stream("POST", "/translate/stream", json=body) as r:
        events = read_events(r)
        assert next(events)[0] == "delta"
        thread.stop()  # while the client still listens
    registry = service.metrics.registry
    assert registry.get_sample_value("desktop_mt_streams_total", {"outcome": "cancelled"}) == 1
    assert service.translator.translator_for("en-zh").sessions is None  # closed after the stream had stopped
