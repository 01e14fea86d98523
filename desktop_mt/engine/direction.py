"""Which way a sentence is translated: the one rule for English<->Chinese (pure Python).

desktop-mt translates English into Chinese and Chinese into English. Every front end (window,
hotkey popup, command line, files, local API) and the engine itself decide with this module:

* :func:`language` names the language of one sentence: ``"zh"`` when it is mostly Han,
  ``"en"`` when it is mostly Latin, ``"ja"`` (kana) and ``"ko"`` (Hangul), which are kept as
  they are, and ``""`` for a sentence with nothing to translate (numbers, URLs, punctuation).
* :func:`direction_for` turns a sentence's language and the requested target (``"auto"``,
  ``"en"``, ``"zh"``) into a direction (``"en-zh"``, ``"zh-en"``) or ``None`` (left as it is).
  With ``"auto"`` each sentence goes into the other language, so a mixed paragraph (Chinese
  with an English sentence, or the reverse) has every sentence translated.
* :func:`split_sentences` cuts a line into sentences the way the engine does, Chinese sentence
  ends included (。！？；… and closing quotes with no space after them).
* :func:`paragraph_language` / :func:`describe` are what a front end shows ("Chinese →
  English", "Japanese: left as it is"; in short, for the window's Auto entry, "Japanese: kept").

Han vs Latin: a Chinese character carries about as much as a 3-5 letter English word, so
letter shares understate Chinese. At or above 50% CJK letters a sentence is CJK; from 20% to
50% it is CJK when it starts with a CJK character or ends with a full-width sentence end
(``我们用 TensorFlow 训练模型``, ``Python 是一种编程语言。``) and English otherwise
(``My name is 王小明.``); under 20% it is English. Latin letters inside protected spans (URLs,
e-mail addresses, code, file paths, @handles: ``textproc.protect``) do not count: they are
copied to the output anyway. Traditional Chinese is Chinese (Han): it is translated too.
"""

from __future__ import annotations

import functools
import re
from typing import Final, Literal

from ..base.errors import N_, DesktopMTError, ModelNotFoundError, Phrase
from . import textproc
from .segment import segment_sentences

__all__ = [
    "Language",
    "Direction",
    "Target",
    "EN",
    "ZH",
    "JA",
    "KO",
    "EN_ZH",
    "ZH_EN",
    "DIRECTIONS",
    "AUTO",
    "TARGETS",
    "LANGUAGE_NAMES",
    "DIRECTION_TITLES",
    "CJK",
    "DirectionUnavailableError",
    "NotTranslatedError",
    "language",
    "has_latin",
    "check_target",
    "check_direction",
    "direction_into",
    "direction_for",
    "sentence_direction",
    "split_sentences",
    "split_cjk_sentences",
    "sentences",
    "paragraph_language",
    "directions_needed",
    "untranslated",
    "describe",
    "keep_for_model",
    "short_lang",
    "model_direction",
]

Language = Literal["en", "zh", "ja", "ko"]
"""A sentence's language as :func:`language` names it (``""`` beside it: nothing to translate)."""
Direction = Literal["en-zh", "zh-en"]
"""The two directions desktop-mt translates in, by their one spelling."""
Target = Literal["auto", "en", "zh"]
"""Where text goes: each sentence into the other language, into English, into Chinese."""

