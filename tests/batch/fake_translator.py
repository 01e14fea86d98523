"""A deterministic stand-in for ``desktop_mt.Translator`` for structural tests of the batch
code (formats, journal, resume): :class:`desktop_mt.engine.testing.ScriptedTranslator` (the typed fake
of the engine's protocols) with :func:`fake_translation` as its model. It follows the
``translate_batch`` contract: one output per input line, "" for blank lines, progress per
line, cancel checked per line."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from desktop_mt import GenerationOptions
from desktop_mt.engine.protocols import CancelToken
from desktop_mt.engine.testing import ScriptedTranslator


def fake_translation(line: str) -> str:
    """Each non-space character becomes a CJK character; spaces vanish (like Chinese)."""
    return "".join(chr(0x4E00 + ord(c) % 0x5000) for c in line if not c.isspace())


class FakeTranslator(ScriptedTranslator):
    """Records each batch (``batches``); ``cancel_after_calls=N`` sets ``cancel_event`` after
    the N-th call (so the *next* chunk is cancelled); ``fail_on`` raises when that text is a
    line of a batch. ``batch_invariant=False`` stands for a dynamic-int8 model (the journal key
    then holds the batch size); ``options`` is the translator's default GenerationOptions,
    ``batch_size`` its batch size."""

    def __init__(
        self,
        cancel_after_calls: int | None = None,
        fail_on: str | None = None,
        batch_invariant: bool = True,
        options: GenerationOptions | None = None,
        batch_size: int = 16,
    ) -> None:
        super().__init__(
            fake_translation, name="fake", options=options, batch_size=batch_size, batch_invariant=batch_invariant
        )
        self.cancel_event = threading.Event()
        self._cancel_after = cancel_after_calls
        self._fail_on_line = fail_on

    @property
    def calls(self) -> list[list[str]]:  # type: ignore[override]
        """The lines of each batch (``batches``; the command-line tests read it under this name)."""
        return self.batches

    @property
    def lines_translated(self) -> int:
        return sum(len(lines) for lines in self.batches)

    def translate_batch(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: Callable[[int, int], object] | None = None,
    ) -> list[str]:
        if self._fail_on_line is not None and self._fail_on_line in lines:
            self.batches.append(list(lines))
            raise RuntimeError("engine failure")
        out = super().translate_batch(lines, options, cancel, progress)
        if self._cancel_after is not None and len(self.batches) >= self._cancel_after:
            self.cancel_event.set()
        return out

    def translate(self, text: str, options: GenerationOptions | None = None, cancel: CancelToken | None = None) -> str:
        return "\n".join(self.translate_batch(text.split("\n"), options, cancel))
