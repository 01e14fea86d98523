"""Language codes the server accepts, the ``/languages`` table, and language detection.

LibreTranslate lists Chinese as ``zh-Hans`` / ``zh-Hant`` and still accepts its older codes
``zh`` / ``zt``; we accept those and the region forms ``zh-CN`` / ``zh-TW``. The engine writes
Simplified Chinese; Traditional is the Simplified output converted with OpenCC (``s2t``, through
the engine's converter ``desktop_mt.engine.script``), offered only when OpenCC is installed.

Detection is honest about what it can do: it looks at the scripts the letters are written in.
Han characters mean Chinese (``zh``, either script), kana Japanese, Hangul Korean, Cyrillic
Russian, and so on; Latin letters are reported as English, with a confidence that grows with the share of very common
English words (so French or German text in Latin script scores lower, but is not told apart).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import re
import unicodedata
from collections.abc import Callable, Sequence

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
    "zh_hans": "zh-Hans",
    "zt": "zh-Hant",
    "zh-hant": "zh-Hant",
    "zh-tw": "zh-Hant",
    "zh_hant": "zh-Hant",
}


def canonical(code: str) -> str:
    """The code we list for ``code``: ``zh``/``zh-CN`` -> ``zh-Hans``, ``zt``/``zh-TW`` ->
    ``zh-Hant``; other tags lose their region (``en-US`` -> ``en``)."""
    code = code.strip()
    if code.lower() in _ALIASES:
        return _ALIASES[code.lower()]
    return code.replace("_", "-").split("-")[0] if not code.lower().startswith("zh") else code


@functools.lru_cache(maxsize=1)
def traditional_converter() -> Callable[[str], str] | None:
    """Simplified -> Traditional conversion (the engine's, OpenCC s2t), or None when no OpenCC
    package is installed."""
    from ..engine.script import converter
    from ..errors import DesktopMTError

    try:
        return converter("traditional")
    except DesktopMTError:
        return None


@dataclasses.dataclass(frozen=True)
class LanguageTable:
    """Source and target codes of the loaded model (targets in our canonical codes)."""

    source: str
    targets: tuple[str, ...]

    @classmethod
    def for_model(cls, source_lang: str, target_lang: str) -> LanguageTable:
        target = canonical(target_lang)
        targets = [target]
        if target == "zh-Hans" and traditional_converter() is not None:
            targets.append("zh-Hant")
        return cls(source_lang, tuple(targets))

    def listing(self) -> list[dict]:
        """``GET /languages``: LibreTranslate's ``[{code, name, targets}]``."""
        rows = [{"code": self.source, "name": NAMES.get(self.source, self.source), "targets": list(self.targets)}]
        rows += [{"code": t, "name": NAMES.get(t, t), "targets": []} for t in self.targets]
        return rows

    def target(self, code: str) -> str | None:
        """The canonical target for a requested code, or None when it is not offered."""
        code = canonical(code)
        return code if code in self.targets else None


# --- detection ---------------------------------------------------------------------------

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


def detect(texts: Sequence[str]) -> list[dict]:
    """LibreTranslate's detection list ``[{"language", "confidence" 0-100}]``, best first.

    Text without letters gives ``[{"language": "en", "confidence": 0.0}]`` (as LibreTranslate).
    """
    chars: collections.Counter[str] = collections.Counter()
    for text in texts:
        chars.update(text)  # counted in C; each distinct character is looked up once below
    counts: dict[str, int] = {}
    for char, count in chars.items():
        if char.isalpha():
            language = _script_language(char)
            if language:
                counts[language] = counts.get(language, 0) + count
    if counts.get("zh") and counts.get("ja"):  # kana present: Han is Japanese kanji
        counts["ja"] += counts.pop("zh")
    total = sum(counts.values())
    if not total:
        return [{"language": "en", "confidence": 0.0}]
    result = []
    for language, count in counts.items():
        share = count / total
        if language == "en":
            share *= 0.5 + 0.5 * _english_word_share(texts)
        result.append({"language": language, "confidence": round(100 * share, 1)})
    return sorted(result, key=lambda r: -r["confidence"])


def _english_word_share(texts: Sequence[str]) -> float:
    """0..1: how English the Latin words look (a fifth common words or more counts as 1)."""
    words = [w.lower() for text in texts for w in _WORD.findall(text)]
    if not words:
        return 0.0
    common = sum(1 for w in words if w.strip("'") in _ENGLISH_WORDS)
    return min(1.0, common / len(words) / 0.2)
