"""Stand-ins for tests, shipped with the package so that they follow the engine's protocols
(``desktop_mt.engine.protocols``) and run the same code paths as the app.

- :class:`CountingSessions` wraps real sessions (a ``DecoderRunner``) and counts decoder
  steps; every call goes to the wrapped sessions, so the searches take the paths they take
  in the app (beam search's ``row_top`` candidates included).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from .engine.protocols import DecoderRunner, KVCache, StreamingTranslator

if TYPE_CHECKING:  # no onnxruntime import at run time
    from .engine.kv_cache import ConcatKVCache, KVBuffer
    from .engine.runtime import Seq2SeqSessions
    from .engine.translator import Translator


class CountingSessions:
    """A ``DecoderRunner`` that delegates to ``inner`` and counts decoder steps (the first
    step included); ``on_step(n)`` runs before the n-th later step (``decode_next``)."""

    def __init__(self, inner: DecoderRunner, on_step: Callable[[int], object] | None = None):
        self.inner, self.steps, self.on_step = inner, 0, on_step

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        return self.inner.encode(input_ids, attention_mask)

    def decode_first(self, input_ids: np.ndarray, encoder_mask: np.ndarray, encoder_hidden: np.ndarray,
                     max_length: int = 0) -> tuple[np.ndarray, KVCache]:
        self.steps += 1
        return self.inner.decode_first(input_ids, encoder_mask, encoder_hidden, max_length)

    def decode_next(self, input_ids: np.ndarray, cache: KVCache) -> np.ndarray:
        self.steps += 1
        if self.on_step is not None:
            self.on_step(self.steps)
        return self.inner.decode_next(input_ids, cache)

    def log_softmax(self, scores: np.ndarray) -> np.ndarray:
        return self.inner.log_softmax(scores)

    def row_top(self, logits: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        return self.inner.row_top(logits, n)


def _implementations_are_complete(sessions: Seq2SeqSessions, counting: CountingSessions, concat: ConcatKVCache,
                                  buffer: KVBuffer, translator: Translator
                                  ) -> tuple[DecoderRunner, DecoderRunner, KVCache, KVCache, StreamingTranslator]:
    """Never called: mypy --strict checks that each class has everything its protocol lists."""
    return sessions, counting, concat, buffer, translator
