"""Frozen option dataclasses for sessions and generation."""

from __future__ import annotations

import dataclasses
from typing import Literal

from .direction import Target, check_target
from .glossary import Glossary
from .script import Script, check_script  # OpenCC loads only when a Traditional script is used

__all__ = [
    "Spans",
    "SPANS",
    "SessionOptions",
    "GenerationOptions",
    "RAW",
]

Spans = Literal["whole", "cut", "off"]
"""How sentences with protected spans reach the model (``GenerationOptions.spans``)."""
SPANS: tuple[Spans, ...] = ("whole", "cut", "off")


@dataclasses.dataclass(frozen=True)
class SessionOptions:
    """How ONNX Runtime sessions are created.

    ``intra_op_threads`` 0 lets ONNX Runtime choose (one per physical core).
    ``provider`` is a short name (``"cpu"``, ``"cuda"``, ``"dml"``, ``"coreml"``,
    ``"openvino"``) or a full ORT provider name (``"CUDAExecutionProvider"``).
    ``spin_wait`` lets the worker threads of a session's own pool busy-wait for the next
    operator. Off by default: generation alternates several sessions and numpy work, and the
    spinning pools take the cores from each other (measured on 2 cores: beam 4 at batch 32 ran
    1.7-2x slower with spinning, see docs/BENCHMARKS.md). Where the process shares one pool
    (``engine.runtime.share_thread_pool``: the ``desktop-mt`` command and window) the thread
    counts and ``spin_wait`` are not used: that pool's size was set once, and its worker spins
    briefly after each run, then sleeps.
    ``memory_pattern`` turns on ORT's memory pattern (ORT's default): after a run it keeps one
    block planned for the next run of the same input shapes, beside the arena's own blocks. Off
    by default: the step's KV inputs grow in chunks, and at each new row count the pattern
    planned one more large block (measured at batch 32 on opus-mt's architecture: peak RSS 487
    -> 412 MB with it off, same speed, same tokens; docs/BENCHMARKS.md).
    """

    intra_op_threads: int = 0
    inter_op_threads: int = 1
    provider: str = "cpu"
    spin_wait: bool = False
    memory_pattern: bool = False

    def __post_init__(self) -> None:
        if self.intra_op_threads < 0 or self.inter_op_threads < 0:
            raise ValueError("thread counts must be >= 0 (0 = let ONNX Runtime choose)")


@dataclasses.dataclass(frozen=True)
class GenerationOptions:
    """Decoding settings. ``None`` means "take it from the model's generation_config.json".
    (How many sentences are decoded together is not one of them: ``Translator(batch_size=)``.)

    ``beams`` 1 is greedy search. ``max_length`` bounds the output tokens of one segment
    (never above the model's position limit). ``max_length_ratio`` / ``max_length_offset``
    bound each segment's output relative to its input (``ratio * source_tokens + offset``) so a
    degenerate repetition loop cannot run to the full length. ``no_repeat_ngram_size`` and
    ``repetition_penalty`` override the model's values when set.

    Text handling (docs/ENGINE_API.md, "Text handling"): ``repetition_guard`` ends a sentence
    whose output starts to loop (a token 3 times or a longer unit twice in a row, more when the
    source repeats itself; off in the parity tests, since generate() has no such rule).
    ``protect_numbers`` copies numbers, prices, dates and times verbatim instead of letting the
    model translate them. ``chinese_punctuation`` makes ASCII punctuation that touches Chinese
    full-width in Chinese output.

    ``script``: "simplified" (the model's output), or "traditional-tw" / "traditional-hk" /
    "traditional" converted from it with OpenCC (s2twp / s2hk / s2t; see ``engine.script``).

    ``glossary`` (``engine.glossary.Glossary``): each term found in the source is a protected
    span whose output is the term's target text (the sentence is translated around it).

    ``keep_cjk``: a sentence that is not in the model's source language (``engine.direction``:
    Chinese, Japanese or Korean for an English->Chinese model; English, Japanese or Korean for a
    Chinese->English one) is copied to the output as it is and never sent to that model.

    ``simplify_source``: a Chinese->English model reads Traditional input converted to Simplified
    (OpenCC t2s; measured: benchmarks/zh_en_traditional.py); the output and the reported sources
    are unaffected.

    ``target``: the language to translate into, ``"auto"`` (each sentence into the other
    language), ``"en"`` or ``"zh"`` (sentences already in it stay as they are). A
    ``TwoWayTranslator`` (``engine.router``) routes each sentence by it; a single-model
    ``Translator`` accepts ``"auto"`` and its own target language only.

    ``spans`` (``engine.spans``): ``"whole"`` (default) sends a sentence with protected spans
    (numbers, URLs, codes, glossary terms...) to the model whole and keeps the output when every
    span is in it exactly as often as in the source, else cuts the sentence around its spans;
    ``"cut"`` always cuts (the behaviour before); ``"off"`` protects nothing (the model's own
    output). :data:`RAW` turns every text-handling step off at once.
    """

    beams: int | None = None
    max_length: int | None = None
    length_penalty: float | None = None
    no_repeat_ngram_size: int | None = None
    repetition_penalty: float | None = None
    max_length_ratio: float = 3.0
    max_length_offset: int = 10
    repetition_guard: bool = True
    protect_numbers: bool = True
    chinese_punctuation: bool = True
    script: Script = "simplified"
    glossary: Glossary | None = None
    keep_cjk: bool = True
    spans: Spans = "whole"
    target: Target = "auto"
    simplify_source: bool = True

    def __post_init__(self) -> None:
        if self.beams is not None and self.beams < 1:
            raise ValueError("beams must be >= 1 (1 = greedy)")
        if self.max_length is not None and self.max_length < 1:
            raise ValueError("max_length must be >= 1")
        if self.spans not in ("whole", "cut", "off"):
            raise ValueError(f"spans must be 'whole', 'cut' or 'off', not {self.spans!r}")
        check_script(self.script)
        check_target(self.target)


# Every text-handling step off (``desktop-mt translate --raw``): the model's own output, as
# transformers' generate() gives it: no repetition guard, no relative length bound, no
# punctuation rewrite, nothing protected or kept, each sentence to the model as it is.
RAW = dict(
    repetition_guard=False,
    max_length_ratio=0.0,
    chinese_punctuation=False,
    protect_numbers=False,
    keep_cjk=False,
    spans="off",
    simplify_source=False,
)
