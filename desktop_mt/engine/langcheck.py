"""Is this text already Chinese, Japanese or Korean? (pure Python, Unicode ranges only)

The app translates English into Chinese, so a sentence that is already Chinese (or Japanese or
Korean) must not reach the model: an English->Chinese model turns it into garbage or echoes
it. The engine keeps such sentences verbatim, one sentence at a time, so mixed text only has
its English sentences translated (``GenerationOptions.keep_cjk``).

* :func:`cjk_share`: the share of letters that are Han, Kana or Hangul among all letters.
* :func:`is_mostly_cjk`: the whole-text check a front end uses to say "already Chinese, left
  as it is"; :func:`already_cjk`: nothing in the text will be translated (batch summaries).
* :func:`needs_translation`: the per-sentence decision the engine makes (see its rule).
* :func:`split_cjk_sentences`: cuts a sentence at CJK sentence ends that have no space after
  them (Chinese puts none: ``这是中文。This is English.``), so each part is judged on its own.

Latin letters inside protected spans (URLs, e-mail addresses, code, file paths, @handles:
``textproc.protect``) do not count: they are copied to the output anyway.
"""

from __future__ import annotations

import re

from . import textproc

# Han (basic, extension A, compatibility, supplementary planes), the iteration marks 々〆〇,
# Hiragana, Katakana (with phonetic extensions and half-width forms) and Hangul (syllables,
# jamo, compatibility jamo).
_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f\u3005-\u3007"
                  "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
# Latin letters: ASCII, Latin-1 and Latin Extended-A/B, and full-width A-Z a-z.
_LATIN = re.compile("[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\uff21-\uff3a\uff41-\uff5a]")
# A CJK sentence end (with its closing quotes/brackets) directly followed by more text: Chinese
# and Japanese put no space after 。！？, and "English.中文" has none either.
_CJK_END = re.compile("(?:[。！？]+[”’」』）》]*(?=\\S)|[.!?]+[\"'”’)]*(?=%s))" % _CJK.pattern)
# Below this share a sentence is English with a few CJK words ("My name is 王小明.")...
_MIN_SHARE = 0.2
# ...at or above it, it is CJK. In between, its frame decides (see needs_translation).
_MOSTLY = 0.5
_CJK_FINAL = "。！？」』）”"


def _letters(text: str) -> tuple[int, int, int]:
    """``(cjk, latin, all)`` letter counts of ``text``."""
    total = sum(1 for c in text if c.isalpha())
    return len(_CJK.findall(text)), len(_LATIN.findall(text)), total


def cjk_share(text: str) -> float:
    """The share of letters in ``text`` that are Han, Kana or Hangul (0.0 without letters)."""
    cjk, _latin, total = _letters(text)
    return cjk / total if total else 0.0


def is_mostly_cjk(text: str, threshold: float = 0.5) -> bool:
    """Whether ``text`` is mostly Chinese, Japanese or Korean, for a front end's "already
    Chinese, left as it is" line: at least ``threshold`` of its sentences (weighted by length)
    are ones the engine keeps verbatim (:func:`keep_verbatim`) and hold a CJK character.
    Sentences rather than letters are counted because a Han character carries about as much as
    a 3-5 letter word (``我们用 TensorFlow 训练模型`` is Chinese at 44% CJK letters)."""
    sizes = [(len(s), bool(_CJK.search(s)) and keep_verbatim(s)) for s in sentences(text) if textproc.has_words(s)]
    total = sum(size for size, _cjk in sizes)
    return total > 0 and sum(size for size, cjk in sizes if cjk) / total >= threshold


def already_cjk(text: str) -> bool:
    """Whether the engine leaves all of ``text`` as it is because it is already Chinese,
    Japanese or Korean: it holds a CJK character and none of its sentences
    :func:`needs_translation` (what the batch jobs count as "kept as they were")."""
    return bool(_CJK.search(text)) and not any(needs_translation(s) for s in sentences(text) if textproc.has_words(s))


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` as the engine cuts them: per line, at sentence ends followed by
    a space (``segment.segment_sentences``) and at CJK sentence ends (:func:`split_cjk_sentences`)."""
    from .segment import segment_sentences

    return [part for line in text.splitlines() for sentence, _gap in segment_sentences(line.strip())
            for part in split_cjk_sentences(sentence)]


def _translatable_text(sentence: str) -> str:
    """``sentence`` without its protected spans (URLs, code, paths ...), which are copied anyway."""
    return "".join(p for p in textproc.protect(sentence, numbers=False) if isinstance(p, str))


def needs_translation(sentence: str) -> bool:
    """Whether ``sentence`` should be sent to the English->Chinese model.

    False when it has no Latin letter (Chinese, Japanese, Korean, or only digits and
    punctuation), or when it is mostly CJK. Since a Chinese character carries about as much as
    a 3-5 letter English word, letter shares understate Chinese: at or above 50% CJK letters the
    sentence is CJK; from 20% to 50% it is CJK when it starts with a CJK character or ends with
    a full-width sentence end (``我们用 TensorFlow 训练模型``, ``Python 是一种编程语言。``), and
    English otherwise (``My name is 王小明.``); under 20% it is English. Latin letters in URLs,
    e-mail addresses, code and paths do not count.
    """
    text = _translatable_text(sentence).strip()
    cjk, latin, total = _letters(text)
    if latin == 0:
        return False
    share = cjk / total
    if share >= _MOSTLY:
        return False
    if share < _MIN_SHARE:
        return True
    first = next((c for c in text if c.isalpha()), "")
    return not (_CJK.match(first) or text.rstrip()[-1:] in _CJK_FINAL)


def plainly_latin(text: str) -> bool:
    """Whether ``text`` has a Latin letter and no CJK character: the quick test that lets
    English through without the full rule (:func:`needs_translation` is True for it unless all
    its Latin letters sit in protected spans, which the engine has cut out of its segments)."""
    return _LATIN.search(text) is not None and _CJK.search(text) is None


def keep_verbatim(sentence: str) -> bool:
    """Whether the engine copies ``sentence`` instead of translating it: it has letters (so it
    is not a number or a punctuation mark, which the engine copies anyway) and does not
    :func:`needs_translation`."""
    return textproc.has_words(sentence) and not needs_translation(sentence)


def split_cjk_sentences(text: str) -> list[str]:
    """``text`` cut after each CJK sentence end that has no space after it (``"".join`` gives
    ``text`` back): ``"这是中文。This is English."`` -> ``["这是中文。", "This is English."]``."""
    parts, start = [], 0
    for match in _CJK_END.finditer(text):
        parts.append(text[start:match.end()])
        start = match.end()
    parts.append(text[start:])
    return [p for p in parts if p]
