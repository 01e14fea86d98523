"""Measurements of issue 43 against a real ``desktop-mt serve`` (the bundled model, loopback
only, bounded in time), for docs/SERVER.md. Not a test: run by hand.

    python -m tests.server.probes lockout    # silent sockets vs. a normal client, 30 s
    python -m tests.server.probes sigterm    # SIGTERM with 17 requests in flight

``lockout``: as the issue's attack: ``--max-connections`` (256) sockets that never send a
byte, each reopened 0.1 s after the server closes it, while a normal client sends
``GET /health`` on a new connection every 0.25 s (120 tries in 30 s, 5 s timeout each);
prints how many the client got 200 for, and the attacker's connects per second.

``sigterm``: 8 ``/translate`` requests, 3 ``/translate/stream``, 3 streamed chat completions
and 3 streamed Responses requests (17, each a few sentences so they queue behind each other),
then SIGTERM once every stream runs; prints each request's outcome, whether each stream ended
with its final event or error event (or was refused with 503 before it started), and the exit
status.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import subprocess
import sys
import threading
import time

import httpx

LISTENING = re.compile(r"listening on (http://\S+)")
TEXT = "The old man is reading a book today. My sister walks to the station every morning. "


def start(*args: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "desktop_mt", "serve", "--port", "0", *args],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        found = LISTENING.search(line)
        if found:
            threading.Thread(target=lambda: [None for _ in process.stderr or ()], daemon=True).start()
            return process, found.group(1)
    raise SystemExit(f"the server did not start (exit {process.wait()})")


async def _silent(host: str, port: int, stop: float, connects: list[int]) -> None:
    while time.monotonic() < stop:
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        connects[0] += 1
        with contextlib.suppress(OSError, asyncio.TimeoutError):
            await asyncio.wait_for(reader.read(), max(0.01, stop - time.monotonic()))
        writer.close()
        await asyncio.sleep(0.1)


def _normal_client(url: str, stop: float, results: list[int]) -> None:
    while time.monotonic() < stop:
        started = time.monotonic()
        try:
            with httpx.Client(timeout=5.0) as client:
                results.append(client.get(f"{url}/health").status_code)
        except httpx.HTTPError:
            results.append(0)
        time.sleep(max(0.0, 0.25 - (time.monotonic() - started)))


def lockout(seconds: float = 30.0, sockets: int = 256) -> None:
    process, url = start()
    host, port = url.removeprefix("http://").rsplit(":", 1)
    try:
        httpx.post(f"{url}/translate", json={"q": "Hello", "source": "en", "target": "zh"}, timeout=60)  # warm
        stop = time.monotonic() + seconds
        results: list[int] = []
        client = threading.Thread(target=_normal_client, args=(url, stop, results))
        connects = [0]

        async def attack() -> None:
            await asyncio.gather(*(_silent(host, int(port), stop, connects) for _ in range(sockets)))

        client.start()
        asyncio.run(attack())
        client.join()
        served = sum(1 for status in results if status == 200)
        print(
            f"lockout: normal client served {served}/{len(results)} ({100 * served / len(results):.1f}%), "
            f"other answers {sorted(set(results) - {200})}, attacker {connects[0] / seconds:.0f} connects/s "
            f"with {sockets} sockets over {seconds:g} s"
        )
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(60)


def _call(url: str, path: str, body: dict, out: dict[str, object]) -> None:
    text = ""
    try:
        with httpx.Client(timeout=60) as client, client.stream("POST", f"{url}{path}", json=body) as answer:
            out["status"] = answer.status_code
            for chunk in answer.iter_text():
                text += chunk
    except httpx.HTTPError as exc:
        out["error"] = type(exc).__name__
    out["text"] = text


def _ending(path: str, text: str) -> str:
    """How a stream ended: its final event, its error event, or cut."""
    tail = text.rstrip()
    if path == "/translate/stream":
        return "done" if "event: done" in tail.split("\n\n")[-1] else "error" if "event: error" in tail else "cut"
    if path == "/v1/chat/completions":
        return "done" if tail.endswith("data: [DONE]") else "error" if '{"error"' in tail.split("\n\n")[-1] else "cut"
    last = tail.split("\n\n")[-1]
    return "done" if "response.completed" in last else "error" if last.startswith("event: error") else "cut"


def _metric(url: str, name: str) -> float:
    found = re.search(f"^{re.escape(name)} (\\S+)$", httpx.get(f"{url}/metrics", timeout=60).text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def sigterm(drain: float = 10.0) -> None:
    process, url = start("--drain-timeout", str(drain), "--max-streams", "9")
    httpx.post(f"{url}/translate", json={"q": "Hello", "source": "en", "target": "zh"}, timeout=60)  # warm
    calls: list[tuple[str, dict[str, object], threading.Thread]] = []
    plans = [("/translate", {"q": TEXT * 3, "source": "en", "target": "zh"})] * 8
    plans += [("/translate/stream", {"q": TEXT * 3, "source": "en", "target": "zh"})] * 3
    plans += [("/v1/chat/completions", {"stream": True, "messages": [{"role": "user", "content": TEXT * 3}]})] * 3
    plans += [("/v1/responses", {"stream": True, "input": TEXT * 3})] * 3
    for number, (path, body) in enumerate(plans):
        if "q" in body:
            body = {**body, "q": f"{number}. {body['q']}"}
        out: dict[str, object] = {}
        thread = threading.Thread(target=_call, args=(url, path, body, out))
        thread.start()
        calls.append((path, out, thread))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _metric(url, "desktop_mt_streams_active") < 9:
        time.sleep(0.05)  # every stream running (a probe, not a test)
    time.sleep(0.5)  # ... and the batched requests read
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    for _, _, thread in calls:
        thread.join(120)
    status = process.wait(120)
    took = time.monotonic() - started
    rows = []
    for path, out, _ in calls:
        ending = _ending(path, str(out.get("text", ""))) if path != "/translate" and out.get("status") == 200 else ""
        rows.append((path, out.get("status", out.get("error")), ending))
    answered = sum(1 for _, result, _ in rows if isinstance(result, int))
    clean = sum(
        1 for path, result, ending in rows if path != "/translate" and (ending in ("done", "error") or result == 503)
    )
    print(
        f"sigterm (drain {drain:g} s): {answered}/17 answered, {clean}/9 streams ended cleanly, exit {status}, "
        f"{took:.1f} s from SIGTERM to exit"
    )
    for row in rows:
        print("  ", *row)


if __name__ == "__main__":
    {"lockout": lockout, "sigterm": sigterm}[sys.argv[1]](*map(float, sys.argv[2:]))
