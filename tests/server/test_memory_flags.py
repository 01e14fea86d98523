"""Issue 46: the local API says which answers came from the translation memory, where its API
allows: the ``X-Desktop-MT-Memory`` header on every API (DeepL's and OpenAI's bodies stay as
their clients parse them) and LibreTranslate's ``fromMemory``; the per-text facts come from
``MemoryTranslator.translate_items``, not from its per-batch counts."""

from __future__ import annotations

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from desktop_mt.server.app import create_app  # noqa: E402
from desktop_mt.server.config import ServerConfig  # noqa: E402
from desktop_mt.server.memory import HEADER  # noqa: E402
from desktop_mt.server.run import ServerThread  # noqa: E402
from desktop_mt.tm.apply import MemoryTranslator  # noqa: E402
from desktop_mt.tm.store import TranslationMemory  # noqa: E402

from .fakes import FakeTranslator, translated  # noqa: E402
from .helpers import WAIT  # noqa: E402

KNOWN = "Where is the train station?"
KNOWN_ZH = "火车站在哪里（记忆）？"
OTHER = "Nobody knows this one."


def memory() -> TranslationMemory:
    tm = TranslationMemory(":memory:")
    tm.add(KNOWN, KNOWN_ZH, "en-zh", origin="approved")
    return tm


@pytest.fixture
def client():
    thread = ServerThread(create_app(ServerConfig(), FakeTranslator(), memory())).start()
    try:
        with httpx.Client(base_url=thread.url, timeout=WAIT) as c:
            yield c
    finally:
        thread.stop()


def test_translate_items_gives_each_texts_share_of_the_memory():
    translator = MemoryTranslator(FakeTranslator(), memory())
    items = translator.translate_items([KNOWN, OTHER, f"{KNOWN} {OTHER}", ""])
    assert [(i.from_memory, i.to_model) for i in items] == [(1, False), (0, True), (1, True), (0, False)]
    assert [i.whole_from_memory for i in items] == [True, False, False, False]
    assert items[0].text == KNOWN_ZH and items[1].text == translated(OTHER)
    assert translator.translate_batch([KNOWN, OTHER]) == [items[0].text, items[1].text]


def test_libretranslate_flags_each_text_and_the_header_counts_them(client):
    r = client.post("/translate", json={"q": [KNOWN, OTHER, f"{KNOWN} {OTHER}"], "source": "en", "target": "zh"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["translatedText"][0] == KNOWN_ZH and body["fromMemory"] == [True, False, False]
    assert r.headers[HEADER] == "texts=3; whole=1; partial=1; sentences=2"
    single = client.post("/translate", json={"q": KNOWN, "source": "en", "target": "zh"})
    assert single.json()["fromMemory"] is True and single.headers[HEADER].startswith("texts=1; whole=1")


def test_deepl_keeps_its_schema_and_gets_the_header(client):
    r = client.post("/v2/translate", json={"text": [KNOWN, OTHER], "target_lang": "ZH"})
    assert r.status_code == 200, r.text
    assert [set(t) for t in r.json()["translations"]] == [{"detected_source_language", "text"}] * 2
    assert [t["text"] for t in r.json()["translations"]] == [KNOWN_ZH, translated(OTHER)]
    assert r.headers[HEADER] == "texts=2; whole=1; partial=0; sentences=1"


def test_a_request_the_memory_did_not_answer_says_so_and_others_have_no_header(client):
    r = client.post("/translate", json={"q": OTHER, "source": "en", "target": "zh"})
    assert "fromMemory" in r.json() and r.json()["fromMemory"] is False
    assert r.headers[HEADER] == "texts=1; whole=0; partial=0; sentences=0"
    assert HEADER not in client.get("/health").headers


def test_without_a_memory_nothing_is_flagged():
    thread = ServerThread(create_app(ServerConfig(), FakeTranslator())).start()
    try:
        with httpx.Client(base_url=thread.url, timeout=WAIT) as c:
            r = c.post("/translate", json={"q": KNOWN, "source": "en", "target": "zh"})
            assert r.json() == {"translatedText": translated(KNOWN)} and HEADER not in r.headers
    finally:
        thread.stop()
