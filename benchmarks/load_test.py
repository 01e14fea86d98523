#!/usr/bin/env python3
"""Load test of ``desktop-mt serve``: batched vs one request at a time, and the fairness
between streams and batched requests, in one run.

    python benchmarks/load_test.py                      # 32 clients x 30 s per scenario
    python benchmarks/load_test.py --clients 8 --streams 2 --duration 10 --json out.json

It starts the real server twice as subprocesses on free loopback ports (``serve`` with
batching on, and ``serve --no-batching``: the engine gets one text per call). Clients send
one FLORES-200 dev sentence each (English column, cycled; measuring only) per request and wait
for the answer, in four scenarios:

- ``batched``: ``--clients`` clients on ``POST /translate``, batching server;
- ``one at a time``: the same on the ``--no-batching`` server (the batching gain is the ratio
  of the two requests/s);
- ``batched, N alone``: ``--clients`` minus ``--streams`` clients on ``/translate``;
- ``batched, N + S streams``: the same clients with ``--streams`` clients on
  ``POST /translate/stream`` beside them (the fairness figure: how much of their requests/s
  the batched clients keep; the streams' own rate and time to first delta are reported).

Then, for scale, the engine alone in this process (no HTTP): sentences/s translating 64 of
the sentences 1, 8, 16 and 32 per ``translate_batch`` call, the most batching can gain here.

Each scenario runs ``--duration`` seconds, split into ``--rounds`` interleaved rounds (A B C D,
D C B A, ...: on a shared machine a busy moment then hits all alike). It reports requests/s,
p50/p95 latency, errors (anything but 200, or a stream without ``done``: must be 0), the
servers' peak RSS, the mean texts per engine call from /metrics, and where the CPU went: the
cores the server and this load generator used on average during each scenario. Loopback only, bounded in
time (each scenario stops after ``--duration`` s and at ``--max-requests``; requests in flight
then finish) and the servers are stopped at the end.
Needs ``pip install 'desktop-mt[server]' httpx psutil`` (all in the ``test`` extra).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
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
        cmd = [
            sys.executable,
            "-m",
            "desktop_mt",
            "serve",
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--threads",
            str(threads),
            *extra,
        ]
        if model:
            cmd += ["--model", model]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://{HOST}:{self.port}"
        self.peak_rss = 0
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        process = psutil.Process(self.proc.pid)
        while not self._stop.is_set():
            try:
                rss = process.memory_info().rss + sum(c.memory_info().rss for c in process.children(recursive=True))
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

    def cpu_seconds(self) -> float:
        """CPU time the server has used so far (user + system)."""
        times = psutil.Process(self.proc.pid).cpu_times()
        return times.user + times.system

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


class Tally:
    """What one kind of client saw: latencies (s), errors, and for streams the time to the
    first delta."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.first_delta: list[float] = []
        self.errors: list[str] = []
        self.seconds = 0.0
        self.cpu = {"server": 0.0, "clients": 0.0}  # CPU seconds spent meanwhile

    def add(self, other: Tally) -> None:
        self.latencies += other.latencies
        self.first_delta += other.first_delta
        self.errors += other.errors
        self.seconds += other.seconds
        for key, value in other.cpu.items():
            self.cpu[key] += value


async def _batch_client(http: httpx.AsyncClient, texts, deadline: float, budget: list[int], tally: Tally) -> None:
    while time.monotonic() < deadline and budget[0] > 0:
        budget[0] -= 1
        started = time.perf_counter()
        try:
            r = await http.post("/translate", json={"q": next(texts), "source": "en", "target": "zh"})
            if r.status_code != 200:
                tally.errors.append(f"HTTP {r.status_code}")
                continue
        except httpx.HTTPError as exc:
            tally.errors.append(type(exc).__name__)
            continue
        tally.latencies.append(time.perf_counter() - started)


async def _stream_client(http: httpx.AsyncClient, texts, deadline: float, budget: list[int], tally: Tally) -> None:
    """``POST /translate/stream`` read to its ``done`` event, one after the other."""
    while time.monotonic() < deadline and budget[0] > 0:
        budget[0] -= 1
        started, first = time.perf_counter(), None
        try:
            async with http.stream(
                "POST", "/translate/stream", json={"q": next(texts), "source": "en", "target": "zh"}
            ) as r:
                if r.status_code != 200:
                    tally.errors.append(f"HTTP {r.status_code}")
                    continue
                done = False
                async for line in r.aiter_lines():
                    if first is None and line.startswith("event: delta"):
                        first = time.perf_counter() - started
                    done = done or line == "event: done"
                if not done:
                    tally.errors.append("stream without done")
                    continue
        except httpx.HTTPError as exc:
            tally.errors.append(type(exc).__name__)
            continue
        tally.latencies.append(time.perf_counter() - started)
        if first is not None:
            tally.first_delta.append(first)


