"""A scripted stand-in for ``desktop_mt.Translator`` (same ``translate_stream`` contract)."""

from __future__ import annotations

import threading
import time
import types

from desktop_mt.engine.events import Finished, SegmentDone, TextDelta, TranslationStats
from desktop_mt.engine.options import GenerationOptions


def fake_output(text: str, max_tokens: int) -> list[str]:
    """The tokens the fake 'translates' ``text`` into: one per word, tagged, capped."""
    return [f"<{w}>" for w in text.split()][:max_tokens]


class FakeTranslator:
    """Yields one TextDelta per source word, waiting ``delay`` s per token (on the cancel
    event, so a cancel wakes it at once) and optionally burning ``busy`` s of pure-Python
    CPU per token to hold the GIL like tokenisation/search code does. Checks
    ``cancel.is_set()`` before every token and records what happened for assertions."""

    instances: list[FakeTranslator] = []

    def __init__(
        self, config=None, delay: float = 0.0, busy: float = 0.0, max_tokens: int = 10_000, fail_on: str | None = None
    ) -> None:
        self.config = config
        self.delay, self.busy, self.max_tokens, self.fail_on = delay, busy, max_tokens, fail_on
        variant = self.variant = getattr(config, "variant", "int8")
        self.model_info = types.SimpleNamespace(
            name="fake-en-zh", variant=variant, variants=("int8", "fp32"), path="fake", manifest={}
        )
        self.options = GenerationOptions()  # as Translator: the default options
        self.batch_size = 16
        self.calls: list[dict] = []
        self.closed = False
        FakeTranslator.instances.append(self)

    def _burn(self) -> None:
        end = time.perf_counter() + self.busy
        while time.perf_counter() < end:
            pass

    def translate_stream(self, text, options=None, cancel=None):
        """Generator like the engine's: TextDelta..., SegmentDone, Finished(stats)."""
        call = {
            "text": text,
            "options": options,
            "thread": threading.get_ident(),
            "yielded": 0,
            "after_cancel": 0,
            "cancelled": False,
        }
        self.calls.append(call)
        if self.fail_on and self.fail_on in text:
            raise RuntimeError(f"fake engine exploded on {text!r}")
        tokens = fake_output(text, self.max_tokens)
        t0 = time.perf_counter()
        first = None
        for tok in tokens:
            if cancel is not None and cancel.is_set():
                call["cancelled"] = True
                break
            if self.delay and cancel is not None and cancel.wait(self.delay):
                call["cancelled"] = True
                break
            self._burn()
            first = first if first is not None else time.perf_counter() - t0
            call["yielded"] += 1
            yield TextDelta(tok, 0)
            if cancel is not None and cancel.is_set():
                call["after_cancel"] += 1  # tokens produced although cancel was already set
        if not call["cancelled"]:
            yield SegmentDone(0, text, "".join(tokens), len(tokens))
        yield Finished(TranslationStats(1, call["yielded"], time.perf_counter() - t0, first, call["cancelled"]))

    def close(self) -> None:
        self.closed = True


def fake_factory(**kwargs):
    """A translator factory for the worker that builds FakeTranslators with ``kwargs``."""

    def factory(config):
        return FakeTranslator(config, **kwargs)

    return factory


class FakeGlobalHotKeys:
    """Stands in for pynput.keyboard.GlobalHotKeys: presses come from another thread."""

    last: FakeGlobalHotKeys | None = None

    def __init__(self, mapping):
        self.mapping, self.started, self.stopped = mapping, False, False
        FakeGlobalHotKeys.last = self

    def start(self):
        self.started = True

    def stop(self):
        self.stopped = True

    def press(self, combo):
        t = threading.Thread(target=self.mapping[combo])
        t.start()
        t.join()
