"""Chinese output script: Simplified as the model writes it, or Traditional by OpenCC conversion.

One converter for the whole app (engine, CLI, GUI, server). Traditional is converted from the
Simplified output rather than asked of the model: opus-mt's Traditional branch (``>>cmn_Hant<<``)
drops clauses, and conversion works with every model, the bundled demo included. OpenCC
converts phrases, not just characters (``s2twp``: 内存 -> 記憶體, 打印机 -> 印表機 for Taiwan;
``s2hk`` for Hong Kong).

Streaming: OpenCC converts each run of text between separators (spaces, ，。、；：！？ quotes,
brackets ...) on its own, since no dictionary entry contains one. So the text up to the last
separator is final, and :class:`StreamConverter` shows it; the run after it (a clause) is held
back until a separator or the end of the segment, so no shown character is ever changed later.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Generator
from typing import Final, Literal

from ..base.errors import DesktopMTError
from .events import Finished, SegmentDone, TextDelta

__all__ = [
    "Event",
    "Script",
    "SIMPLIFIED",
    "SCRIPTS",
    "check_script",
    "converter",
    "to_simplified",
    "convert",
    "StreamConverter",
    "convert_events",
]

Event = TextDelta | SegmentDone | Finished

Script = Literal["simplified", "traditional-tw", "traditional-hk", "traditional"]
"""Chinese output: the model's Simplified, or Traditional (Taiwan, Hong Kong, generic) by OpenCC."""
SIMPLIFIED: Final = "simplified"
SCRIPTS: tuple[Script, ...] = (SIMPLIFIED, "traditional-tw", "traditional-hk", "traditional")
# OpenCC configurations: Taiwan with its phrases (s2twp), Hong Kong (s2hk), generic (s2t).
_OPENCC_CONFIGS = {"traditional-tw": "s2twp", "traditional-hk": "s2hk", "traditional": "s2t"}
# OpenCC's segment separators (PhraseExtract.cpp; opencc-python-reimplemented splits on the same).
_SEPARATORS = re.compile(
    r"(\s+|-|,|\.|\?|!|\*|　|，|。|、|；|：|？|！|…|“|”|‘|’|『|』|「|」|﹁|﹂|—|－|（|）|《|》"
    r"|〈|〉|～|．|／|＼|︒|︑|︔|︓|︿|﹀|︹|︺|︙|︐|［|﹇|］|﹈|︕|︖|︰|︳|︴|︽|︾|︵|︶|｛|︷|｝|︸|﹃|﹄"
    r"|【|︻|】|︼)"
)


def check_script(script: str) -> Script:
    """``script`` if it is one of :data:`SCRIPTS`; ValueError otherwise."""
    if script not in SCRIPTS:
        raise ValueError(f"script must be one of {', '.join(SCRIPTS)}, not {script!r}")
    return script


@functools.cache
def converter(script: Script) -> Callable[[str], str] | None:
    """The conversion function for ``script`` (None for Simplified: nothing to do)."""
    if check_script(script) == SIMPLIFIED:
        return None
    try:
        import opencc
    except ImportError as exc:
        raise DesktopMTError(
            "Traditional Chinese output needs OpenCC: pip install opencc-python-reimplemented"
        ) from exc
    config = _OPENCC_CONFIGS[script]
    for name in (config, config + ".json"):  # opencc-python-reimplemented / the official binding
        try:
            convert: Callable[[str], str] = opencc.OpenCC(name).convert
            return convert
        except Exception:  # noqa: BLE001 - each binding rejects the other's config name
            continue
    raise DesktopMTError(f"the installed OpenCC has no {config} conversion; pip install opencc-python-reimplemented")


@functools.cache
def _t2s() -> Callable[[str], str] | None:
    """OpenCC's Traditional->Simplified conversion (None when OpenCC is not installed)."""
    try:
        import opencc
    except ImportError:
        return None
    for name in ("t2s", "t2s.json"):  # opencc-python-reimplemented / the official binding
        try:
            convert: Callable[[str], str] = opencc.OpenCC(name).convert
            return convert
        except Exception:  # noqa: BLE001 - each binding rejects the other's config name
            continue
    return None


def to_simplified(text: str) -> str:
    """``text`` with Traditional characters as Simplified (OpenCC t2s); as it is without OpenCC
    (the conversion helps a model trained on Simplified text; it is not needed to translate)."""
    fn = _t2s()
    return text if fn is None else fn(text)


def convert(text: str, script: Script) -> str:
    """``text`` (Simplified Chinese) in ``script``."""
    fn = converter(script)
    return text if fn is None else fn(text)


class StreamConverter:
    """Converts a text that arrives in pieces; every returned piece is final.

    ``"".join(push(d) for d in deltas) + finish() == convert("".join(deltas), script)``.
    """

    def __init__(self, script: Script) -> None:
        self._fn = converter(script)
        self._pending = ""

    def push(self, delta: str) -> str:
        """Add ``delta``; returns the converted text up to the last separator (maybe "")."""
        if self._fn is None:
            return delta
        self._pending += delta
        last = None
        for last in _SEPARATORS.finditer(self._pending):  # noqa: B007 - the last match is wanted
            pass
        if last is None:
            return ""
        ready, self._pending = self._pending[: last.end()], self._pending[last.end() :]
        return self._fn(ready)

    def finish(self) -> str:
        """The rest, once the text is complete."""
        rest, self._pending = self._pending, ""
        return self._fn(rest) if self._fn is not None and rest else rest


def convert_events(source: Generator[Event, None, None], script: Script) -> Generator[Event, None, None]:
    """Translator events with their text in ``script``: deltas go through a
    :class:`StreamConverter` per segment, whose held-back tail comes out before ``SegmentDone``
    and before any separator, glossary term or span (segment -1) that follows it, so the order
    of the text never changes.
    Closing the result closes ``source`` (the engine's generator) at once."""
    stream, segment = StreamConverter(script), -1
    try:
        for event in source:
            if isinstance(event, TextDelta) and event.segment >= 0:
                segment = max(segment, event.segment)
                text = stream.push(event.text)
                if text:
                    yield TextDelta(text, event.segment)
                continue
            # A separator, a glossary term or a span (segment -1) may come before its segment's
            # SegmentDone ("哪里的人" + "火车站？"): the clause held back goes out first, or the
            # output's order would change ("火車站？哪裡的人").
            tail = stream.finish()
            if tail:
                yield TextDelta(tail, segment)
            if isinstance(event, TextDelta):
                text = convert(event.text, script)
                if text:
                    yield TextDelta(text, event.segment)
                continue
            if isinstance(event, SegmentDone):  # its rest (or a cancelled one's) is out above
                event = dataclasses.replace(event, translation=convert(event.translation, script))
            yield event
    finally:
        source.close()  # closing the stream stops generation at once, as without conversion
