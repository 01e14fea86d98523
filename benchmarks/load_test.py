#!/usr/bin/env python3
"""Load test of ``desktop-mt serve``: concurrent clients, batched vs one request at a time.

    python benchmarks/load_test.py                      # 32 clients x 30 s per mode, bundled model
    python benchmarks/load_test.py --clients 8 --duration 10 --json out.json

It starts the real server twice as subprocesses on free loopback ports (``serve`` with
batching on, and ``serve --no-batching``: the engine gets one text per call), then lets
``--clients`` concurrent clients send ``POST /translate`` with one FLORES-200 dev sentence each
(English column, cycled; measuring only) for ``--duration`` seconds per mode, split into
``--rounds`` interleaved rounds (batched, unbatched, unbatched, batched, ...: on a shared
machine a busy moment then hits both modes alike). It reports requests/s,
p50/p99 latency, errors (anything but 200: must be 0), the server's peak RSS, and the mean
texts per engine call from the server's /metrics. The batching gain is the ratio of the two
requests/s of the same run. Loopback only, bounded in time (each mode stops after
``--duration`` s and at ``--max-requests``; requests in flight then finish) and the servers
are stopped at the end.
Needs ``pip install 'desktop-mt[server]' httpx psutil`` (all in the ``test`` extra).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "flores200-dev.en-zh.tsv"
HOST = "127.0.0.1"  # loopback only: this script never talks to another machine
MAX_DURATION_S = 300


def flores_english(path: Path) -> list[str]:
    """The English column of the FLORES-200 dev TSV (English<TAB>Chinese per line)."""
    with open(path, encoding="utf-8") as f:
        rows = [line.split("\t", 1)[0].strip() for line in f]
    return [row for row in rows if row]


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class ServerProcess:
    """``desktop-mt serve`` in a subprocess, with its peak RSS sampled every 50 ms."""

    def __init__(self, extra: list[str], model: str | None, threads: int) -> None:
        self.port = free_port()
        cmd = [sys.executable, "-m", "desktop_mt", "serve", "--host", HOST,
               "--port", str(self.port), "--threads", str(threads), *extra]
        if model:
            cmd += ["--model", model]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.url = f"http://{HOST}:{self.port}"
        self.peak_rss = 0
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        process = psutil.Process(self.proc.pid)
        while not self._stop.is_set():
            try:
                rss = process.memory_info().rss + sum(
                    c.memory_info().rss for c in process.children(recursive=True))
            except psutil.Error:
                return
            self.peak_rss = max(self.peak_rss, rss)
            self._stop.wait(0.05)

    def wait_ready(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"the server exited with {self.proc.returncode}")
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise SystemExit(f"the server on {self.url} did not start in {timeout:.0f} s")

    def batch_figures(self) -> float:
        """Mean texts per engine call, from the server's /metrics."""
        text = httpx.get(self.url + "/metrics", timeout=10).text
        total = re.search(r"^desktop_mt_batch_texts_sum (\S+)$", text, re.M)
        count = re.search(r"^desktop_mt_batch_texts_count (\S+)$", text, re.M)
        calls = float(count.group(1)) if count else 0.0
        return float(total.group(1)) / calls if calls else 0.0

    def stop(self) -> None:
        self._stop.set()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._sampler.join(5)


async def _client(http: httpx.AsyncClient, texts, deadline: float, budget: list[int],
                  latencies: list[float], errors: list[str]) -> None:
    while time.monotonic() < deadline and budget[0] > 0:
        budget[0] -= 1
        started = time.perf_counter()
        try:
            r = await http.post("/translate", json={"q": next(texts), "source": "en",
                                                    "target": "zh"})
            if r.status_code != 200:
                errors.append(f"HTTP {r.status_code}")
                continue
        except httpx.HTTPError as exc:
            errors.append(type(exc).__name__)
            continue
        latencies.append(time.perf_counter() - started)


