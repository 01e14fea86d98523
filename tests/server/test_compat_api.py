"""The DeepLX, DeepL v2 and OpenAI-compatible endpoints (issue 18) on the real server (bundled
model), through the official ``openai`` client and ``httpx`` with the request bodies Pot,
Easydict and Bob send (see the docstrings of desktop_mt.server.deepl_api / .prompts).

Expected translations are not hard-coded: each is compared with what ``POST /translate``
(LibreTranslate) answers for the same text on the same server.
"""

from __future__ import annotations

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
openai = pytest.importorskip("openai")

from desktop_mt.server.languages import traditional_converter  # noqa: E402

from .helpers import KEY, has_chinese, metric, sentences, start_server, wait_for  # noqa: E402

WAIT = 60.0  # the openai client timeout
POT_SYSTEM = (
    "You are a professional translation engine, please translate the text into a "
    "colloquial, professional, elegant and fluent content, without the style of "
    "machine translation. You must only translate the text content, never interpret it."
)
BOB_SYSTEM = "You are a translation engine that can only translate text and cannot interpret it."


def pot_messages(text: str, to: str = "Simplified Chinese") -> list[dict]:
    return [
        {"role": "system", "content": POT_SYSTEM},
        {"role": "user", "content": f'Translate into {to}:\n"""\n{text}\n"""'},
    ]


def easydict_messages(text: str) -> list[dict]:
    """System prompt, a few-shot pair and the query, as Easydict's StreamService sends them."""
    return [
        {
            "role": "system",
            "content": "You are a translation expert proficient in various "
            "languages, focusing solely on translating text.",
        },
        {
            "role": "user",
            "content": "Translate the following English text into "
            'Simplified-Chinese text: """The stock market has now '
            'reached a plateau."""',
        },
        {"role": "assistant", "content": "股市现在已经进入了平稳期。"},
        {"role": "user", "content": f'Translate the following English text into Simplified-Chinese text: """{text}"""'},
    ]


def bob_messages(text: str, to: str) -> list[dict]:
    return [
        {"role": "system", "content": BOB_SYSTEM},
        {"role": "user", "content": f"translate from English to {to}:\n\n{text}"},
    ]


@pytest.fixture(scope="module")
def server():
    thread = start_server(batch_window_ms=5, char_limit=20_000, max_body_bytes=100_000)
    yield thread
    thread.stop()


@pytest.fixture(scope="module")
def keyed():
    thread = start_server(api_key=KEY)
    yield thread
    thread.stop()


@pytest.fixture
def ai(server):
    # Closed here: an unclosed client keeps its pooled socket until the garbage collector finds
    # the client's reference cycle, in whatever later test, where the socket may be finalized
    # first (ResourceWarning, an error) (issue 25: a CI run failed so in the fuzz test).
    with openai.OpenAI(base_url=f"{server.url}/v1", api_key="anything", timeout=WAIT, max_retries=0) as client:
        yield client


def libre(client, text: str, target: str = "zh") -> str:
    """The LibreTranslate endpoint's translation: what every other shape must match."""
    response = client.post("/translate", json={"q": text, "source": "en", "target": target})
    assert response.status_code == 200, response.text
    return response.json()["translatedText"]


# --- OpenAI-compatible ---------------------------------------------------------------------


def test_openai_client_plain_completion_with_pots_prompt(ai, client):
    text = "Where is the train station?"
    reply = ai.chat.completions.create(model="gpt-3.5-turbo", messages=pot_messages(text), temperature=0.1)
    assert reply.object == "chat.completion" and reply.model == "gpt-3.5-turbo"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.choices[0].message.role == "assistant"
    assert reply.choices[0].message.content == libre(client, text)


def test_openai_client_streams_token_deltas_with_easydicts_messages(ai, client):
    text = "Thank you. See you tomorrow."
    stream = ai.chat.completions.create(
        model="gpt-4o-mini", messages=easydict_messages(text), stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    deltas = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(deltas) >= 2  # streamed, not one block
    assert "".join(deltas) == libre(client, text)  # the few-shot example was not translated
    assert chunks[0].choices[0].delta.role == "assistant"
    finish = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finish[-1] == "stop" and set(finish[:-1]) == {None}
    assert all(c.object == "chat.completion.chunk" and c.id == chunks[0].id for c in chunks)
    usage = chunks[-1].usage
    assert not chunks[-1].choices and usage.completion_tokens > 0 and usage.prompt_tokens > 0


def test_raw_stream_ends_with_done(client):
    body = {"model": "m", "stream": True, "messages": bob_messages("I love you.", "Chinese")}
    with client.stream("POST", "/v1/chat/completions", json=body) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in response.iter_lines() if line]
    assert lines[-1] == "data: [DONE]" and all(line.startswith("data: ") for line in lines)


