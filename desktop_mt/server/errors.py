"""Errors of the HTTP API and the one place that turns them into each endpoint's JSON shape.

Every endpoint answers errors in its API's documented shape (docs/SERVER.md, *Errors*):

- LibreTranslate (``/translate``, ``/detect``, ``/health``... and unknown paths):
  ``{"error": message}``;
- DeepL v2 (``/v2/...``): ``{"message": message}``, busy as 429 (DeepL's "too many requests");
- DeepLX (``/deeplx/translate``): ``{"code": status, "message": message}``;
- OpenAI (``/v1/...``): ``{"error": {"message", "type", "param", "code"}}``.

:func:`error_response` is used by the app's exception handlers and by its outermost middleware
(:mod:`desktop_mt.server.guard`), so a 404, a refused Host header, a malformed body and an
unexpected exception all come back in the shape the client's library parses.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.responses import JSONResponse

from ..base.errors import DesktopMTError

__all__ = [
    "ApiError",
    "ClientGone",
    "Body",
    "Shape",
    "libre_shape",
    "deepl_shape",
    "deeplx_shape",
    "openai_shape",
    "shape_for",
    "error_response",
]


class ApiError(DesktopMTError):
    """An error answered with ``status`` in the endpoint's shape."""

    def __init__(
        self, status: int, message: str, headers: dict[str, str] | None = None, param: str | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers
        self.param = param  # the request field at fault, where an API reports it (OpenAI)


class ClientGone(DesktopMTError):
    """The client disconnected before its answer was ready; its work has been cancelled and
    nothing is sent."""


Body = dict[str, object]
Shape = Callable[[ApiError], "tuple[int, Body]"]
_DEEPL_BUSY = 429  # DeepL's "too many requests" (its clients retry it); we say 503 elsewhere
_OPENAI_TYPES = {401: "invalid_request_error", 503: "server_error", 500: "server_error"}
_OPENAI_CODES = {401: "invalid_api_key", 408: "timeout", 413: "context_length_exceeded", 503: "overloaded"}


def libre_shape(exc: ApiError) -> tuple[int, Body]:
    """LibreTranslate's ``{"error": message}``."""
    return exc.status, {"error": exc.message}


def deepl_shape(exc: ApiError) -> tuple[int, Body]:
    """DeepL's ``{"message": ...}``; busy is 429."""
    return (_DEEPL_BUSY if exc.status == 503 else exc.status), {"message": exc.message}


def deeplx_shape(exc: ApiError) -> tuple[int, Body]:
    """DeepLX's ``{"code": status, "message": ...}``."""
    return exc.status, {"code": exc.status, "message": exc.message}


def openai_shape(exc: ApiError) -> tuple[int, Body]:
    """OpenAI's ``{"error": {"message", "type", "param", "code"}}``."""
    error = {
        "message": exc.message,
        "type": _OPENAI_TYPES.get(exc.status, "invalid_request_error"),
        "param": exc.param,
        "code": _OPENAI_CODES.get(exc.status),
    }
    return exc.status, {"error": error}


def shape_for(path: str) -> Shape:
    """The error shape of the API ``path`` belongs to."""
    if path.startswith("/v1/"):
        return openai_shape
    if path.startswith("/v2/"):
        return deepl_shape
    if path == "/deeplx/translate":
        return deeplx_shape
    return libre_shape


def error_response(exc: ApiError, path: str, shape: Shape | None = None) -> JSONResponse:
    """``exc`` as a JSON response in ``shape`` (default: the shape of ``path``)."""
    status, body = (shape or shape_for(path))(exc)
    return JSONResponse(body, status, headers=exc.headers)
