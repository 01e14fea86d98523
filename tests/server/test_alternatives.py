"""``alternatives`` on the real server (uvicorn on a free loopback port, the bundled model):
LibreTranslate's n-best shape (``alternatives: N`` -> up to N other translations, a list of
lists for a list ``q``) and DeepLX's ``alternatives`` field, checked against the engine's own
:meth:`Translator.alternatives`.
"""

from __future__ import annotations

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from desktop_mt import Translator  # noqa: E402
from desktop_mt.engine.router import TwoWayTranslator  # noqa: E402
from desktop_mt.server.app import create_app  # noqa: E402
from desktop_mt.server.config import ServerConfig  # noqa: E402
from desktop_mt.server.languages import traditional_converter  # noqa: E402
from desktop_mt.server.run import ServerThread  # noqa: E402

from .helpers import has_chinese, metric  # noqa: E402

# Sentences whose beam search finds several distinct translations with the bundled model.
SENTENCES = ["Where is the train station?", "I love you.", "He is late for school."]


@pytest.fixture(scope="module")
def engine():
    """The engine the server runs, for the expected n-best lists."""
    translator = Translator()
    yield translator
    translator.close()


@pytest.fixture(scope="module")
def app():
    """One unbatched slot, so a test can hold it and see the busy answers."""
    # The server routes by the face's rules: one model behind a TwoWayTranslator of its direction.
    return create_app(ServerConfig(max_streams=1, alternatives_limit=4), TwoWayTranslator({"en-zh": Translator()}))


@pytest.fixture(scope="module")
def server(app):
    thread = ServerThread(app).start()
    yield thread
    thread.stop()


def translate(client, q, n: int, target: str = "zh", **extra) -> dict:
    response = client.post("/translate", json={"q": q, "source": "en", "target": target, "alternatives": n, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def expected(engine, text: str, n: int) -> list[str]:
    """The engine's n + 1 best distinct texts: the translation, then its alternatives."""
    return [alt.text for alt in engine.alternatives(text, n + 1)]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_n_bounds_the_alternatives_which_differ_from_the_translation(client, engine, n):
    for text in SENTENCES:
        body = translate(client, text, n)
        best = expected(engine, text, n)
        assert len(best) > n, "the bundled model should offer enough distinct hypotheses"
        assert body["translatedText"] == best[0]
        alternatives = body["alternatives"]
        assert alternatives == best[1:] and len(alternatives) == n
        assert body["translatedText"] not in alternatives
        assert len(set(alternatives)) == n and all(has_chinese(a) for a in alternatives)


def test_a_list_gets_a_list_of_lists(client, engine):
    texts = SENTENCES + [""]
    body = translate(client, texts, 2)
    assert len(body["translatedText"]) == len(body["alternatives"]) == 4
    for text, translated, alternatives in zip(texts, body["translatedText"], body["alternatives"]):
        if not text:
            assert translated == "" and alternatives == []  # nothing to translate: no others
            continue
        assert [translated, *alternatives] == expected(engine, text, 2)
        assert translated not in alternatives and len(set(alternatives)) == len(alternatives) == 2


@pytest.mark.skipif(traditional_converter() is None, reason="no OpenCC package")
def test_traditional_alternatives(client):
    body = translate(client, "I love you.", 2, target="zt")
    simplified = translate(client, "I love you.", 2)
    assert "愛" in body["translatedText"]
    assert all("爱" not in text for text in body["alternatives"])
    assert len(body["alternatives"]) == 2 and body["translatedText"] not in body["alternatives"]
    assert body["translatedText"] != simplified["translatedText"]


def test_zero_html_and_the_limit(client):
    plain = client.post("/translate", json={"q": "I love you.", "source": "en", "target": "zh"}).json()
    zero = translate(client, "I love you.", 0)
    assert zero == plain and "alternatives" not in zero
    html = translate(client, "<p>I love you.</p>", 2, format="html")
    assert html["alternatives"] == [] and html["translatedText"].startswith("<p>")
    response = client.post("/translate", json={"q": "Hi", "source": "en", "target": "zh", "alternatives": 5})
    assert response.status_code == 400
    assert response.json() == {"error": "Invalid request: alternatives parameter must be <= 4"}


def test_deeplx_alternatives(client, engine):
    text = "Where is the train station?"
    data = client.post("/deeplx/translate", json={"text": text, "source_lang": "auto", "target_lang": "ZH"}).json()
    best = expected(engine, text, 3)
    assert data["data"] == best[0] and data["alternatives"] == best[1:4]
    assert data["data"] not in data["alternatives"]
    assert len(set(data["alternatives"])) == len(data["alternatives"]) == 3
    chinese = client.post("/deeplx/translate", json={"text": "我爱你", "target_lang": "ZH"}).json()
    assert chinese["data"] == "我爱你" and chinese["alternatives"] == []


def test_busy_slots_answer_503_and_deeplx_falls_back(app, client):
    """With every unbatched slot taken, LibreTranslate's alternatives get 503 + Retry-After and
    DeepLX still answers, from the batched path, without alternatives."""
    slots = app.state.service._stream_slots
    assert slots.acquire(blocking=False)
    try:
        rejected = metric(client, "desktop_mt_rejected_total", reason="nbest")
        response = client.post(
            "/translate", json={"q": "I love you.", "source": "en", "target": "zh", "alternatives": 2}
        )
        assert response.status_code == 503 and response.headers["retry-after"] == "1"
        assert metric(client, "desktop_mt_rejected_total", reason="nbest") == rejected + 1
        data = client.post("/deeplx/translate", json={"text": "I love you.", "target_lang": "ZH"}).json()
        assert data["code"] == 200 and has_chinese(data["data"]) and data["alternatives"] == []
    finally:
        slots.release()
    assert translate(client, "I love you.", 1)["alternatives"]  # the slot is free again
