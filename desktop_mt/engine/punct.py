"""Chinese punctuation: ASCII punctuation next to Chinese characters becomes full-width.

Models trained on mixed data write ``你好, 世界?`` as often as ``你好，世界？``. The rule here:
a mark becomes full-width (，。？！：；（）“”) when it touches Chinese text, and stays ASCII
between Latin words and numbers (``3.5``, ``9:30``, ``Hello, world``). Spaces beside a mark
that became full-width go (full-width marks carry their own spacing). Brackets and double
quotes are converted as pairs, so ``(上午)`` after Chinese becomes ``（上午）``, never half and
half. Brackets around a code (``(UTC+1)``, ``(RTX 4090)``: ``textproc.is_code``) stay ASCII:
``textproc.protect`` keeps them as one span, which must come out verbatim, though a mark after
them still becomes full-width (``开始(UTC+1).`` -> ``开始(UTC+1)。``).

This runs on model output only: literal pieces of the plan (markers, URLs, code, numbers) never
pass through it. :func:`stable_length` tells a stream how much of a growing text can be shown
without a later character changing it.
"""

from __future__ import annotations

import re

from . import textproc

__all__ = [
    "fullwidth_marks",
    "to_fullwidth",
    "settled",
    "stable_length",
    "to_ascii",
    "settled_ascii",
]

_SIMPLE = {",": "，", "?": "？", "!": "！", ":": "：", ";": "；", ".": "。"}
_PAIRS = {"(": ("（", "）"), '"': ("“", "”")}
_CLOSERS = {")": "("}
_MARKS = set(_SIMPLE) | set(_PAIRS) | set(_CLOSERS)
# CJK ideographs, kana, CJK punctuation and full-width forms count as "Chinese" neighbours.
_CJK = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def fullwidth_marks(text: str) -> str:
    """``text``, a run of ASCII sentence marks (``.``, ``,``, ``?``...) with spaces, as
    full-width marks without the spaces: for a mark that the plan copies as a literal."""
    return "".join(_SIMPLE.get(char, char) for char in text if not char.isspace())


def _is_cjk(char: str | None) -> bool:
    """Whether ``char`` is a Chinese/Japanese character or full-width punctuation."""
    return char is not None and _CJK.match(char) is not None


def _neighbour(chars: str | list[str], i: int, step: int) -> str | None:
    """The nearest non-space character of ``chars`` (a str or list) before (step -1) or after (step 1) ``i``."""
    i += step
    while 0 <= i < len(chars):
        if not chars[i].isspace():
            return str(chars[i])
        i += step
    return None


def _pairs(text: str) -> dict[int, int]:
    """Matching bracket / double-quote positions (both directions); unmatched marks are absent."""
    match: dict[int, int] = {}
    stack: list[int] = []
    quote: int | None = None
    for i, char in enumerate(text):
        if char == "(":
            stack.append(i)
        elif char == ")" and stack:
            j = stack.pop()
            match[i], match[j] = j, i
        elif char == '"':
            if quote is None:
                quote = i
            else:
                match[i], match[quote], quote = quote, i, None
    return match


def _convert_simple(before: str | None, after: str | None, dotted: bool, char: str) -> bool:
    """Whether a mark (, . ? ! : ;) between ``before`` and ``after`` touches Chinese and is not
    inside Latin text or a number. ``dotted``: part of "..." or "e.g.", which keep their dots."""
    if char == ".":  # "3.5" and "..." keep their dots; only a full stop after Chinese changes
        return _is_cjk(before) and not dotted and not (after is not None and after.isascii() and after.isalnum())
    return _is_cjk(before) or (_is_cjk(after) and not (before is not None and before.isascii() and before.isalnum()))


def _convert_pair(text: str, i: int, j: int) -> bool:
    """Whether the pair at ``i`` < ``j`` touches or holds Chinese."""
    return (
        _is_cjk(_neighbour(text, i, -1)) or _is_cjk(_neighbour(text, j, 1)) or any(_is_cjk(c) for c in text[i + 1 : j])
    )


def _code_pair(text: str, i: int, j: int) -> bool:
    """Whether the pair at ``i`` < ``j`` is brackets around a code ("(UTC+1)", "(RTX 4090)"): a
    protected span (``textproc.protect``), which keeps its ASCII brackets in Chinese text."""
    return text[i] == "(" and textproc.is_code(text[i + 1 : j])


def _convert(text: str) -> list[str]:
    """What each character of ``text`` becomes ("" for a dropped space)."""
    pairs = _pairs(text)
    out = list(text)
    chinese: list[int] = []  # the closing bracket of a code kept in Chinese text ("开始(UTC+1).")
    for i, j in pairs.items():  # pairs first: a full stop after a closing quote sees the quote
        if i < j and _convert_pair(text, i, j):
            if _code_pair(text, i, j):
                chinese.append(j)
            else:
                out[i], out[j] = _PAIRS[text[i]]
    # a converted bracket or quote counts as Chinese for the marks beside it ("“你好”." ends in 。)
    view = [new if new == old else "\u3001" for new, old in zip(out, text)]
    for j in chinese:
        view[j] = "\u3001"
    for i, char in enumerate(text):
        if char in _SIMPLE:
            dotted = text[i + 1 : i + 2] == "." or text[i - 1 : i] == "."
            if _convert_simple(_neighbour(view, i, -1), _neighbour(view, i, 1), dotted, char):
                out[i] = _SIMPLE[char]
    converted = [new != old for new, old in zip(out, text)]
    return _drop_spaces(text, out, converted)