async def drive(
    url: str, sentences: list[str], clients: int, streams: int, duration: float, max_requests: int
) -> tuple[Tally, Tally]:
    """``clients`` batched and ``streams`` streaming loops of one request at a time for
    ``duration`` seconds; what each kind saw."""
    texts = itertools.cycle(sentences)
    batched, streamed = Tally(), Tally()
    budget = [max_requests]
    limits = httpx.Limits(max_connections=clients + streams, max_keepalive_connections=clients + streams)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        await http.post("/translate", json={"q": "Warm up.", "source": "en", "target": "zh"})
        started = time.monotonic()
        deadline = started + duration
        await asyncio.gather(
            *(_batch_client(http, texts, deadline, budget, batched) for _ in range(clients)),
            *(_stream_client(http, texts, deadline, budget, streamed) for _ in range(streams)),
        )
        batched.seconds = streamed.seconds = time.monotonic() - started
    return batched, streamed


@dataclasses.dataclass(frozen=True)
class Scenario:
    """One row group of the report: ``clients`` batched and ``streams`` streaming clients
    against server number ``server``."""

    name: str
    server: int
    clients: int
    streams: int = 0


def run_scenarios(servers_extra: list[list[str]], scenarios: list[Scenario], args, sentences: list[str]) -> list[dict]:
    """Start the servers, then run the scenarios in interleaved rounds (A B C, C B A, ...) so
    that a busy moment of the machine hits all alike; figures per scenario."""
    servers = [ServerProcess(extra, args.model, args.threads) for extra in servers_extra]
    tallies = [(Tally(), Tally()) for _ in scenarios]
    try:
        for server in servers:
            server.wait_ready()
        for round_index in range(args.rounds):
            order = list(range(len(scenarios)))
            for i in order if round_index % 2 == 0 else reversed(order):
                scenario = scenarios[i]
                server_cpu, client_cpu = servers[scenario.server].cpu_seconds(), time.process_time()
                batched, streamed = asyncio.run(
                    drive(
                        servers[scenario.server].url,
                        sentences,
                        scenario.clients,
                        scenario.streams,
                        args.duration / args.rounds,
                        args.max_requests // args.rounds,
                    )
                )
                batched.cpu = {
                    "server": servers[scenario.server].cpu_seconds() - server_cpu,
                    "clients": time.process_time() - client_cpu,
                }
                tallies[i][0].add(batched)
                tallies[i][1].add(streamed)
        batches = [server.batch_figures() for server in servers]
    finally:
        for server in servers:
            server.stop()
    rows = []
    for scenario, (batched, streamed) in zip(scenarios, tallies):
        server = servers[scenario.server]
        rows.append(_figures(scenario.name, "translate", batched, server.peak_rss, batches[scenario.server]))
        if scenario.streams:
            rows.append(_figures(scenario.name, "stream", streamed, server.peak_rss, batches[scenario.server]))
    return rows


def _percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _figures(name: str, kind: str, tally: Tally, peak_rss: int, mean_batch: float) -> dict:
    ordered = sorted(tally.latencies) or [float("nan")]
    first = sorted(tally.first_delta) or [float("nan")]
    return {
        "scenario": name,
        "kind": kind,
        "requests": len(tally.latencies),
        "seconds": round(tally.seconds, 2),
        "requests_per_s": round(len(tally.latencies) / tally.seconds, 2) if tally.seconds else 0,
        "p50_ms": round(1000 * statistics.median(ordered), 1),
        "p95_ms": round(1000 * _percentile(ordered, 0.95), 1),
        "first_delta_p50_ms": round(1000 * statistics.median(first), 1) if kind == "stream" else None,
        "errors": len(tally.errors),
        "error_kinds": sorted(set(tally.errors)),
        "server_cpu_cores": round(tally.cpu["server"] / tally.seconds, 2) if tally.seconds else 0,
        "client_cpu_cores": round(tally.cpu["clients"] / tally.seconds, 2) if tally.seconds else 0,
        "peak_rss_mb": round(peak_rss / 2**20, 1),
        "texts_per_engine_call": round(mean_batch, 2),
    }


