"""LibreTranslate's API: ``/translate`` (plain, HTML, with alternatives), ``/translate/stream``
(SSE), ``/detect``, ``/languages`` and ``/frontend/settings``, with LibreTranslate's parameters,
limits and 400 messages (:class:`TranslateRequest` checks a request). Beside :mod:`.deepl_api`
and :mod:`.openai_api`; :func:`add_routes` registers them on the app :mod:`.app` builds. A
DeepLX body posted to ``/translate`` is answered by :mod:`.deepl_api`.

Below :mod:`.app`, as the other route modules: it imports :mod:`.requests`, :mod:`.calls` and
:mod:`.errors`, never the app.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from ..engine.events import TranslationStats
from . import deepl_api
from .calls import open_stream, translate_html, translate_nbest, translate_texts
from .config import ServerConfig
from .errors import ApiError
from .languages import NAMES, Target, canonical, detect, detect_each, language_of
from .memory import whole_from_memory
from .requests import Params, check_key, off_loop, read_params, string_field, unless_disconnected
from .service import Stream, TranslationService

__all__ = [
    "add_routes",
    "TranslateRequest",
]


def add_routes(app: FastAPI, service: TranslationService) -> None:
    """LibreTranslate's endpoints on ``app``."""
    _add_translate_routes(app, service)
    _add_info_routes(app, service)


# --- LibreTranslate's parameters ---------------------------------------------------------


def _texts(q: object) -> tuple[list[str], bool]:
    """``q`` as a list of texts and whether it was a list (LibreTranslate's "batch")."""
    if not q:
        raise ApiError(400, "Invalid request: missing q parameter")
    if isinstance(q, str):
        return [q], False
    if isinstance(q, list) and all(isinstance(item, str) for item in q):
        return list(q), True
    raise ApiError(400, "Invalid request: q must be a string or a list of strings")


def _required(params: Params, name: str) -> str:
    value = string_field(params, name)
    if value is None or not value.strip():
        raise ApiError(400, f"Invalid request: missing {name} parameter")
    return value.strip()


def _alternatives(value: Any, limit: int) -> int:
    """LibreTranslate's ``alternatives``: a count, at most ``limit`` (its messages); an
    integer, or its digits in a form; absent or null: 0."""
    if value is None:
        return 0
    # A boolean, list or object is no count (``int(value or 0)`` read them as 0 or 1); nor is
    # 1.5 or 1e400 (infinite), as LibreTranslate's int() of the text refuses them.
    whole = isinstance(value, (int, str)) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not whole:
        raise ApiError(400, "Invalid request: alternatives parameter is not a number")
    try:
        count = int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: 1e400 is infinite
        raise ApiError(400, "Invalid request: alternatives parameter is not a number") from None
    if count < 0:
        raise ApiError(400, "Invalid request: alternatives parameter must be >= 0")
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
    """A validated ``/translate`` request: its texts, where they go (``target``) and, for
    ``source=auto``, the language detected in them."""

    def __init__(self, params: Params, service: TranslationService) -> None:
        self.texts, self.batch = _texts(params.get("q"))
        source, target = _required(params, "source"), _required(params, "target")
        self.alternatives = _alternatives(params.get("alternatives"), service.config.alternatives_limit)
        _check_limits(self.texts, self.batch, service.config)
        table = service.languages
        found = table.target(target)
        if found is None:
            raise ApiError(400, f"{target} is not supported")
        self.target: Target = found
        # source=auto: each text's language (the engine routes each sentence by the same rule)
        self.detected = detect_each(self.texts) if source == "auto" else None
        if self.detected is not None:
            found_other = next((str(d["language"]) for d in self.detected if d["language"] not in ("en", "zh")), None)
            if found_other:
                raise ApiError(
                    400,
                    f"{found_other} is not supported (detected in the text; "
                    "this server translates English and Chinese)",
                )
        else:
            language = language_of(canonical(source))
            if language not in ("en", "zh"):
                raise ApiError(400, f"{canonical(source)} is not supported")
            if language == self.target.language:
                raise ApiError(400, f"{target} is not supported as a target for {source}: they are the same language")
        problem = table.unavailable(self.target)
        if problem:
            raise ApiError(400, problem)
        self.format = string_field(params, "format") or "text"
        if self.format not in ("text", "html"):
            raise ApiError(400, f"{self.format} format is not supported")

    @property
    def sizes(self) -> str:
        """For the log line: counts only, never the text."""
        return f"texts={len(self.texts)} chars={sum(len(t) for t in self.texts)}"

    def response(self, outputs: list[str], alternatives: list[list[str]] | None = None) -> dict[str, object]:
        """LibreTranslate's response body for ``outputs`` (one per text) and, when asked for,
        each text's ``alternatives`` (other translations; none given: empty lists)."""
        body: dict[str, object] = {"translatedText": outputs if self.batch else outputs[0]}
        if self.detected is not None:
            body["detectedLanguage"] = self.detected if self.batch else self.detected[0]
        if self.alternatives > 0:
            others = alternatives or [[] for _ in outputs]
            body["alternatives"] = others if self.batch else others[0]
        if any(hasattr(o, "from_memory") for o in outputs):  # answered through the memory (--tm)
            flags = [whole_from_memory(o) for o in outputs]
            body["fromMemory"] = flags if self.batch else flags[0]
        return body