def to_fullwidth(text: str) -> str:
    """``text`` with its ASCII punctuation made full-width where it touches Chinese."""
    if not any(c in _MARKS for c in text):
        return text
    return "".join(_convert(text))


def settled(text: str) -> str:
    """The part of ``to_fullwidth(text)`` that no text appended later can change (for streams)."""
    return "".join(_convert(text)[: stable_length(text)])


def _drop_spaces(text: str, out: list[str], converted: list[bool]) -> list[str]:
    """Spaces right before or after a mark that became full-width are dropped."""
    keep = list(out)
    for i, char in enumerate(text):
        if not char.isspace():
            continue
        left = i - 1
        while left >= 0 and text[left].isspace():
            left -= 1
        right = i + 1
        while right < len(text) and text[right].isspace():
            right += 1
        if (left >= 0 and converted[left]) or (right < len(text) and converted[right]):
            keep[i] = ""
    return keep


def stable_length(text: str) -> int:
    """How many leading characters of a growing ``text`` have their final :func:`to_fullwidth` form.

    A mark's form depends on the next non-space character, a bracket or quote on its partner
    and the character after the pair, a space on the marks around it. So the settled part ends
    before the first unmatched opening bracket or quote, before any pair that closes at the
    cut, and before the spaces and marks at its end.
    """
    pairs = _pairs(text)
    end = next((i for i, c in enumerate(text) if c in _PAIRS and i not in pairs), len(text))
    while True:
        while end > 0 and (text[end - 1].isspace() or text[end - 1] in _MARKS):
            end -= 1
        open_at_cut = [i for i, j in pairs.items() if i < end <= j]
        if not open_at_cut:
            return end
        end = min(open_at_cut)


# -- English output: full-width punctuation becomes ASCII -------------------------------------

# A mark and how it reads in English: its ASCII form and whether a space follows it before a word.
_ASCII = {
    "，": (",", True),
    "、": (",", True),
    "。": (".", True),
    "．": (".", True),
    "？": ("?", True),
    "！": ("!", True),
    "：": (":", True),
    "；": (";", True),
    "…": ("...", True),
    "～": ("~", False),
    "—": ("—", False),
    "－": ("-", False),
    "／": ("/", False),
    "％": ("%", False),
    "＆": ("&", False),
}
_OPENERS = {"（": "(", "“": '"', "‘": "'", "「": '"', "『": '"', "《": '"', "【": "[", "〈": '"', "［": "["}
_ENDERS = {"）": ")", "”": '"', "’": "'", "」": '"', "』": '"', "》": '"', "】": "]", "〉": '"', "］": "]"}
# Characters after which no space is put before an opening mark, and before which none goes.
_NO_SPACE_BEFORE = set(",.?!:;)]\"'%") | set(_ENDERS.values())


def to_ascii(text: str) -> str:
    """``text`` (English output) with full-width punctuation as ASCII and English spacing:
    ``，`` -> ``", "``, ``。`` -> ``". "``, ``“你好”`` quotes -> ``"..."``, ``（`` -> ``" ("``. A space
    is put after a mark only when a word follows, so a growing text's converted prefix never
    changes (:func:`settled_ascii`); spaces before a mark go; an ASCII mark is left as it is."""
    if not any(c in _ASCII or c in _OPENERS or c in _ENDERS or c == "\u3000" for c in text):
        return text
    out: list[str] = []
    for i, char in enumerate(text):
        nxt = text[i + 1 : i + 2]
        put_space = bool(out) and out[-1].endswith(" ") and not out[-1].isspace()  # the last mark's space
        if char == "\u3000":  # the ideographic space
            out.append(" ")
        elif char in _ASCII:
            mark, spaced = _ASCII[char]
            _drop_trailing_space(out)
            out.append(mark + (" " if spaced and _starts_word(nxt) else ""))
        elif char in _OPENERS:
            if out and out[-1] and not out[-1][-1].isspace() and out[-1][-1] not in "([\"'":
                out.append(" ")
            out.append(_OPENERS[char])
        elif char in _ENDERS:
            _drop_trailing_space(out)
            out.append(_ENDERS[char] + (" " if _starts_word(nxt) else ""))
        elif char.isspace() and put_space:
            continue  # a space the conversion already put
        else:
            out.append(char)
    return "".join(out)


def _drop_trailing_space(out: list[str]) -> None:
    while out and out[-1].endswith(" "):
        out[-1] = out[-1][:-1]
        if not out[-1]:
            out.pop()


def _starts_word(char: str) -> bool:
    """Whether ``char`` begins a word (a letter, digit or opening mark): a space goes before it."""
    return bool(char) and (char.isalnum() or char in _OPENERS)


def settled_ascii(text: str) -> str:
    """The part of ``to_ascii(text)`` that no text appended later can change (for streams):
    the conversion without its trailing spaces and without a last character that may still
    turn out to be an opening quote's partner."""
    return to_ascii(text).rstrip()
