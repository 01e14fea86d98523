"""The converted graphs checked against the downloaded fp32 model before anything is kept.

The fp32 step graph's logits over a teacher-forced decode must agree with the downloaded
decoder's (a wrongly wired graph differs by whole units), else :class:`ConversionRefused`; the
greedy tokens of the fp32 and int8 step graphs are compared and recorded.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from ...engine import generation
from ...engine import model_format as mf
from ...engine.tokenizer import SentencePieceTokenizer
from ...engine.translator import decode_params
from .spec import ConversionRefused

__all__ = [
    "validate",
]

_LOGIT_TOLERANCE = 1e-3  # fp32 step graph vs downloaded fp32 decoder, relative to the logits' scale
_SAMPLES = ("I love you.", "Where is the train station?", "The weather is nice today, so we went for a walk.")


def validate(info: mf.ModelInfo, staging: Path, made: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The converted graphs in ``staging`` (``made``: variant -> role -> file, with the
    ``fp32-check`` variant) against the downloaded fp32 model, on :data:`_SAMPLES`; returns the
    figures for the manifest. The check graphs are removed unless ``made`` keeps an fp32 variant."""
    check = {"encoder": info.files["fp32"]["encoder"], **{r: staging / n for r, n in made["fp32-check"].items()}}
    int8 = {r: staging / n for r, n in made["int8"].items()}
    view = dataclasses.replace(
        info, files={"fp32": dict(info.files["fp32"]), "check": check, "int8": int8}, manifest=None
    )
    worst, same, same8 = _compare(info, view)
    _drop_check_graphs(staging, made)
    if worst > _LOGIT_TOLERANCE:
        raise ConversionRefused(
            f"the step graphs built from {info.path.name}'s decoder do not reproduce it "
            f"(relative logit difference {worst:.2g} > {_LOGIT_TOLERANCE}); the model is used as downloaded"
        )
    return {
        "reference": "the downloaded fp32 graphs",
        "samples": len(_SAMPLES),
        "fp32_step_max_relative_logit_diff": float(f"{worst:.3g}"),
        "fp32_step_greedy_same": f"{same}/{len(_SAMPLES)}",
        "int8_greedy_same": f"{same8}/{len(_SAMPLES)}",
    }


def _compare(info: mf.ModelInfo, view: mf.ModelInfo) -> tuple[float, int, int]:
    """Greedy tokens of ``view``'s ``fp32`` (the download) on :data:`_SAMPLES` (``info``'s tokenizer
    and decoding settings); the ``check`` variant's largest relative logit difference over them,
    teacher-forced, and how many of its greedy outputs and of the ``int8`` variant's are the same."""
    from ...engine.runtime import Seq2SeqSessions  # onnxruntime: loaded when a model is checked

    params = dataclasses.replace(decode_params(info), beams=1)
    tokenizer = SentencePieceTokenizer(info)
    samples = [tokenizer.encode(sample) for sample in _SAMPLES]
    # One model loaded at a time (the reference's logits kept: a few MB), so the install's peak
    # memory is one fp32 model, not three.
    downloaded = Seq2SeqSessions(view, "fp32")
    refs = [_greedy(downloaded, ids, params) for ids in samples]
    ref_logits = [
        _teacher_logits(downloaded, ids, ref, params.decoder_start) for ids, ref in zip(samples, refs, strict=True)
    ]
    del downloaded
    converted = Seq2SeqSessions(view, "check")
    worst = max(
        _relative_difference(want, _teacher_logits(converted, ids, ref, params.decoder_start))
        for ids, ref, want in zip(samples, refs, ref_logits, strict=True)
    )
    same = sum(_greedy(converted, ids, params) == ref for ids, ref in zip(samples, refs, strict=True))
    del converted
    quantized = Seq2SeqSessions(view, "int8")
    same8 = sum(_greedy(quantized, ids, params) == ref for ids, ref in zip(samples, refs, strict=True))
    return worst, same, same8


def _drop_check_graphs(staging: Path, made: dict[str, dict[str, str]]) -> None:
    checked = made.pop("fp32-check")
    if made.get("fp32"):
        return
    for name in checked.values():
        (staging / name).unlink(missing_ok=True)
        (staging / f"{name}.data").unlink(missing_ok=True)


def _greedy(sessions: Any, ids: list[int], params: Any) -> list[int]:
    for event in generation.greedy(sessions, [ids], [48], params):
        if isinstance(event, generation.ItemDone):
            return list(event.ids)
    return []


def _teacher_logits(sessions: Any, ids: list[int], tokens: list[int], start: int) -> list[np.ndarray]:
    """The last-position logits of each step of a teacher-forced decode of ``tokens``."""
    batch = np.array([ids], dtype=np.int64)
    mask = np.ones_like(batch)
    hidden = sessions.encode(batch, mask)
    out, cache = sessions.decode_first(np.array([[start]], np.int64), mask, hidden, len(tokens) + 2)
    logits = [np.array(out[:, -1])]
    for token in tokens:
        logits.append(np.array(sessions.decode_next(np.array([[token]], np.int64), cache)[:, -1]))
    return logits


def _relative_difference(want: list[np.ndarray], got: list[np.ndarray]) -> float:
    """Largest |logit difference| of the steps, relative to each step's logit range."""
    return max(float(np.abs(w - g).max()) / max(float(np.abs(w).max()), 1.0) for w, g in zip(want, got, strict=True))
