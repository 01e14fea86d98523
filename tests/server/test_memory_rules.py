"""Issue 46: the app's Local API takes the memory as the window's file jobs do (approved beats
edited: an unapproved edit is never an answer unreviewed), and ``/metrics`` counts the memory's
answers that lack a glossary term of their source."""

from __future__ import annotations

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from desktop_mt.engine.glossary import Glossary, Term  # noqa: E402
from desktop_mt.engine.options import GenerationOptions  # noqa: E402
from desktop_mt.server.app import create_app  # noqa: E402
from desktop_mt.server.config import ServerConfig  # noqa: E402
from desktop_mt.server.run import ServerThread  # noqa: E402
from desktop_mt.tm.store import TranslationMemory  # noqa: E402

from .fakes import FakeTranslator, translated  # noqa: E402
from .helpers import WAIT, metric  # noqa: E402

EDITED = "I love you."
APPROVED = "Where is the train station?"


def memory() -> TranslationMemory:
    tm = TranslationMemory(":memory:")
    tm.add(EDITED, "我爱你（未审）。", "en-zh")  # an unapproved edit
    tm.add(APPROVED, "车站在哪儿（记忆）？", "en-zh", origin="approved")  # lacks the term 火车站
    return tm


def serve(confirmed_only: bool) -> tuple[ServerThread, FakeTranslator]:
    fake = FakeTranslator()
    fake.options = GenerationOptions(glossary=Glossary((Term("train station", "火车站"),)))
    app = create_app(ServerConfig(), fake, memory(), confirmed_only=confirmed_only)
    return ServerThread(app).start(), fake


def ask(client: httpx.Client) -> list[str]:
    r = client.post("/translate", json={"q": [EDITED, APPROVED], "source": "en", "target": "zh"})
    assert r.status_code == 200, r.text
    out: list[str] = r.json()["translatedText"]
    return out


def test_confirmed_only_takes_approved_entries_and_sends_unapproved_edits_to_the_model():
    thread, fake = serve(confirmed_only=True)
    try:
        with httpx.Client(base_url=thread.url, timeout=WAIT) as c:
            assert ask(c) == [translated(EDITED), "车站在哪儿（记忆）？"]
            assert any(EDITED in batch for batch in fake.batches)
            assert metric(c, "desktop_mt_memory_sentences_total") == 1
            assert metric(c, "desktop_mt_memory_terms_missing_total") == 1  # 火车站 is not in it
    finally:
        thread.stop()


def test_serve_tm_keeps_taking_every_exact_match():
    thread, fake = serve(confirmed_only=False)
    try:
        with httpx.Client(base_url=thread.url, timeout=WAIT) as c:
            assert ask(c) == ["我爱你（未审）。", "车站在哪儿（记忆）？"]
            assert not any(EDITED in batch for batch in fake.batches)
            assert metric(c, "desktop_mt_memory_sentences_total") == 2
            assert metric(c, "desktop_mt_memory_terms_missing_total") == 1
    finally:
        thread.stop()
