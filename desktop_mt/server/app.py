"""The FastAPI app: LibreTranslate's endpoints, the SSE stream, health and metrics.

Errors use LibreTranslate's shape ``{"error": message}``: 400 bad request (LibreTranslate's
messages, also for the per-text character limit and the list length), 403 wrong API key, 413
body over ``max_body_bytes``, 503 busy (with Retry-After), 500 engine failure.
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import json
import logging
import time
import urllib.parse
from typing import Callable, Optional

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from .. import __version__
from .batching import BatcherClosed, QueueFull
from .config import LOOPBACK_NAMES, ServerConfig, is_loopback
from .htmltext import HtmlDocument
from .languages import NAMES, canonical, detect
from .metrics import CONTENT_TYPE
from .service import TooManyStreams, TranslationService

log = logging.getLogger("desktop_mt.server")
ENDPOINTS = ("/translate", "/translate/stream", "/detect", "/languages", "/frontend/settings",
             "/health", "/metrics", "/deeplx/translate", "/v2/translate", "/v2/usage",
             "/v2/languages", "/v1/chat/completions", "/v1/models", "/v1/responses")


class ApiError(Exception):
    """An error answered as ``{"error": message}`` with ``status``."""

    def __init__(self, status: int, message: str, headers: Optional[dict] = None,
                 param: Optional[str] = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers
        self.param = param  # the request field at fault, where an API reports it (OpenAI)


def reshape_errors(shape: Callable[[ApiError], tuple[int, dict]]):
    """Route decorator for the other APIs (DeepL, DeepLX, OpenAI): an ApiError raised by the
    shared helpers is answered with ``shape(error)`` -> (status, body) instead of
    LibreTranslate's ``{"error": message}``."""
    def wrap(handler):
        @functools.wraps(handler)
        async def wrapped(request: Request):
            try:
                return await handler(request)
            except ApiError as exc:
                status, body = shape(exc)
                return JSONResponse(body, status, headers=exc.headers)
        return wrapped
    return wrap


def create_app(config: ServerConfig, translator=None) -> FastAPI:
    """The app for ``config``; ``translator`` None loads the configured model now."""
    if translator is None:
        translator = load_translator(config)
    service = TranslationService(translator, config)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        yield
        service.close()

    app = FastAPI(title="desktop-mt", version=__version__, lifespan=lifespan,
                  docs_url=None, redoc_url=None, openapi_url=None)
    app.state.service = service
    _add_middleware(app, config, service)
    _add_error_handlers(app)
    _add_translate_routes(app, service)
    _add_info_routes(app, service)
    from . import deepl_api, openai_api, openai_responses  # noqa: PLC0415 - they import us

    deepl_api.add_routes(app, service)
    openai_api.add_routes(app, service)
    openai_responses.add_routes(app, service)
    return app


def load_translator(config: ServerConfig):
    """The Translator the config names (raises DesktopMTError with a message naming the fix)."""
    from .. import SessionOptions, Translator

    return Translator(model_dir=config.model, variant=config.variant,
                      session_options=SessionOptions(intra_op_threads=config.threads,
                                                     provider=config.provider))


def _add_middleware(app: FastAPI, config: ServerConfig, service: TranslationService) -> None:
    if config.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(config.cors_origins),
                           allow_methods=["GET", "POST"],
                           allow_headers=["Content-Type", "Authorization"])
    if is_loopback(config.host):
        # A web page cannot reach a loopback server through a rebound DNS name.
        app.add_middleware(TrustedHostMiddleware,
                           allowed_hosts=list(LOOPBACK_NAMES) + ["[::1]"])
    app.add_middleware(_Observe, metrics=service.metrics)


class _Observe:
    """ASGI middleware: count and time each request and log one line without any user text
    (method, endpoint, status, sizes set by the handler, milliseconds)."""

    def __init__(self, app, metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started, status = time.perf_counter(), 500

        async def observe_send(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, observe_send)
        finally:
            seconds = time.perf_counter() - started
            endpoint = scope["path"] if scope["path"] in ENDPOINTS else "other"
            self.metrics.requests.labels(endpoint, str(status)).inc()
            self.metrics.latency.labels(endpoint).observe(seconds)
            sizes = scope.get("state", {}).get("sizes", "")
            log.info("%s %s %d %s%.1f ms", scope["method"], endpoint, status,
                     f"{sizes} " if sizes else "", seconds * 1000)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_request, exc: ApiError):
        return JSONResponse({"error": exc.message}, exc.status, headers=exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request, exc: StarletteHTTPException):
        return JSONResponse({"error": str(exc.detail)}, exc.status_code, headers=exc.headers)


