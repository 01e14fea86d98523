"""What the DeepL, DeepLX and OpenAI-shaped endpoints share: which texts to translate.

The engine translates English into Chinese. Each text of a request is looked at on its own
(:func:`desktop_mt.server.languages.detect`, by script):

- English (Latin letters, or no letters at all) is translated;
- Chinese (Han characters are the largest share of its letters) is returned unchanged, as
  DeepL returns text that is already in the target language: apps such as Pot and Easydict
  send whatever the user selected, and echoing Chinese back is more useful than an error or a
  "translation" of Chinese by an English model;
- anything else (kana, Hangul, Cyrillic, ...) is refused with :class:`UnsupportedSource`,
  which each API answers in its own error shape.

A source language the client names explicitly is checked the same way: English, ``auto`` (or
none) and Chinese are accepted, others are refused before any text is looked at.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .languages import NAMES, canonical, detect
from .service import TranslationService

ENGLISH, CHINESE = "en", "zh"


class UnsupportedLanguage(ValueError):
    """A source or target language this server cannot translate (the message says which)."""


@dataclasses.dataclass(frozen=True)
class Job:
    """The texts of one request and, per text, the language they are in (en or zh)."""

    texts: list[str]
    sources: list[str]
    target: str  # zh-Hans or zh-Hant

    @property
    def sizes(self) -> str:
        """For the log line: counts only, never the text."""
        return f"texts={len(self.texts)} chars={sum(len(t) for t in self.texts)}"


def source_code(value: str | None) -> str | None:
    """``en`` / ``zh`` for a source language the client named, None for auto or none.

    Raises UnsupportedLanguage for any other language."""
    code = (value or "").strip()
    if not code or code.lower() in ("auto", "detect", "auto-detect"):
        return None
    language = canonical(code).split("-")[0].lower()
    if language in (ENGLISH, CHINESE, "zt"):
        return CHINESE if language == "zt" else language
    raise UnsupportedLanguage(f"source language {code} is not supported: this server translates English into Chinese")


def text_language(text: str) -> str:
    """``en``, ``zh`` or the detected code of another script (see the module docstring)."""
    best = detect([text])[0]
    return best["language"] if best["confidence"] > 0 else ENGLISH


def plan(texts: Sequence[str], source: str | None, target: str) -> Job:
    """The job for ``texts``: each text's language, checked (raises UnsupportedLanguage)."""
    sources = []
    for number, text in enumerate(texts, 1):
        language = CHINESE if source == CHINESE else text_language(text)
        if language not in (ENGLISH, CHINESE):
            which = f"text {number}" if len(texts) > 1 else "the text"
            raise UnsupportedLanguage(
                f"{which} looks {NAMES.get(language, language)} ({language}); this server "
                f"translates English into Chinese (Chinese text is returned unchanged)"
            )
        sources.append(language)
    return Job(list(texts), sources, target)


async def run(service: TranslationService, job: Job, translate) -> list[str]:
    """The outputs of ``job``: English texts through ``translate(service, texts, target)``
    (one batched call), Chinese texts as they are, in the request's order."""
    english = [text for text, source in zip(job.texts, job.sources) if source == ENGLISH]
    translated = iter(await translate(service, english, job.target) if english else [])
    return [next(translated) if source == ENGLISH else text for text, source in zip(job.texts, job.sources)]
