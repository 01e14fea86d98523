"""Reading requests, shared by every route module: the body (bounded in size and time), its
parameters (JSON, urlencoded or multipart; strict UTF-8), keys, strict booleans, parsing off
the event loop, and waiting for engine work while watching for the client leaving.

Below the route modules (:mod:`.app`, :mod:`.deepl_api`, :mod:`.openai_api`,
:mod:`.openai_responses`): they import this module, it imports none of them.

Every limit is checked before the work it bounds: the declared ``Content-Length`` before a
byte is read, the body size while it is read, the body time while it arrives, and the
parameters' sizes (by the route modules) before any text is looked at. JSON and form parsing
are linear in the body (the C JSON decoder, :func:`urllib.parse.parse_qsl`); a body above
:data:`_OFFLOAD_BYTES` is parsed on a worker thread so the event loop keeps answering others.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import re
import time
import urllib.parse
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, NamedTuple, TypeVar

from python_multipart.multipart import parse_options_header
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from .config import ServerConfig
from .errors import ApiError, ClientGone

__all__ = [
    "PROMPT_ROOM",
    "Params",
    "read_params",
    "query_params",
    "string_field",
    "header_text",
    "credentials",
    "off_loop",
    "strict_bool",
    "key_matches",
    "check_key",
    "unless_disconnected",
]

_OFFLOAD_BYTES = 64 * 1024  # bigger bodies are parsed (and their texts checked) off the loop
_FORM_SETTINGS = 64  # form fields allowed besides --batch-limit texts (source, target, key...)
_UTF8_ESCAPED = 12  # bytes of one character at most in a form: 4 UTF-8 bytes, each as %XX
PROMPT_ROOM = 1000  # characters of a translation prompt around the text (Pot's, Bob's...)
_YIELD_BYTES = 32 * 1024
_T = TypeVar("_T")
# The answers sent before the body is read (408, 413) close the connection: what follows on it
# is the rest of that body, not a next request (the protocol reads and drops it, lingering).
_CLOSE = {"Connection": "close"}
Params = dict[str, Any]
"""A request's parameters as the body (JSON, form) gave them: checked to hold only valid
Unicode text (:func:`_check_text`); each value's type is checked where it is used
(:func:`string_field`, :func:`strict_bool`)."""
_SURROGATE = re.compile("[\ud800-\udfff]")


async def read_params(request: Request, config: ServerConfig, repeated: tuple[str, ...] = ("q",)) -> Params:
    """The request's parameters from a JSON, urlencoded or multipart body (and the query).

    In a form, a ``repeated`` field given more than once becomes a list (once: a string).
    413 for a body over ``max_body_bytes``, 408 when it takes more than ``body_timeout_s`` to
    arrive, 400 for a body that is not valid JSON / UTF-8 or a form with more fields than a
    request can use (``batch_limit`` texts and a few settings: counted before parsing), and for
    text that is not Unicode in any channel (invalid UTF-8 in the query, form or multipart
    fields; a lone surrogate escape such as ``"\\ud800"`` in JSON): refused, never turned into
    U+FFFD or passed on to fail later."""
    body = await _read_body(request, config.max_body_bytes, config.body_timeout_s)
    params = query_params(request)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "multipart/form-data":
        params.update(await _multipart(request, body, repeated))
    elif body:
        limits = _FormLimits(config.batch_limit + _FORM_SETTINGS, _UTF8_ESCAPED * (config.char_limit + PROMPT_ROOM))
        params.update(await off_loop(request, _parse_body, body, kind, repeated, limits))
    await off_loop(request, _check_text, params)
    return params


def query_params(request: Request) -> Params:
    """The query string's parameters, decoded as strict UTF-8 (400 otherwise; Starlette's
    ``query_params`` turns invalid bytes into U+FFFD)."""
    raw = request.scope.get("query_string", b"")
    if not raw:
        return {}
    try:
        pairs = urllib.parse.parse_qsl(raw.decode("utf-8"), keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        raise ApiError(400, "Invalid request: the query string is not valid UTF-8") from None
    return dict(pairs)


def _check_text(params: Params) -> None:
    """400 when a name or string anywhere in ``params`` holds a lone surrogate (JSON's
    ``"\\ud800"`` escape decodes to one): it is no character, cannot be written as UTF-8, and
    would fail wherever the text is encoded (an answer echoing it, the engine's tokenizer).
    Iterative (a body nested as deep as the JSON decoder allows), linear in the values; the
    message names the top-level field, never the value."""
    for name, value in params.items():
        pending: list[object] = [name, value]
        while pending:
            item = pending.pop()
            if isinstance(item, str):
                if not item.isascii() and _SURROGATE.search(item):
                    raise ApiError(
                        400,
                        f"Invalid request: {_field_name(name)} holds a lone surrogate escape "
                        "(\\ud800-\\udfff), which is not text; send valid Unicode",
                        param=name,
                    )
            elif isinstance(item, dict):
                pending.extend(item.keys())
                pending.extend(item.values())
            elif isinstance(item, list):
                pending.extend(item)


def _field_name(name: str) -> str:
    """How a message names a field: its name when that is a plain short identifier."""
    return f"'{name}'" if name.isascii() and name.isprintable() and len(name) <= 40 else "a field name"


def string_field(params: Params, name: str, param: str | None = None) -> str | None:
    """A field that must be a string when present (absent or null: None); 400 naming the
    field for any other JSON type (a number, a boolean, a list, an object)."""
    value = params.get(name)
    if value is None or isinstance(value, str):
        return value
    raise ApiError(
        400,
        f"Invalid request: '{name}' must be a string, not {_json_type(value)}",
        param=param or name,
    )


def _json_type(value: object) -> str:
    """The JSON name of a parsed value's type."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "a list" if isinstance(value, list) else "an object"


def header_text(request: Request, name: str) -> str:
    """A request header's value as strict UTF-8 (400 otherwise: the header's bytes are not
    text, and Latin-1 would make them some other characters); "" when absent."""
    wanted = name.lower().encode("latin-1")
    for key, value in request.scope["headers"]:
        if key == wanted:
            try:
                return bytes(value).decode("utf-8")
            except UnicodeDecodeError:
                raise ApiError(400, f"Invalid request: the {name} header is not valid UTF-8") from None
    return ""


def credentials(request: Request, scheme: str) -> str | None:
    """The credentials of an ``Authorization: SCHEME CREDENTIALS`` header (the scheme in any
    case), None when the header is absent or names another scheme. Only an ASCII space ends
    the scheme: a scheme followed by another white space (NBSP, U+0085) is not this one."""
    given, _, rest = header_text(request, "authorization").partition(" ")
    return rest.strip() if given.lower() == scheme.lower() else None


async def _read_body(request: Request, limit: int, timeout: float) -> bytes:
    """The whole body: at most ``limit`` bytes, within ``timeout`` seconds (a client that
    trickles its body cannot hold a connection and its buffer for long)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    body = bytearray()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    chunks = request.stream().__aiter__()
    while True:
        try:  # (asyncio.timeout would do, from Python 3.11)
            chunk = await asyncio.wait_for(chunks.__anext__(), max(0.0, deadline - loop.time()))
        except StopAsyncIteration:
            break
        except asyncio.TimeoutError:
            raise ApiError(408, f"Request body not received within {timeout:g} s", _CLOSE) from None
        body += chunk
        if len(body) > limit:
            raise _too_large(limit)
    request.state.body_bytes = len(body)
    return bytes(body)


def _too_large(limit: int) -> ApiError:
    return ApiError(
        413, f"Request body too large: the limit is {limit} bytes; send fewer or shorter texts per request", _CLOSE
    )


async def off_loop(request: Request, work: Callable[..., _T], *args: Any) -> _T:
    """``work(*args)``, on a worker thread when the request's body is large (parsing and the
    per-text checks of a 2 MB body take tens of milliseconds the event loop owes to others)."""
    if getattr(request.state, "body_bytes", 0) > _OFFLOAD_BYTES:
        return await run_in_threadpool(work, *args)
    return work(*args)


class _FormLimits(NamedTuple):
    """What a form may hold: ``fields`` fields of at most ``field_bytes`` bytes each (the
    longest text a request may send, percent-escaped), checked before anything is decoded."""

    fields: int
    field_bytes: int


def _parse_body(body: bytes, kind: str, repeated: tuple[str, ...], limits: _FormLimits) -> Params:
    if kind == "application/json" or kind.endswith("+json"):
        return _json_object(body)
    if body.count(b"&") >= limits.fields:
        raise ApiError(400, f"Invalid request: more than {limits.fields} form fields")
    try:
        return _form(body.decode("utf-8"), repeated, limits.field_bytes)
    except UnicodeDecodeError:
        raise ApiError(400, "Invalid request: the form body is not valid UTF-8") from None


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _json_object(body: bytes) -> Params:
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise ApiError(400, "Invalid JSON format: the body is not valid UTF-8") from None
    except RecursionError:
        raise ApiError(400, "Invalid JSON format: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, NaN/Infinity, integers of > 4300 digits
        raise ApiError(400, f"Invalid JSON format: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "Invalid JSON format: the body must be a JSON object")
    return data


def _form(text: str, repeated: tuple[str, ...], field_bytes: int) -> Params:
    """urlencoded pairs; a repeated field becomes a list (given once it stays a string).
    Percent-escapes that do not decode as UTF-8 raise UnicodeDecodeError (no U+FFFD).

    Decoding escapes is a Python loop that holds the GIL; on this worker thread it would
    starve the event loop of a 2 MB form for ~0.1 s, so the interpreter is handed over
    after every :data:`_YIELD_BYTES` decoded (``time.sleep(0)`` releases the GIL)."""
    params: Params = {}
    decoded = 0
    for pair in text.split("&"):
        if not pair:
            continue
        if len(pair) > field_bytes:
            raise ApiError(
                400,
                f"Invalid request: a form field of {len(pair)} bytes is longer "
                f"than any text this server takes (--char-limit)",
            )
        name, _, raw = pair.partition("=")
        key = urllib.parse.unquote_plus(name, errors="strict")
        value = urllib.parse.unquote_plus(raw, errors="strict")
        decoded += len(pair)
        if decoded > _YIELD_BYTES:
            decoded = 0
            time.sleep(0)
        if key in repeated and key in params:
            params[key] = params[key] if isinstance(params[key], list) else [params[key]]
            params[key].append(value)
        else:
            params[key] = value
    return params


class _StrictMultiPartParser(MultiPartParser):
    """Starlette's multipart parser with each field's name and value decoded strictly in the
    part's charset (Starlette falls back to Latin-1: invalid UTF-8 became other characters)."""

    def on_part_end(self) -> None:
        if self._current_part.file is None:
            self._strict(self._current_part.data)
        super().on_part_end()

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self._current_part.content_disposition)
        self._strict(options.get(b"name", b""))
        super().on_headers_finished()

    def _strict(self, data: bytes | bytearray) -> None:
        try:
            bytes(data).decode(self._charset or "utf-8")
        except (UnicodeDecodeError, LookupError):
            raise MultiPartException(f"a multipart field is not valid {self._charset or 'utf-8'}") from None


