"""Shared by the server tests: a real server on a free loopback port with the bundled model."""

from __future__ import annotations

import re
import time

import pytest

from desktop_mt.engine.model_format import bundled_model_dir
from desktop_mt.server.app import create_app
from desktop_mt.server.config import ServerConfig
from desktop_mt.server.run import ServerThread

KEY = "test-key-1234"
WAIT = 30.0


def start_server(**overrides) -> ServerThread:
    """A started :class:`ServerThread` (skips when the bundled model is missing)."""
    try:
        model = bundled_model_dir("en-zh")
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"no bundled model: {exc}")
    config = ServerConfig(model=str(model), threads=1, **overrides)
    return ServerThread(create_app(config)).start()


def has_chinese(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


_SUBJECTS = [
    "The old man",
    "My sister",
    "Our teacher",
    "The little dog",
    "A young doctor",
    "His friend",
    "The farmer",
    "Her mother",
]
_VERBS = [
    "is reading a book",
    "walks to the station",
    "likes green tea",
    "lives near the river",
    "is waiting for the bus",
    "bought a new car",
    "cooks dinner",
    "works in the city",
]
_TIMES = [
    "today",
    "every morning",
    "on Sunday",
    "at night",
    "in the summer",
    "after school",
    "before lunch",
    "this week",
]


def sentences(n: int) -> list[str]:
    """``n`` distinct everyday sentences (the engine dedupes repeats, so they must differ)."""
    out = [f"{s} {v} {t}." for t in _TIMES for v in _VERBS for s in _SUBJECTS]
    assert n <= len(out)
    return out[:n]


def metric(client, name: str, **labels) -> float:
    """One sample of /metrics (0 when the series does not exist yet)."""
    text = client.get("/metrics", params={"api_key": KEY}).text
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    pattern = re.escape(name) + (r"\{" + re.escape(wanted) + r"\}" if labels else "") + r" (\S+)"
    match = re.search("^" + pattern + "$", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)
