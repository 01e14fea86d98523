"""Stand-ins for tests, shipped with the package so that they follow the engine's protocols
(``desktop_mt.engine.protocols``) and run the same code paths as the app.

- :class:`CountingSessions` wraps real sessions (a ``DecoderRunner``) and counts decoder
  steps; every call goes to the wrapped sessions, so the searches take the paths they take
  in the app (beam search's ``row_top`` candidates included).
- :class:`FakeModelTranslator` is a ``Translator`` whose model is a Python function of the
  source text (one that copies it, drops its numbers...), and records what the model received;
  with ``prefix=`` it completes from the typed prefix (post-editing).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .engine.events import Alternative, Finished, SegmentDone, TextDelta, TranslationStats
from .engine.generation import DecodeParams, ItemDone, SearchEvent, TokensStep
from .engine.options import GenerationOptions
from .engine.protocols import CancelToken, DecoderRunner, KVCache, PostEditingTranslator, StreamingTranslator
from .engine.tokenizer import SentencePieceTokenizer
from .engine.translator import StreamEvent, Translator

if TYPE_CHECKING:  # no onnxruntime import at run time
    from .engine.kv_cache import ConcatKVCache, KVBuffer
    from .engine.runtime import Seq2SeqSessions


class CountingSessions:
    """A ``DecoderRunner`` that delegates to ``inner`` and counts decoder steps (the first
    step included); ``on_step(n)`` runs before the n-th later step (``decode_next``)."""

    def __init__(self, inner: DecoderRunner, on_step: Callable[[int], object] | None = None):
        self.inner, self.steps, self.on_step = inner, 0, on_step

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        return self.inner.encode(input_ids, attention_mask)

    def decode_first(
        self, input_ids: np.ndarray, encoder_mask: np.ndarray, encoder_hidden: np.ndarray, max_length: int = 0
    ) -> tuple[np.ndarray, KVCache]:
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


def _implementations_are_complete(
    sessions: Seq2SeqSessions,
    counting: CountingSessions,
    concat: ConcatKVCache,
    buffer: KVBuffer,
    translator: Translator,
) -> tuple[DecoderRunner, DecoderRunner, KVCache, KVCache, StreamingTranslator, PostEditingTranslator]:
    """Never called: mypy --strict checks that each class has everything its protocol lists."""
    return sessions, counting, concat, buffer, translator, translator


class CharTokenizer(SentencePieceTokenizer):
    """A tokenizer with one id per character, so that any text goes to ids and back exactly
    (a fake model can then answer with any text, spans and Chinese included)."""

    OFFSET = 1_000_000  # above any model's own ids (end-of-sentence, pad...)

    def __init__(self, eos: int) -> None:  # no SentencePiece model: nothing of the parent's is loaded
        self.eos = eos
        self.target_tokens = ()
        self.prefix: list[int] = []
        self.suffix = [eos]
        self._target_prefix: list[int] = []

    def encode(self, text: str) -> list[int]:
        return [ord(c) + self.OFFSET for c in text] + self.suffix

    def count(self, text: str) -> int:
        return len(text) + 1

    def pieces(self, ids: Iterable[int]) -> list[str]:
        return [chr(i - self.OFFSET) for i in ids if i >= self.OFFSET]

    def decode(self, ids: Iterable[int]) -> str:
        return "".join(self.pieces(ids))


class FakeModelTranslator(Translator):
    """A ``Translator`` whose "model" is a Python function of the source text: everything else
    (planning, spans, verification, streaming, batching, alternatives) is the real engine's.

    ``model(source) -> output``; ``received`` lists every text the model was given, in order.
    ``FakeModelTranslator(lambda s: s)`` copies its input; a function that drops or changes
    numbers stands for a model that loses spans. Built on a real model folder (default: the
    bundled one) for its model information; its ONNX sessions are never used.
    """

    def __init__(
        self,
        model: Callable[[str], str],
        model_dir: str | Path | None = None,
        options: GenerationOptions = GenerationOptions(),
    ) -> None:
        super().__init__(model_dir, options=options)
        self.model = model
        self.received: list[str] = []
        self.tokenizer = CharTokenizer(self._params.eos)

    def _answer(self, src: Sequence[int]) -> list[int]:
        source = self.tokenizer.decode(src)
        self.received.append(source)
        return self.tokenizer.encode(self.model(source))  # ends with end-of-sentence

    def _generate(
        self, src_ids: list[list[int]], opts: GenerationOptions, cancel: CancelToken | None
    ) -> Iterator[SearchEvent]:
        for row, src in enumerate(src_ids):
            ids = self._answer(src)
            for token in ids:
                yield TokensStep(row, [token])
            yield ItemDone(row, ids)

    def _hypotheses(
        self, text: str, params: DecodeParams, opts: GenerationOptions, cancel: CancelToken | None = None
    ) -> list[tuple[list[int], float]]:
        return [(self._answer(self.tokenizer.encode(text)), 0.0)]

    # Post-editing (``prefix=``): the completion is the model's output after the typed prefix
    # when the output starts with it, else the whole output (a model that ignores what was typed).

    def translate_stream(
        self,
        text: str,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
    ) -> Generator[StreamEvent, None, None]:
        if prefix is None:
            return super().translate_stream(text, options, cancel)
        return self._complete(text, prefix, cancel)

    def _complete(self, text: str, prefix: str, cancel: CancelToken | None) -> Generator[StreamEvent, None, None]:
        """The completion one character per delta, as tokens would come; stops when ``cancel`` is set."""
        completion, started, shown = self._completion(text, prefix), time.perf_counter(), ""
        for char in completion:
            if cancel is not None and cancel.is_set():
                break
            shown += char
            yield TextDelta(char, 0)
        cancelled = shown != completion
        if not cancelled:
            yield SegmentDone(0, text, completion, len(completion))
        yield Finished(
            TranslationStats(0 if cancelled else 1, len(shown), time.perf_counter() - started, None, cancelled)
        )

    def alternatives(
        self,
        sentence: str,
        n: int = 3,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
    ) -> list[Alternative]:
        if prefix is None:
            return super().alternatives(sentence, n, options, cancel)
        return [Alternative(self._completion(sentence, prefix), 0.0, ())]

    def _completion(self, sentence: str, prefix: str) -> str:
        self.received.append(sentence)
        output = self.model(sentence)
        return output[len(prefix) :] if output.startswith(prefix) else output
