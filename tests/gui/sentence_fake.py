"""A fake engine that streams sentence by sentence (segments, separators, SegmentDone) and
offers ``alternatives``: for the alignment and Alternatives tests."""

from __future__ import annotations

import re
import threading

from desktop_mt.base.errors import TranslationCancelled
from desktop_mt.engine.events import Alternative, Finished, SegmentDone, TextDelta, TranslationStats

from .fakes import FakeTranslator


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def fake_sentence(sentence: str) -> str:
    return "".join(f"<{w}>" for w in sentence.split())


class SentenceFake(FakeTranslator):
    """Segments are sentences; each word is one delta; separators are TextDelta(' ', -1).
    ``gate``: a threading.Event each segment after the first waits for (streaming tests)."""

    def __init__(self, config=None, gate: threading.Event | None = None, **kwargs) -> None:
        super().__init__(config, **kwargs)
        self.gate = gate
        self.alternative_calls: list[tuple[str, int, object]] = []
        self.alternatives_started = threading.Event()
        self.alternatives_block: threading.Event | None = None

    def translate_stream(self, text, options=None, cancel=None, prefix=None, look_ahead=False):
        self.calls.append({"text": text, "options": options, "thread": threading.get_ident()})
        count = 0
        for index, sentence in enumerate(sentences(text)):
            if index:
                if self.gate is not None:
                    while not self.gate.wait(0.01):
                        if cancel is not None and cancel.is_set():
                            break
                yield TextDelta(" ", -1)
            if cancel is not None and cancel.is_set():
                break
            for word in sentence.split():
                yield TextDelta(f"<{word}>", index)
            yield SegmentDone(index, sentence, fake_sentence(sentence), len(sentence.split()))
            count += 1
        yield Finished(TranslationStats(count, count, 0.01, 0.001, bool(cancel is not None and cancel.is_set())))

    def alternatives(self, sentence, n=3, options=None, cancel=None):
        self.alternative_calls.append((sentence, n, threading.get_ident()))
        self.alternatives_started.set()
        if self.alternatives_block is not None:
            while not self.alternatives_block.wait(0.01):
                if cancel is not None and cancel.is_set():
                    raise TranslationCancelled("cancelled")
        best = fake_sentence(sentence)
        return [Alternative(best, -0.1, (1,))] + [Alternative(f"{best}#{i}", -0.1 - i, (1, i)) for i in range(1, n)]


def sentence_factory(made: list | None = None, **kwargs):
    def factory(config):
        fake = SentenceFake(config, **kwargs)
        if made is not None:
            made.append(fake)
        return fake

    return factory