EN: Final = "en"
ZH: Final = "zh"
JA: Final = "ja"
KO: Final = "ko"
EN_ZH: Final = "en-zh"
ZH_EN: Final = "zh-en"
DIRECTIONS: tuple[Direction, ...] = (EN_ZH, ZH_EN)
AUTO: Final = "auto"
TARGETS: tuple[Target, ...] = (AUTO, EN, ZH)
LANGUAGE_NAMES = {EN: N_("English"), ZH: N_("Chinese"), JA: N_("Japanese"), KO: N_("Korean")}
# Each direction's title, the one table of them: English, marked for the catalogs; a front end
# says it through its own translation layer (the command line's gettext, ``_(title)``; the
# window's Qt catalog, ``gui.messages.direction_title``).
DIRECTION_TITLES: dict[Direction, str] = {EN_ZH: N_("English → Chinese"), ZH_EN: N_("Chinese → English")}

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f\u3005-\u3007"
_KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_HANGUL = "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
_HAN_RE, _KANA_RE, _HANGUL_RE = (re.compile(f"[{r}]") for r in (_HAN, _KANA, _HANGUL))
CJK = re.compile(f"[{_HAN}{_KANA}{_HANGUL}]")
# Latin letters: ASCII, Latin-1 and Latin Extended-A/B, and full-width A-Z a-z.
_LATIN = re.compile("[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\uff21-\uff3a\uff41-\uff5a]")
# A sentence end with no space after it: Chinese puts none after 。！？；…, and "English.中文"
# has none either. Closing quotes and brackets stay with the sentence they close.
_CLOSERS = "”’」』）》】\"')"
_CJK_END = re.compile(
    f"(?:(?:[。！？；]|(?<=[{_HAN}])…+)+[{_CLOSERS}]*(?=[^\\s{_CLOSERS}])"
    f"|[.!?]+[{_CLOSERS}]*(?=[{_HAN}{_KANA}{_HANGUL}]))"
)
_MIN_SHARE = 0.2  # below: English with a few CJK words
_MOSTLY = 0.5  # at or above: CJK; in between, the sentence's frame decides
_CJK_FINAL = "。！？」』）”；…"


class DirectionUnavailableError(ModelNotFoundError):
    """Text needs a direction (``"en-zh"`` or ``"zh-en"``) that no loaded model translates.
    ``direction`` names it; ``model`` is the catalog model to download for it (``""`` when the
    catalog has none). The message says what to do."""

    def __init__(self, direction: Direction, detail: str = "", model: str = "") -> None:
        self.direction, self.model = direction, model
        source, _, target = direction.partition("-")
        if model:
            template = N_(
                "no {source}->{target} model is available{detail}; download one with "
                "`desktop-mt models download {model}` (or in the Models dialog)"
            )
        else:
            template = N_(
                "no {source}->{target} model is available{detail}; install one and choose it "
                "with `desktop-mt models use NAME`"
            )
        fields = {
            "source": Phrase(LANGUAGE_NAMES.get(source, source)),
            "target": Phrase(LANGUAGE_NAMES.get(target, target)),
            "detail": f" ({detail})" if detail else "",
            "model": model,
        }
        super().__init__(template.format(**fields))
        self.worded(template, **fields)


class NotTranslatedError(DesktopMTError):
    """A sentence that no direction translates (Japanese, Korean, nothing but numbers, or
    already in the target language) was given where one direction must be chosen for it:
    completing a typed prefix (``TwoWayTranslator.sentence_direction``). Not a failure of the
    engine: the front end says it in the user's language (``template`` is set)."""

    def __init__(self) -> None:
        template = N_("this sentence is not translated (no English or Chinese to translate)")
        super().__init__(template)
        self.worded(template)


def language(sentence: str) -> str:
    """The language of one sentence: ``"zh"``, ``"en"``, ``"ja"``, ``"ko"``, or ``""`` when it
    has nothing to translate (no letter outside its protected spans). See the module docstring."""
    text = _translatable_text(sentence).strip()
    han, kana, hangul = (len(r.findall(text)) for r in (_HAN_RE, _KANA_RE, _HANGUL_RE))
    cjk, latin = han + kana + hangul, len(_LATIN.findall(text))
    total = sum(1 for c in text if c.isalpha())
    if total == 0 or (cjk == 0 and latin == 0):
        return ""
    if not _is_cjk_frame(text, cjk, latin, total):
        return EN
    if hangul and hangul >= han:
        return KO
    if kana and kana * 4 >= han:  # Japanese writes kana in nearly every sentence; Chinese never
        return JA
    return ZH