async def _outputs(service: TranslationService, req: TranslateRequest) -> list[str]:
    if req.format == "text":
        return await translate_texts(service, req.texts, req.target)
    return await translate_html(service, req.texts, req.target)


def _sse(event: str, data: dict[str, object]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def _stream_events(stream: Stream, req: TranslateRequest) -> AsyncIterator[str]:
    """SSE body: ``delta`` events, then ``done`` (or ``error``). Leaving cancels."""
    parts: list[str] = []
    try:
        async for kind, payload in stream.events():
            if kind == "delta":
                assert isinstance(payload, str)
                parts.append(payload)
                yield _sse("delta", {"text": payload})
            elif kind == "done":
                assert isinstance(payload, TranslationStats)
                done: dict[str, object] = {
                    "translatedText": "".join(parts),
                    "segments": payload.segments,
                    "tokens": payload.tokens,
                    "seconds": round(payload.seconds, 4),
                    "tokensPerSecond": round(payload.tokens_per_second, 1),
                }
                if req.detected is not None:
                    done["detectedLanguage"] = req.detected[0]
                yield _sse("done", done)
            else:
                yield _sse("error", {"error": payload})
    finally:  # also on a client disconnect (the response task is cancelled)
        stream.cancel()


def _add_translate_routes(app: FastAPI, service: TranslationService) -> None:
    config = service.config

    async def parse(request: Request) -> tuple[Params, TranslateRequest | None]:
        """The parameters and, unless they are DeepLX's, the checked request."""
        params = await read_params(request, config)
        if deepl_api.is_deeplx(params):  # DeepLX's body (text, target_lang) has no q
            return params, None
        check_key(request, params, config.api_key)
        req = await off_loop(request, TranslateRequest, params, service)  # detection: CPU
        request.state.sizes = req.sizes  # for the log line
        return params, req

    @app.post("/translate")
    async def translate(request: Request) -> Response:
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
    async def translate_stream(request: Request) -> Response:
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
    """``/detect``, ``/languages`` and ``/frontend/settings`` (what LibreTranslate's web page reads)."""
    config = service.config

    @app.post("/detect")
    async def detect_language(request: Request) -> Response:
        params = await read_params(request, config)
        check_key(request, params, config.api_key)
        texts, batch = _texts(params.get("q"))
        _check_limits(texts, batch, config)
        # Up to --batch-limit x --char-limit characters to classify: off the event loop.
        return JSONResponse(await off_loop(request, detect, texts))

    @app.get("/languages")
    async def languages() -> Response:
        return JSONResponse(service.languages.listing())

    @app.get("/frontend/settings")
    async def frontend_settings() -> Response:
        return JSONResponse(_frontend_settings(service))


def _frontend_settings(service: TranslationService) -> dict[str, object]:
    table, config = service.languages, service.config
    source = next(code for code in ("en", "zh-Hans") if table.targets_of(code))
    target = table.targets_of(source)[0]
    return {
        "charLimit": config.char_limit,
        "frontendTimeout": 500,
        "apiKeys": bool(config.api_key),
        "keyRequired": bool(config.api_key),
        "suggestions": False,
        "filesTranslation": False,
        "supportedFilesFormat": [],
        "language": {
            "source": {"code": source, "name": NAMES.get(source, source)},
            "target": {"code": target, "name": NAMES.get(target, target)},
        },
    }