def test_leaving_an_openai_stream_cancels_the_generation(ai, client):
    cancelled = metric(client, "desktop_mt_streams_total", outcome="cancelled")
    long_text = " ".join(sentences(300))
    stream = ai.chat.completions.create(model="m", messages=pot_messages(long_text), stream=True)
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            break  # the first text arrived: the generation is running
    assert metric(client, "desktop_mt_streams_active") == 1
    stream.close()  # what an app does when the user starts another translation
    wait_for(
        lambda: metric(client, "desktop_mt_streams_total", outcome="cancelled") == cancelled + 1,
        "the stream to be cancelled",
    )
    assert metric(client, "desktop_mt_streams_active") == 0


@pytest.mark.skipif(traditional_converter() is None, reason="no OpenCC package")
def test_openai_traditional_target_from_bobs_prompt_and_from_the_model_name(ai, client):
    text = "I will be late for school."
    expected = libre(client, text, "zh-Hant")
    assert expected != libre(client, text)  # the conversion changes something
    reply = ai.chat.completions.create(model="x", messages=bob_messages(text, "Traditional Chinese"))
    assert reply.choices[0].message.content == expected
    plain = [{"role": "user", "content": text}]
    reply = ai.chat.completions.create(model="desktop-mt-hant", messages=plain)
    assert reply.choices[0].message.content == expected
    # Streamed, the engine converts clause by clause: the deltas join to the batched result.
    stream = ai.chat.completions.create(model="desktop-mt-hant", messages=plain, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == expected
    ids = [model.id for model in ai.models.list()]
    assert ids == ["desktop-mt", "desktop-mt-hant"]


def test_openai_unrecognised_prompt_translates_the_whole_message(ai, client):
    text = "I love you."
    reply = ai.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
    assert reply.choices[0].message.content == libre(client, text)


def test_openai_chinese_input_is_returned_unchanged(ai):
    text = "火车站在哪里？"
    reply = ai.chat.completions.create(model="m", messages=pot_messages(text))
    assert reply.choices[0].message.content == text
    stream = ai.chat.completions.create(model="m", messages=pot_messages(text), stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == text


def test_openai_errors_in_openais_shape(ai, client):
    with pytest.raises(openai.BadRequestError) as info:
        ai.chat.completions.create(model="m", messages=pot_messages("I love you.", "Japanese"))
    assert info.value.body["param"] == "messages" and "Japanese" in info.value.body["message"]
    with pytest.raises(openai.BadRequestError):
        ai.chat.completions.create(model="m", messages=pot_messages("こんにちは"))
    with pytest.raises(openai.BadRequestError):
        ai.chat.completions.create(model="m", messages=[{"role": "system", "content": "hi"}])
    response = client.post("/v1/chat/completions", content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and "Invalid JSON" in response.json()["error"]["message"]


def test_openai_key(keyed):
    with openai.OpenAI(base_url=f"{keyed.url}/v1", api_key=KEY, max_retries=0, timeout=WAIT) as good:
        reply = good.chat.completions.create(model="m", messages=pot_messages("I love you."))
    assert has_chinese(reply.choices[0].message.content)
    with (
        openai.OpenAI(base_url=f"{keyed.url}/v1", api_key="wrong", max_retries=0, timeout=WAIT) as bad,
        pytest.raises(openai.AuthenticationError) as info,
    ):
        bad.models.list()
    assert info.value.body["code"] == "invalid_api_key"


# --- OpenAI Responses API (current bob-plugin-openai-translator) ---------------------------


def bob_responses_body(text: str, to: str = "Simplified Chinese") -> dict:
    """What the plugin sends to {API URL}/v1/responses (generatePrompts + formatting note)."""
    return {
        "model": "gpt-4o-mini",
        "temperature": 0.2,
        "instructions": BOB_SYSTEM + "\n\nIMPORTANT: Output the translation directly without any quotation marks.",
        "input": f"translate from English to {to}:\n\n{text}",
    }


def test_responses_api_plain_with_bobs_body(ai, client):
    text = "Where is the train station?"
    body = bob_responses_body(text)
    reply = ai.responses.create(**body)
    assert reply.status == "completed" and reply.output_text == libre(client, text)
    raw = client.post("/v1/responses", json=body).json()  # what Bob reads: output[].content[]
    assert raw["output"][0]["content"][0] == {"type": "output_text", "text": libre(client, text), "annotations": []}


def test_responses_api_streams_output_text_deltas(ai, client):
    text = "Thank you. See you tomorrow."
    events = list(ai.responses.create(**bob_responses_body(text), stream=True))
    kinds = [event.type for event in events]
    assert kinds[:3] == ["response.created", "response.output_item.added", "response.content_part.added"]
    assert kinds[-1] == "response.completed"
    deltas = [event.delta for event in events if event.type == "response.output_text.delta"]
    assert len(deltas) >= 2 and "".join(deltas) == libre(client, text)
    assert events[-1].response.output_text == "".join(deltas)
    assert [event.sequence_number for event in events] == list(range(len(events)))


def test_responses_api_errors_and_input_list(ai):
    with pytest.raises(openai.BadRequestError) as info:
        ai.responses.create(**bob_responses_body("Hello", "Japanese"))
    assert info.value.body["param"] == "input"
    reply = ai.responses.create(
        model="m", input=[{"role": "user", "content": [{"type": "input_text", "text": "我爱你"}]}]
    )
    assert reply.output_text == "我爱你"  # Chinese comes back unchanged


# --- DeepLX ----------------------------------------------------------------------------------


def test_deeplx_pot_body_on_both_paths(client):
    text = "Where is the train station?"
    body = {"source_lang": "auto", "target_lang": "ZH-HANS", "text": text}  # Pot's deeplx
    for path in ("/deeplx/translate", "/translate"):
        response = client.post(path, json=body)
        assert response.status_code == 200, response.text
        data = response.json()
        assert data["code"] == 200 and data["data"] == libre(client, text)
        assert data["source_lang"] == "EN" and data["target_lang"] == "ZH-HANS"
        assert isinstance(data["id"], int) and 0 < len(data["alternatives"]) <= 3
        assert data["data"] not in data["alternatives"]  # other translations (test_alternatives)


@pytest.mark.skipif(traditional_converter() is None, reason="no OpenCC package")
def test_deeplx_bob_body_and_traditional(client):
    text = "I will be late for school."
    data = client.post("/deeplx/translate", json={"text": text, "source_lang": "EN", "target_lang": "ZH"}).json()
    assert data["data"] == libre(client, text)
    data = client.post("/deeplx/translate", json={"text": text, "source_lang": "auto", "target_lang": "ZH-HANT"}).json()
    assert data["data"] == libre(client, text, "zh-Hant")


def test_deeplx_chinese_unchanged_and_errors(client):
    data = client.post("/deeplx/translate", json={"text": "我爱你", "source_lang": "auto", "target_lang": "ZH"}).json()
    assert data["data"] == "我爱你" and data["source_lang"] == "ZH"
    for body, needle in [
        ({"text": "Hi", "source_lang": "auto", "target_lang": "DE"}, "target_lang"),
        ({"text": "Hi", "source_lang": "FR", "target_lang": "ZH"}, "source_lang"),
        ({"text": "Привет", "target_lang": "ZH"}, "Russian"),
    ]:
        response = client.post("/deeplx/translate", json=body)
        assert response.status_code == 400
        assert response.json()["code"] == 400 and needle in response.json()["message"]


def test_deeplx_token(keyed):
    body = {"text": "I love you.", "source_lang": "auto", "target_lang": "ZH"}
    with httpx.Client(base_url=keyed.url, timeout=WAIT) as c:
        assert c.post("/deeplx/translate", json=body).status_code == 401
        ok = c.post("/deeplx/translate", json=body, headers={"Authorization": f"Bearer {KEY}"})
        assert ok.status_code == 200 and has_chinese(ok.json()["data"])
        assert c.post(f"/deeplx/translate?token={KEY}", json=body).status_code == 200


# --- DeepL v2 --------------------------------------------------------------------------------


def test_deepl_easydict_form_body_with_auth_header(keyed):
    headers = {"Authorization": f"DeepL-Auth-Key {KEY}"}
    form = {"text": "I love you.", "source_lang": "auto", "target_lang": "ZH-HANS"}  # Easydict
    with httpx.Client(base_url=keyed.url, timeout=WAIT) as c:
        response = c.post("/v2/translate", data=form, headers=headers)
        assert response.status_code == 200, response.text
        expected = c.post(
            "/translate", json={"q": "I love you.", "source": "en", "target": "zh", "api_key": KEY}
        ).json()["translatedText"]
        assert response.json() == {"translations": [{"detected_source_language": "EN", "text": expected}]}
        wrong = c.post("/v2/translate", data=form, headers={"Authorization": "DeepL-Auth-Key x"})
        assert wrong.status_code == 403 and "auth_key" in wrong.json()["message"]
        assert c.post("/v2/translate", data=form).status_code == 403
        assert c.post("/v2/translate", data={**form, "auth_key": KEY}).status_code == 200
        assert c.get("/v2/usage", headers=headers).json()["character_limit"] > 0


def test_deepl_json_list_keeps_order_and_passes_chinese(client):
    texts = ["I love you.", "你好", "Where is the train station?"]
    response = client.post("/v2/translate", json={"text": texts, "target_lang": "ZH"})
    rows = response.json()["translations"]
    assert [r["detected_source_language"] for r in rows] == ["EN", "ZH", "EN"]
    assert [r["text"] for r in rows] == [libre(client, texts[0]), "你好", libre(client, texts[2])]


def test_deepl_repeated_form_text_and_html(client):
    body = "text=I+love+you.&text=Thank+you.&target_lang=ZH"
    rows = client.post(
        "/v2/translate", content=body, headers={"Content-Type": "application/x-www-form-urlencoded"}
    ).json()["translations"]
    assert [r["text"] for r in rows] == [libre(client, "I love you."), libre(client, "Thank you.")]
    html = client.post(
        "/v2/translate", json={"text": ['<a href="x">Thank you.</a>'], "target_lang": "ZH", "tag_handling": "html"}
    )
    assert html.json()["translations"][0]["text"] == (f'<a href="x">{libre(client, "Thank you.")}</a>')


@pytest.mark.parametrize(
    "body, status, needle",
    [
        ({"text": ["Hi"], "target_lang": "EN-US"}, 400, "target_lang"),
        ({"text": ["Hi"]}, 400, "target_lang"),
        ({"target_lang": "ZH"}, 400, "'text'"),
        ({"text": ["Hi"], "target_lang": "ZH", "source_lang": "DE"}, 400, "source_lang"),
        ({"text": ["안녕하세요"], "target_lang": "ZH"}, 400, "Korean"),
        ({"text": ["Hi"], "target_lang": "ZH", "tag_handling": "xml"}, 400, "tag_handling"),
        ({"text": ["x" * 20_001], "target_lang": "ZH"}, 413, "Request size"),
    ],
)
def test_deepl_errors_in_deepls_shape(client, body, status, needle):
    response = client.post("/v2/translate", json=body)
    assert response.status_code == status
    assert set(response.json()) == {"message"} and needle in response.json()["message"]


def test_new_endpoints_log_sizes_never_text(client, caplog):
    secret = "Zanzibar quokka marmalade"
    with caplog.at_level("INFO", logger="desktop_mt.server"):
        client.post("/v2/translate", json={"text": [secret], "target_lang": "ZH"})
        client.post("/deeplx/translate", json={"text": secret, "target_lang": "ZH"})
        client.post("/v1/chat/completions", json={"messages": pot_messages(secret)})
        client.post("/v1/responses", json=bob_responses_body(secret))
        # The line is written once the answer has been sent: the client may read it first.
        wait_for(lambda: any("POST /v1/responses" in r.getMessage() for r in caplog.records), "the last log line")
    lines = [record.getMessage() for record in caplog.records]
    for path in ("/v2/translate", "/deeplx/translate", "/v1/chat/completions", "/v1/responses"):
        assert any(f"POST {path} 200 texts=1 chars=25" in line for line in lines), lines
    assert not any("Zanzibar" in line for line in lines)
