"""The app's outermost ASGI middleware: the Host check, the last word on exceptions, and the
one log line and metrics of each request.

- **Host** (on loopback): only ``localhost``, ``127.0.0.1`` and ``[::1]`` (any port), so a
  web page cannot reach the server through a DNS-rebinding name; others get 400 in the
  endpoint's JSON error shape (Starlette's TrustedHostMiddleware answered text/plain).
- **Exceptions**: the routes raise :class:`~.errors.ApiError`, which the app's handlers
  answer; anything else that escapes (a bug) is answered here as 500 in the endpoint's shape
  and logged with its traceback, instead of reaching uvicorn, which answers text/plain and
  drops the keep-alive connection. The log line names the exception's type and where it was
  raised (file, line, function of each frame), never its message, which may quote a request's
  field. :class:`~.errors.ClientGone` (the client left, its work was cancelled) sends nothing
  and is counted as status 499.
- **Observation**: count and time each request and log one line without any user text
  (method, endpoint, status, sizes set by the handler, milliseconds).
"""

from __future__ import annotations

import logging
import os
import time
import traceback

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import ApiError, ClientGone, error_response
from .metrics import Metrics

__all__ = [
    "Guard",
    "JsonCORSMiddleware",
]

_logger = logging.getLogger("desktop_mt.server")
_GONE = 499  # the client closed the connection before the answer (nginx's convention)
_ALLOWED_HOSTS = frozenset(("localhost", "127.0.0.1", "[::1]", "::1"))


def _host_name(header: str) -> str:
    """The host of a Host header, without the port (``[::1]:5000`` -> ``[::1]``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[: header.find("]") + 1] if "]" in header else header
    return header.split(":", 1)[0]


class Guard:
    """See the module docstring. ``endpoints``: the paths counted by name in /metrics
    (others are "other")."""

    def __init__(self, app: ASGIApp, metrics: Metrics, endpoints: tuple[str, ...], check_host: bool) -> None:
        self.app, self.metrics, self.endpoints = app, metrics, endpoints
        self.check_host = check_host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status, responded = time.perf_counter(), _GONE, False

        async def observe_send(message: Message) -> None:
            nonlocal status, responded
            if message["type"] == "http.response.start":
                status, responded = message["status"], True
            await send(message)

        try:
            await self._serve(scope, receive, observe_send)
        except (ClientGone, ClientDisconnect):
            pass  # nothing to answer: nobody listens
        except Exception as exc:  # noqa: BLE001 - a bug: answered as 500 and logged without its message
            _logger.error("unexpected error on %s: %s", _endpoint(scope["path"], self.endpoints), _where(exc))
            if not responded:
                await error_response(ApiError(500, f"Internal server error ({type(exc).__name__})"), scope["path"])(
                    scope, receive, observe_send
                )
        finally:
            self._observe(scope, status, time.perf_counter() - started)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.check_host:
            headers = dict(scope["headers"])
            host = _host_name(headers.get(b"host", b"").decode("latin-1"))
            if host not in _ALLOWED_HOSTS:
                refused = ApiError(
                    400, "Invalid host header: this server answers requests for localhost, 127.0.0.1 and [::1] only"
                )
                await error_response(refused, scope["path"])(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _observe(self, scope: Scope, status: int, seconds: float) -> None:
        endpoint = _endpoint(scope["path"], self.endpoints)
        self.metrics.requests.labels(endpoint, str(status)).inc()
        self.metrics.latency.labels(endpoint).observe(seconds)
        sizes = scope.get("state", {}).get("sizes", "")
        _logger.info(
            "%s %s %d %s%.1f ms", scope["method"], endpoint, status, f"{sizes} " if sizes else "", seconds * 1000
        )


def _endpoint(path: str, endpoints: tuple[str, ...]) -> str:
    """A path as logs and metrics name it: an endpoint, or "other" (a path is the client's text)."""
    return path if path in endpoints else "other"


def _where(exc: BaseException) -> str:
    """An exception's type and its traceback's frames (file:line in function), innermost
    last, without its message or any source line: both may hold a request's text."""
    frames = traceback.extract_tb(exc.__traceback__)
    trail = " <- ".join(
        f"{os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}" for frame in reversed(frames)
    )
    return f"{type(exc).__name__} at {trail or 'an unknown place'}"


class JsonCORSMiddleware(CORSMiddleware):
    """Starlette's CORS middleware, with a refused preflight (an origin, method or header
    that is not allowed) answered 400 in the endpoint's JSON error shape like every other
    error, instead of text/plain."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "OPTIONS":
            headers = Headers(scope=scope)
            if headers.get("origin") is not None and "access-control-request-method" in headers:
                response = self.preflight_response(request_headers=headers)
                if response.status_code >= 400:
                    response = error_response(
                        ApiError(response.status_code, bytes(response.body).decode()), scope["path"]
                    )
                await response(scope, receive, send)
                return
        await super().__call__(scope, receive, send)
