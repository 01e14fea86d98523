"""Issue 26 through the real server (uvicorn on a loopback port): both directions. The
English->Chinese model is the bundled one, the Chinese->English one the tests' tiny Marian
(tests/engine/zh_en_model.py); each answer is compared with that direction's own Translator.
Issue 28: the local API's use of a translation memory (off by default)."""

from __future__ import annotations

import json

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from desktop_mt import Translator  # noqa: E402
from desktop_mt.engine.model_format import bundled_model_dir  # noqa: E402
from desktop_mt.server.app import create_app  # noqa: E402
from desktop_mt.server.config import ServerConfig  # noqa: E402
from desktop_mt.server.run import ServerThread  # noqa: E402
from desktop_mt.tm.store import TranslationMemory  # noqa: E402

from .fakes import FakeTranslator, fake_app, translated  # noqa: E402
from .helpers import WAIT, metric  # noqa: E402

CHINESE = "我爱你。"
ENGLISH = "Where is the train station?"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """(en-zh folder, zh-en folder, each direction's own Translator)."""
    from tests.engine.zh_en_model import export_zh_en, make_marian_zh_en

    try:
        en_zh = bundled_model_dir("en-zh")
    except Exception as exc:  # noqa: BLE001 - any reason the bundled model is unusable
        pytest.skip(f"no bundled model: {exc}")
    zh_en = export_zh_en(
        make_marian_zh_en(tmp_path_factory.mktemp("srv_zh_en_hf")), tmp_path_factory.mktemp("srv_zh_en")
    )
    return en_zh, zh_en, Translator(en_zh, variant="int8"), Translator(zh_en, variant="int8")


@pytest.fixture(scope="module")
def server(models):
    en_zh, zh_en, _, _ = models
    # Given in either order: each --model goes to the direction of its own language pair.
    thread = ServerThread(create_app(ServerConfig(models=(str(zh_en), str(en_zh)), threads=1))).start()
    yield thread
    thread.stop()


def libre(client, q, source: str, target: str) -> dict:
    r = client.post("/translate", json={"q": q, "source": source, "target": target})
    assert r.status_code == 200, r.text
    return r.json()


def test_libretranslate_zh_to_en_explicit_and_auto(client, models):
    _, _, en_zh, zh_en = models
    expected = zh_en.translate(CHINESE)
    assert libre(client, CHINESE, "zh", "en")["translatedText"] == expected
    assert libre(client, CHINESE, "zh-Hant", "en")["translatedText"] == expected
    auto = libre(client, [CHINESE, ENGLISH], "auto", "en")
    assert auto["translatedText"] == [expected, ENGLISH]  # English is already the target: kept
    assert [d["language"] for d in auto["detectedLanguage"]] == ["zh", "en"]  # each text's own
    assert libre(client, ENGLISH, "en", "zh")["translatedText"] == en_zh.translate(ENGLISH)
    assert libre(client, ENGLISH, "auto", "zh")["detectedLanguage"]["language"] == "en"


def test_requests_of_both_directions_in_one_batch_window_each_get_their_own(client, models):
    _, _, en_zh, zh_en = models
    texts = ["今天天气很好。", "他明天会回来。"]
    out = libre(client, texts, "zh", "en")["translatedText"]
    assert out == [zh_en.translate(t) for t in texts]
    assert libre(client, [ENGLISH], "en", "zh")["translatedText"] == [en_zh.translate(ENGLISH)]


def test_languages_and_detect_follow_the_loaded_directions(client):
    rows = {row["code"]: row["targets"] for row in client.get("/languages").json()}
    assert rows["en"] == ["zh-Hans", "zh-Hant"]
    assert rows["zh-Hans"] == ["en"] and rows["zh-Hant"] == ["en"]
    assert client.post("/detect", json={"q": CHINESE}).json()[0]["language"] == "zh"
    assert client.post("/detect", json={"q": ENGLISH}).json()[0]["language"] == "en"
    health = client.get("/health").json()
    assert set(health["models"]) == {"en-zh", "zh-en"} and health["missing"] == {}
    assert health["translationMemory"] is False


def test_stream_zh_to_en_is_the_batched_translation(client, models):
    _, _, _, zh_en = models
    with client.stream("POST", "/translate/stream", json={"q": CHINESE, "source": "zh", "target": "en"}) as r:
        body = r.read().decode()
    deltas = [line for line in body.splitlines() if line.startswith("event: done")]
    assert deltas and f'"translatedText": "{zh_en.translate(CHINESE)}"' in body


@pytest.mark.parametrize("target_lang", ["EN", "EN-US", "EN-GB"])
def test_deepl_and_deeplx_into_english(client, models, target_lang):
    _, _, _, zh_en = models
    for source in ({"source_lang": "ZH"}, {}):
        body = {"text": [CHINESE, ENGLISH], "target_lang": target_lang, **source}
        rows = client.post("/v2/translate", json=body).json()["translations"]
        assert [r["text"] for r in rows] == [zh_en.translate(CHINESE), ENGLISH if not source else rows[1]["text"]]
        assert rows[0]["detected_source_language"] == "ZH"
    data = client.post("/deeplx/translate", json={"text": CHINESE, "source_lang": "auto", "target_lang": target_lang})
    assert data.json()["data"] == zh_en.translate(CHINESE)
    targets = [row["language"] for row in client.get("/v2/languages", params={"type": "target"}).json()]
    assert "EN-US" in targets and "EN-GB" in targets and "ZH" in targets


