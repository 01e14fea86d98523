"""Language codes the server accepts, the ``/languages`` table, and language detection.

desktop-mt translates English into Chinese and Chinese into English, each direction with its
own model; the table lists the directions whose model is loaded. LibreTranslate lists Chinese
as ``zh-Hans`` / ``zh-Hant`` and still accepts its older codes ``zh`` / ``zt``; we accept those
and the region forms ``zh-CN`` / ``zh-TW`` (and ``en-US`` / ``en-GB`` for English). The engine
writes Simplified Chinese; Traditional is the engine's own OpenCC conversion
(``GenerationOptions.script``), offered only when OpenCC is installed.

Detection is the engine's rule (:func:`desktop_mt.engine.direction.paragraph_language`: Han,
kana, Hangul and Latin letters, sentence by sentence); sentences in another script (Cyrillic,
Arabic, ...) are named by their script. Latin letters are reported as English, with a
confidence that grows with the share of very common English words (French or German text in
Latin script scores lower, but is not told apart).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence

from ..base.errors import DesktopMTError
from ..engine import direction
from ..engine.direction import EN_ZH, ZH_EN, Direction, DirectionUnavailableError
from ..engine.script import Script, converter

__all__ = [
    "NAMES",
    "ENGLISH",
    "SIMPLIFIED",
    "TRADITIONAL",
    "canonical",
    "language_of",
    "traditional_converter",
    "Target",
    "LanguageTable",
    "detect",
    "detect_each",
]

NAMES = {
    "en": "English",
    "zh": "Chinese",
    "zh-Hans": "Chinese (Simplified)",
    "zh-Hant": "Chinese (Traditional)",
    "ja": "Japanese",
    "ko": "Korean",
    "ru": "Russian",
    "ar": "Arabic",
    "el": "Greek",
    "he": "Hebrew",
    "th": "Thai",
    "hi": "Hindi",
}
_ALIASES = {
    "zh": "zh-Hans",
    "zh-hans": "zh-Hans",
    "zh-cn": "zh-Hans",
    "zh-sg": "zh-Hans",
    "zh_hans": "zh-Hans",
    "zt": "zh-Hant",
    "zh-hant": "zh-Hant",
    "zh-tw": "zh-Hant",
    "zh-hk": "zh-Hant",
    "zh_hant": "zh-Hant",
}
ENGLISH, SIMPLIFIED, TRADITIONAL = "en", "zh-Hans", "zh-Hant"


def canonical(code: str) -> str:
    """The code we list for ``code``: ``zh``/``zh-CN`` -> ``zh-Hans``, ``zt``/``zh-TW`` ->
    ``zh-Hant``; other tags lose their region and are lower case (``EN-US`` -> ``en``)."""
    code = code.strip()
    if code.lower() in _ALIASES:
        return _ALIASES[code.lower()]
    return code.replace("_", "-").split("-")[0].lower() if not code.lower().startswith("zh") else code


def language_of(code: str) -> str:
    """``en`` / ``zh`` (either script) for a canonical code, the code itself otherwise."""
    return direction.ZH if code in (SIMPLIFIED, TRADITIONAL) else code


@functools.lru_cache(maxsize=1)
def traditional_converter() -> Callable[[str], str] | None:
    """Simplified -> Traditional conversion (the engine's, OpenCC s2t), or None when no OpenCC
    package is installed."""
    try:
        return converter("traditional")
    except DesktopMTError:
        return None


@dataclasses.dataclass(frozen=True)
class Target:
    """What a request translates into: ``code`` ``en``, ``zh-Hans`` or ``zh-Hant``. The batcher
    batches only requests with equal targets (one engine call has one set of options)."""

    code: str

    @property
    def language(self) -> direction.Target:
        """``en`` or ``zh``: the engine's ``GenerationOptions.target``."""
        return direction.EN if self.code == ENGLISH else direction.ZH

    @property
    def script(self) -> Script:
        """The engine's ``GenerationOptions.script``: Traditional for ``zh-Hant``."""
        return "traditional" if self.code == TRADITIONAL else "simplified"

    @property
    def direction(self) -> Direction:
        """The direction text is translated in to reach this target."""
        return direction.direction_into(self.language) or EN_ZH  # its language is never auto


@dataclasses.dataclass(frozen=True)
class LanguageTable:
    """The directions the loaded models translate, and for each missing one the catalog model
    to download (``missing``); Traditional is offered when OpenCC is installed."""

    directions: tuple[Direction, ...]
    traditional: bool = False
    missing: Mapping[Direction, str] = dataclasses.field(default_factory=dict)

    @classmethod
    def for_directions(
        cls, directions: Sequence[Direction], missing: Mapping[Direction, str] | None = None
    ) -> LanguageTable:
        return cls(tuple(directions), traditional_converter() is not None, dict(missing or {}))

    @property
    def chinese(self) -> tuple[str, ...]:
        """The Chinese codes: Simplified, and Traditional when it can be written."""
        return (SIMPLIFIED, TRADITIONAL) if self.traditional else (SIMPLIFIED,)

    @property
    def targets(self) -> tuple[str, ...]:
        """Every target code a loaded model reaches (Chinese first)."""
        return (self.chinese if EN_ZH in self.directions else ()) + ((ENGLISH,) if ZH_EN in self.directions else ())

    def targets_of(self, source: str) -> tuple[str, ...]:
        """The targets of source code ``source`` (canonical) with the loaded models."""
        if source == ENGLISH:
            return self.chinese if EN_ZH in self.directions else ()
        if source in (SIMPLIFIED, TRADITIONAL):
            return (ENGLISH,) if ZH_EN in self.directions else ()
        return ()

    def listing(self) -> list[dict[str, object]]:
        """``GET /languages``: LibreTranslate's ``[{code, name, targets}]``, each language once
        (a language that is only a target has no targets of its own)."""
        codes = [ENGLISH] if EN_ZH in self.directions else []
        codes += [c for c in self.chinese if ZH_EN in self.directions]
        codes += [c for c in self.targets if c not in codes]
        return [{"code": c, "name": NAMES.get(c, c), "targets": list(self.targets_of(c))} for c in codes]

    def target(self, code: str) -> Target | None:
        """The target for a requested code (``en``, ``zh``, ``zh-Hant``...), None when this
        server never translates into it (the model of its direction may still be missing:
        :meth:`unavailable`)."""
        code = canonical(code)
        return Target(code) if code in (ENGLISH, SIMPLIFIED) or code in self.chinese else None

    def unavailable(self, target: Target) -> str | None:
        """Why ``target`` cannot be reached (no model of its direction, the message names the
        one to download), or None."""
        if target.direction in self.directions:
            return None
        return str(DirectionUnavailableError(target.direction, model=self.missing.get(target.direction, "")))


# --- detection ---------------------------------------------------------------------------

_DETECT_CHARS = 8_000  # characters the detection reads per request, at most
_DETECT_MIN_CHARS = 60

# The most frequent English words (function words mostly); a share of them marks English.
_ENGLISH_WORDS = frozenset(
    [
        "a",
        "about",
        "after",
        "all",
        "also",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "here",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "just",
        "like",
        "me",
        "more",
        "my",
        "no",
        "not",
        "now",
        "of",
        "on",
        "one",
        "only",
        "or",
        "our",
        "out",
        "she",
        "so",
        "some",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "up",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "hello",
        "thanks",
        "please",
        "yes",
    ]
)
_WORD = re.compile(r"[A-Za-z']+")
# Unicode name prefixes -> language, for letters outside the Latin script.
_SCRIPTS = (
    ("CJK", "zh"),
    ("HIRAGANA", "ja"),
    ("KATAKANA", "ja"),
    ("HANGUL", "ko"),
    ("CYRILLIC", "ru"),
    ("ARABIC", "ar"),
    ("GREEK", "el"),
    ("HEBREW", "he"),
    ("THAI", "th"),
    ("DEVANAGARI", "hi"),
    ("LATIN", "en"),
)


def _script_language(char: str) -> str | None:
    name = unicodedata.name(char, "")
    for prefix, language in _SCRIPTS:
        if name.startswith(prefix):
            return language
    return None


def detect(texts: Sequence[str], chars: int = 0) -> list[dict[str, object]]:
    """LibreTranslate's detection list ``[{"language", "confidence" 0-100}]``, best first.

    Each sentence is named by the engine's rule (:func:`desktop_mt.engine.direction.language`),
    or by its script when it has no Han, kana, Hangul or Latin letter; a language's share is
    its sentences' share of the characters. First comes
    :func:`~desktop_mt.engine.direction.paragraph_language` of the whole text (what the
    translator decides by), when it names one. Text without letters gives
    ``[{"language": "en", "confidence": 0.0}]`` (as LibreTranslate).

    The rule reads at most ``chars`` (default :data:`_DETECT_CHARS`) characters, shared by the
    texts (each text's beginning): a language shows in a few sentences, and a request of 128
    texts at the character limit is answered in milliseconds.
    """
    text = "\n".join(_sample(texts, chars or _DETECT_CHARS))
    weights: dict[str, int] = {}
    for sentence in direction.sentences(text):
        lang = direction.language(sentence) or _script_majority(sentence)
        if lang:
            weights[lang] = weights.get(lang, 0) + len(sentence)
    total = sum(weights.values())
    if not total:
        return [{"language": "en", "confidence": 0.0}]
    top = direction.paragraph_language(text)
    result: list[tuple[bool, float, str]] = []
    for language, weight in weights.items():
        share = weight / total
        if language == "en":
            share *= 0.5 + 0.5 * _english_word_share(texts)
        result.append((language != top, -round(100 * share, 1), language))
    return [{"language": language, "confidence": -negated} for _, negated, language in sorted(result)]


def detect_each(texts: Sequence[str]) -> list[dict[str, object]]:
    """The best guess of :func:`detect` for each text on its own, :data:`_DETECT_CHARS`
    characters read in all."""
    chars = max(_DETECT_MIN_CHARS, _DETECT_CHARS // max(1, len(texts)))
    return [detect([text], chars)[0] for text in texts]


def _sample(texts: Sequence[str], chars: int) -> list[str]:
    """The beginnings of ``texts``, ``chars`` characters in all (at least
    :data:`_DETECT_MIN_CHARS` of each text while the budget lasts), cut at a space where one is near."""
    share = max(_DETECT_MIN_CHARS, chars // max(1, len(texts)))
    out, left = [], chars
    for text in texts:
        if left <= 0:
            break
        part = text[: min(share, left)]
        if len(part) < len(text):
            cut = part.rfind(" ", len(part) // 2)
            part = part[:cut] if cut > 0 else part
        out.append(part)
        left -= len(part)
    return out


def _script_majority(sentence: str) -> str:
    """The language of the script most of ``sentence``'s letters are written in ("" if none)."""
    counts: collections.Counter[str] = collections.Counter()
    for char, count in collections.Counter(sentence).items():  # each distinct character once
        if char.isalpha():
            language = _script_language(char)
            if language:
                counts[language] += count
    return counts.most_common(1)[0][0] if counts else ""


def _english_word_share(texts: Sequence[str]) -> float:
    """0..1: how English the Latin words look (a fifth common words or more counts as 1)."""
    words = [w.lower() for text in texts for w in _WORD.findall(text)]
    if not words:
        return 0.0
    common = sum(1 for w in words if w.strip("'") in _ENGLISH_WORDS)
    return min(1.0, common / len(words) / 0.2)