async def drive(url: str, sentences: list[str], clients: int, duration: float,
                max_requests: int) -> tuple[list[float], list[str], float]:
    """``clients`` concurrent loops of one request at a time; (latencies, errors, seconds)."""
    texts = itertools.cycle(sentences)
    latencies: list[float] = []
    errors: list[str] = []
    budget = [max_requests]
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        await http.post("/translate", json={"q": "Warm up.", "source": "en", "target": "zh"})
        started = time.monotonic()
        await asyncio.gather(*(_client(http, texts, started + duration, budget, latencies,
                                       errors) for _ in range(clients)))
        seconds = time.monotonic() - started
    return latencies, errors, seconds


def run_modes(modes: list[tuple[str, list[str]]], args, sentences: list[str]) -> list[dict]:
    """Start one server per mode, then drive them in interleaved rounds (A B, B A, A B...) so
    that a busy moment of the machine hits both modes alike; figures per mode."""
    servers = [ServerProcess(extra, args.model, args.threads) for _, extra in modes]
    runs: list[tuple[list[float], list[str], float]] = [([], [], 0.0) for _ in modes]
    try:
        for server in servers:
            server.wait_ready()
        for round_index in range(args.rounds):
            order = range(len(modes)) if round_index % 2 == 0 else reversed(range(len(modes)))
            for i in order:
                latencies, errors, seconds = asyncio.run(drive(
                    servers[i].url, sentences, args.clients, args.duration / args.rounds,
                    args.max_requests // args.rounds))
                runs[i] = (runs[i][0] + latencies, runs[i][1] + errors, runs[i][2] + seconds)
        batches = [server.batch_figures() for server in servers]
    finally:
        for server in servers:
            server.stop()
    return [_figures(name, *run, server.peak_rss, batch)
            for (name, _), run, server, batch in zip(modes, runs, servers, batches)]


def _figures(name: str, latencies: list[float], errors: list[str], seconds: float,
             peak_rss: int, mean_batch: float) -> dict:
    ordered = sorted(latencies) or [float("nan")]
    return {"mode": name, "requests": len(latencies), "seconds": round(seconds, 2),
            "requests_per_s": round(len(latencies) / seconds, 2),
            "p50_ms": round(1000 * statistics.median(ordered), 1),
            "p99_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 1),
            "errors": len(errors), "error_kinds": sorted(set(errors)),
            "peak_rss_mb": round(peak_rss / 2**20, 1),
            "texts_per_engine_call": round(mean_batch, 2)}


def table(rows: list[dict], clients: int) -> str:
    lines = [f"| mode ({clients} clients) | requests | req/s | p50 ms | p99 ms | errors | "
             f"peak RSS MB | texts per engine call |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['mode']} | {r['requests']} | {r['requests_per_s']} | {r['p50_ms']} "
                     f"| {r['p99_ms']} | {r['errors']} | {r['peak_rss_mb']} | "
                     f"{r['texts_per_engine_call']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--duration", type=float, default=30.0, help="seconds per mode")
    parser.add_argument("--rounds", type=int, default=3,
                        help="interleaved rounds the duration is split into (default 3)")
    parser.add_argument("--max-requests", type=int, default=100_000, help="per mode")
    parser.add_argument("--model", help="model directory (default: the bundled model)")
    parser.add_argument("--threads", type=int, default=0, help="server ORT threads (0 = auto)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if not 0 < args.duration <= MAX_DURATION_S:
        parser.error(f"--duration must be in (0, {MAX_DURATION_S}]")
    if args.rounds < 1:
        parser.error("--rounds must be >= 1")
    if not args.data.exists():
        parser.error(f"{args.data} not found (the FLORES-200 dev TSV; give --data)")
    sentences = flores_english(args.data)
    rows = run_modes([("batched", []), ("one at a time (--no-batching)", ["--no-batching"])],
                     args, sentences)
    print(table(rows, args.clients))
    gain = rows[0]["requests_per_s"] / rows[1]["requests_per_s"] if rows[1]["requests_per_s"] \
        else float("nan")
    print(f"\nbatching gain: {gain:.2f}x requests/s ({len(sentences)} FLORES-200 dev sentences, "
          f"{args.duration:g} s per mode, {os.cpu_count()} CPUs)")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "gain": round(gain, 2)}, indent=2))
    return 1 if any(r["errors"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
