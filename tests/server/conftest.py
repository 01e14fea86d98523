"""Fixtures shared by the server test modules (each module starts its own ``server``)."""

from __future__ import annotations

import pytest

from .fakes import HeldEngine
from .helpers import WAIT


@pytest.fixture
def client(server):
    """An httpx client for the module's ``server``."""
    httpx = pytest.importorskip("httpx")
    with httpx.Client(base_url=server.url, timeout=WAIT) as c:
        yield c


@pytest.fixture
def engine():
    """A batcher engine whose calls wait for ``engine.release`` (see fakes.HeldEngine)."""
    engine = HeldEngine()
    yield engine
    engine.release.set()
