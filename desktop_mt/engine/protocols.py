"""The engine's seams as ``typing.Protocol``s: what each side may call on the other.

- :class:`DecoderRunner`: what the searches in ``generation`` call on a model's sessions
  (``runtime.Seq2SeqSessions``; ``desktop_mt.engine.testing.CountingSessions`` wraps one).
- :class:`KVCache`: what the searches do with the cache ``decode_first`` returns
  (``kv_cache.ConcatKVCache``, ``kv_cache.KVBuffer``).
- :class:`DecoderLayout`: one decoder layout family's sessions, which ``Seq2SeqSessions``
  forwards to (``runtime.SplitDecoder``, ``runtime.MergedDecoder``, ``runtime.StepDecoder``).
- :class:`CancelToken`: a cancel flag (``threading.Event`` is one).
- :class:`TranslatorFace`: the one translator type the front ends see (stream, batch,
  alternatives, prefix completion, memory), with :class:`Translation` (a batch text and where
  it came from).
- ``engine.core.TranslatorCore`` (beside the search's types, which build on these): what the
  engine's own helpers use of one ``Translator``.

Every implementation is complete: callers never ask an object what it can do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

__all__ = [
    "StreamEvent",
    "CancelToken",
    "KVCache",
    "DecoderRunner",
    "DecoderLayout",
    "Translation",
    "TranslatorFace",
]

if TYPE_CHECKING:
    from .direction import Direction
    from .events import Alternative, Finished, SegmentDone, TextDelta
    from .options import GenerationOptions
    from .spans import SpanCounts

    StreamEvent = TextDelta | SegmentDone | Finished


class CancelToken(Protocol):
    """Set by another thread to stop a translation; checked once per decode step."""

    def is_set(self) -> bool: ...


class KVCache(Protocol):
    """A decoder key/value cache; rows are ordered by input, then beam."""

    def expand(self, beams: int) -> None:
        """Each input's row becomes ``beams`` rows (beam search's first step)."""

    def keep_items(self, items: np.ndarray) -> None:
        """Keep only these inputs (with all their beams)."""

    def reorder(self, rows: np.ndarray) -> None:
        """Row ``i`` continues the history of row ``rows[i]``."""


class DecoderRunner(Protocol):
    """An encoder-decoder model, one step at a time, as the searches drive it."""

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """Encoder hidden states ``[rows, src, d_model]``."""

    def decode_first(
        self, input_ids: np.ndarray, encoder_mask: np.ndarray, encoder_hidden: np.ndarray, max_length: int = 0
    ) -> tuple[np.ndarray, KVCache]:
        """The first step's logits ``[rows, 1, vocab]`` and a new cache (``max_length``: the most
        positions the search will write)."""

    def decode_next(self, input_ids: np.ndarray, cache: KVCache) -> np.ndarray:
        """One more step on ``cache`` (a cache this runner's ``decode_first`` made); updates it."""

    def log_softmax(self, scores: np.ndarray) -> np.ndarray:
        """Row-wise log-softmax of a ``[rows, vocab]`` float32 array."""

    def row_top(self, logits: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Top ``n`` (values, ids) per row of ``log_softmax(logits[:, -1])``, ties by lower id."""


class DecoderLayout(Protocol):
    """The decoder sessions of one layout family, chosen once per model variant.

    Sessions are ``onnxruntime.InferenceSession``s, typed ``Any``: onnxruntime has no type
    stubs, and this module must not import it (the engine's only import of it is ``runtime``).
    """

    @property
    def first(self) -> Any:
        """The session that runs the first step."""

    @property
    def later(self) -> Any:
        """The session that runs the later steps (the same one where the layout has one decoder)."""

    @property
    def kv_shape(self) -> tuple[int, int, int]:
        """(layers, heads, head_dim) of the self-attention cache, read from the graph."""

    def decode_first(
        self, input_ids: np.ndarray, encoder_mask: np.ndarray, encoder_hidden: np.ndarray, max_length: int = 0
    ) -> tuple[np.ndarray, KVCache]:
        """As ``DecoderRunner.decode_first``: the first logits and this layout's kind of cache."""

    def decode_next(self, input_ids: np.ndarray, cache: KVCache) -> np.ndarray:
        """As ``DecoderRunner.decode_next``, on a cache this layout's ``decode_first`` made."""


@dataclasses.dataclass(frozen=True)
class Translation:
    """One text of :meth:`TranslatorFace.translate_items`: its translation, the sentences of it
    taken from the translation memory (``from_memory``) and whether any of it went to the
    model (``to_model``). A translator without a memory: ``from_memory`` 0, ``to_model`` True."""

    text: str
    from_memory: int = 0
    to_model: bool = True

    @property
    def whole_from_memory(self) -> bool:
        """Every sentence of the text came from the memory (none from the model)."""
        return self.from_memory > 0 and not self.to_model


class TranslatorFace(Protocol):
    """The one translator type the front ends (GUI worker, server, batch runner, CLI) see:
    ``engine.router.TwoWayTranslator`` (both directions), ``tm.apply.MemoryTranslator`` (a face
    that answers the memory's exact matches and asks another face for the rest) and the tests'
    stand-ins (``desktop_mt.engine.testing.ScriptedTranslator``). The per-model ``Translator`` is the
    engine's inside; the face routes each sentence to it. Nothing asks a face what it is.

    Stream (``translate_stream``, ``look_ahead`` and post-editing's ``prefix`` included),
    batch (``translate_batch``, ``translate_items`` with the memory's per-text facts),
    alternatives (n-best, ``prefix`` too, ``target_pieces``), what the models are (``model_info``, ``model_infos``,
    ``directions``, ``missing``), what identifies the output for a journal (``options``,
    ``variant``, ``batch_size``, ``batch_invariant``, ``memory_identity``)."""

    @property
    def variant(self) -> str: ...

    @property
    def options(self) -> GenerationOptions:
        """The default options (a call's ``options`` None)."""

    @property
    def batch_size(self) -> int:
        """Sentences per engine batch."""

    @property
    def batch_invariant(self) -> bool:
        """False when a sentence's output may depend on the rest of its batch (dynamic int8)."""

    @property
    def model_info(self) -> Any:
        """The English->Chinese model's information (else the only one's): ``name``, ``path``,
        ``variant``, ``manifest``."""

    @property
    def model_infos(self) -> Mapping[Direction, Any]:
        """Each loaded direction's model information (``{"en-zh": ..., "zh-en": ...}``)."""

    @property
    def directions(self) -> tuple[Direction, ...]:
        """The directions translated, ``"en-zh"`` first."""

    @property
    def missing(self) -> Mapping[Direction, str]:
        """For a direction without a model, the catalog model that would translate it."""

    @property
    def span_counts(self) -> SpanCounts:
        """How the sentences with protected spans went (whole / cut), over every call."""

    @property
    def memory_identity(self) -> str:
        """What identifies the memory answering this face's batches ("" without one): a
        journal made with another memory, or none, is not resumed."""

    def count_tokens(self, text: str) -> int:
        """Source tokens of ``text`` by the tokenizer of the model that reads most of it."""

    def target_pieces(
        self, sentence: str, translation: str, options: GenerationOptions | None = None
    ) -> list[str] | None:
        """``translation`` cut into the target pieces of the model that translates ``sentence``
        (its direction for ``options``' target): where the window may start a word of an
        alternative. None where there are none to tell: a stand-in without a SentencePiece
        tokenizer, a sentence with nothing to translate or of a direction without a model."""

    def translate(self, text: str, options: GenerationOptions | None = None, cancel: CancelToken | None = None) -> str:
        """The whole translation of ``text``, layout kept."""

    def translate_stream(
        self,
        text: str,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
        look_ahead: bool = False,
    ) -> Generator[StreamEvent, None, None]:
        """Events as they come; closing the generator stops the translation. ``prefix``: ``text``
        is one sentence whose translation starts so (post-editing): the deltas complete it.
        ``look_ahead``: the sentences after the first are decoded ahead in batches (a
        stand-in may ignore it: the events are the same)."""

    def translate_each(
        self,
        texts: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        alone: int = 0,
    ) -> Iterator[Generator[StreamEvent, None, None]]:
        """One :meth:`translate_stream` per text, in order (read each to its end before taking
        the next), decoded with one look-ahead: ``texts[alone]`` alone (it streams token by
        token), the others in batches (the window's re-translation of the sentences an edit
        touched). A stand-in may stream each text alone: the events are the same."""

    def alternatives(
        self,
        sentence: str,
        n: int = 3,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
    ) -> list[Alternative]:
        """The ``n`` best translations of ``sentence`` (``prefix``: the n best completions)."""

    def translate_batch(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[str]:
        """One translation per line, in order (the engine contract, docs/ENGINE_API.md)."""

    def translate_items(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Translation]:
        """As :meth:`translate_batch`, each with where it came from (:class:`Translation`)."""

    def close(self) -> None: ...
