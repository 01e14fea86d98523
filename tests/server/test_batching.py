"""The batcher on its own: requests queued while the engine is busy share one engine call;
the queue is bounded; closing cancels (cancelling one request: test_cancel.py). The engine
is a function that blocks on an event, so every step is deterministic (bounded waits, no
sleeps)."""

from __future__ import annotations

import threading

import pytest

from desktop_mt.server.batching import Batcher, BatcherClosed, QueueFull

from .fakes import HeldEngine

WAIT = 60.0  # event-based waits: a long bound costs nothing and holds on a busy machine


def test_requests_waiting_during_a_call_share_the_next_call(engine):
    batcher = Batcher(engine, max_batch=8, window_s=0.0, queue_size=16)
    first = batcher.submit(["a"])
    engine.entered()
    later = [batcher.submit([f"b{i}", f"c{i}"]) for i in range(3)]
    assert batcher.queued_texts == 6
    engine.release.set()
    assert first.future.result(WAIT) == ["A"]
    assert [f.future.result(WAIT) for f in later] == [["B0", "C0"], ["B1", "C1"], ["B2", "C2"]]
    # Taken in turn, one text per request per pass (the fairness policy), then handed back
    # to each request in its own order.
    assert engine.calls == [["a"], ["b0", "b1", "b2", "c0", "c1", "c2"]]
    batcher.close()


def test_batch_is_bounded_by_max_batch(engine):
    batcher = Batcher(engine, max_batch=3, window_s=0.0, queue_size=16)
    batcher.submit(["first"])
    engine.entered()
    futures = [batcher.submit([f"t{i}"]) for i in range(5)]
    engine.release.set()
    for f in futures:
        f.future.result(WAIT)
    assert [len(call) for call in engine.calls] == [1, 3, 2]
    batcher.close()


def test_full_queue_refuses_at_once_and_recovers(engine):
    batcher = Batcher(engine, max_batch=8, window_s=0.0, queue_size=2)
    batcher.submit(["running"])
    engine.entered()
    waiting = batcher.submit(["w1", "w2"])
    with pytest.raises(QueueFull):
        batcher.submit(["one too many"])
    engine.release.set()
    assert waiting.future.result(WAIT) == ["W1", "W2"]
    assert batcher.submit(["again"]).future.result(WAIT) == ["AGAIN"]
    batcher.close()


def test_an_empty_queue_takes_a_request_larger_than_the_queue(engine):
    engine.release.set()
    batcher = Batcher(engine, max_batch=2, window_s=0.0, queue_size=2)
    assert batcher.submit(["a", "b", "c", "d"]).future.result(WAIT) == ["A", "B", "C", "D"]
    batcher.close()


def test_engine_error_reaches_every_request_of_the_batch():
    engine = HeldEngine(fail=True)
    batcher = Batcher(engine, max_batch=8, window_s=0.0, queue_size=8)
    first = batcher.submit(["x"])
    engine.entered()
    second, third = batcher.submit(["y"]), batcher.submit(["z"])
    engine.release.set()
    for ticket in (first, second, third):
        with pytest.raises(RuntimeError, match="engine failed"):
            ticket.future.result(WAIT)
    batcher.close()


def test_close_cancels_the_running_call_and_fails_waiting_requests(engine):
    batcher = Batcher(engine, max_batch=1, window_s=0.0, queue_size=8)
    batcher.submit(["running"])
    engine.entered()
    waiting = batcher.submit(["waiting"])
    closer = threading.Thread(target=batcher.close)
    closer.start()
    with pytest.raises(BatcherClosed):
        waiting.future.result(WAIT)
    assert engine.cancels[0].wait(WAIT)  # the engine's cancel flag: the call stops mid-decode
    engine.release.set()
    closer.join(WAIT)
    with pytest.raises(BatcherClosed):
        batcher.submit(["late"])


def test_window_collects_requests_that_arrive_just_after_the_first():
    """With a window, a request arriving while the worker waits joins the same call."""
    calls = []

    def engine(texts, cancel, key=None):
        calls.append(list(texts))
        return texts

    batcher = Batcher(engine, max_batch=2, window_s=WAIT, queue_size=8)
    # max_batch=2 ends the (long) window as soon as the second text arrives.
    a = batcher.submit(["a"])
    b = batcher.submit(["b"])
    assert a.future.result(WAIT) == ["a"] and b.future.result(WAIT) == ["b"]
    assert calls == [["a", "b"]]
    batcher.close()
