"""A deterministic stand-in for ``desktop_mt.Translator`` for structural tests of the batch
code (formats, journal, resume). It follows the ``translate_batch`` contract: one output per
input line, "" for blank lines, progress per line, cancel checked per line."""

from __future__ import annotations

import threading
from types import SimpleNamespace


def fake_translation(line: str) -> str:
    """Each non-space character becomes a CJK character; spaces vanish (like Chinese)."""
    return "".join(chr(0x4E00 + ord(c) % 0x5000) for c in line if not c.isspace())


class FakeTranslator:
    """Counts calls; ``cancel_after_calls=N`` sets ``cancel_event`` after the N-th call
    (so the *next* chunk is cancelled); ``fail_on`` raises when that text is in a batch.
    ``batch_invariant=False`` stands for a dynamic-int8 model (the journal key then holds the
    batch size); ``options`` is the translator's default GenerationOptions, ``batch_size`` its
    batch size."""

    def __init__(
        self,
        cancel_after_calls: int | None = None,
        fail_on: str | None = None,
        batch_invariant: bool = True,
        options=None,
        batch_size: int = 16,
    ):
        self.calls: list[list[str]] = []
        from desktop_mt import GenerationOptions

        self.options = options if options is not None else GenerationOptions()  # as Translator
        self.batch_invariant = batch_invariant
        self.batch_size = batch_size  # as Translator: sentences per engine batch
        self.model_info = SimpleNamespace(path="fake", name="fake", variant="int8", manifest={})
        self.cancel_event = threading.Event()
        self._cancel_after = cancel_after_calls
        self._fail_on = fail_on

    @property
    def variant(self) -> str:
        return self.model_info.variant

    @property
    def lines_translated(self) -> int:
        return sum(len(c) for c in self.calls)

    def translate_batch(self, lines, options=None, cancel=None, progress=None):
        from desktop_mt import TranslationCancelled

        self.calls.append(list(lines))
        if self._fail_on is not None and self._fail_on in lines:
            raise RuntimeError("engine failure")
        out = []
        for k, line in enumerate(lines):
            if cancel is not None and cancel.is_set():
                raise TranslationCancelled("cancelled")
            out.append(fake_translation(line) if line.strip() else "")
            if progress:
                progress(k + 1, len(lines))
        if self._cancel_after is not None and len(self.calls) >= self._cancel_after:
            self.cancel_event.set()
        return out

    def translate(self, text, options=None, cancel=None):
        return "\n".join(self.translate_batch(text.split("\n"), options, cancel))

    def close(self):
        pass
