"""The engine's core as its helpers see it: :class:`TranslatorCore`, one model's translator
(``Translator`` and the tests' model fakes) for ``engine.streaming``, ``engine.alternatives`` and
``engine.prefix``. Apart from :mod:`engine.protocols` because it speaks of the search's types
(``generation.DecodeParams``, ``SearchEvent``), which themselves build on those protocols."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .generation import DecodeParams, SearchEvent
    from .model_format import ModelInfo
    from .model_text import ModelText
    from .options import GenerationOptions
    from .protocols import CancelToken, DecoderRunner
    from .spans import SpanCounts
    from .tokenizer import SentencePieceTokenizer

__all__ = [
    "TranslatorCore",
]


class TranslatorCore(Protocol):
    """One model's translator as the engine's helpers see it (``engine.streaming``,
    ``engine.alternatives``, ``engine.prefix``): ``Translator``, and the tests' model fakes."""

    @property
    def model_info(self) -> ModelInfo: ...

    @property
    def tokenizer(self) -> SentencePieceTokenizer: ...

    @property
    def options(self) -> GenerationOptions:
        """The default options (a call's ``options`` None)."""

    @property
    def text(self) -> ModelText:
        """Planning, encoding and finishing text for this model."""

    @property
    def span_counts(self) -> SpanCounts:
        """How sentences with protected spans went (whole / cut), over every call."""

    def runner(self) -> DecoderRunner:
        """The model's sessions (RuntimeError once closed)."""

    def params_for(self, opts: GenerationOptions) -> DecodeParams:
        """The model's decoding parameters with what ``opts`` sets."""

    def max_total_length(self, src_len: int, opts: GenerationOptions) -> int:
        """Total decoder length (start token included) for a segment of ``src_len`` source ids."""

    def search(
        self, src_ids: list[list[int]], opts: GenerationOptions, cancel: CancelToken | None
    ) -> Iterator[SearchEvent]:
        """The search for a batch of source ids: greedy for one beam, else beam search."""

    def hypotheses(
        self, text: str, params: DecodeParams, opts: GenerationOptions, cancel: CancelToken | None = None
    ) -> list[tuple[list[int], float]]:
        """One segment's finished beam hypotheses ``(ids, score)``, best first."""
