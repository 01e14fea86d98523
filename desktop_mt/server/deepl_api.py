"""DeepL's API v2 (``POST /v2/translate``) and DeepLX's (``POST /deeplx/translate``) shapes.

Pot, Easydict and Bob can call a DeepL endpoint with a custom URL, or a DeepLX server; both
shapes reach the same batched engine calls as ``/translate``. Errors use each API's own shape
(:mod:`.errors`):
DeepL ``{"message": ...}`` (400 bad parameter, 403 key, 413 too large, 429 busy, 500 engine),
DeepLX ``{"code": status, "message": ...}``. See docs/SERVER.md.

Request bodies as the apps send them (looked up in their sources):

- DeepL v2, Easydict (custom endpoint): urlencoded ``text=...&source_lang=auto&target_lang=ZH-HANS``
  with ``Authorization: DeepL-Auth-Key KEY``; DeepL's own clients: JSON ``{"text": [...],
  "target_lang": "ZH"}``; the legacy ``auth_key`` field is accepted too.
- DeepLX, Pot (DeepL service, type "DeepLX", custom URL): JSON ``{"source_lang": "auto",
  "target_lang": "ZH-HANS", "text": "..."}``; bob-plugin-deeplx the same with ``"ZH"``.

``target_lang`` ``EN``, ``EN-US`` or ``EN-GB`` translates Chinese into English (with
``source_lang`` ``ZH`` or none); a target whose direction has no model is a 400 naming the
model to download.
"""

from __future__ import annotations

import random

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from ..engine.direction import EN_ZH
from . import compat
from .calls import translate_html, translate_nbest, translate_texts
from .errors import ApiError, deeplx_shape, error_response
from .languages import ENGLISH, Target
from .requests import Params, credentials, key_matches, off_loop, read_params, string_field, unless_disconnected
from .service import TranslationService

__all__ = [
    "is_deeplx",
    "deeplx_answer",
    "add_routes",
]

_DEEPLX_ALTERNATIVES = 3  # other translations in a DeepLX answer (DeepL's usual count)
_KEY_MESSAGE = "Authorization failed. Please supply a valid auth_key parameter."


def is_deeplx(params: Params) -> bool:
    """A DeepLX body sent to ``/translate`` (it has ``text`` and ``target_lang``, no ``q``)."""
    return "q" not in params and "text" in params and "target_lang" in params


def _target(service: TranslationService, params: Params) -> Target:
    """``target_lang`` (``ZH``, ``ZH-HANS``, ``ZH-HANT``, ``EN``, ``EN-US``, ``EN-GB``), its
    direction's model installed (400 naming the one to download otherwise)."""
    value = string_field(params, "target_lang")
    if not value or not value.strip():
        raise ApiError(400, "Parameter 'target_lang' not specified.")
    target = service.languages.target(value)
    if target is None:
        raise ApiError(
            400,
            f"Value for 'target_lang' not supported. This server translates into Chinese "
            f"(ZH, ZH-HANS, ZH-HANT) and English (EN, EN-US, EN-GB) (got {value[:20]}).",
        )
    problem = service.languages.unavailable(target)
    if problem:
        raise ApiError(400, f"Value for 'target_lang' not available: {problem}.")
    return target


def _job(params: Params, texts: list[str], service: TranslationService) -> compat.Job:
    """Target, source and per-text languages checked (400 ApiError for what is unsupported)."""
    target = _target(service, params)
    try:
        source = compat.source_code(string_field(params, "source_lang"))
    except compat.UnsupportedLanguage as exc:
        raise ApiError(400, f"Value for 'source_lang' not supported: {exc}.") from None
    config = service.config
    if len(texts) > config.batch_limit or any(len(t) > config.char_limit for t in texts):
        raise ApiError(
            413, f"Request size exceeded: at most {config.batch_limit} texts of {config.char_limit} characters each"
        )
    try:
        return compat.plan(texts, source, target)
    except compat.UnsupportedLanguage as exc:
        raise ApiError(400, f"Value for 'source_lang' not supported: {exc}.") from None


def _deepl_key(request: Request, params: Params, expected: str | None) -> None:
    legacy = string_field(params, "auth_key")  # typed with or without a key
    if not expected:
        return
    given = credentials(request, "DeepL-Auth-Key")
    if given is None:
        given = legacy
    if not key_matches(given, expected):
        raise ApiError(403, _KEY_MESSAGE)


def _flag(params: Params, name: str) -> bool:
    """A DeepL flag: a JSON boolean, or ``0``/``1``/``true``/``false`` (a form's); absent or
    null: false; 400 otherwise."""
    value = params.get(name)
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("0", "1", "true", "false"):
        return value.lower() in ("1", "true")
    raise ApiError(400, f"Value for '{name}' not supported: true or false.")


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not value or not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise ApiError(
            400,
            "Parameter 'text' not specified."
            if not value
            else "Value for 'text' must be a string or a list of strings.",
        )
    return value


def _translator_for(params: Params) -> compat.Translate:
    """translate_texts, or translate_html for ``tag_handling=html`` (400 for what we lack)."""
    if string_field(params, "glossary_id"):
        raise ApiError(400, "Glossaries are not supported by this server (glossary_id).")
    tags = (string_field(params, "tag_handling") or "").lower()
    if tags not in ("", "html"):
        raise ApiError(400, "Value for 'tag_handling' not supported: this server handles 'html' only.")
    return translate_html if tags == "html" else translate_texts