def has_latin(text: str) -> bool:
    """Whether ``text`` holds a Latin letter."""
    return _LATIN.search(text) is not None


def _is_cjk_frame(text: str, cjk: int, latin: int, total: int) -> bool:
    """Whether a sentence with these letter counts is CJK rather than English."""
    if latin == 0:
        return cjk > 0
    share = cjk / total
    if share >= _MOSTLY:
        return True
    if share < _MIN_SHARE:
        return False
    first = next((c for c in text if c.isalpha()), "")
    return bool(CJK.match(first)) or text.rstrip()[-1:] in _CJK_FINAL


def _translatable_text(sentence: str) -> str:
    """``sentence`` without its protected spans (URLs, code, paths ...), which are copied anyway."""
    return "".join(p for p in textproc.protect(sentence, numbers=False) if isinstance(p, str))


def check_target(target: str) -> Target:
    """``target`` if it is ``"auto"``, ``"en"`` or ``"zh"``; ValueError otherwise (the edges
    narrow a setting, an argument or a request's field with it)."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
    return target


def check_direction(name: str) -> Direction:
    """``name`` if it is ``"en-zh"`` or ``"zh-en"``; ValueError otherwise."""
    if name not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, not {name!r}")
    return name


def direction_into(target: Target) -> Direction | None:
    """The direction that writes ``target``'s language: ``"zh"`` -> ``"en-zh"``, ``"en"`` ->
    ``"zh-en"``; None for ``"auto"`` (each sentence into the other language)."""
    return EN_ZH if target == ZH else ZH_EN if target == EN else None


def direction_for(lang: str, target: Target = AUTO) -> Direction | None:
    """The direction a sentence in ``lang`` is translated in for ``target``: ``"en-zh"``,
    ``"zh-en"``, or None when it stays as it is (Japanese, Korean, nothing to translate, or
    already in the target language)."""
    if lang == EN and target in (AUTO, ZH):
        return EN_ZH
    if lang == ZH and target in (AUTO, EN):
        return ZH_EN
    return None


def sentence_direction(sentence: str, target: Target = AUTO) -> Direction | None:
    """:func:`direction_for` of the sentence's :func:`language`."""
    return direction_for(language(sentence), target)


def split_sentences(line: str) -> list[tuple[str, str]]:
    """One line (no newline) as ``(sentence, following_whitespace)`` pairs; joining them gives
    the line back. Sentences end at . ! ? followed by a space (``segment.segment_sentences``,
    abbreviations respected) and at Chinese sentence ends 。！？；… (with their closing quotes)
    followed by anything, and at an English end followed directly by CJK text."""
    out: list[tuple[str, str]] = []
    for sentence, gap in segment_sentences(line):
        parts = split_cjk_sentences(sentence)
        out.extend((part, "") for part in parts[:-1])
        out.append((parts[-1], gap) if parts else (sentence, gap))
    return out


