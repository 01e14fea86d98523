"""Issue 43, finding 2: SIGTERM under load is a graceful shutdown. ``desktop-mt serve``'s code
in a child process (tests/server/shutdown_child.py: the real app and uvicorn over the fake
translator, whose engine calls are held until the test releases them) gets SIGTERM with a
batched request in the engine, one waiting behind it, and three streams (LibreTranslate's,
chat completions', the Responses API's) waiting for their engine turn:

- the waiting request gets the documented 503 (``Retry-After``) at once;
- released within the drain time, the running request gets its translation and each stream
  its whole answer (``done`` / ``[DONE]`` / ``response.completed``);
- not released, at the drain time the running request gets 503 and each stream ends with
  its API's error event;
- either way the process exits 0.

Before: uvicorn waited 5 s and cancelled the tasks (no answer, streams cut mid-body, the
documented 503 never sent) and the process died of the re-raised SIGTERM (status 143).
Every wait is on an answer, a line of the child's output or a condition, bounded by WAIT.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from .fakes import WAIT, translated  # noqa: E402
from .helpers import wait_for  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is a POSIX signal")
ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"listening on (http://\S+)")


class Child:
    """The server process, its output read line by line on threads."""

    def __init__(self, drain_s: float) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.server.shutdown_child", str(drain_s)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.stdout: queue.Queue[str] = queue.Queue()
        self.stderr: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        assert self.process.stdout is not None and self.process.stderr is not None
        threading.Thread(target=self._read, args=(self.process.stdout, self.stdout), daemon=True).start()
        threading.Thread(target=self._read, args=(self.process.stderr, self.stderr), daemon=True).start()
        self.url = self._wait_line(self.stderr, LISTENING).group(1)

    def _read(self, stream, lines: queue.Queue[str]) -> None:
        for line in stream:
            self.log.append(line)
            lines.put(line)

    def _wait_line(self, lines: queue.Queue[str], pattern: re.Pattern[str]) -> re.Match[str]:
        while True:
            try:
                line = lines.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern.pattern}; output: {''.join(self.log)}") from None
            found = pattern.search(line)
            if found:
                return found

    def wait_entered(self) -> None:
        self._wait_line(self.stdout, re.compile("^entered"))

    def release(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(WAIT)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


class Call:
    """One request on its own thread and connection: its status, headers and whole body."""

    def __init__(self, url: str, path: str, body: dict) -> None:
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.text = ""
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(url, path, body), daemon=True)
        self._thread.start()

    def _run(self, url: str, path: str, body: dict) -> None:
        try:
            with httpx.Client(base_url=url, timeout=WAIT) as client, client.stream("POST", path, json=body) as answer:
                self.status, self.headers = answer.status_code, dict(answer.headers)
                for chunk in answer.iter_text():
                    self.text += chunk
        except BaseException as exc:  # noqa: BLE001 - a cut answer is what the test looks for
            self.error = exc

    def result(self) -> Call:
        self._thread.join(WAIT)
        assert not self._thread.is_alive(), "no answer"
        return self


LIBRE = {"q": "Hello there", "source": "en", "target": "zh"}
STREAMS = {
    "/translate/stream": LIBRE,
    "/v1/chat/completions": {"stream": True, "messages": [{"role": "user", "content": "Hello there"}]},
    "/v1/responses": {"stream": True, "input": "Hello there"},
}


def metric(url: str, name: str) -> float:
    text = httpx.get(f"{url}/metrics", timeout=WAIT).text
    found = re.search(f"^{re.escape(name)} (\\S+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def load_then_terminate(child: Child) -> tuple[Call, Call, dict[str, Call]]:
    """A batched request in the engine, one waiting, three streams waiting for their turn;
    then SIGTERM, and the waiting request's answer."""
    running = Call(child.url, "/translate", LIBRE)
    child.wait_entered()
    waiting = Call(child.url, "/translate", {**LIBRE, "q": "Good morning"})
    wait_for(lambda: httpx.get(f"{child.url}/health", timeout=WAIT).json()["queuedTexts"] == 1, "the queued text")
    streams = {path: Call(child.url, path, body) for path, body in STREAMS.items()}
    wait_for(lambda: metric(child.url, "desktop_mt_streams_active") == 3, "three streams")
    child.process.send_signal(signal.SIGTERM)
    waiting.result()
    assert waiting.error is None and waiting.status == 503
    assert waiting.headers["retry-after"] == "1"
    assert json.loads(waiting.text) == {"error": "Server busy: the server is shutting down"}
    return running, waiting, streams


def test_sigterm_finishes_running_work_within_the_drain_time_and_exits_0():
    child = Child(drain_s=WAIT)
    try:
        running, _waiting, streams = load_then_terminate(child)
        child.release()
        assert running.result().error is None and running.status == 200
        assert json.loads(running.text) == {"translatedText": translated("Hello there")}
        for path, call in streams.items():
            assert call.result().error is None and call.status == 200, path
        assert streams["/translate/stream"].text.rstrip().split("\n")[-2] == "event: done"
        assert streams["/v1/chat/completions"].text.rstrip().endswith("data: [DONE]")
        assert "event: response.completed" in streams["/v1/responses"].text
        assert child.process.wait(WAIT) == 0
    finally:
        child.stop()


def test_sigterm_past_the_drain_time_answers_503_and_ends_each_stream_with_its_error_event():
    child = Child(drain_s=0.5)
    try:
        running, _waiting, streams = load_then_terminate(child)
        assert running.result().error is None and running.status == 503
        assert json.loads(running.text) == {"error": "Server busy: the server is shutting down"}
        for path, call in streams.items():
            assert call.result().error is None and call.status == 200, path  # the body ended, not cut
        libre = streams["/translate/stream"].text.rstrip().split("\n")
        assert libre[-2:] == ["event: error", 'data: {"error": "the server is shutting down"}']
        chat = streams["/v1/chat/completions"].text.rstrip().split("\n\n")[-1]
        assert json.loads(chat.removeprefix("data: "))["error"]["message"] == "the server is shutting down"
        responses = streams["/v1/responses"].text.rstrip().split("\n\n")[-1].split("\n")
        assert responses[0] == "event: error"
        assert json.loads(responses[1].removeprefix("data: "))["message"] == "the server is shutting down"
        assert child.process.wait(WAIT) == 0
    finally:
        child.stop()