# --- request parsing ---------------------------------------------------------------------

async def read_params(request: Request, limit: int, repeated: tuple[str, ...] = ("q",)) -> dict:
    """The request's parameters from a JSON, urlencoded or multipart body (and the query).

    In a form, a ``repeated`` field given more than once becomes a list (once: a string)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise _too_large(limit)
    params: dict = dict(request.query_params)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/json" or kind.endswith("+json"):
        params.update(_json_object(bytes(body)))
    elif kind == "multipart/form-data":
        params.update(await _multipart(request, bytes(body), repeated))
    elif body:
        params.update(_form(bytes(body).decode("utf-8", "replace"), repeated))
    request.state.body_bytes = len(body)
    return params


def _too_large(limit: int) -> ApiError:
    return ApiError(413, f"Request body too large: the limit is {limit} bytes; send fewer or "
                         f"shorter texts per request")


def _json_object(body: bytes) -> dict:
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApiError(400, f"Invalid JSON format: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "Invalid JSON format: the body must be a JSON object")
    return data


def _form(text: str, repeated: tuple[str, ...]) -> dict:
    """urlencoded pairs; a repeated field becomes a list (given once it stays a string)."""
    params: dict = {}
    for key, value in urllib.parse.parse_qsl(text, keep_blank_values=True):
        if key in repeated and key in params:
            params[key] = (params[key] if isinstance(params[key], list) else [params[key]])
            params[key].append(value)
        else:
            params[key] = value
    return params


async def _multipart(request: Request, body: bytes, repeated: tuple[str, ...]) -> dict:
    async def replay():
        return {"type": "http.request", "body": body, "more_body": False}

    form = await Request(request.scope, replay).form()
    params = {key: value for key, value in form.items() if isinstance(value, str)}
    for key in repeated:
        values = [v for v in form.getlist(key) if isinstance(v, str)]
        if len(values) > 1:
            params[key] = values
    return params


def check_key(request: Request, params: dict, expected: Optional[str]) -> None:
    """403 for a wrong key, 400 for a missing one, when the server has a key."""
    if not expected:
        return
    given = params.get("api_key") or params.get("apiKey")
    header = request.headers.get("authorization", "")
    if not given and header.lower().startswith("bearer "):
        given = header[7:].strip()
    if not given:
        raise ApiError(400, "Please contact the server operator to get an API key "
                            "(this server needs api_key)")
    if not key_matches(given, expected):
        raise ApiError(403, "Invalid API key")


def key_matches(given, expected: str) -> bool:
    """Whether a client's key is the server's (compared in constant time)."""
    return isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


def _texts(q) -> tuple[list[str], bool]:
    """``q`` as a list of texts and whether it was a list (LibreTranslate's "batch")."""
    if not q:
        raise ApiError(400, "Invalid request: missing q parameter")
    if isinstance(q, str):
        return [q], False
    if isinstance(q, list) and all(isinstance(item, str) for item in q):
        return list(q), True
    raise ApiError(400, "Invalid request: q must be a string or a list of strings")


def _required(params: dict, name: str) -> str:
    value = params.get(name)
    if value is None or not str(value).strip():
        raise ApiError(400, f"Invalid request: missing {name} parameter")
    return str(value).strip()


def _alternatives(value, limit: int) -> int:
    """LibreTranslate's ``alternatives``: a count, at most ``limit`` (its messages)."""
    try:
        count = max(0, int(value or 0))
    except (TypeError, ValueError):
        raise ApiError(400, "Invalid request: alternatives parameter is not a number") from None
    if count > limit:
        raise ApiError(400, f"Invalid request: alternatives parameter must be <= {limit}")
    return count


def _check_limits(texts: list[str], batch: bool, config: ServerConfig) -> None:
    """LibreTranslate's limits and messages (400): list length, then characters per text."""
    if batch and len(texts) > config.batch_limit:
        raise ApiError(400, f"Invalid request: request ({len(texts)}) exceeds text limit "
                            f"({config.batch_limit})")
    for text in texts:
        if len(text) > config.char_limit:
            raise ApiError(400, f"Invalid request: request ({len(text)}) exceeds text limit "
                                f"({config.char_limit})")


class TranslateRequest:
    """A validated ``/translate`` request."""

    def __init__(self, params: dict, service: TranslationService) -> None:
        self.texts, self.batch = _texts(params.get("q"))
        source, target = _required(params, "source"), _required(params, "target")
        self.alternatives = _alternatives(params.get("alternatives"),
                                          service.config.alternatives_limit)
        _check_limits(self.texts, self.batch, service.config)
        self.detected = detect(self.texts)[0] if source == "auto" else None
        language = self.detected["language"] if self.detected else canonical(source)
        if language != service.languages.source:
            raise ApiError(400, f"{language} is not supported" + (
                " (detected in the text; this model translates from "
                f"{NAMES.get(service.languages.source, service.languages.source)})"
                if self.detected else ""))
        self.target = service.languages.target(target)
        if self.target is None:
            raise ApiError(400, f"{target} is not supported")
        self.format = str(params.get("format") or "text")
        if self.format not in ("text", "html"):
            raise ApiError(400, f"{self.format} format is not supported")

    @property
    def sizes(self) -> str:
        """For the log line: counts only, never the text."""
        return f"texts={len(self.texts)} chars={sum(len(t) for t in self.texts)}"

    def response(self, outputs: list[str], alternatives: Optional[list[list[str]]] = None) -> dict:
        """LibreTranslate's response body for ``outputs`` (one per text) and, when asked for,
        each text's ``alternatives`` (other translations; none given: empty lists)."""
        body: dict = {"translatedText": outputs if self.batch else outputs[0]}
        if self.detected is not None:
            body["detectedLanguage"] = [self.detected] * len(outputs) if self.batch \
                else self.detected
        if self.alternatives > 0:
            others = alternatives or [[] for _ in outputs]
            body["alternatives"] = others if self.batch else others[0]
        return body


async def translate_texts(service: TranslationService, texts: list[str], target: str):
    """Batched translation with the busy/failure cases mapped to API errors."""
    from ..errors import DesktopMTError

    try:
        return await service.translate(texts, target)
    except QueueFull as exc:
        service.metrics.rejected.labels("queue_full").inc()
        raise busy(f"Server busy: {exc}; retry later", service) from None
    except BatcherClosed as exc:
        raise busy(f"Server busy: {exc}", service) from None
    except (DesktopMTError, ValueError, RuntimeError) as exc:
        log.error("translation failed: %s", type(exc).__name__)
        raise ApiError(500, f"Cannot translate text: {exc}") from None


def busy(message: str, service: TranslationService) -> ApiError:
    return ApiError(503, message, headers={"Retry-After": str(service.config.retry_after_s)})


async def translate_nbest(service: TranslationService, texts: list[str], target: str,
                          others: int) -> tuple[list[str], list[list[str]]]:
    """Each text's translation and up to ``others`` different ones, from one n-best search
    per text (as LibreTranslate: the best hypothesis is the translation, the next distinct
    ones its alternatives). Busy and failure cases are API errors, as for translate_texts."""
    from ..errors import DesktopMTError

    try:
        found = await service.nbest(texts, others + 1, target)
    except TooManyStreams as exc:
        service.metrics.rejected.labels("nbest").inc()
        raise busy(f"Server busy: {exc}; retry later", service) from None
    except (DesktopMTError, ValueError, RuntimeError) as exc:
        log.error("n-best search failed: %s", type(exc).__name__)
        raise ApiError(500, f"Cannot translate text: {exc}") from None
    firsts = [texts[0] if texts else "" for texts in found]
    return firsts, [[t for t in texts[1:] if t != first][:others]
                    for texts, first in zip(found, firsts)]


def open_stream(service: TranslationService, text: str, target: str):
    """A running generation of ``text`` (503 ApiError when every stream slot is taken)."""
    try:
        return service.open_stream(text, target)
    except TooManyStreams as exc:
        service.metrics.rejected.labels("streams").inc()
        raise busy(f"Server busy: {exc}; retry later", service) from None


async def _outputs(service: TranslationService, req: TranslateRequest) -> list[str]:
    if req.format == "text":
        return await translate_texts(service, req.texts, req.target)
    return await translate_html(service, req.texts, req.target)


async def translate_html(service: TranslationService, texts: list[str], target: str) -> list[str]:
    """HTML documents translated run by run (tags kept; see :mod:`.htmltext`), one engine call."""
    documents = [HtmlDocument(text) for text in texts]
    runs = [run for document in documents for run in document.texts]
    translated = await translate_texts(service, runs, target) if runs else []
    outputs, position = [], 0
    for document in documents:
        outputs.append(document.render(translated[position:position + len(document.texts)]))
        position += len(document.texts)
    return outputs


def _sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def _stream_events(stream, req: TranslateRequest):
    """SSE body: ``delta`` events, then ``done`` (or ``error``). Leaving cancels."""
    parts: list[str] = []
    try:
        async for kind, payload in stream.events():
            if kind == "delta":
                parts.append(payload)
                yield _sse("delta", {"text": payload})
            elif kind == "done":
                done = {"translatedText": "".join(parts), "segments": payload.segments,
                        "tokens": payload.tokens, "seconds": round(payload.seconds, 4),
                        "tokensPerSecond": round(payload.tokens_per_second, 1)}
                if req.detected is not None:
                    done["detectedLanguage"] = req.detected
                yield _sse("done", done)
            else:
                yield _sse("error", {"error": payload})
    finally:  # also on a client disconnect (the response task is cancelled)
        stream.cancel()


def _add_translate_routes(app: FastAPI, service: TranslationService) -> None:
    from . import deepl_api  # noqa: PLC0415 - it imports this module's helpers

    config = service.config

    def parse(request: Request, params: dict) -> TranslateRequest:
        check_key(request, params, config.api_key)
        req = TranslateRequest(params, service)
        request.state.sizes = req.sizes  # for the log line
        return req

    @app.post("/translate")
    async def translate(request: Request):
        params = await read_params(request, config.max_body_bytes)
        if deepl_api.is_deeplx(params):  # DeepLX's body (text, target_lang) has no q
            return await deepl_api.deeplx_answer(request, params, service)
        req = parse(request, params)
        if req.alternatives > 0 and req.format == "text":  # LibreTranslate: none for html
            return JSONResponse(req.response(*await translate_nbest(
                service, req.texts, req.target, req.alternatives)))
        return JSONResponse(req.response(await _outputs(service, req)))

    @app.post("/translate/stream")
    async def translate_stream(request: Request):
        req = parse(request, await read_params(request, config.max_body_bytes))
        if req.batch:
            raise ApiError(400, "Invalid request: /translate/stream takes one text (q a string)")
        if req.format != "text":
            raise ApiError(400, f"{req.format} format is not supported by /translate/stream")
        stream = open_stream(service, req.texts[0], req.target)
        return StreamingResponse(_stream_events(stream, req), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})


