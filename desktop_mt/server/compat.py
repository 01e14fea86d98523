"""What the DeepL, DeepLX and OpenAI-shaped endpoints share: which texts to translate.

The server translates English into Chinese and Chinese into English. Each text of a request is
looked at on its own (:func:`desktop_mt.server.languages.detect`, the engine's rule):

- a text in the other language than the target (English for a Chinese target, Chinese for an
  English one) is translated; so is a text with no letters at all (numbers, URLs: the engine
  keeps them);
- a text already in the target language is returned unchanged, as DeepL returns text that is
  already in the target language: apps such as Pot and Easydict send whatever the user
  selected, and echoing it back is more useful than an error;
- anything else (kana, Hangul, Cyrillic, ...) is refused with :class:`UnsupportedLanguage`,
  which each API answers in its own error shape.

A source language the client names explicitly is checked the same way: English, ``auto`` (or
none) and Chinese are accepted, others are refused before any text is looked at.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence

from ..base.errors import DesktopMTError
from .languages import NAMES, Target, canonical, detect_each
from .service import TranslationService

__all__ = [
    "Translate",
    "UnsupportedLanguage",
    "Job",
    "source_code",
    "plan",
    "run",
]

_ENGLISH, _CHINESE = "en", "zh"
Translate = Callable[[TranslationService, list[str], Target], Awaitable[list[str]]]


class UnsupportedLanguage(DesktopMTError, ValueError):
    """A source or target language this server cannot translate (the message says which)."""


@dataclasses.dataclass(frozen=True)
class Job:
    """The texts of one request and, per text, the language they are in (en or zh)."""

    texts: list[str]
    sources: list[str]
    target: Target

    @property
    def sizes(self) -> str:
        """For the log line: counts only, never the text."""
        return f"texts={len(self.texts)} chars={sum(len(t) for t in self.texts)}"

    def translated(self, index: int) -> bool:
        """Whether text ``index`` goes to the engine (it is not in the target language yet)."""
        return self.sources[index] != self.target.language


def source_code(value: str | None) -> str | None:
    """``en`` / ``zh`` for a source language the client named, None for auto or none.

    Raises UnsupportedLanguage for any other language."""
    code = (value or "").strip()
    if not code or code.lower() in ("auto", "detect", "auto-detect"):
        return None
    language = canonical(code).split("-")[0].lower()
    if language in (_ENGLISH, _CHINESE, "zt"):
        return _CHINESE if language == "zt" else language
    raise UnsupportedLanguage(f"source language {code} is not supported: this server translates English and Chinese")


def _text_languages(texts: Sequence[str]) -> list[str]:
    """Each text's ``en``, ``zh`` or the detected code of another script (see the module
    docstring; a text without letters counts as English). The detection reads a bounded
    number of characters in all (``languages.detect_each``)."""
    return [str(best["language"]) if float(str(best["confidence"])) > 0 else _ENGLISH for best in detect_each(texts)]


def plan(texts: Sequence[str], source: str | None, target: Target) -> Job:
    """The job for ``texts``: each text's language, checked (raises UnsupportedLanguage)."""
    sources = []
    found = [_CHINESE] * len(texts) if source == _CHINESE else _text_languages(texts)
    for number, language in enumerate(found, 1):
        if language not in (_ENGLISH, _CHINESE):
            which = f"text {number}" if len(texts) > 1 else "the text"
            raise UnsupportedLanguage(
                f"{which} looks {NAMES.get(language, language)} ({language}); this server "
                f"translates English and Chinese (text already in the target language is returned unchanged)"
            )
        sources.append(language)
    return Job(list(texts), sources, target)


async def run(service: TranslationService, job: Job, translate: Translate) -> list[str]:
    """The outputs of ``job``: the texts to translate through ``translate(service, texts,
    target)`` (one batched call), the others as they are, in the request's order."""
    wanted = [text for index, text in enumerate(job.texts) if job.translated(index)]
    translated = iter(await translate(service, wanted, job.target) if wanted else [])
    return [next(translated) if job.translated(index) else text for index, text in enumerate(job.texts)]
