"""An OpenAI-compatible ``POST /v1/chat/completions`` (and ``GET /v1/models``) that translates.

Translator apps (Pot, Easydict, Bob) that can use "any OpenAI-compatible API" send a
translation prompt; :mod:`.prompts` takes the text out of the last user message and the target
out of the prompt: Chinese (Simplified, or Traditional when the prompt or a model name
containing ``hant`` says so) or English. A message that names no target goes into the other
language: English into Chinese, Chinese into English (``engine.direction.paragraph_language``).
The answer is a ``chat.completion``, or with ``"stream": true`` Server-Sent
Events of ``chat.completion.chunk`` objects carrying the engine's text deltas, ending with
``data: [DONE]`` (``stream_options.include_usage`` adds a usage chunk with the engine's token
counts). Batched answers go through the same queue as ``/translate``; streams take a stream
slot. Errors: OpenAI's ``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from ..engine import direction
from ..engine.events import TranslationStats
from . import compat, prompts
from .calls import open_stream, translate_texts
from .errors import ApiError, openai_shape
from .languages import ENGLISH, SIMPLIFIED, TRADITIONAL
from .requests import (
    PROMPT_ROOM,
    Params,
    credentials,
    header_text,
    key_matches,
    off_loop,
    read_params,
    strict_bool,
    string_field,
    unless_disconnected,
)
from .service import Stream, TranslationService

__all__ = [
    "MODEL",
    "bad_request",
    "check_openai_key",
    "ROLES",
    "check_messages",
    "text_parts",
    "TranslationRequest",
    "ChatRequest",
    "engine_events",
    "add_routes",
    "answer",
]

MODEL = "desktop-mt"
_TRADITIONAL_MODEL = "desktop-mt-hant"


def bad_request(message: str, param: str) -> ApiError:
    """A 400 that names the request field at fault."""
    return ApiError(400, message, param=param)


def check_openai_key(request: Request, expected: str | None) -> None:
    """``Authorization: Bearer KEY`` (or Azure-style ``api-key: KEY``) when the server has a
    key; without one any key is accepted (the apps insist on entering something)."""
    if not expected:
        return
    given = credentials(request, "Bearer")
    if given is None:
        given = header_text(request, "api-key")
    if not key_matches(given, expected):
        raise ApiError(
            401,
            "Incorrect API key provided: use the key desktop-mt serve was "
            "started with (--api-key / DESKTOP_MT_API_KEY)",
        )


ROLES = ("system", "developer", "user", "assistant", "tool")
"""The message roles OpenAI's API takes (only the last user message is translated; the
others, a translation app's system prompt included, are read as context and left)."""


def check_messages(items: object, param: str) -> list[dict[str, Any]]:
    """``items`` (``messages``, or ``input`` as a list) checked as OpenAI checks them: a
    non-empty list of objects, each with a role of :data:`ROLES` and its content a string or a
    list of content parts (objects with a string ``type``, and ``text`` a string where given);
    400 naming ``param`` and the message's index otherwise."""
    if not isinstance(items, list) or not items:
        raise bad_request(f"'{param}' must be a non-empty list of messages", param)
    for index, item in enumerate(items):
        if not isinstance(item, dict) or item.get("role") not in ROLES:
            raise bad_request(f"{param}[{index}] must be an object with a role of: {', '.join(ROLES)}", param)
        content = item.get("content")
        if not isinstance(content, str) and not (isinstance(content, list) and all(map(_is_part, content))):
            raise bad_request(
                f"{param}[{index}].content must be a string or a list of content parts "
                "(objects with a string 'type' and a string 'text')",
                param,
            )
    return items


def _is_part(part: object) -> bool:
    return (
        isinstance(part, dict)
        and isinstance(part.get("type"), str)
        and ("text" not in part or isinstance(part["text"], str))
    )


