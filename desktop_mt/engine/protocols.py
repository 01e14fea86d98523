"""The engine's seams as ``typing.Protocol``s: what each side may call on the other.

- :class:`DecoderRunner`: what the searches in ``generation`` call on a model's sessions
  (``runtime.Seq2SeqSessions``; ``desktop_mt.testing.CountingSessions`` wraps one).
- :class:`KVCache`: what the searches do with the cache ``decode_first`` returns
  (``kv_cache.ConcatKVCache``, ``kv_cache.KVBuffer``).
- :class:`DecoderLayout`: one decoder layout family's sessions, which ``Seq2SeqSessions``
  forwards to (``runtime.SplitDecoder``, ``runtime.MergedDecoder``, ``runtime.StepDecoder``).
- :class:`CancelToken`: a cancel flag (``threading.Event`` is one).
- :class:`PostEditingTranslator`: completions from a typed prefix (``engine.prefix``).
- :class:`StreamingTranslator`: what the GUI worker uses of a ``Translator``;
  the batch code's is ``desktop_mt.batch.BatchTranslator``.
- ``engine.core.TranslatorCore`` (beside the search's types, which build on these): what the
  engine's own helpers use of one ``Translator``.

Every implementation is complete: callers never ask an object what it can do.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from .events import Alternative, Finished, SegmentDone, TextDelta
    from .options import GenerationOptions

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


class StreamingTranslator(Protocol):
    """What the GUI worker uses of a ``Translator`` (tests use scripted stand-ins)."""

    variant: str

    @property
    def model_info(self) -> Any: ...

    def translate_stream(
        self, text: str, options: GenerationOptions | None = None, cancel: CancelToken | None = None
    ) -> Generator[StreamEvent, None, None]:
        """Events as they come; closing the generator stops the translation."""

    def alternatives(
        self, sentence: str, n: int = 3, options: GenerationOptions | None = None, cancel: CancelToken | None = None
    ) -> list[Alternative]: ...

    def translate_batch(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: Any = None,
    ) -> list[str]: ...

    def close(self) -> None: ...


class PostEditingTranslator(Protocol):
    """What post-editing uses of one direction's ``Translator`` (``engine.prefix``): a sentence
    completed from a typed target prefix, streamed, and the n best completions. A two-way
    translator gives it per direction (``engine.router.translator_for_sentence``)."""

    def translate_stream(
        self,
        text: str,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
    ) -> Generator[StreamEvent, None, None]: ...

    def alternatives(
        self,
        sentence: str,
        n: int = 3,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
    ) -> list[Alternative]: ...
