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

_STR, _BOOL, _INT = {"type": "string"}, {"type": "boolean"}, {"type": "integer"}
_STRS = {"type": "array", "items": _STR}
_PARTS = {
    "type": "array",
    "items": {"type": "object", "properties": {"type": {"enum": ["text", "input_text", "image_url"]}, "text": _STR}},
}
_MESSAGE = {
    "type": "object",
    "required": ["role", "content"],
    "properties": {"role": {"enum": ["system", "user", "assistant"]}, "content": {"anyOf": [_STR, _PARTS]}},
}

Schema = dict[str, Any]
_LIBRE_PROPERTIES: Schema = {
    "q": {"anyOf": [_STR, _STRS]},
    "source": _STR,
    "target": _STR,
    "format": {"enum": ["text", "html"]},
    "alternatives": {**_INT, "minimum": 0},
    "api_key": _STR,
}
_LIBRE_TRANSLATE: Schema = {"type": "object", "required": ["q", "source", "target"], "properties": _LIBRE_PROPERTIES}
BODIES: dict[str, Schema] = {
    "/translate": _LIBRE_TRANSLATE,
    "/translate/stream": {**_LIBRE_TRANSLATE, "properties": {**_LIBRE_PROPERTIES, "q": _STR}},
    "/detect": {"type": "object", "required": ["q"], "properties": {"q": {"anyOf": [_STR, _STRS]}, "api_key": _STR}},
    "/deeplx/translate": {
        "type": "object",
        "required": ["text", "target_lang"],
        "properties": {"text": _STR, "source_lang": _STR, "target_lang": _STR},
    },
    "/v2/translate": {
        "type": "object",
        "required": ["text", "target_lang"],
        "properties": {
            "text": {"anyOf": [_STR, _STRS]},
            "source_lang": _STR,
            "target_lang": _STR,
            "tag_handling": {"enum": ["html", "xml"]},
            "glossary_id": _STR,
            "show_billed_characters": {"anyOf": [_BOOL, _STR]},
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
            "messages": {"type": "array", "items": _MESSAGE},
            "stream": _BOOL,
            "stream_options": {"type": "object", "properties": {"include_usage": _BOOL}},
            "n": _INT,
            "temperature": {"type": "number"},
        },
    },
    "/v1/responses": {
        "type": "object",
        "required": ["input"],
        "properties": {
            "model": _STR,
            "instructions": _STR,
            "stream": _BOOL,
            "input": {"anyOf": [_STR, {"type": "array", "items": _MESSAGE}]},
        },
    },
}

ERRORS: dict[str, Schema] = {
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


def _operation(path: str, method: str, operation: Schema) -> None:
    body = BODIES.get(path)
    if body is not None and method == "post":
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": body}, "application/x-www-form-urlencoded": {"schema": body}},
        }
    error = {
        "description": "an error in the endpoint's shape",
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{error_schema(path)}"}}},
    }
    responses = operation.setdefault("responses", {})
    responses.pop("422", None)  # FastAPI's validation error: these routes never answer it
    responses["4XX"] = responses["5XX"] = error