async def _deepl_translate(request: Request, service: TranslationService) -> JSONResponse:
    """``POST /v2/translate``: DeepL's request and response."""
    config = service.config
    params = await read_params(request, config, repeated=("text",))
    _deepl_key(request, params, config.api_key)
    translate = _translator_for(params)
    job = await off_loop(request, _job, params, _texts(params.get("text")), service)
    request.state.sizes = job.sizes
    outputs = await unless_disconnected(request, compat.run(service, job, translate))
    billed = _flag(params, "show_billed_characters")
    rows = []
    for text, source, output in zip(job.texts, job.sources, outputs):
        row: dict[str, object] = {"detected_source_language": source.upper(), "text": output}
        if billed:
            row["billed_characters"] = len(text)
        rows.append(row)
    return JSONResponse({"translations": rows})


async def deeplx_answer(request: Request, params: Params, service: TranslationService) -> Response:
    """DeepLX's response for ``params`` (also called by ``/translate`` for DeepLX bodies)."""
    try:
        expected = service.config.api_key
        if expected:
            given = credentials(request, "Bearer")
            if given is None:
                given = params.get("token") or params.get("api_key")
            if not key_matches(given, expected):
                raise ApiError(401, "Invalid access token")
        text = params.get("text")
        if not isinstance(text, str) or not text:  # DeepLX refuses an empty text too
            raise ApiError(400, "No text to translate: 'text' must be a non-empty string")
        job = await off_loop(request, _job, params, [text], service)
        request.state.sizes = job.sizes
        output, alternatives = await unless_disconnected(request, _deeplx_output(service, job))
    except ApiError as exc:  # DeepLX's shape, also when the body came to /translate
        return error_response(exc, request.url.path, deeplx_shape)
    return JSONResponse(
        {
            "code": 200,
            "id": random.randrange(10**9, 10**10),
            "data": output,
            "alternatives": alternatives,
            "source_lang": job.sources[0].upper(),
            "target_lang": str(params["target_lang"]).upper(),
            "method": "Free",
        }
    )


async def _deeplx_output(service: TranslationService, job: compat.Job) -> tuple[str, list[str]]:
    """DeepLX's ``data`` and ``alternatives`` for the job's one text: from one n-best search
    (the best is ``data``; DeepLX passes on DeepL's alternatives, usually three). Text already
    in the target language comes back unchanged, with none. When every unbatched slot is taken, the batched
    translation without alternatives: a DeepLX client wants ``data``, the rest is extra."""
    if not job.translated(0):
        return job.texts[0], []
    try:
        firsts, others = await translate_nbest(service, job.texts, job.target, _DEEPLX_ALTERNATIVES)
    except ApiError as exc:
        if exc.status != 503:
            raise
        return (await translate_texts(service, job.texts, job.target))[0], []
    return firsts[0], others[0]


# No quota: a local engine. DeepL clients read these fields to validate a key.
_USAGE = {"character_count": 0, "character_limit": 1_000_000_000_000}


def _deepl_targets(service: TranslationService) -> list[dict[str, object]]:
    """``/v2/languages?type=target``: DeepL's rows for the directions whose model is loaded."""
    table, rows = service.languages, []
    if EN_ZH in table.directions:
        rows.append({"language": "ZH", "name": "Chinese (simplified)", "supports_formality": False})
        if table.traditional:
            rows.append({"language": "ZH-HANT", "name": "Chinese (traditional)", "supports_formality": False})
    if ENGLISH in table.targets:
        rows.append({"language": "EN-GB", "name": "English (British)", "supports_formality": False})
        rows.append({"language": "EN-US", "name": "English (American)", "supports_formality": False})
    return rows


def add_routes(app: FastAPI, service: TranslationService) -> None:
    """Register the DeepL v2 and DeepLX endpoints."""
    config = service.config

    @app.post("/v2/translate")
    async def v2_translate(request: Request) -> Response:
        return await _deepl_translate(request, service)

    @app.get("/v2/usage")  # a route per method: distinct operations in /openapi.json
    @app.post("/v2/usage")
    async def v2_usage(request: Request) -> Response:
        params = await read_params(request, config)
        _deepl_key(request, params, config.api_key)
        return JSONResponse(_USAGE)

    @app.get("/v2/languages")
    @app.post("/v2/languages")
    async def v2_languages(request: Request) -> Response:
        params = await read_params(request, config)
        _deepl_key(request, params, config.api_key)
        kind = string_field(params, "type")
        kind = "source" if kind is None else kind  # DeepL's default; its values are lower case
        if kind not in ("source", "target"):
            raise ApiError(400, "Value for 'type' not supported: 'source' or 'target'.")
        if kind == "target":
            return JSONResponse(_deepl_targets(service))
        return JSONResponse([{"language": "EN", "name": "English"}, {"language": "ZH", "name": "Chinese"}])

    @app.post("/deeplx/translate")
    async def deeplx_translate(request: Request) -> Response:
        params = await read_params(request, config)
        return await deeplx_answer(request, params, service)
