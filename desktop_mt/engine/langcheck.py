"""What an English->Chinese model must not be given (kept for callers of the one-direction API).

The rule itself lives in :mod:`desktop_mt.engine.direction` (one place for both directions);
these functions answer the older questions with it:

* :func:`needs_translation`: whether a sentence is English (so an English->Chinese model
  translates it); :func:`keep_verbatim`: a sentence with words that is not English.
* :func:`is_mostly_cjk` / :func:`already_cjk`: whole-text checks. A front end should call
  ``direction.describe(text, target)`` (and the engine translates Chinese into English now),
  so these only say what an English->Chinese model alone would leave as it is.
* :func:`split_cjk_sentences` / :func:`sentences`: ``direction``'s sentence cutting.
"""

from __future__ import annotations

from . import direction, textproc
from .direction import CJK as _CJK
from .direction import split_cjk_sentences  # noqa: F401 - part of this module's API

__all__ = [
    "sentences",
    "cjk_share",
    "needs_translation",
    "keep_verbatim",
    "is_mostly_cjk",
    "already_cjk",
    "plainly_latin",
]

sentences = direction.sentences


def cjk_share(text: str) -> float:
    """The share of letters in ``text`` that are Han, Kana or Hangul (0.0 without letters)."""
    total = sum(1 for c in text if c.isalpha())
    return len(_CJK.findall(text)) / total if total else 0.0


def needs_translation(sentence: str) -> bool:
    """Whether ``sentence`` is English by the direction rule (``direction.language``)."""
    return direction.language(sentence) == direction.EN


def keep_verbatim(sentence: str) -> bool:
    """Whether an English->Chinese model leaves ``sentence`` as it is: it has words and they are
    not English (Chinese, Japanese, Korean). Numbers and punctuation are the engine's to copy."""
    return direction.keep_for_model(sentence, direction.EN)


def is_mostly_cjk(text: str, threshold: float = 0.5) -> bool:
    """Whether at least ``threshold`` of ``text``'s sentences (weighted by length) are Chinese,
    Japanese or Korean by the direction rule."""
    sizes = [
        (len(s), direction.language(s) in (direction.ZH, direction.JA, direction.KO))
        for s in sentences(text)
        if textproc.has_words(s)
    ]
    total = sum(size for size, _cjk in sizes)
    return total > 0 and sum(size for size, cjk in sizes if cjk) / total >= threshold


def already_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK character and none of its sentences is English: what an
    English->Chinese model alone leaves as it is (``direction.untranslated(text, "zh")``)."""
    return bool(_CJK.search(text)) and direction.untranslated(text, direction.ZH)


def plainly_latin(text: str) -> bool:
    """Whether ``text`` has a Latin letter and no CJK character: the quick test that lets
    English through without the full rule."""
    return direction.has_latin(text) and _CJK.search(text) is None
