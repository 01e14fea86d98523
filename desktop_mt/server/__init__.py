"""A local translation server: LibreTranslate-compatible HTTP API over the engine.

``desktop-mt serve`` (see :mod:`desktop_mt.server.run`) loads one model per worker process and
answers ``POST /translate``, ``GET /languages``, ``POST /detect``, ``GET /frontend/settings`` in
LibreTranslate's shapes, plus ``POST /translate/stream`` (Server-Sent Events of text deltas),
``GET /health`` and ``GET /metrics``. Concurrent requests are batched into one engine call
(:mod:`desktop_mt.server.batching`). docs/SERVER.md documents the API and the safety defaults.

Importing this package does not import FastAPI: only :mod:`desktop_mt.server.app` and
:mod:`desktop_mt.server.run` need the optional ``server`` extra.
"""

__all__: list[str] = []