def text_parts(parts: list[Any], kinds: tuple[str, ...], param: str) -> str:
    """The text of a list of content parts: those of a type in ``kinds``, whose ``text`` must
    be a string (400 naming ``param`` otherwise)."""
    texts = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") in kinds:
            text = part.get("text")
            if not isinstance(text, str):
                raise bad_request(f"a {part.get('type')} content part needs 'text' as a string", param)
            texts.append(text)
    return "".join(texts)


def _content(message: object) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        content = text_parts(content, ("text",), "messages")
    if not isinstance(content, str):
        raise bad_request("the last user message has no text content", "messages")
    return content


class TranslationRequest:
    """What an OpenAI-shaped request asks for: the text (its prompt taken off), the target,
    the model name to echo and whether to stream. ``param`` names the field errors point at."""

    def __init__(self, params: Params, user_text: str, service: TranslationService, param: str = "messages") -> None:
        self.model = string_field(params, "model") or MODEL
        self.stream = strict_bool(params, "stream")
        self.param = param
        limit = service.config.char_limit
        # The prompt around the text (Pot's, Easydict's, Bob's are < 150 characters): a longer
        # message is refused before the prompt is looked at.
        if len(user_text) > limit + PROMPT_ROOM:
            raise ApiError(
                413,
                f"the message has {len(user_text)} characters; this server "
                f"takes texts of at most {limit} (--char-limit)",
                param=param,
            )
        self.extracted = prompts.extract(user_text)
        self.job = self._job(service)

    def _job(self, service: TranslationService) -> compat.Job:
        text, extracted = self.extracted.text, self.extracted
        if len(text) > service.config.char_limit:
            raise ApiError(
                413,
                f"the text has {len(text)} characters; this server takes at "
                f"most {service.config.char_limit} (--char-limit)",
            )
        chinese = TRADITIONAL if "hant" in self.model.lower() else SIMPLIFIED
        # No target named: into the other language (Chinese text into English when a model can).
        chinese_text = direction.paragraph_language(text) == direction.ZH
        default = ENGLISH if chinese_text and direction.ZH_EN in service.languages.directions else chinese
        code = prompts.target_of(extracted.target, default)
        target = service.languages.target(code) if code is not None else None
        if target is None:
            raise bad_request(
                f"the prompt asks for {extracted.target}; this server translates English "
                f"into Chinese and Chinese into English ({', '.join(service.languages.targets)})",
                self.param,
            )
        problem = service.languages.unavailable(target)
        if problem:
            raise bad_request(f"the prompt asks for {extracted.target or target.code}: {problem}", self.param)
        source = prompts.source_of(extracted.source)
        try:
            if source not in (None, "en", "zh"):
                raise compat.UnsupportedLanguage(f"the prompt's source language {extracted.source} is not supported")
            return compat.plan([text], source, target)
        except compat.UnsupportedLanguage as exc:
            raise bad_request(f"{exc}", self.param) from None

    def open_stream(self, service: TranslationService) -> Stream | None:
        """The engine stream for this text, or None when it is passed through (already in the
        target language, or nothing to translate); 503 ApiError when every stream slot is taken."""
        text = self.job.texts[0]
        if not self.job.translated(0) or not text.strip():
            return None
        return open_stream(service, text, self.job.target)


class ChatRequest(TranslationRequest):
    """A validated ``/v1/chat/completions`` request (the text: the last user message)."""

    def __init__(self, params: Params, service: TranslationService) -> None:
        messages = check_messages(params.get("messages"), "messages")
        users = [m for m in messages if m["role"] == "user"]
        if not users:
            raise bad_request("'messages' must contain a user message (the text to translate)", "messages")
        if params.get("n") not in (None, 1):
            raise bad_request("n must be 1: this server returns one translation", "n")
        options = params.get("stream_options")
        if options is not None and not isinstance(options, dict):
            raise bad_request("'stream_options' must be an object such as {\"include_usage\": true}", "stream_options")
        self.include_usage = options is not None and strict_bool(options, "include_usage", "stream_options")
        super().__init__(params, _content(users[-1]), service)


