"""The FastAPI app: LibreTranslate's endpoints, the SSE stream, health and metrics, and the
DeepL, DeepLX and OpenAI-shaped routes (:mod:`.deepl_api`, :mod:`.openai_api`,
:mod:`.openai_responses`).

Errors use each API's shape (:mod:`.errors`); LibreTranslate's is ``{"error": message}``: 400
bad request (LibreTranslate's messages, also for the per-text character limit and the list
length), 403 wrong API key, 408 body too slow, 413 body over ``max_body_bytes``, 503 busy (with
Retry-After), 500 engine failure. Every exception ends as JSON in the endpoint's shape, in
one place: the handlers registered by :func:`_add_error_handlers` for ApiError and
Starlette's HTTP errors, and :class:`.guard.Guard` (a middleware inside Starlette's
ServerErrorMiddleware, which would answer text/plain and re-raise) for anything else.

Imports point down: this module imports the route modules, they import :mod:`.requests`,
:mod:`.calls` and :mod:`.errors`, never this module.
"""

from __future__ import annotations

import contextlib
import json
import logging

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from . import deepl_api, openai_api, openai_responses
from .calls import open_stream, translate_html, translate_nbest, translate_texts
from .config import CORS_HEADERS, ServerConfig, cors_origins, is_loopback
from .errors import ApiError, error_response
from .guard import Guard, JsonCORSMiddleware
from .languages import NAMES, canonical, detect
from .metrics import CONTENT_TYPE
from .openapi import describe
from .requests import check_key, off_loop, read_params, unless_disconnected
from .service import TranslationService

log = logging.getLogger("desktop_mt.server")
ENDPOINTS = (
    "/translate",
    "/translate/stream",
    "/detect",
    "/languages",
    "/frontend/settings",
    "/health",
    "/metrics",
    "/deeplx/translate",
    "/v2/translate",
    "/v2/usage",
    "/v2/languages",
    "/v1/chat/completions",
    "/v1/models",
    "/v1/responses",
    "/openapi.json",
)