def _add_info_routes(app: FastAPI, service: TranslationService) -> None:
    config = service.config

    @app.post("/detect")
    async def detect_language(request: Request):
        params = await read_params(request, config.max_body_bytes)
        check_key(request, params, config.api_key)
        texts, batch = _texts(params.get("q"))
        _check_limits(texts, batch, config)
        return JSONResponse(detect(texts))

    @app.get("/languages")
    async def languages():
        return JSONResponse(service.languages.listing())

    @app.get("/frontend/settings")
    async def frontend_settings():
        return JSONResponse(_frontend_settings(service))

    @app.get("/health")
    async def health():
        info = service.translator.model_info
        return JSONResponse({"status": "ok", "model": info.name,
                             "variant": service.translator.variant,
                             "queuedTexts": service.batcher.queued_texts})

    @app.get("/metrics")
    async def metrics(request: Request):
        check_key(request, dict(request.query_params), config.api_key)
        service.metrics.queue_texts.set(service.batcher.queued_texts)
        return Response(service.metrics.render(), media_type=CONTENT_TYPE)


def _frontend_settings(service: TranslationService) -> dict:
    table, config = service.languages, service.config
    target = table.targets[0]
    return {"charLimit": config.char_limit, "frontendTimeout": 500,
            "apiKeys": bool(config.api_key), "keyRequired": bool(config.api_key),
            "suggestions": False, "filesTranslation": False, "supportedFilesFormat": [],
            "language": {"source": {"code": table.source,
                                    "name": NAMES.get(table.source, table.source)},
                         "target": {"code": target, "name": NAMES.get(target, target)}}}
