"""The server's OpenAPI document (``GET /openapi.json``): each endpoint's request body and its
error shape, as docs/SERVER.md documents them.

The routes read their bodies themselves (JSON, urlencoded or multipart, one code path for the
three), so FastAPI cannot infer the bodies; :func:`describe` adds them to the generated
document. The fuzz test (tests/server/test_fuzz.py) generates requests from these schemas and
checks every error answer against the error schema named here, so the document is tested.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from .errors import Shape, deepl_shape, deeplx_shape, libre_shape, openai_shape, shape_for
from .openai_api import ROLES

__all__ = [
    "ERRORS",
    "error_schema",
    "describe",
]

_STR, _BOOL, _INT = {"type": "string"}, {"type": "boolean"}, {"type": "integer"}
_STRS = {"type": "array", "items": _STR}
# A text to translate: 1 to --char-limit's default characters; lists up to --batch-limit's.
# A text in a list may be empty (answered with an empty translation, as DeepL does: batch
# clients send a document's empty segments in place); so may DeepL's and OpenAI's lone text.
_TEXT = {"type": "string", "minLength": 1, "maxLength": 5000}
_ITEM = {"type": "string", "maxLength": 5000}
_ITEMS = {"type": "array", "items": _ITEM, "minItems": 1, "maxItems": 128}
_TEXTS = {"anyOf": [_TEXT, _ITEMS]}
# Content parts: "text" ("input_text" in /v1/responses) are read; others ("image_url"...) are
# left, as the other messages are (only the last user message is translated).
_PARTS = {
    "type": "array",
    "items": {"type": "object", "required": ["type"], "properties": {"type": _STR, "text": _STR}},
}
_MESSAGE = {
    "type": "object",
    "required": ["role", "content"],
    "properties": {"role": {"enum": list(ROLES)}, "content": {"anyOf": [_STR, _PARTS]}},
}

_Schema = dict[str, Any]
_FORM = "application/x-www-form-urlencoded"
# Language codes per API, as docs/SERVER.md lists them (LibreTranslate's codes and aliases;
# DeepL's upper-case codes; the server also takes other region tags, not listed here).
_LIBRE_CHINESE = ["zh", "zh-Hans", "zh-Hant", "zt", "zh-CN", "zh-TW"]
_LIBRE_SOURCES = ["auto", "en", *_LIBRE_CHINESE]
_LIBRE_TARGETS = ["en", *_LIBRE_CHINESE]
_DEEPL_TARGETS = ["ZH", "ZH-HANS", "ZH-HANT", "EN", "EN-US", "EN-GB"]
_DEEPL_SOURCES = ["EN", "ZH"]
_DEEPLX_SOURCES = ["auto", *_DEEPL_SOURCES]
_LIBRE_PROPERTIES: _Schema = {
    "q": _TEXTS,
    "source": {"enum": _LIBRE_SOURCES},
    "target": {"enum": _LIBRE_TARGETS},
    "format": {"enum": ["text", "html"]},
    "alternatives": {**_INT, "minimum": 0, "maximum": 5},
    "api_key": _STR,
}
_LIBRE_TRANSLATE: _Schema = {"type": "object", "required": ["q", "source", "target"], "properties": _LIBRE_PROPERTIES}
_BODIES: dict[str, _Schema] = {
    "/translate": _LIBRE_TRANSLATE,
    "/translate/stream": {
        **_LIBRE_TRANSLATE,
        "properties": {**_LIBRE_PROPERTIES, "q": _TEXT, "format": {"enum": ["text"]}},
    },
    "/detect": {"type": "object", "required": ["q"], "properties": {"q": _TEXTS, "api_key": _STR}},
    "/deeplx/translate": {
        "type": "object",
        "required": ["text", "target_lang"],
        "properties": {
            "text": _TEXT,
            "source_lang": {"enum": _DEEPLX_SOURCES},
            "target_lang": {"enum": _DEEPL_TARGETS},
        },
    },
    "/v2/translate": {
        "type": "object",
        "required": ["text", "target_lang"],
        "properties": {
            "text": {"anyOf": [_ITEM, _ITEMS]},
            "source_lang": {"enum": _DEEPL_SOURCES},
            "target_lang": {"enum": _DEEPL_TARGETS},
            "tag_handling": {"enum": ["html"]},
            "show_billed_characters": {"anyOf": [_BOOL, {"enum": ["0", "1", "true", "false"]}]},
            "auth_key": _STR,
        },
    },
    "/v2/usage": {"type": "object", "properties": {"auth_key": _STR}},
    "/v2/languages": {"type": "object", "properties": {"type": {"enum": ["source", "target"]}, "auth_key": _STR}},
    "/v1/chat/completions": {
        "type": "object",
        "required": ["messages"],
        "properties": {
            "model": _STR,
            "messages": {"type": "array", "items": _MESSAGE, "minItems": 1},
            "stream": _BOOL,
            "stream_options": {"type": "object", "properties": {"include_usage": {"type": ["boolean", "null"]}}},
            "n": {"enum": [1]},
        },
    },
    "/v1/responses": {
        "type": "object",
        "required": ["input"],
        "properties": {
            "model": _STR,
            "instructions": _STR,
            "stream": _BOOL,
            "input": {"anyOf": [_ITEM, {"type": "array", "items": _MESSAGE, "minItems": 1}]},
        },
    },
}


def _nullable(body: _Schema) -> _Schema:
    """``body`` with each optional field also admitting null: the server reads a null as the
    field left out (:func:`.requests.string_field`, :func:`.requests.strict_bool`), as
    OpenAI's API does (its schema marks these fields nullable) and as JSON clients need (they
    send null for an option they do not set)."""
    required = set(body.get("required", ()))
    properties = {
        name: field if name in required else {"anyOf": [field, {"type": "null"}]}
        for name, field in body.get("properties", {}).items()
    }
    return {**body, "properties": properties}


_BODIES = {path: _nullable(body) for path, body in _BODIES.items()}
_JSON_ONLY = ("/v1/",)  # OpenAI's clients send JSON only: no form body documented
_STREAMS = {
    "/translate/stream": ("text/event-stream",),
    "/v1/chat/completions": ("application/json", "text/event-stream"),
}
_STREAMS["/v1/responses"] = _STREAMS["/v1/chat/completions"]

ERRORS: dict[str, _Schema] = {
    "LibreTranslateError": {
        "type": "object",
        "required": ["error"],
        "properties": {"error": _STR},
        "additionalProperties": False,
    },
    "DeepLError": {
        "type": "object",
        "required": ["message"],
        "properties": {"message": _STR},
        "additionalProperties": False,
    },
    "DeepLXError": {
        "type": "object",
        "required": ["code", "message"],
        "properties": {"code": _INT, "message": _STR},
        "additionalProperties": False,
    },
    "OpenAIError": {
        "type": "object",
        "required": ["error"],
        "additionalProperties": False,
        "properties": {
            "error": {
                "type": "object",
                "required": ["message", "type", "param", "code"],
                "properties": {
                    "message": _STR,
                    "type": _STR,
                    "param": {"type": ["string", "null"]},
                    "code": {"type": ["string", "null"]},
                },
            }
        },
    },
}


_SCHEMA_OF: dict[Shape, str] = {
    libre_shape: "LibreTranslateError",
    deepl_shape: "DeepLError",
    deeplx_shape: "DeepLXError",
    openai_shape: "OpenAIError",
}


def error_schema(path: str) -> str:
    """The name of the error schema of ``path`` (the shape :func:`.errors.shape_for` gives)."""
    return _SCHEMA_OF[shape_for(path)]


def describe(app: FastAPI) -> None:
    """Make ``app.openapi()`` include the request bodies and error shapes."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        document = generate()
        document.setdefault("components", {}).setdefault("schemas", {}).update(ERRORS)
        for path, operations in document.get("paths", {}).items():
            for method, operation in operations.items():
                _operation(path, method, operation)
        app.openapi_schema = document
        return document

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend the schema


def _operation(path: str, method: str, operation: _Schema) -> None:
    body = _BODIES.get(path)
    if body is not None and method == "post":
        kinds = ("application/json",) if path.startswith(_JSON_ONLY) else ("application/json", _FORM)
        operation["requestBody"] = {
            "required": bool(body.get("required")),  # a body of optional fields may be left out
            "content": {kind: {"schema": body} for kind in kinds},
        }
    ok = operation.setdefault("responses", {}).setdefault("200", {"description": "Successful Response"})
    if path == "/metrics":
        ok["content"] = {"text/plain": {"schema": _STR}}  # Prometheus' text format
    elif path in _STREAMS and method == "post":
        ok["content"] = {kind: {"schema": {}} for kind in _STREAMS[path]}  # SSE: each API's events
    error = {
        "description": "an error in the endpoint's shape",
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{error_schema(path)}"}}},
    }
    responses = operation.setdefault("responses", {})
    responses.pop("422", None)  # FastAPI's validation error: these routes never answer it
    responses["4XX"] = responses["5XX"] = error
