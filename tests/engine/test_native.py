"""Exiting while a daemon thread translates (a stream of the local API, an added model folder
being converted, the server's batcher) must not abort the process: without ``NativeCalls`` the
interpreter ended the thread as SentencePiece or ONNX Runtime gave the GIL back, unwinding
through their C++ frames ("terminate called without an active exception", exit status 134) on
every exit taken right after a translation."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

from desktop_mt.engine.native import NativeCalls
from desktop_mt.engine.runtime import GuardedSession, make_session

WAIT_S = 120  # bounds for a loaded machine; nothing here waits for time to pass


def wait_until(check, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.01)


def test_drain_waits_for_the_run_in_flight():
    runs = NativeCalls()
    runs.__enter__()  # a call in flight
    result: list[bool] = []
    drainer = threading.Thread(target=lambda: result.append(runs.drain(timeout=WAIT_S)))
    drainer.start()
    wait_until(lambda: runs._closing, "drain to start")
    assert drainer.is_alive() and result == []  # cannot end while the run is in flight
    runs.__exit__(None, None, None)
    drainer.join(WAIT_S)
    assert result == [True] and runs.active == 0


def test_after_drain_other_threads_park_and_the_main_thread_still_runs():
    runs = NativeCalls()
    assert runs.drain(timeout=1) is True
    late = threading.Thread(target=runs.__enter__, daemon=True)  # parked for good: daemon, like the app's
    late.start()
    wait_until(lambda: runs.parked == 1, "the late run to park")
    assert runs.active == 0 and late.is_alive()
    with runs:  # the main thread (an atexit handler, say) is not parked
        assert runs.active == 1
    assert runs.active == 0


def test_drain_gives_up_after_its_timeout():
    runs = NativeCalls()
    runs.__enter__()
    assert runs.drain(timeout=0.01) is False  # the run never leaves
    assert runs.active == 1


class RecordingCalls(NativeCalls):
    """A ``NativeCalls`` that also records the largest number of calls in flight at once."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = 0
        self.most = 0

    def __enter__(self) -> None:
        super().__enter__()
        self.entered += 1
        self.most = max(self.most, self.active)


def test_sessions_count_their_runs(tiny_marian_dir, monkeypatch):
    import numpy as np

    from desktop_mt.engine import runtime
    from desktop_mt.engine.options import SessionOptions

    calls = RecordingCalls()
    monkeypatch.setattr(runtime, "NATIVE_CALLS", calls)
    session = make_session(tiny_marian_dir / "encoder_model.onnx", SessionOptions(), ["CPUExecutionProvider"])
    assert isinstance(session, GuardedSession)
    ids = np.array([[5, 6, 0]], dtype=np.int64)
    out = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})
    assert out[0].shape[:2] == (1, 3)  # the real run's result comes back through the guard
    assert (calls.entered, calls.most, calls.active) == (1, 1, 0)  # in flight during the run, left after


def test_exiting_while_a_daemon_thread_translates_exits_cleanly():
    code = textwrap.dedent(
        """
        import threading
        from desktop_mt import Translator

        translator = Translator()  # the bundled model
        started = threading.Event()
        text = "The committee discussed next year's budget while the quick brown fox slept. " * 3

        def loop():
            while True:
                translator.translate(text)
                started.set()

        threading.Thread(target=loop, daemon=True).start()
        assert started.wait(300)
        print("leaving while it translates", flush=True)
        """
    )
    for _ in range(3):  # without the guard every one of these exits aborted
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "terminate called" not in done.stderr
        assert "leaving while it translates" in done.stdout
