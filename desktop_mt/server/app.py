"""The FastAPI app: health and metrics, and the routes of the APIs it speaks, each in its module:
LibreTranslate's with the SSE stream (:mod:`.libretranslate_api`), DeepL's and DeepLX's
(:mod:`.deepl_api`), OpenAI's (:mod:`.openai_api`, :mod:`.openai_responses`).

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
import logging
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..app.factory import build_translator
from ..engine.direction import DIRECTIONS
from ..engine.options import SessionOptions
from ..tm.store import TranslationMemory
from . import deepl_api, libretranslate_api, openai_api, openai_responses
from .config import CORS_HEADERS, ServerConfig, cors_origins, is_loopback
from .connections import DRAIN_STATE
from .errors import ApiError, error_response
from .guard import Guard, JsonCORSMiddleware
from .memory import MemoryHeader, open_memory
from .metrics import CONTENT_TYPE
from .openapi import describe
from .requests import check_key, query_params
from .service import ServedTranslator, TranslationService

__all__ = [
    "create_app",
]

_logger = logging.getLogger("desktop_mt.server")
_ENDPOINTS = (
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


def create_app(
    config: ServerConfig,
    translator: ServedTranslator | None = None,
    memory: TranslationMemory | None = None,
    confirmed_only: bool = False,
) -> FastAPI:
    """The app for ``config``; ``translator`` None loads the configured models now (one per
    direction, ``app.factory.build_translator``); ``memory`` None opens ``config.tm`` when
    it is set (the translation memory is off by default). ``confirmed_only``: take only the
    memory's approved or imported matches, never an unapproved edit (the window's Local API)."""
    if memory is None and config.tm is not None:
        memory = open_memory(config.tm)
    if translator is None:
        translator = _load_translator(config)
    service = TranslationService(translator, config, memory, confirmed_only)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[dict[str, object]]:
        # The drain hook for the protocol's shutdown() (.connections), through the lifespan
        # state uvicorn shares with its protocols.
        yield {DRAIN_STATE: service.drain}
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
    libretranslate_api.add_routes(app, service)
    _add_service_routes(app, service)
    deepl_api.add_routes(app, service)
    openai_api.add_routes(app, service)
    openai_responses.add_routes(app, service)
    describe(app)
    return app


def _load_translator(config: ServerConfig) -> ServedTranslator:
    """The two-way translator the config names (raises DesktopMTError with a message naming the fix)."""
    return build_translator(
        list(config.model_choices) or None,
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
    if service.memory_enabled:  # X-Desktop-MT-Memory: what of each answer the memory gave
        app.add_middleware(MemoryHeader)
    # Outermost (added last): the Host check, the last word on errors, the log line.
    app.add_middleware(Guard, metrics=service.metrics, endpoints=_ENDPOINTS, check_host=is_loopback(config.host))


def _add_error_handlers(app: FastAPI) -> None:
    """The one place that maps exceptions to each endpoint's documented error shape."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> Response:
        return error_response(exc, request.url.path)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:  # 404, 405, multipart
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # Starlette names the methods of the first route of the path only
            headers["Allow"] = ", ".join(_allowed_methods(app, request.url.path))
        return error_response(ApiError(exc.status_code, str(exc.detail), headers), request.url.path)


def _allowed_methods(app: FastAPI, path: str) -> list[str]:
    """The methods the routes of ``path`` answer (a 405's ``Allow``), as /openapi.json lists
    them (HEAD, which Starlette adds to each GET route, is not an operation of the API)."""
    methods = {
        method
        for route in app.routes
        if getattr(route, "path", None) == path
        for method in getattr(route, "methods", None) or ()
    }
    return sorted(methods - {"HEAD"})


def _add_service_routes(app: FastAPI, service: TranslationService) -> None:
    """``/health`` and ``/metrics``: this server's own, beside the APIs it speaks."""
    config = service.config

    @app.get("/health")
    async def health() -> Response:
        translator = service.translator
        return JSONResponse(
            {
                "status": "ok",
                "model": translator.model_info.name,
                "models": {d: info.name for d, info in translator.model_infos.items()},
                "missing": {d: translator.missing.get(d, "") for d in DIRECTIONS if d not in translator.directions},
                "translationMemory": service.memory_enabled,
                "variant": translator.variant,
                "queuedTexts": service.batcher.queued_texts,
            }
        )

    @app.get("/metrics")
    async def metrics(request: Request) -> Response:
        check_key(request, query_params(request), config.api_key)
        service.metrics.queue_texts.set(service.batcher.queued_texts)
        return Response(service.metrics.render(), media_type=CONTENT_TYPE)
