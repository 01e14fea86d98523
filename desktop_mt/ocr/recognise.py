"""Text line recognition (PP-OCRv4 rec, CTC) and the upside-down check (PP-OCR's direction
classifier), in numpy and Pillow.

A line image is scaled to the model's height of 48 pixels (keeping its aspect ratio), padded on
the right to the widest line of its batch, and the per-column character probabilities are
decoded greedily: repeats collapse, blanks drop (CTC).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

__all__ = [
    "Run",
    "upside_down",
    "recognise",
]

_REC_HEIGHT = 48
_REC_MIN_WIDTH = 320  # PaddleOCR pads every batch to at least 320 pixels (48x320 training shape)
_REC_BATCH = 6
_CLS_SHAPE = (48, 192)
_CLS_THRESH = 0.9

Run = Callable[[np.ndarray], np.ndarray]  # one ONNX session's single input -> its first output


def _line_tensor(rgb: np.ndarray, height: int, width: int) -> np.ndarray:
    """``rgb`` scaled to ``height`` (at most ``width`` wide), as 3 x height x width BGR floats in
    [-1, 1], padded with zeros on the right."""
    from PIL import Image

    h, w = rgb.shape[:2]
    new_w = min(width, max(1, math.ceil(height * w / h)))
    resized = np.asarray(Image.fromarray(rgb).resize((new_w, height), Image.Resampling.BILINEAR), dtype=np.float32)
    out = np.zeros((3, height, width), dtype=np.float32)
    out[:, :, :new_w] = (resized[:, :, ::-1].transpose(2, 0, 1) / 255.0 - 0.5) / 0.5
    return out


def upside_down(run: Run, crops: Sequence[np.ndarray]) -> list[bool]:
    """Which crops the direction classifier reads as rotated by 180 degrees (confidently)."""
    flags: list[bool] = []
    for start in range(0, len(crops), _REC_BATCH):
        batch = np.stack([_line_tensor(c, *_CLS_SHAPE) for c in crops[start : start + _REC_BATCH]])
        probs = run(batch)
        flags += [bool(p.argmax() == 1 and p[1] > _CLS_THRESH) for p in probs]
    return flags


def recognise(run: Run, charset: Sequence[str], crops: Sequence[np.ndarray]) -> list[tuple[str, float]]:
    """``(text, confidence)`` of each crop (a single text line), in the order given.

    Crops are batched by aspect ratio, as PaddleOCR does, so that little padding is run.
    """
    order = sorted(range(len(crops)), key=lambda i: crops[i].shape[1] / crops[i].shape[0])
    out: list[tuple[str, float]] = [("", 0.0)] * len(crops)
    for start in range(0, len(order), _REC_BATCH):
        idx = order[start : start + _REC_BATCH]
        width = max(_REC_MIN_WIDTH, *(math.ceil(_REC_HEIGHT * crops[i].shape[1] / crops[i].shape[0]) for i in idx))
        batch = np.stack([_line_tensor(crops[i], _REC_HEIGHT, width) for i in idx])
        probs = run(batch)
        for i, row in zip(idx, probs):
            chars, steps, conf = _ctc_decode(row, charset)
            crop = crops[i]
            scale = min(width, math.ceil(_REC_HEIGHT * crop.shape[1] / crop.shape[0])) / crop.shape[1]
            centres = [(s + 0.5) * width / len(row) / scale for s in steps]
            out[i] = (_restore_spaces(chars, centres, crop), conf)
    return out


def _ctc_decode(probs: np.ndarray, charset: Sequence[str]) -> tuple[list[str], list[int], float]:
    """Greedy CTC decoding of one line's (steps x classes) probabilities: the characters, the
    step each was read at, the mean confidence. Class 0 is the blank, classes 1..n the
    characters of ``charset``, class n+1 a space (PaddleOCR's layout)."""
    best = probs.argmax(axis=1)
    keep = np.ones(len(best), dtype=bool)
    keep[1:] = best[1:] != best[:-1]
    keep &= best != 0
    ids = best[keep]
    if not len(ids):
        return [], [], 0.0
    conf = float(probs.max(axis=1)[keep].mean())
    chars = [charset[i - 1] if i <= len(charset) else " " for i in ids.tolist()]
    return chars, np.flatnonzero(keep).tolist(), conf


_WORD_GAP = 0.22  # an empty column run this wide (times the line's height) between letters is a space
_INK_CONTRAST = 60  # grey levels from the background that count as ink


def _restore_spaces(chars: Sequence[str], centres: Sequence[float], crop: np.ndarray) -> str:
    """``chars`` as text, with a space put back between two non-CJK characters that the image
    shows apart by a word gap. The recogniser drops word spaces on small or JPEG-blurred text
    (about one in forty on 20 px English); the gap in the pixels is still there."""
    if not chars:
        return ""
    grey = crop.mean(axis=2)
    background = float(np.median(grey))
    empty = ~(np.abs(grey - background) > _INK_CONTRAST).any(axis=0)
    min_gap = _WORD_GAP * crop.shape[0]
    text = [chars[0]]
    for prev, (char, left, right) in zip(chars, zip(chars[1:], centres, centres[1:])):
        if (
            " " not in (prev, char)
            and not (_wide(prev) or _wide(char))
            and _longest_run(empty[int(left) : int(right) + 1]) >= min_gap
        ):
            text.append(" ")
        text.append(char)
    return "".join(text)


def _wide(char: str) -> bool:
    """CJK ideographs, kana and full-width punctuation: written without spaces."""
    return "\u2e80" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff" or "\uff00" <= char <= "\uffef"


def _longest_run(flags: np.ndarray) -> int:
    best = cur = 0
    for flag in flags.tolist():
        cur = cur + 1 if flag else 0
        best = max(best, cur)
    return best