async def _multipart(request: Request, body: bytes, repeated: tuple[str, ...]) -> Params:
    async def replay() -> AsyncGenerator[bytes, None]:
        yield body

    # Starlette's parser bounds parts (1 MB) and fields (1000).
    try:
        form = await _StrictMultiPartParser(Headers(scope=request.scope), replay()).parse()
    except MultiPartException as exc:
        raise ApiError(400, f"Invalid request: {exc.message}") from None
    params: Params = {key: value for key, value in form.items() if isinstance(value, str)}
    for key in repeated:
        values = [v for v in form.getlist(key) if isinstance(v, str)]
        if len(values) > 1:
            params[key] = values
    return params


def strict_bool(params: Params, name: str, param: str | None = None) -> bool:
    """A JSON boolean field (absent or null: false). A string such as ``"false"`` is refused
    rather than read as true."""
    value = params.get(name)
    if value is None or isinstance(value, bool):
        return bool(value)
    raise ApiError(
        400,
        f"Invalid request: '{name}' must be true or false (a JSON boolean), not {type(value).__name__}",
        param=param or name,
    )


def key_matches(given: object, expected: str) -> bool:
    """Whether a client's key is the server's (compared in constant time)."""
    return isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


def check_key(request: Request, params: Params, expected: str | None) -> None:
    """LibreTranslate's key check: 403 for a wrong key, 400 for a missing one, when the
    server has a key (``api_key``/``apiKey`` field or ``Authorization: Bearer``)."""
    given = string_field(params, "api_key") or string_field(params, "apiKey")  # typed with or without a key
    if not expected:
        return
    if not given:
        given = credentials(request, "Bearer")
    if not given:
        raise ApiError(400, "Please contact the server operator to get an API key (this server needs api_key)")
    if not key_matches(given, expected):
        raise ApiError(403, "Invalid API key")


async def unless_disconnected(request: Request, work: Awaitable[_T]) -> _T:
    """The result of ``work`` (queued or running engine work), or ClientGone once the client
    disconnects first: ``work`` is then cancelled, which takes its texts out of the queue and
    stops the engine call they are in (see :mod:`.batching`)."""
    task = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(_disconnect(request))
    try:
        await asyncio.wait({task, watch}, return_when=asyncio.FIRST_COMPLETED)
    finally:  # also when this handler itself is cancelled (server shutdown)
        watch.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    if task.cancelled():
        raise ClientGone()
    return task.result()


async def _disconnect(request: Request) -> None:
    """Returns when the client has disconnected (the body has been read already: the next
    ASGI message is the disconnect)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
