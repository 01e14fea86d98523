"""OpenAI's Responses API shape, ``POST /v1/responses``, for clients that moved to it.

bob-plugin-openai-translator's current versions call ``{API URL}/v1/responses`` (its "OpenAI
Compatible" provider: a URL ending in ``/responses``) with ``{"model", "instructions",
"input": "translate from English to Simplified Chinese:\\n\\nTEXT", "stream", ...}``, read
``output[].content[].text`` and, streaming, the ``response.output_text.delta`` events. The text
and target come from ``input`` as for chat completions (:mod:`.prompts`); ``instructions``
(the system prompt) is ignored.

Answer: a ``response`` object with one assistant message holding one ``output_text``; with
``"stream": true`` the event sequence OpenAI sends (``response.created``, ``output_item.added``,
``content_part.added``, ``output_text.delta``..., ``output_text.done``, ``content_part.done``,
``output_item.done``, ``response.completed``), each as ``event: TYPE`` + ``data: {...}``.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from .errors import ApiError, openai_shape
from .openai_api import (
    MODEL,
    TranslationRequest,
    answer,
    bad_request,
    check_messages,
    check_openai_key,
    engine_events,
    text_parts,
)
from .requests import Params, string_field
from .service import Stream, TranslationService

__all__ = [
    "ResponsesRequest",
    "add_routes",
]


def _input_text(value: object) -> str:
    """The text of ``input``: a string, or the last user item of a list (its content a
    string or ``input_text`` parts)."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise bad_request("'input' must be a string or a list with a user message", "input")
    users = [item for item in check_messages(value, "input") if item["role"] == "user"]
    if not users:
        raise bad_request("'input' must be a string or a list with a user message", "input")
    content = users[-1].get("content")
    if isinstance(content, list):
        content = text_parts(content, ("input_text", "text"), "input")
    if not isinstance(content, str):
        raise bad_request("the last user item of 'input' has no text", "input")
    return content


class ResponsesRequest(TranslationRequest):
    """A validated ``/v1/responses`` request."""

    def __init__(self, params: Params, service: TranslationService) -> None:
        super().__init__(params, _input_text(params.get("input")), service, param="input")
        self.id, self.item = f"resp_{uuid.uuid4().hex}", f"msg_{uuid.uuid4().hex}"
        self.created = int(time.time())
        self.instructions = string_field(params, "instructions")

    def message(self, text: str | None, status: str = "completed") -> dict[str, object]:
        content = [{"type": "output_text", "text": text, "annotations": []}] if text is not None else []
        return {"type": "message", "id": self.item, "status": status, "role": "assistant", "content": content}

    def response(self, text: str | None, status: str = "completed") -> dict[str, object]:
        """The ``response`` object (``text`` None: no output yet)."""
        return {
            "id": self.id,
            "object": "response",
            "created_at": self.created,
            "status": status,
            "model": self.model,
            "error": None,
            "incomplete_details": None,
            "instructions": self.instructions,
            "output": [] if text is None else [self.message(text, status)],
            "parallel_tool_calls": False,
            "tool_choice": "auto",
            "tools": [],
            "usage": None,
        }


def _event(kind: str, number: int, **fields: object) -> str:
    body = {"type": kind, "sequence_number": number, **fields}
    return f"event: {kind}\ndata: {json.dumps(body, ensure_ascii=False)}\n\n"


async def _stream_body(req: ResponsesRequest, stream: Stream | None) -> AsyncIterator[str]:
    """The Responses API's event sequence around the engine's deltas."""
    numbers, parts = iter(range(1_000_000)), list[str]()
    at = {"item_id": req.item, "output_index": 0, "content_index": 0}
    yield _event("response.created", next(numbers), response=req.response(None, "in_progress"))
    yield _event("response.output_item.added", next(numbers), output_index=0, item=req.message(None, "in_progress"))
    yield _event(
        "response.content_part.added", next(numbers), **at, part={"type": "output_text", "text": "", "annotations": []}
    )
    async with contextlib.aclosing(engine_events(stream, req.job.texts[0])) as events:
        async for kind, payload in events:
            if kind == "delta":
                payload = str(payload)
                parts.append(payload)
                yield _event("response.output_text.delta", next(numbers), **at, delta=payload, logprobs=[])
            elif kind == "error":
                yield _event("error", next(numbers), **_error_fields(str(payload)))
                return
    text = "".join(parts)
    yield _event("response.output_text.done", next(numbers), **at, text=text, logprobs=[])
    yield _event(
        "response.content_part.done", next(numbers), **at, part={"type": "output_text", "text": text, "annotations": []}
    )
    yield _event("response.output_item.done", next(numbers), output_index=0, item=req.message(text))
    yield _event("response.completed", next(numbers), response=req.response(text))


def _error_fields(message: str) -> dict[str, object]:
    """An ``error`` event's fields for an engine failure."""
    error = openai_shape(ApiError(500, message))[1]["error"]
    assert isinstance(error, dict)
    return {"code": error["type"], "message": error["message"], "param": None}


def add_routes(app: FastAPI, service: TranslationService) -> None:
    """Register ``/v1/responses``."""

    @app.post("/v1/responses")
    async def responses(request: Request) -> Response:
        return await answer(request, service, ResponsesRequest, _stream_body, lambda req, output: req.response(output))

    @app.get("/v1/responses")
    async def responses_check(request: Request) -> Response:
        """Bob's "check connection" sends a GET: the key is checked as for POST (401 when
        wrong) and the answer says what to POST."""
        check_openai_key(request, service.config.api_key)
        return JSONResponse(
            {
                "object": "list",
                "data": [],
                "model": MODEL,
                "message": "desktop-mt translates with POST /v1/responses (OpenAI's Responses API shape)",
            }
        )