def create_app(config: ServerConfig, translator=None) -> FastAPI:
    """The app for ``config``; ``translator`` None loads the configured model now."""
    if translator is None:
        translator = load_translator(config)
    service = TranslationService(translator, config)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        yield
        service.close()

    app = FastAPI(
        title="desktop-mt",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.state.service = service
    _add_middleware(app, config, service)
    _add_error_handlers(app)
    _add_translate_routes(app, service)
    _add_info_routes(app, service)
    deepl_api.add_routes(app, service)
    openai_api.add_routes(app, service)
    openai_responses.add_routes(app, service)
    describe(app)
    return app


def load_translator(config: ServerConfig):
    """The Translator the config names (raises DesktopMTError with a message naming the fix)."""
    from .. import SessionOptions, Translator

    return Translator(
        model_dir=config.model,
        variant=config.variant,
        session_options=SessionOptions(intra_op_threads=config.threads, provider=config.provider),
    )


def _add_middleware(app: FastAPI, config: ServerConfig, service: TranslationService) -> None:
    origins = cors_origins(config)
    if origins:  # preflight OPTIONS answered by the middleware for these origins only
        app.add_middleware(
            JsonCORSMiddleware,
            allow_origins=origins,
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=list(CORS_HEADERS),
            max_age=600,
        )
    # Outermost (added last): the Host check, the last word on errors, the log line.
    app.add_middleware(Guard, metrics=service.metrics, endpoints=ENDPOINTS, check_host=is_loopback(config.host))


def _add_error_handlers(app: FastAPI) -> None:
    """The one place that maps exceptions to each endpoint's documented error shape."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError):
        return error_response(exc, request.url.path)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):  # 404, 405, multipart
        return error_response(ApiError(exc.status_code, str(exc.detail), dict(exc.headers or {})), request.url.path)


# --- LibreTranslate's parameters ---------------------------------------------------------


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
    except (TypeError, ValueError, OverflowError):  # OverflowError: 1e400 is infinite
        raise ApiError(400, "Invalid request: alternatives parameter is not a number") from None
    if count > limit:
        raise ApiError(400, f"Invalid request: alternatives parameter must be <= {limit}")
    return count


def _check_limits(texts: list[str], batch: bool, config: ServerConfig) -> None:
    """LibreTranslate's limits and messages (400): list length, then characters per text."""
    if batch and len(texts) > config.batch_limit:
        raise ApiError(400, f"Invalid request: request ({len(texts)}) exceeds text limit ({config.batch_limit})")
    for text in texts:
        if len(text) > config.char_limit:
            raise ApiError(400, f"Invalid request: request ({len(text)}) exceeds text limit ({config.char_limit})")


class TranslateRequest:
    """A validated ``/translate`` request."""

    def __init__(self, params: dict, service: TranslationService) -> None:
        self.texts, self.batch = _texts(params.get("q"))
        source, target = _required(params, "source"), _required(params, "target")
        self.alternatives = _alternatives(params.get("alternatives"), service.config.alternatives_limit)
        _check_limits(self.texts, self.batch, service.config)
        self.detected = detect(self.texts)[0] if source == "auto" else None
        language = self.detected["language"] if self.detected else canonical(source)
        if language != service.languages.source:
            raise ApiError(
                400,
                f"{language} is not supported"
                + (
                    " (detected in the text; this model translates from "
                    f"{NAMES.get(service.languages.source, service.languages.source)})"
                    if self.detected
                    else ""
                ),
            )
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

    def response(self, outputs: list[str], alternatives: list[list[str]] | None = None) -> dict:
        """LibreTranslate's response body for ``outputs`` (one per text) and, when asked for,
        each text's ``alternatives`` (other translations; none given: empty lists)."""
        body: dict = {"translatedText": outputs if self.batch else outputs[0]}
        if self.detected is not None:
            body["detectedLanguage"] = [self.detected] * len(outputs) if self.batch else self.detected
        if self.alternatives > 0:
            others = alternatives or [[] for _ in outputs]
            body["alternatives"] = others if self.batch else others[0]
        return body


async def _outputs(service: TranslationService, req: TranslateRequest) -> list[str]:
    if req.format == "text":
        return await translate_texts(service, req.texts, req.target)
    return await translate_html(service, req.texts, req.target)


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
                done = {
                    "translatedText": "".join(parts),
                    "segments": payload.segments,
                    "tokens": payload.tokens,
                    "seconds": round(payload.seconds, 4),
                    "tokensPerSecond": round(payload.tokens_per_second, 1),
                }
                if req.detected is not None:
                    done["detectedLanguage"] = req.detected
                yield _sse("done", done)
            else:
                yield _sse("error", {"error": payload})
    finally:  # also on a client disconnect (the response task is cancelled)
        stream.cancel()


def _add_translate_routes(app: FastAPI, service: TranslationService) -> None:
    config = service.config

    async def parse(request: Request) -> tuple[dict, TranslateRequest | None]:
        """The parameters and, unless they are DeepLX's, the checked request."""
        params = await read_params(request, config)
        if deepl_api.is_deeplx(params):  # DeepLX's body (text, target_lang) has no q
            return params, None
        check_key(request, params, config.api_key)
        req = await off_loop(request, TranslateRequest, params, service)  # detection: CPU
        request.state.sizes = req.sizes  # for the log line
        return params, req

    @app.post("/translate")
    async def translate(request: Request):
        params, req = await parse(request)
        if req is None:
            return await deepl_api.deeplx_answer(request, params, service)
        if req.alternatives > 0 and req.format == "text":  # LibreTranslate: none for html
            return JSONResponse(
                req.response(
                    *await unless_disconnected(
                        request, translate_nbest(service, req.texts, req.target, req.alternatives)
                    )
                )
            )
        return JSONResponse(req.response(await unless_disconnected(request, _outputs(service, req))))

    @app.post("/translate/stream")
    async def translate_stream(request: Request):
        _params, req = await parse(request)
        if req is None:
            raise ApiError(400, "Invalid request: missing q parameter")
        if req.batch:
            raise ApiError(400, "Invalid request: /translate/stream takes one text (q a string)")
        if req.format != "text":
            raise ApiError(400, f"{req.format} format is not supported by /translate/stream")
        stream = open_stream(service, req.texts[0], req.target)
        return StreamingResponse(
            _stream_events(stream, req), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
        )


def _add_info_routes(app: FastAPI, service: TranslationService) -> None:
    config = service.config

    @app.post("/detect")
    async def detect_language(request: Request):
        params = await read_params(request, config)
        check_key(request, params, config.api_key)
        texts, batch = _texts(params.get("q"))
        _check_limits(texts, batch, config)
        # Up to --batch-limit x --char-limit characters to classify: off the event loop.
        return JSONResponse(await off_loop(request, detect, texts))

    @app.get("/languages")
    async def languages():
        return JSONResponse(service.languages.listing())

    @app.get("/frontend/settings")
    async def frontend_settings():
        return JSONResponse(_frontend_settings(service))

    @app.get("/health")
    async def health():
        info = service.translator.model_info
        return JSONResponse(
            {
                "status": "ok",
                "model": info.name,
                "variant": service.translator.variant,
                "queuedTexts": service.batcher.queued_texts,
            }
        )

    @app.get("/metrics")
    async def metrics(request: Request):
        check_key(request, dict(request.query_params), config.api_key)
        service.metrics.queue_texts.set(service.batcher.queued_texts)
        return Response(service.metrics.render(), media_type=CONTENT_TYPE)


def _frontend_settings(service: TranslationService) -> dict:
    table, config = service.languages, service.config
    target = table.targets[0]
    return {
        "charLimit": config.char_limit,
        "frontendTimeout": 500,
        "apiKeys": bool(config.api_key),
        "keyRequired": bool(config.api_key),
        "suggestions": False,
        "filesTranslation": False,
        "supportedFilesFormat": [],
        "language": {
            "source": {"code": table.source, "name": NAMES.get(table.source, table.source)},
            "target": {"code": target, "name": NAMES.get(target, target)},
        },
    }