async def engine_events(stream: Stream | None, text: str) -> AsyncGenerator[tuple[str, object], None]:
    """``("delta", text)``... then ``("done", generated tokens)`` or ``("error", message)``;
    ``stream`` None: ``text`` passed through as one delta. Leaving cancels the generation."""
    if stream is None:
        if text:
            yield "delta", text
        yield "done", 0
        return
    try:
        async for kind, payload in stream.events():
            yield kind, payload.tokens if isinstance(payload, TranslationStats) else payload
    finally:  # also when the client disconnects (the response task is cancelled)
        stream.cancel()


def _completion(chat: ChatRequest, text: str) -> dict[str, object]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": chat.model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "logprobs": None,
                "message": {"role": "assistant", "content": text, "refusal": None},
            }
        ],
    }


class _Chunks:
    """``chat.completion.chunk`` SSE lines of one streamed answer."""

    def __init__(self, chat: ChatRequest) -> None:
        self.chat = chat
        self.id, self.created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())

    def chunk(self, delta: dict[str, object], finish: str | None = None, usage: dict[str, int] | None = None) -> str:
        body: dict[str, object] = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.chat.model,
            "system_fingerprint": None,
            "choices": [] if usage else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if usage:
            body["usage"] = usage
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"


async def _stream_body(chat: ChatRequest, stream: Stream | None, service: TranslationService) -> AsyncIterator[str]:
    """The SSE body: a role chunk, content deltas, a finish chunk, usage if asked, [DONE]."""
    chunks, text, tokens = _Chunks(chat), chat.job.texts[0], 0
    yield chunks.chunk({"role": "assistant", "content": ""})
    async with contextlib.aclosing(engine_events(stream, text)) as events:  # closed at once
        async for kind, payload in events:
            if kind == "delta":
                yield chunks.chunk({"content": payload})
            elif kind == "done":
                tokens = int(str(payload))
            else:  # the engine failed: OpenAI's clients raise on an error event
                yield f"data: {json.dumps(openai_shape(ApiError(500, str(payload)))[1])}\n\n"
                return
    yield chunks.chunk({}, "stop")
    if chat.include_usage:
        prompt = service.count_tokens(text) if stream is not None else 0
        yield chunks.chunk(
            {}, usage={"prompt_tokens": prompt, "completion_tokens": tokens, "total_tokens": prompt + tokens}
        )
    yield "data: [DONE]\n\n"


def _models(service: TranslationService) -> dict[str, object]:
    names = [MODEL] + ([_TRADITIONAL_MODEL] if TRADITIONAL in service.languages.targets else [])
    return {
        "object": "list",
        "data": [{"id": name, "object": "model", "created": 0, "owned_by": "desktop-mt"} for name in names],
    }


def add_routes(app: FastAPI, service: TranslationService) -> None:
    """Register ``/v1/chat/completions`` and ``/v1/models``."""
    config = service.config

    @app.get("/v1/models")
    async def models(request: Request) -> Response:
        check_openai_key(request, config.api_key)
        return JSONResponse(_models(service))

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Response:
        return await answer(
            request, service, ChatRequest, lambda chat, stream: _stream_body(chat, stream, service), _completion
        )


_R = TypeVar("_R", bound=TranslationRequest)


async def answer(
    request: Request,
    service: TranslationService,
    parse: Callable[[Params, TranslationService], _R],
    stream_body: Callable[[_R, Stream | None], AsyncIterator[str]],
    body: Callable[[_R, str], dict[str, object]],
) -> Response:
    """The common path of the OpenAI-shaped endpoints: read and check the request
    (``parse(params, service)`` -> a TranslationRequest), then stream ``stream_body(req,
    stream)`` or answer ``body(req, translation)`` from one batched engine call."""
    config = service.config
    params = await read_params(request, config)
    check_openai_key(request, config.api_key)
    req = await off_loop(request, parse, params, service)
    request.state.sizes = req.job.sizes  # counts only: never the text
    if req.stream:
        return StreamingResponse(
            stream_body(req, req.open_stream(service)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache"},
        )
    output = (await unless_disconnected(request, compat.run(service, req.job, translate_texts)))[0]
    return JSONResponse(body(req, output))