def table(rows: list[dict]) -> str:
    lines = [
        "| scenario | requests | req/s | p50 ms | p95 ms | first delta p50 ms | errors | "
        "peak RSS MB | texts per engine call | server CPU cores | load generator CPU cores |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        first = "" if r["first_delta_p50_ms"] is None else r["first_delta_p50_ms"]
        lines.append(
            f"| {r['scenario']}: {r['kind']} | {r['requests']} | {r['requests_per_s']} "
            f"| {r['p50_ms']} | {r['p95_ms']} | {first} | {r['errors']} | "
            f"{r['peak_rss_mb']} | {r['texts_per_engine_call']} | "
            f"{r['server_cpu_cores'] if r['kind'] == 'translate' else ''} | "
            f"{r['client_cpu_cores'] if r['kind'] == 'translate' else ''} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument(
        "--streams", type=int, default=8, help="of --clients, how many stream in the mixed scenario (default 8)"
    )
    parser.add_argument("--duration", type=float, default=30.0, help="seconds per scenario")
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds the duration is split into (default 3)"
    )
    parser.add_argument("--max-requests", type=int, default=100_000, help="per scenario")
    parser.add_argument("--model", help="model directory (default: the bundled model)")
    parser.add_argument("--threads", type=int, default=0, help="server ORT threads (0 = auto)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        dest="server_args",
        metavar="ARG",
        help="an extra `serve` argument for the batching server (repeatable), e.g. --server-arg=--max-batch=16",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if not 0 < args.duration <= MAX_DURATION_S:
        parser.error(f"--duration must be in (0, {MAX_DURATION_S}]")
    if args.rounds < 1:
        parser.error("--rounds must be >= 1")
    if not 0 <= args.streams < args.clients:
        parser.error("--streams must be in [0, --clients)")
    if not args.data.exists():
        parser.error(f"{args.data} not found (the FLORES-200 dev TSV; give --data)")
    sentences = flores_english(args.data)
    mixed = args.clients - args.streams
    scenarios = [
        Scenario("batched", 0, args.clients),
        Scenario("one at a time (--no-batching)", 1, args.clients),
        Scenario(f"batched, {mixed} alone", 0, mixed),
    ]
    if args.streams:
        scenarios.append(Scenario(f"batched, {mixed} + {args.streams} streams", 0, mixed, args.streams))
    # Every stream gets a slot (--max-streams): the fairness scenario measures sharing, not 503s.
    rows = run_scenarios(
        [["--max-streams", str(max(4, args.streams)), *args.server_args], ["--no-batching"]], scenarios, args, sentences
    )
    print(table(rows))
    rate = {(r["scenario"], r["kind"]): r["requests_per_s"] for r in rows}
    gain = _ratio(rate[("batched", "translate")], rate[("one at a time (--no-batching)", "translate")])
    print(
        f"\nbatching gain at {args.clients} clients: {gain:.2f}x requests/s "
        f"({len(sentences)} FLORES-200 dev sentences, {args.duration:g} s per scenario, "
        f"{os.cpu_count()} CPUs)"
    )
    fairness = None
    if args.streams:
        fairness = _ratio(rate[(scenarios[3].name, "translate")], rate[(scenarios[2].name, "translate")])
        print(
            f"fairness: with {args.streams} streams beside them, {mixed} batched clients keep "
            f"{fairness:.2f}x of the requests/s they get alone; the streams completed "
            f"{rate[(scenarios[3].name, 'stream')]} req/s"
        )
    ceiling = engine_ceiling(args, sentences)
    print(
        "engine alone, sentences/s by texts per call: "
        + ", ".join(f"{size}: {rate}" for size, rate in ceiling.items())
        + f" (best {max(ceiling.values()) / ceiling[1]:.2f}x one at a time)"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "rows": rows,
                    "gain": round(gain, 2),
                    "fairness": fairness and round(fairness, 2),
                    "engine_sentences_per_s": ceiling,
                },
                indent=2,
            )
        )
    return 1 if any(r["errors"] for r in rows) else 0


def engine_ceiling(args, sentences: list[str], count: int = 64) -> dict[int, float]:
    """Sentences/s of the engine alone (in this process, no HTTP) translating ``count``
    sentences in groups of 1, 8, 16 and 32: the most batching can gain on this machine."""
    from desktop_mt import SessionOptions, Translator

    translator = Translator(model_dir=args.model, session_options=SessionOptions(intra_op_threads=args.threads))
    translator.translate_batch(sentences[:4])  # warm up
    rates = {}
    for size in (1, 8, 16, 32):
        started = time.perf_counter()
        for start in range(0, count, size):
            translator.translate_batch(sentences[start : start + size])
        rates[size] = round(count / (time.perf_counter() - started), 2)
    translator.close()
    return rates


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


if __name__ == "__main__":
    sys.exit(main())
