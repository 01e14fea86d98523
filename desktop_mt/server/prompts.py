r'''The text to translate inside the chat messages that translator apps send to an LLM.

``/v1/chat/completions`` is not a chat: it translates the last user message. Apps wrap the
user's text in a translation prompt; the ones below are recognised (wording taken from each
app's source) and only the text inside is translated, into the language the prompt names:

- **Pot** (OpenAI service, default prompt): ``Translate into Simplified Chinese:\n"""\nTEXT\n"""``
- **Easydict** (OpenAI / custom OpenAI service): ``Translate the following English text into
  Simplified-Chinese text: """TEXT"""`` (older versions: the same without the source
  language, or with the quotes on their own lines)
- **Bob** (bob-plugin-openai-translator; as ``input`` of ``/v1/responses`` in current versions,
  as the user message in older ones): ``translate from English to Simplified Chinese:\n\nTEXT``
- any other message with a ``"""``-quoted block: the block is the text (a custom prompt that
  follows OpenAI's advice to quote the input);
- otherwise the whole message is the text (the app sends the text alone, e.g. a custom prompt
  of just ``$text``). The system message and few-shot examples before it are ignored.
'''

from __future__ import annotations

import dataclasses
import re
from typing import Optional

_RECOGNISED = (
    ("pot", re.compile(r'\ATranslate into (?P<to>[^\n]+?):[ \t]*\n"""\n(?P<text>.*)\n"""\s*\Z',
                       re.S)),
    ("easydict", re.compile(r'\ATranslate the following (?:(?P<from>[^\n]+?) )?text into '
                            r'(?P<to>[^\n]+?)(?: text)?:\s*"""(?P<text>.*)"""\s*\Z', re.S)),
    ("bob", re.compile(r'\Atranslate from (?P<from>[^\n]+?) to (?P<to>[^\n]+?):\n\n(?P<text>.*)\Z',
                       re.S)),
)
_QUOTED = re.compile(r'"""(?P<text>.*?)"""', re.S)

# Words in a language name (any case) that mean Traditional / Chinese at all.
_TRADITIONAL = ("traditional", "繁", "hant", "zh-tw", "zh_tw", "taiwan", "hong kong")
_CHINESE = ("chinese", "中文", "简体", "汉语", "漢語", "mandarin", "zh")
_ENGLISH = ("english", "英语", "英文", "en")
_AUTO = ("auto", "detect")


@dataclasses.dataclass(frozen=True)
class Extracted:
    """The text of a chat message and what its prompt says (None: not named)."""

    text: str
    prompt: str                    # pot, easydict, bob, quoted or plain
    target: Optional[str] = None   # the language name the prompt asks for, as written
    source: Optional[str] = None


def extract(message: str) -> Extracted:
    """The text to translate in ``message`` (a user message's content)."""
    for name, pattern in _RECOGNISED:
        match = pattern.match(message)
        if match:
            groups = match.groupdict()
            return Extracted(_unwrap(groups["text"]), name, groups.get("to"), groups.get("from"))
    quoted = _QUOTED.search(message)
    if quoted:
        return Extracted(_unwrap(quoted.group("text")), "quoted")
    return Extracted(message, "plain")


def _unwrap(text: str) -> str:
    """Drop the one line break that sits inside the quotes on each side, if any."""
    if text.startswith("\n"):
        text = text[1:]
    return text[:-1] if text.endswith("\n") else text


def target_of(name: Optional[str], default: str) -> Optional[str]:
    """``zh-Hans`` / ``zh-Hant`` for a target language name, ``default`` when none is named,
    None for a language other than Chinese."""
    if not name:
        return default
    lowered = name.lower()
    if any(word in lowered for word in _TRADITIONAL):
        return "zh-Hant"
    return "zh-Hans" if _names(lowered, _CHINESE) else None


def source_of(name: Optional[str]) -> Optional[str]:
    """``en`` / ``zh`` / None (auto or not named) for a source language name; the name itself
    (lowered) for any other language, which the caller refuses."""
    lowered = (name or "").strip().lower()
    if not lowered or any(word in lowered for word in _AUTO):
        return None
    if _names(lowered, _ENGLISH):
        return "en"
    return "zh" if _names(lowered, _CHINESE) else lowered


def _names(lowered: str, words: tuple[str, ...]) -> bool:
    """Whether the name holds one of ``words`` (a short code only as the name or its prefix:
    ``zh``, ``zh-CN``)."""
    return any(word in lowered if len(word) > 2 or not word.isascii() else re.match(rf"{word}(\Z|[-_])", lowered)
               for word in words)
