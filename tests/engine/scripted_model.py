"""A real ``Translator`` (planning, spans, streaming, look-ahead, the greedy and beam searches)
on a scripted decoder (``desktop_mt.engine.testing.ScriptedDecoder``) that records each batch it is given:
the look-ahead tests' engine. Its "model" is a Python function of the source text; the tokenizer
has one id per character, so any output goes through exactly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from desktop_mt.engine.model_text import ModelText
from desktop_mt.engine.options import GenerationOptions
from desktop_mt.engine.protocols import KVCache
from desktop_mt.engine.testing import CharTokenizer, ScriptedDecoder
from desktop_mt.engine.translator import Translator


class SmallCharTokenizer(CharTokenizer):
    """One id per character, above the bundled model's ids that matter (eos 0, pad 7935), so
    the logits stay small: ASCII only."""

    OFFSET = 8_000
    VOCAB = OFFSET + 128


class RecordingDecoder(ScriptedDecoder):
    """A scripted decoder that records the rows of each batch (``batches``: one entry per
    encoder call) and runs ``on_step(steps)`` before each later decoder step."""

    def __init__(self, next_token: Any, vocab: int) -> None:
        super().__init__(next_token, vocab)
        self.batches: list[int] = []
        self.on_step: Callable[[int], object] | None = None

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        self.batches.append(int(input_ids.shape[0]))
        return super().encode(input_ids, attention_mask)

    def decode_next(self, input_ids: np.ndarray, cache: KVCache) -> np.ndarray:
        if self.on_step is not None:
            self.on_step(self.steps + 1)
        return super().decode_next(input_ids, cache)


class ScriptedModelTranslator(Translator):
    """``model(source) -> output`` (ASCII) decoded token by token by the real searches, one
    character a step, on the bundled model's information (its ONNX sessions are never used).
    ``decoder.batches`` lists the rows of every search."""

    def __init__(self, model: Callable[[str], str], options: GenerationOptions = GenerationOptions(beams=1)) -> None:
        super().__init__(options=options)
        self.model = model
        self.tokenizer = SmallCharTokenizer(self._params.eos)
        self.text = ModelText(self.model_info, self.tokenizer)
        self.decoder = RecordingDecoder(self._next_token, SmallCharTokenizer.VOCAB)
        self.sessions = self.decoder

    def _next_token(self, source: tuple[int, ...], done: tuple[int, ...]) -> int:
        output = self.tokenizer.encode(self.model(self.tokenizer.decode(source)))  # ends with eos
        return output[min(len(done) - 1, len(output) - 1)]