ENGLISH_PROMPTS = {
    "pot": lambda text: f'Translate into English:\n"""\n{text}\n"""',
    "easydict": lambda text: f'Translate the following Simplified-Chinese text into English text: """{text}"""',
    "bob": lambda text: f"translate from Simplified Chinese to English:\n\n{text}",
    "plain": lambda text: text,  # no target named: into the other language
}


@pytest.mark.parametrize("app", sorted(ENGLISH_PROMPTS))
def test_openai_endpoints_translate_into_english_when_the_prompt_asks(client, models, app):
    _, _, _, zh_en = models
    message = ENGLISH_PROMPTS[app](CHINESE)
    chat = client.post("/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": message}]})
    assert chat.json()["choices"][0]["message"]["content"] == zh_en.translate(CHINESE)
    response = client.post("/v1/responses", json={"model": "m", "input": message})
    assert response.json()["output"][0]["content"][0]["text"] == zh_en.translate(CHINESE)


def test_an_english_prompt_keeps_english_text(client):
    message = ENGLISH_PROMPTS["pot"](ENGLISH)
    chat = client.post("/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": message}]})
    assert chat.json()["choices"][0]["message"]["content"] == ENGLISH


def test_a_server_with_only_zh_en_refuses_english_to_chinese_naming_the_model(models):
    _, zh_en, _, _ = models
    thread = ServerThread(create_app(ServerConfig(models=(str(zh_en),), threads=1))).start()
    try:
        with httpx.Client(base_url=thread.url, timeout=WAIT) as c:
            r = c.post("/translate", json={"q": ENGLISH, "source": "en", "target": "zh"})
            assert r.status_code == 400 and "desktop-mt models download opus-mt-en-zh" in r.json()["error"]
            r = c.post("/deeplx/translate", json={"text": ENGLISH, "target_lang": "ZH"})
            assert r.status_code == 400 and r.json()["code"] == 400 and "opus-mt-en-zh" in r.json()["message"]
            message = {"role": "user", "content": f'Translate into Chinese:\n"""\n{ENGLISH}\n"""'}
            chat = c.post("/v1/chat/completions", json={"model": "m", "messages": [message]})
            assert chat.status_code == 400 and "opus-mt-en-zh" in chat.json()["error"]["message"]
            assert [row["code"] for row in c.get("/languages").json()] == ["zh-Hans", "zh-Hant", "en"]
    finally:
        thread.stop()


# --- the translation memory (issue 28) -------------------------------------------------------


def test_memory_matches_are_never_sent_to_the_model_and_are_counted():
    memory = TranslationMemory(":memory:")
    memory.add("I love you.", "我爱你（记忆）。", "en-zh")
    fake = FakeTranslator()
    thread = ServerThread(fake_app(fake, memory=memory)).start()
    try:
        with httpx.Client(base_url=thread.url, timeout=WAIT) as c:
            out = libre(c, ["I love you.", "Thank you."], "en", "zh")["translatedText"]
            assert out == ["我爱你（记忆）。", translated("Thank you.")]
            assert all("I love you." not in batch for batch in fake.batches)
            assert metric(c, "desktop_mt_memory_sentences_total") == 1
            assert metric(c, "desktop_mt_memory_model_texts_total") == 1
            assert c.get("/health").json()["translationMemory"] is True
    finally:
        thread.stop()


def test_memory_is_off_by_default_and_tm_opens_a_memory_file(tmp_path, models):
    en_zh, _, translator, _ = models
    path = tmp_path / "tm.sqlite3"
    with TranslationMemory(path) as memory:
        memory.add(ENGLISH, "火车站在哪儿（记忆）？", "en-zh")
    for tm, expected in ((None, translator.translate(ENGLISH)), (str(path), "火车站在哪儿（记忆）？")):
        thread = ServerThread(create_app(ServerConfig(models=(str(en_zh),), threads=1, tm=tm))).start()
        try:
            with httpx.Client(base_url=thread.url, timeout=WAIT) as c:
                assert libre(c, ENGLISH, "en", "zh")["translatedText"] == expected
        finally:
            thread.stop()


def test_memory_matches_are_written_in_the_target_script():
    pytest.importorskip("opencc")
    memory = TranslationMemory(":memory:")
    memory.add("I love you.", "我爱你。", "en-zh")
    thread = ServerThread(fake_app(FakeTranslator(), memory=memory)).start()
    try:
        with httpx.Client(base_url=thread.url, timeout=WAIT) as c:
            assert libre(c, "I love you.", "en", "zh-Hant")["translatedText"] == "我愛你。"
            assert libre(c, "I love you.", "en", "zh-Hans")["translatedText"] == "我爱你。"
    finally:
        thread.stop()


def test_openai_stream_into_english(client, models):
    _, _, _, zh_en = models
    message = ENGLISH_PROMPTS["bob"](CHINESE)
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": message}]}
    with client.stream("POST", "/v1/chat/completions", json=body) as r:
        lines = [line[6:] for line in r.iter_lines() if line.startswith("data: ") and line != "data: [DONE]"]
    deltas = [json.loads(line)["choices"] for line in lines]
    text = "".join(c[0]["delta"].get("content") or "" for c in deltas if c)
    assert text == zh_en.translate(CHINESE)
