"""Stand-ins for tests, shipped with the package so that they follow the engine's protocols
(``desktop_mt.engine.protocols``) and run the same code paths as the app.

- :class:`CountingSessions` wraps real sessions (a ``DecoderRunner``) and counts decoder
  steps; every call goes to the wrapped sessions, so the searches take the paths they take
  in the app (beam search's ``row_top`` candidates included).
- :class:`FakeModelTranslator` is a ``Translator`` whose model is a Python function of the
  source text (one that copies it, drops its numbers...), and records what the model received;
  with ``prefix=`` it completes from the typed prefix (post-editing).

One typed fake per protocol of ``desktop_mt.engine.protocols``, held to it by mypy --strict
(``_fakes_are_complete``); a test takes these rather than writing its own:

- :class:`CancelAfter` (``CancelToken``): set after a given number of checks, so a test cancels
  at an exact point of a search or a stream without a second thread.
- :class:`ScriptedDecoder` (``DecoderRunner`` and ``DecoderLayout``) with its
  :class:`ScriptedCache` (``KVCache``): a model whose next token is a Python function of the
  source ids and the tokens so far; the real searches (``generation.greedy``,
  ``generation.beam_search``) run on it without ONNX Runtime.
- :class:`ScriptedTranslator` (``TranslatorFace``, the front ends' one translator type): no engine
  at all; a Python function gives each text's output, streamed a word at a time, and every
  call is recorded (for front-end tests).
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
import types
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..base.errors import TranslationCancelled
from .core import TranslatorCore
from .direction import Direction
from .events import Alternative, Finished, SegmentDone, TextDelta, TranslationStats
from .generation import DecodeParams, ItemDone, SearchEvent, TokensStep
from .model_format import Variant
from .model_text import ModelText
from .options import GenerationOptions
from .protocols import CancelToken, DecoderLayout, DecoderRunner, KVCache, Translation, TranslatorFace
from .spans import SpanCounts
from .tokenizer import SentencePieceTokenizer
from .translator import StreamEvent, Translator

if TYPE_CHECKING:  # no onnxruntime import at run time
    from .kv_cache import ConcatKVCache, KVBuffer
    from .router import TwoWayTranslator
    from .runtime import MergedDecoder, Seq2SeqSessions, SplitDecoder, StepDecoder

__all__ = [
    "CountingSessions",
    "CancelAfter",
    "NextToken",
    "ScriptedCache",
    "ScriptedDecoder",
    "ScriptedCall",
    "ScriptedTranslator",
    "CharTokenizer",
    "FakeModelTranslator",
]


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
    fake: FakeModelTranslator,
    two_way: TwoWayTranslator,
) -> tuple[
    DecoderRunner,
    DecoderRunner,
    KVCache,
    KVCache,
    TranslatorCore,
    TranslatorCore,
    TranslatorFace,
]:
    """Never called: mypy --strict checks that each class has everything its protocol lists."""
    return sessions, counting, concat, buffer, translator, fake, two_way


def _layouts_are_complete(
    split: SplitDecoder, merged: MergedDecoder, step: StepDecoder
) -> tuple[DecoderLayout, DecoderLayout, DecoderLayout]:
    """Never called: mypy --strict checks each decoder layout against ``DecoderLayout``."""
    return split, merged, step


def _fakes_are_complete(
    cancel: CancelAfter, decoder: ScriptedDecoder, cache: ScriptedCache, translator: ScriptedTranslator
) -> tuple[CancelToken, DecoderRunner, DecoderLayout, KVCache, TranslatorFace]:
    """Never called: mypy --strict holds each fake to its protocol."""
    return cancel, decoder, decoder, cache, translator


class CancelAfter:
    """A ``CancelToken`` that answers "not set" to its first ``checks`` questions and "set" from
    then on (``CancelAfter(0)`` is set from the start); ``asked`` counts the questions."""

    def __init__(self, checks: int) -> None:
        self.checks, self.asked = checks, 0

    def is_set(self) -> bool:
        self.asked += 1
        return self.asked > self.checks


NextToken = Callable[[tuple[int, ...], tuple[int, ...]], int]
"""``next_token(source_ids, target_ids_so_far) -> id``: a scripted model (the start token is
the first of ``target_ids_so_far``)."""


class ScriptedCache:
    """The ``KVCache`` of :class:`ScriptedDecoder`: per row, the source ids and the target ids
    it has been given so far (what a real cache's keys and values stand for)."""

    def __init__(self, rows: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> None:
        self.rows = rows
        self.beams = 1

    def expand(self, beams: int) -> None:
        self.rows = [row for row in self.rows for _ in range(beams)]
        self.beams = beams

    def keep_items(self, items: np.ndarray) -> None:
        self.rows = [self.rows[i * self.beams + b] for i in items.tolist() for b in range(self.beams)]

    def reorder(self, rows: np.ndarray) -> None:
        self.rows = [self.rows[i] for i in rows.tolist()]


class ScriptedDecoder:
    """A ``DecoderRunner`` (and ``DecoderLayout``) whose model is ``next_token``: the scripted
    token gets logit 0 and every other of the ``vocab`` ids ``-10``, so greedy and beam search
    both follow the script. ``steps`` counts decoder steps (the first included)."""

    def __init__(self, next_token: NextToken, vocab: int) -> None:
        self.next_token, self.vocab, self.steps = next_token, vocab, 0

    @property
    def first(self) -> Any:
        return self

    @property
    def later(self) -> Any:
        return self

    @property
    def kv_shape(self) -> tuple[int, int, int]:
        return (1, 1, 1)

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """The "hidden states" are the source ids themselves (padding masked to -1)."""
        return np.where(attention_mask > 0, input_ids, -1).astype(np.float32)[:, :, None]

    def decode_first(
        self, input_ids: np.ndarray, encoder_mask: np.ndarray, encoder_hidden: np.ndarray, max_length: int = 0
    ) -> tuple[np.ndarray, KVCache]:
        sources = [tuple(int(t) for t in row[:, 0] if t >= 0) for row in encoder_hidden]
        cache = ScriptedCache([(src, (int(ids[0]),)) for src, ids in zip(sources, input_ids)])
        self.steps += 1
        return self._logits(cache), cache

    def decode_next(self, input_ids: np.ndarray, cache: KVCache) -> np.ndarray:
        assert isinstance(cache, ScriptedCache), "a cache of this decoder's decode_first"
        cache.rows = [(src, done + (int(ids[0]),)) for (src, done), ids in zip(cache.rows, input_ids)]
        self.steps += 1
        return self._logits(cache)

    def _logits(self, cache: ScriptedCache) -> np.ndarray:
        logits = np.full((len(cache.rows), 1, self.vocab), -10.0, dtype=np.float32)
        for row, (src, done) in enumerate(cache.rows):
            logits[row, 0, self.next_token(src, done)] = 0.0
        return logits

    def log_softmax(self, scores: np.ndarray) -> np.ndarray:
        shifted = scores - scores.max(axis=-1, keepdims=True)
        return np.asarray(shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True)), dtype=np.float32)

    def row_top(self, logits: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        scores = self.log_softmax(np.asarray(logits[:, -1], dtype=np.float32))
        ids = np.argsort(-scores, axis=-1, kind="stable")[:, :n]
        return np.take_along_axis(scores, ids, axis=-1), ids


@dataclasses.dataclass(frozen=True)
class ScriptedCall:
    """One call a :class:`ScriptedTranslator` answered."""

    method: str  # "translate_stream", "alternatives" or "translate_batch"
    text: str  # the lines of a batch joined with newlines
    options: GenerationOptions | None
    prefix: str | None = None


class ScriptedTranslator:
    """A ``TranslatorFace`` (what the front ends see of a translator) without an engine, of one
    direction (``direction``): ``model(text)`` is the translation of each text (a line of a batch, a whole text
    of a stream). A stream
    yields one ``TextDelta`` per word of the output (with the spaces after it), checking
    ``cancel`` before each, then ``SegmentDone`` (unless cancelled) and ``Finished``. With
    ``hold`` (an Event), each delta waits until ``hold`` or ``cancel`` is set: the test decides
    when a stream moves on. ``prefix=``: the output's rest after the typed prefix (the whole
    output where it does not start so). ``fail_on``: a text containing it raises RuntimeError.
    ``name``, ``options``, ``batch_size`` and ``batch_invariant`` stand for the model's (what a
    journal key or a server response holds). ``calls`` records every call; ``batches`` the lines
    of each ``translate_batch``."""

    def __init__(
        self,
        model: Callable[[str], str] = lambda text: f"<{text}>",
        *,
        variant: Variant = "int8",
        hold: threading.Event | None = None,
        fail_on: str | None = None,
        name: str = "scripted",
        options: GenerationOptions | None = None,
        batch_size: int = 16,
        batch_invariant: bool = True,
        direction: Direction = "en-zh",
    ) -> None:
        self.model, self.hold, self.fail_on = model, hold, fail_on
        self.directions: tuple[Direction, ...] = (direction,)
        self.missing: dict[Direction, str] = {}
        self.memory_identity = ""
        self.span_counts = SpanCounts()  # a script protects no spans
        self.model_info = types.SimpleNamespace(name=name, variant=variant, variants=(variant,), path=name, manifest={})
        self.options = options if options is not None else GenerationOptions()  # as Translator: its defaults
        self.batch_size = batch_size
        self.batch_invariant = batch_invariant
        self._calls: list[ScriptedCall] = []
        self.batches: list[list[str]] = []
        self.closed = False

    @property
    def variant(self) -> str:
        """The model's variant (``model_info.variant``: a test may change it there)."""
        return str(self.model_info.variant)

    @variant.setter
    def variant(self, value: str) -> None:
        self.model_info.variant = value

    @property
    def model_infos(self) -> dict[Direction, Any]:
        """``model_info`` for each of ``directions``."""
        return {name: self.model_info for name in self.directions}

    def count_tokens(self, text: str) -> int:
        """Words of ``text`` (a script has no tokenizer)."""
        return len(text.split())

    def target_pieces(
        self, sentence: str, translation: str, options: GenerationOptions | None = None
    ) -> list[str] | None:
        """None: a script has no tokenizer (characters and words are the boundaries)."""
        return None

    def translate(self, text: str, options: GenerationOptions | None = None, cancel: CancelToken | None = None) -> str:
        """The stream's text, joined."""
        return "".join(e.text for e in self.translate_stream(text, options, cancel) if isinstance(e, TextDelta))

    def translate_items(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: Any = None,
    ) -> list[Translation]:
        """``translate_batch``'s, each the model's."""
        return [Translation(text) for text in self.translate_batch(lines, options, cancel, progress)]

    @property
    def calls(self) -> list[ScriptedCall]:
        """Every call answered, in order."""
        return self._calls

    def _output(self, method: str, text: str, options: GenerationOptions | None, prefix: str | None = None) -> str:
        self._calls.append(ScriptedCall(method, text, options, prefix))
        if self.fail_on is not None and self.fail_on in text:
            raise RuntimeError(f"scripted failure on {text!r}")
        output = self.model(text)
        if prefix is not None:
            return output[len(prefix) :] if output.startswith(prefix) else output
        return output

    def translate_stream(
        self,
        text: str,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
        look_ahead: bool = False,
    ) -> Generator[StreamEvent, None, None]:
        # ``look_ahead`` is taken as the engine's ``Translator.translate_stream`` takes it (a
        # ``TwoWayTranslator`` over scripted translators passes it on); a script has no batches.
        del look_ahead
        output = self._output("translate_stream", text, options, prefix)
        words = re.findall(r"\S+\s*|\s+", output)
        shown, started, first = 0, time.perf_counter(), None
        for word in words:
            if self._stopped(cancel):
                break
            first = time.perf_counter() - started if first is None else first
            shown += 1
            yield TextDelta(word, 0)
        cancelled = shown < len(words) or (not words and cancel is not None and cancel.is_set())
        if not cancelled:
            yield SegmentDone(0, text, output, len(words))
        seconds = time.perf_counter() - started
        yield Finished(TranslationStats(0 if cancelled else 1, shown, seconds, first, cancelled))

    def translate_each(
        self,
        texts: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        alone: int = 0,
    ) -> Iterator[Generator[StreamEvent, None, None]]:
        """Each text's own :meth:`translate_stream`, in order (a script has no batches)."""
        del alone
        return (self.translate_stream(text, options, cancel) for text in texts)

    def _stopped(self, cancel: CancelToken | None) -> bool:
        """Whether ``cancel`` is set, after waiting for ``hold`` (in slices, so a cancel ends the wait)."""
        while self.hold is not None and not self.hold.wait(0.01):
            if cancel is not None and cancel.is_set():
                return True
        return cancel is not None and cancel.is_set()

    def alternatives(
        self,
        sentence: str,
        n: int = 3,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
    ) -> list[Alternative]:
        output = self._output("alternatives", sentence, options, prefix)
        return [Alternative(output + "!" * k, -float(k), ()) for k in range(n)]

    def translate_batch(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: Any = None,
    ) -> list[str]:
        self._calls.append(ScriptedCall("translate_batch", "\n".join(lines), options))
        self.batches.append(list(lines))
        out: list[str] = []
        for done, line in enumerate(lines, 1):
            if cancel is not None and cancel.is_set():
                raise TranslationCancelled("cancelled")
            if self.fail_on is not None and self.fail_on in line:
                raise RuntimeError(f"scripted failure on {line!r}")
            out.append(self.model(line) if line.strip() else "")
            if progress is not None:
                progress(done, len(lines))
        return out

    def close(self) -> None:
        self.closed = True


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
        self.text = ModelText(self.model_info, self.tokenizer)  # the real text rules, on this tokenizer

    def _answer(self, src: Sequence[int]) -> list[int]:
        source = self.tokenizer.decode(src)
        self.received.append(source)
        return self.tokenizer.encode(self.model(source))  # ends with end-of-sentence

    def target_pieces(
        self, sentence: str, translation: str, options: GenerationOptions | None = None
    ) -> list[str] | None:
        """None: the character tokenizer has no SentencePiece pieces (characters and words are
        the boundaries, as with a script)."""
        return None

    def search(
        self, src_ids: list[list[int]], opts: GenerationOptions, cancel: CancelToken | None
    ) -> Iterator[SearchEvent]:
        for row, src in enumerate(src_ids):
            ids = self._answer(src)
            for token in ids:
                yield TokensStep(row, [token])
            yield ItemDone(row, ids)

    def hypotheses(
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
        look_ahead: bool = False,
    ) -> Generator[StreamEvent, None, None]:
        if prefix is None:
            return super().translate_stream(text, options, cancel, look_ahead=look_ahead)
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
