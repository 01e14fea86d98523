"""Issue 24: streams and batched work share the engine by turns (:mod:`desktop_mt.server.gate`):
a stream keeps its turn while nobody else waits and gives it up after its share when someone
does. Outcomes only: which work ran in which turn, with a fake engine the test holds."""

from __future__ import annotations

import asyncio
import threading

import pytest

pytest.importorskip("fastapi")

from desktop_mt.server.config import ServerConfig
from desktop_mt.server.languages import Target
from desktop_mt.server.service import TranslationService

from .fakes import WAIT, FakeTranslator
from .test_cancel import wait_for


@pytest.fixture
def service():
    service = TranslationService(FakeTranslator(hold=threading.Event()), ServerConfig())
    yield service
    service.translator.hold.set()
    service.close()


async def _run_stream(service, text: str) -> list[str]:
    stream = service.open_stream(text, Target("zh-Hans"))
    return [payload for kind, payload in [event async for event in stream.events()] if kind == "delta"]


def test_a_stream_alone_keeps_its_turn(service):
    service.translator.hold.set()
    turns = service.gate.turns
    deltas = asyncio.run(_run_stream(service, "one two three four five"))
    assert "".join(deltas) == "one two three four five"
    assert service.gate.turns == turns + 1  # the whole generation in one turn


def test_a_stream_gives_up_its_turn_to_waiting_work_after_its_share(service, monkeypatch):
    monkeypatch.setattr(service, "stream_slice_s", lambda: 0.0)  # the share: one step
    engine, seen = service.translator, []

    def other_work():
        with service.gate.turn():
            seen.append(engine.stream_steps)  # how far the stream had got

    async def scenario():
        stream = service.open_stream("one two three", Target("zh-Hans"))
        await asyncio.to_thread(wait_for, engine.entered.is_set, "the first step")
        waiter = threading.Thread(target=other_work)
        waiter.start()
        await asyncio.to_thread(wait_for, lambda: service.gate.waiting == 1, "work in line")
        engine.hold.set()  # the first step ends; someone waits: the stream hands over
        events = [event async for event in stream.events()]
        await asyncio.to_thread(waiter.join, WAIT)
        return events

    events = asyncio.run(scenario())
    assert seen == [1]  # the other work ran right after the stream's first step
    assert [kind for kind, _ in events][-1] == "done"


@pytest.mark.parametrize(
    "body",
    [
        {"q": "one two", "source": "en", "target": "zh"},  # a stream
        {"q": "one two", "source": "en", "target": "zh", "alternatives": 2},  # an n-best search
    ],
)
def test_the_next_request_after_an_unbatched_answer_finds_its_slot_free(body):
    """A slot is freed before the answer goes out: a client that asks again at once (the
    load test's stream clients did) is not refused with 503."""
    httpx = pytest.importorskip("httpx")
    from desktop_mt.server.run import ServerThread

    from .fakes import fake_app

    path = "/translate" if "alternatives" in body else "/translate/stream"
    thread = ServerThread(fake_app(max_streams=1)).start()
    try:
        with httpx.Client(base_url=thread.url, timeout=WAIT) as c:
            assert [c.post(path, json=body).status_code for _ in range(30)] == [200] * 30
    finally:
        thread.stop()
