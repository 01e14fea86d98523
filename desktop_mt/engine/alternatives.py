"""The n best translations of a sentence (``Translator.alternatives``): one beam search per
segment with ``max(n, beams)`` beams, its hypotheses combined into whole sentences, best first."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, cast

from . import generation as gen
from . import script, spans
from .events import Alternative
from .model_text import PlanPiece, piece_output
from .options import GenerationOptions
from .segment import Segment

if TYPE_CHECKING:
    from .core import TranslatorCore
    from .protocols import CancelToken

__all__ = [
    "best_alternatives",
]

_Hypotheses = list[tuple[list[int], float]]  # a segment's finished beam hypotheses (ids, score), best first


def best_alternatives(
    core: TranslatorCore,
    sentence: str,
    n: int = 3,
    options: GenerationOptions | None = None,
    cancel: CancelToken | None = None,
) -> list[Alternative]:
    """``Translator.alternatives`` without a prefix (its docstring says what comes back)."""
    if n < 1:
        raise ValueError("n must be >= 1")
    opts = options or core.options
    params = core.params_for(opts)
    params = dataclasses.replace(params, beams=max(n, params.beams))
    plan, hyps = _alternatives_plan(core, sentence, params, opts, cancel)
    # A segment text that occurs twice in the sentence is decoded once and reads the same in both places.
    segments = list(dict.fromkeys(item.text for item in plan if isinstance(item, Segment)))
    for text in segments:
        if text not in hyps:
            hyps[text] = core.hypotheses(text, params, opts, cancel)
    out: list[Alternative] = []
    for combo in gen.best_combinations([[score for _, score in hyps[t]] for t in segments]):
        alt = _alternative(core, plan, [(t, *hyps[t][i]) for t, i in zip(segments, combo)], opts)
        if all(a.text != alt.text for a in out):
            out.append(alt)
            if len(out) == n:
                break
    return out


def _alternatives_plan(
    core: TranslatorCore, sentence: str, params: gen.DecodeParams, opts: GenerationOptions, cancel: CancelToken | None
) -> tuple[list[PlanPiece], dict[str, _Hypotheses]]:
    """The plan of ``sentence`` for :meth:`alternatives` and the hypotheses already known.

    A sentence with spans is one segment when the best whole-sentence hypothesis holds every
    span (what :meth:`translate` gives at that beam size); its alternatives are then the
    hypotheses that hold them all. Otherwise it is cut, as :meth:`translate` cuts it.
    """
    plan: list[PlanPiece] = []
    known: dict[str, _Hypotheses] = {}
    for item in core.text.plan(sentence, opts):
        if not isinstance(item, spans.Whole):
            plan.append(item)
            continue
        if not item.reason:
            hyps = core.hypotheses(item.text, params, opts, cancel)
            kept = [
                h
                for h in hyps
                if not spans.check(core.text.finish_text(core.tokenizer.decode(h[0]).strip(), opts), item.spans)
            ]
            if kept and kept[0] is hyps[0]:
                known[item.text] = kept
                plan.append(Segment(item.text))
                continue
        plan.extend(cast("tuple[PlanPiece, ...]", item.fallback))
    return plan, known


def _alternative(
    core: TranslatorCore, plan: list[PlanPiece], chosen: list[tuple[str, list[int], float]], opts: GenerationOptions
) -> Alternative:
    """The sentence with one hypothesis ``(segment, ids, score)`` per segment, finished as
    :meth:`translate_batch` finishes a line (punctuation, full stops before spans, script)."""
    texts = {t: core.text.finish_text(core.tokenizer.decode(ids).strip(), opts) for t, ids, _ in chosen}
    text = script.convert("".join(piece_output(item, texts) for item in plan), opts.script)
    return Alternative(text, sum(score for _, _, score in chosen), tuple(i for _, ids, _ in chosen for i in ids))