def split_cjk_sentences(text: str) -> list[str]:
    """``text`` cut after each CJK sentence end that has no space after it (``"".join`` gives
    ``text`` back): ``"这是中文。This is English."`` -> ``["这是中文。", "This is English."]``."""
    parts, start = [], 0
    for match in _CJK_END.finditer(text):
        parts.append(text[start : match.end()])
        start = match.end()
    parts.append(text[start:])
    return [p for p in parts if p]


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (each line cut by :func:`split_sentences`), stripped, non-empty."""
    return [s.strip() for line in text.splitlines() for s, _gap in split_sentences(line.strip()) if s.strip()]


def paragraph_language(text: str) -> str:
    """The language most of ``text`` is in (sentences weighted by length): ``"zh"``, ``"en"``,
    ``"ja"``, ``"ko"``, or ``""`` when nothing in it is translatable. For a front end's label
    and for naming an output file; the engine itself decides sentence by sentence."""
    weights: dict[str, int] = {}
    for sentence in sentences(text):
        lang = language(sentence)
        if lang:
            weights[lang] = weights.get(lang, 0) + len(sentence)
    return max(weights, key=lambda k: weights[k]) if weights else ""


def directions_needed(text: str, target: Target = AUTO) -> set[Direction]:
    """The directions ``text`` needs models for (empty: nothing in it is translated)."""
    return set(_directions_needed(text, target))


@functools.lru_cache(maxsize=4)
def _directions_needed(text: str, target: Target) -> frozenset[Direction]:
    # Kept for the last few texts: a two-way stream asks three times about the same text before
    # its first token (availability, routing), ~45 ms each for a 3,000-word paste (issue 49).
    if not any(r.search(text) for r in (_HAN_RE, _KANA_RE, _HANGUL_RE)):
        # No CJK letter: each sentence is English or has nothing to translate (``language``),
        # so the first English sentence decides, without reading the rest.
        english = target in (AUTO, ZH) and any(language(s) == EN for s in sentences(text))
        return frozenset({EN_ZH}) if english else frozenset()
    return frozenset(d for d in (direction_for(language(s), target) for s in sentences(text)) if d)


def untranslated(text: str, target: Target = AUTO, available: tuple[Direction, ...] = DIRECTIONS) -> bool:
    """Whether all of ``text`` stays as it is for ``target`` although it has words: every
    sentence is Japanese, Korean, already in the target language, without anything to
    translate, or (with ``available``, the directions a translator has) one a single-direction
    translator leaves as it is. What file jobs count as "kept as they were"."""
    return textproc.has_words(text) and not directions_needed(text, target) & set(available)


def describe(text: str, target: Target = AUTO, *, short: bool = False) -> str:
    """A front end's one-line description of what happens to ``text``: a direction's title
    (:data:`DIRECTION_TITLES`, the one spelling the front ends show: ``"Chinese → English"``,
    ``"English → Chinese"``), ``"Japanese: left as it is"``, ``"Chinese: already Chinese, left
    as it is"``, ``"mixed: each sentence into the other language"`` or ``""`` (nothing to do).
    ``short``: the same decision in the words a narrow label has room for (the window's Auto
    entry): a direction's title, ``"mixed"``, ``"Japanese: kept"``, ``"Korean: kept"``,
    ``"Chinese: kept"`` (already in the target language) or ``""``."""
    needed = directions_needed(text, target)
    if len(needed) > 1:
        return "mixed" if short else "mixed: each sentence into the other language"
    if needed:
        return DIRECTION_TITLES[needed.pop()]
    lang = paragraph_language(text)
    if not lang:
        return ""
    name = LANGUAGE_NAMES[lang]
    if short:
        return f"{name}: kept"
    if lang in (JA, KO):
        return f"{name}: left as it is"
    return f"{name}: already {name}, left as it is"


def keep_for_model(sentence: str, source_lang: str) -> bool:
    """Whether a single-direction model whose source is ``source_lang`` leaves ``sentence`` as it
    is: it has words, and they are not in the model's source language (the engine's rule for
    text a model cannot translate; ``GenerationOptions.keep_cjk``)."""
    lang = language(sentence)
    return bool(lang) and lang != short_lang(source_lang)


def short_lang(lang: str) -> str:
    """``"cmn"``/``"zho"``/``"zh-Hans"`` -> ``"zh"``, ``"eng"`` -> ``"en"``."""
    lang = lang.lower().split("_")[0].split("-")[0]
    return {"cmn": ZH, "zho": ZH, "yue": ZH, "eng": EN}.get(lang, lang)


def model_direction(source_lang: str, target_lang: str) -> Direction | None:
    """``"en-zh"`` / ``"zh-en"`` for a model's language pair, None for any other pair."""
    pair = f"{short_lang(source_lang)}-{short_lang(target_lang)}"
    return EN_ZH if pair == EN_ZH else ZH_EN if pair == ZH_EN else None
