"""Issue 24: work whose client is gone is cancelled wherever it is (queued or decoding,
streamed or not), big requests are split into ``--max-batch`` pieces taken in turn with other
clients' texts, and engine turns are granted first come, first served.

No sleeps and no assertion on thread scheduling: the fake engine and the batcher's engine
are held on events the test sets, waits are bounded polls of the server's own state, and the
assertions are on outcomes (which texts were decoded, which cancel flags were set).
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from desktop_mt.server.batching import Batcher
from desktop_mt.server.gate import FairGate, TurnCancelled

from .fakes import WAIT, FakeTranslator, translated


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


# --- the batcher --------------------------------------------------------------------------


def test_a_cancelled_waiting_request_leaves_the_queue_and_is_never_decoded(engine):
    batcher = Batcher(engine, max_batch=8, window_s=0.0, queue_size=16)
    batcher.submit(["running"])
    engine.entered()
    gone, kept = batcher.submit(["g1", "g2", "g3"]), batcher.submit(["kept"])
    assert batcher.queued_texts == 4
    gone.cancel()
    assert batcher.queued_texts == 1 and gone.future.cancelled()
    engine.release.set()
    assert kept.future.result(WAIT) == ["KEPT"]
    assert engine.calls == [["running"], ["kept"]]
    batcher.close()


def test_cancelling_the_only_request_of_the_running_call_stops_it(engine):
    batcher = Batcher(engine, max_batch=8, window_s=0.0, queue_size=16)
    ticket = batcher.submit(["a", "b"])
    engine.entered()
    ticket.cancel()
    assert engine.cancels[0].wait(WAIT)  # the engine's flag: it stops within a decode step
    after = batcher.submit(["next"])
    engine.entered()
    engine.release.set()
    assert after.future.result(WAIT) == ["NEXT"]
    batcher.close()


def test_a_call_shared_with_a_live_request_goes_on(engine):
    batcher = Batcher(engine, max_batch=8, window_s=0.0, queue_size=16)
    batcher.submit(["first"])
    engine.entered()
    gone, kept = batcher.submit(["gone"]), batcher.submit(["kept"])
    engine.release.set()
    wait_for(lambda: len(engine.calls) == 2, "the shared call")
    gone.cancel()
    assert kept.future.result(WAIT) == ["KEPT"]
    assert not engine.cancels[1].is_set()
    batcher.close()


def test_a_big_request_is_split_and_a_later_one_rides_in_the_next_piece(engine):
    batcher = Batcher(engine, max_batch=4, window_s=0.0, queue_size=64)
    big = batcher.submit([f"b{i}" for i in range(10)])
    engine.entered()  # the first piece: b0..b3
    small = batcher.submit(["s"])
    engine.release.set()
    assert big.future.result(WAIT) == [f"B{i}" for i in range(10)]
    assert small.future.result(WAIT) == ["S"]
    assert engine.calls == [["b0", "b1", "b2", "b3"], ["b4", "s", "b5", "b6"], ["b7", "b8", "b9"]]
    batcher.close()


def test_a_big_request_abandoned_costs_at_most_the_piece_being_decoded(engine):
    batcher = Batcher(engine, max_batch=32, window_s=0.0, queue_size=256)
    big = batcher.submit([f"t{i}" for i in range(128)])
    engine.entered()
    big.cancel()
    assert engine.cancels[0].wait(WAIT)
    assert batcher.queued_texts == 0
    batcher.close()
    assert [len(call) for call in engine.calls] == [32]


# --- turns on the engine ------------------------------------------------------------------


def test_turns_are_granted_in_arrival_order():
    gate, order = FairGate(), []
    release = threading.Event()

    def take(name: str, hold: bool = False) -> threading.Thread:
        def run():
            with gate.turn():
                order.append(name)
                if hold:
                    assert release.wait(WAIT)

        thread = threading.Thread(target=run)
        thread.start()
        return thread

    threads = [take("holder", hold=True)]
    wait_for(lambda: order == ["holder"], "the first turn")
    for name in ("batch", "stream-1", "stream-2"):
        waiting = gate.waiting
        threads.append(take(name))
        wait_for(lambda: gate.waiting == waiting + 1, f"{name} in line")  # noqa: B023
    release.set()
    for thread in threads:
        thread.join(WAIT)
    assert order == ["holder", "batch", "stream-1", "stream-2"]


def test_a_cancelled_waiter_leaves_the_line():
    gate, release, cancel = FairGate(), threading.Event(), threading.Event()
    outcome: list[str] = []

    def holder():
        with gate.turn():
            assert release.wait(WAIT)

    def waiter():
        try:
            with gate.turn(cancel):
                outcome.append("ran")
        except TurnCancelled:
            outcome.append("cancelled")

    threads = [threading.Thread(target=holder)]
    threads[0].start()
    wait_for(lambda: gate.turns == 1, "the holder's turn")
    threads.append(threading.Thread(target=waiter))
    threads[1].start()
    wait_for(lambda: gate.waiting == 1, "the waiter in line")
    cancel.set()
    gate.wake()
    threads[1].join(WAIT)
    assert outcome == ["cancelled"] and gate.waiting == 0
    release.set()
    threads[0].join(WAIT)
    with gate.turn():  # the gate is free again
        pass


# --- through the server: the client leaves ------------------------------------------------

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from desktop_mt.server.run import ServerThread  # noqa: E402

from .fakes import fake_app  # noqa: E402


@pytest.fixture
def held():
    """A server over a fake engine held until ``engine.hold`` is set."""
    engine = FakeTranslator(hold=threading.Event())
    app = fake_app(engine, batch_window_ms=0, max_streams=2)
    thread = ServerThread(app).start()
    yield thread, engine, app.state.service
    engine.hold.set()
    thread.stop()


def send_and_keep(port: int, path: str, body: dict) -> socket.socket:
    """A request sent on a raw socket whose answer is not read (close it to leave)."""
    data = json.dumps(body).encode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
        f"\r\nContent-Length: {len(data)}\r\n\r\n".encode()
        + data
    )
    return sock


def cancelled(service, kind: str) -> float:
    return service.metrics.registry.get_sample_value("desktop_mt_cancelled_total", {"kind": kind}) or 0.0


def post_in_thread(url: str, path: str, body: dict, results: list) -> threading.Thread:
    thread = threading.Thread(target=lambda: results.append(httpx.post(url + path, json=body, timeout=WAIT)))
    thread.start()
    return thread


BODIES = {
    "/translate": lambda text: {"q": text, "source": "en", "target": "zh"},
    "/v2/translate": lambda text: {"text": [text], "target_lang": "ZH"},
    "/deeplx/translate": lambda text: {"text": text, "target_lang": "ZH", "source_lang": "EN"},
    "/v1/chat/completions": lambda text: {"messages": [{"role": "user", "content": text}]},
    "/v1/responses": lambda text: {"input": text},
}


@pytest.mark.parametrize("path", list(BODIES))
def test_a_queued_request_whose_client_left_is_never_decoded(held, path):
    """Queued: in the batcher's queue, or (DeepLX: an n-best search) in line for an engine
    turn while a batch holds the engine."""
    server, engine, service = held
    results: list = []
    first = post_in_thread(server.url, "/translate", BODIES["/translate"]("Occupy the engine."), results)
    assert engine.entered.wait(WAIT)
    gone = send_and_keep(server.port, path, BODIES[path]("Nobody waits for this."))
    kind = "nbest" if path == "/deeplx/translate" else "batched"
    wait_for(lambda: service.batcher.queued_texts == 1 or service.gate.waiting == 1, "the request in the queue")
    gone.close()
    wait_for(lambda: cancelled(service, kind) == 1, "the server to see the client leave")
    wait_for(lambda: service.gate.waiting == 0, "the search to leave the line")
    assert service.batcher.queued_texts == 0
    engine.hold.set()
    first.join(WAIT)
    assert results[0].json() == {"translatedText": translated("Occupy the engine.")}
    assert engine.batches == [["Occupy the engine."]] and engine.searches == []


def test_a_request_whose_client_left_while_decoding_stops_the_engine(held):
    server, engine, service = held
    gone = send_and_keep(
        server.port, "/translate", {"q": [f"Text {i}." for i in range(128)], "source": "en", "target": "zh"}
    )
    assert engine.entered.wait(WAIT)
    gone.close()
    assert engine.cancels[0].wait(WAIT), "the engine call was not cancelled"
    wait_for(lambda: not service.batcher.running, "the call to stop")
    assert [len(batch) for batch in engine.batches] == [32]  # one piece of --max-batch 32
    engine.hold.set()
    with httpx.Client(base_url=server.url, timeout=WAIT) as c:  # the server goes on
        assert c.post("/translate", json={"q": "Hi", "source": "en", "target": "zh"}).status_code == 200


def test_an_alternatives_search_whose_client_left_is_cancelled(held):
    server, engine, service = held
    gone = send_and_keep(
        server.port, "/translate", {"q": "Hi there", "source": "en", "target": "zh", "alternatives": 3}
    )
    assert engine.entered.wait(WAIT)
    gone.close()
    wait_for(lambda: cancelled(service, "nbest") == 1, "the search to be cancelled")


@pytest.mark.parametrize(
    "path, body",
    [
        ("/translate/stream", {"q": "one two three", "source": "en", "target": "zh"}),
        ("/v1/chat/completions", {"stream": True, "messages": [{"role": "user", "content": "one two three"}]}),
    ],
)
def test_a_stream_whose_client_left_while_waiting_for_its_turn_never_decodes(held, path, body):
    server, engine, service = held
    results: list = []
    first = post_in_thread(server.url, "/translate", BODIES["/translate"]("Occupy."), results)
    assert engine.entered.wait(WAIT)  # the batch thread holds the engine's turn
    gone = send_and_keep(server.port, path, body)
    wait_for(lambda: service.gate.waiting == 1, "the stream in line for a turn")
    gone.close()
    wait_for(
        lambda: service.metrics.registry.get_sample_value("desktop_mt_streams_total", {"outcome": "cancelled"}) == 1,
        "the stream to be cancelled",
    )
    assert service.gate.waiting == 0
    engine.hold.set()
    first.join(WAIT)
    assert engine.stream_steps == 0
