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

Each app's English prompt is the same with English as the target: Pot's ``Translate into
English:``, Easydict's ``Translate the following Simplified-Chinese text into English text:``,
Bob's ``translate from Simplified Chinese to English:``; such a text is translated into English.
'''

from __future__ import annotations

import dataclasses

__all__ = [
    "Extracted",
    "extract",
    "target_of",
    "source_of",
]

_QUOTES = '"""'
_POT, _EASYDICT, _BOB = "Translate into ", "Translate the following ", "translate from "

# Words in a language name (any case) that mean Traditional / Chinese at all.
_TRADITIONAL = ("traditional", "繁", "hant", "zh-tw", "zh_tw", "taiwan", "hong kong")
_CHINESE = ("chinese", "中文", "简体", "汉语", "漢語", "mandarin", "zh")
_ENGLISH = ("english", "英语", "英文", "en")
_AUTO = ("auto", "detect")


@dataclasses.dataclass(frozen=True)
class Extracted:
    """The text of a chat message and what its prompt says (None: not named)."""

    text: str
    prompt: str  # pot, easydict, bob, quoted or plain
    target: str | None = None  # the language name the prompt asks for, as written
    source: str | None = None


def extract(message: str) -> Extracted:
    """The text to translate in ``message`` (a user message's content).

    Plain string operations (``str.find``, ``startswith``), each a single pass: the time is
    linear in the message, whatever it holds (regular expressions with two lazy name groups
    backtracked quadratically on ``"translate from " + " to " * N``)."""
    for parse in (_pot, _easydict, _bob):
        found = parse(message)
        if found is not None:
            return found
    opening = message.find(_QUOTES)
    closing = message.find(_QUOTES, opening + 3) if opening >= 0 else -1
    if closing >= 0:
        return Extracted(_unwrap(message[opening + 3 : closing]), "quoted")
    return Extracted(message, "plain")


def _pot(message: str) -> Extracted | None:
    """``Translate into TO:\n\"\"\"\nTEXT\n\"\"\"`` (spaces or tabs may end the first line,
    any white space may follow the closing quotes)."""
    if not message.startswith(_POT):
        return None
    line_end = message.find("\n")
    header = message[len(_POT) : line_end].rstrip(" \t") if line_end >= 0 else ""
    body = message[line_end + 1 :].rstrip()
    if (
        len(header) < 2
        or not header.endswith(":")
        or not body.startswith(_QUOTES + "\n")
        or not body.endswith("\n" + _QUOTES)
        or len(body) < 8
    ):
        return None
    return Extracted(_unwrap(body[4:-4]), "pot", header[:-1])


def _easydict(message: str) -> Extracted | None:
    """``Translate the following [FROM ]text into TO[ text]: \"\"\"TEXT\"\"\"`` (one header line;
    white space, line breaks too, between the colon and the quotes and after them)."""
    if not message.startswith(_EASYDICT):
        return None
    opening = message.find(_QUOTES)
    header = message[len(_EASYDICT) : opening].rstrip() if opening >= 0 else ""
    body = message[opening + 3 :].rstrip()
    if not header.endswith(":") or "\n" in header or len(body) < 3 or not body.endswith(_QUOTES):
        return None
    names = header[:-1]
    if names.endswith(" text") and len(names) > len(" text"):
        names = names[: -len(" text")]
    middle = names.find(" text into ")
    if middle >= 1:
        source: str | None = names[:middle]
        target = names[middle + len(" text into ") :]
    elif names.startswith("text into "):
        source, target = None, names[len("text into ") :]
    else:
        return None
    if not target:
        return None
    return Extracted(_unwrap(body[:-3]), "easydict", target, source)


def _bob(message: str) -> Extracted | None:
    """``translate from FROM to TO:\n\nTEXT`` (FROM: up to the first " to ")."""
    if not message.startswith(_BOB):
        return None
    line_end = message.find("\n")
    if line_end < 0 or not message.startswith("\n", line_end + 1):
        return None
    header = message[len(_BOB) : line_end]
    if not header.endswith(":"):
        return None
    names = header[:-1]
    middle = names.find(" to ", 1)
    if middle < 0 or middle + len(" to ") >= len(names):
        return None
    return Extracted(message[line_end + 2 :], "bob", names[middle + 4 :], names[:middle])


def _unwrap(text: str) -> str:
    """Drop the one line break that sits inside the quotes on each side, if any."""
    if text.startswith("\n"):
        text = text[1:]
    return text[:-1] if text.endswith("\n") else text


def target_of(name: str | None, default: str | None) -> str | None:
    """``zh-Hans`` / ``zh-Hant`` / ``en`` for a target language name, ``default`` when none is
    named, None for a language other than Chinese and English."""
    if not name:
        return default
    lowered = name.strip().lower()
    if any(word in lowered for word in _TRADITIONAL):
        return "zh-Hant"
    if _names(lowered, _CHINESE):
        return "zh-Hans"
    return "en" if _names(lowered, _ENGLISH) else None


def source_of(name: str | None) -> str | None:
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
    return any(
        word in lowered
        if len(word) > 2 or not word.isascii()
        else lowered == word or lowered.startswith((word + "-", word + "_"))
        for word in words
    )
