"""Frozen option dataclasses for sessions and generation."""

from __future__ import annotations

import dataclasses
from typing import Optional


@dataclasses.dataclass(frozen=True)
class SessionOptions:
    """How ONNX Runtime sessions are created.

    ``intra_op_threads`` 0 lets ONNX Runtime choose (one per physical core).
    ``provider`` is a short name (``"cpu"``, ``"cuda"``, ``"dml"``, ``"coreml"``,
    ``"openvino"``) or a full ORT provider name (``"CUDAExecutionProvider"``).
    ``spin_wait`` lets ORT's worker threads busy-wait for the next operator. Off by default:
    generation alternates several sessions and numpy work, and spinning threads take the cores
    that work needs (measured on 2 cores: beam 4 at batch 32 ran 1.7-2x slower with spinning,
    see docs/BENCHMARKS.md); an idle desktop app should not burn CPU either.
    """

    intra_op_threads: int = 0
    inter_op_threads: int = 1
    provider: str = "cpu"
    spin_wait: bool = False

    def __post_init__(self) -> None:
        if self.intra_op_threads < 0 or self.inter_op_threads < 0:
            raise ValueError("thread counts must be >= 0 (0 = let ONNX Runtime choose)")


@dataclasses.dataclass(frozen=True)
class GenerationOptions:
    """Decoding settings. ``None`` means "take it from the model's generation_config.json".

    ``beams`` 1 is greedy search. ``max_length`` bounds the output tokens of one segment
    (never above the model's position limit). ``max_length_ratio`` / ``max_length_offset``
    bound each segment's output relative to its input (``ratio * source_tokens + offset``) so a
    degenerate repetition loop cannot run to the full length. ``no_repeat_ngram_size`` and
    ``repetition_penalty`` override the model's values when set.
    """

    beams: Optional[int] = None
    max_length: Optional[int] = None
    length_penalty: Optional[float] = None
    no_repeat_ngram_size: Optional[int] = None
    repetition_penalty: Optional[float] = None
    max_length_ratio: float = 3.0
    max_length_offset: int = 10
    batch_size: int = 16

    def __post_init__(self) -> None:
        if self.beams is not None and self.beams < 1:
            raise ValueError("beams must be >= 1 (1 = greedy)")
        if self.max_length is not None and self.max_length < 1:
            raise ValueError("max_length must be >= 1")
        if self.batch_size < 1:
            raise ValueError("batch_size must be >= 1")
