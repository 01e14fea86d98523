"""Text detection: PP-OCRv4's DB (differentiable binarization) model and its post-processing,
in numpy instead of OpenCV.

The model gives a text probability per pixel; pixels above ``_THRESH`` form regions, each region's
bounding rectangle (axis-aligned: screen text is horizontal) is kept when its mean probability
reaches ``_BOX_THRESH``, and grown by DB's unclip distance (area * ratio / perimeter), as
RapidOCR/PaddleOCR do with pyclipper. Rotated text is read within its bounding rectangle only.
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = [
    "Box",
    "det_input",
    "boxes_from_map",
]

# RapidOCR 1.4.4's settings for this model (config.yaml: Det).
_THRESH = 0.3
_BOX_THRESH = 0.5
_UNCLIP_RATIO = 1.6
_MIN_SIZE = 3
_LIMIT_SIDE = 736  # the shorter side is scaled up to at least this for the model
_MAX_UPSCALE = 2.0  # but by at most this: a small screen region needs no more (on 12-28 px
# rendered text the same lines were read at 2x as at 736, in 0.6-0.9 of the time)
_MAX_DET_SIDE = 2400  # and the longer side down to at most this (bounded time and memory)
_MEAN = _STD = 0.5


@dataclasses.dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle in image pixels: ``x0 <= x < x1``, ``y0 <= y < y1``."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0


def det_input(rgb: np.ndarray) -> tuple[np.ndarray, float, float]:
    """The model input for ``rgb`` (1x3xHxW float32, BGR as PaddleOCR trained on) and the
    scale factors (input / image) in y and x."""
    from PIL import Image

    h, w = rgb.shape[:2]
    ratio = min(max(1.0, _LIMIT_SIDE / min(h, w)), _MAX_UPSCALE)
    ratio = min(ratio, _MAX_DET_SIDE / max(h, w))
    rh, rw = max(32, int(round(h * ratio / 32)) * 32), max(32, int(round(w * ratio / 32)) * 32)
    resized = np.asarray(Image.fromarray(rgb).resize((rw, rh), Image.Resampling.BILINEAR), dtype=np.float32)
    x = (resized[:, :, ::-1] / 255.0 - _MEAN) / _STD
    return x.transpose(2, 0, 1)[None].astype(np.float32), rh / h, rw / w


def boxes_from_map(prob: np.ndarray, scale_y: float, scale_x: float, size: tuple[int, int]) -> list[Box]:
    """Text boxes in image pixels from the model's probability map ``prob`` (H x W)."""
    mask = prob > _THRESH
    # RapidOCR dilates with a 2x2 kernel: joins characters one pixel apart.
    mask[:-1, :] |= mask[1:, :]
    mask[:, :-1] |= mask[:, 1:]
    height, width = size
    boxes = []
    for y0, y1, x0, x1 in _components(mask):
        if min(y1 - y0, x1 - x0) < _MIN_SIZE:
            continue
        if float(prob[y0:y1, x0:x1].mean()) < _BOX_THRESH:
            continue
        w, h = x1 - x0, y1 - y0
        d = w * h * _UNCLIP_RATIO / (2 * (w + h))
        fx0, fy0, fx1, fy1 = x0 - d, y0 - d, x1 + d, y1 + d
        if min(fx1 - fx0, fy1 - fy0) < _MIN_SIZE + 2:
            continue
        boxes.append(
            Box(
                int(np.clip(round(fx0 / scale_x), 0, width)),
                int(np.clip(round(fy0 / scale_y), 0, height)),
                int(np.clip(round(fx1 / scale_x), 0, width)),
                int(np.clip(round(fy1 / scale_y), 0, height)),
            )
        )
    return [b for b in boxes if b.width > 1 and b.height > 1]


def _components(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Bounding rectangles ``(y0, y1, x0, x1)`` (ends exclusive) of the 8-connected regions of
    ``mask``. Works on runs of set pixels (a few thousand on a screenshot), not on pixels."""
    padded = np.zeros((mask.shape[0], mask.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    edges = np.diff(padded, axis=1)
    starts = np.argwhere(edges == 1)  # row-major order: runs sorted by row, then column
    ends = np.argwhere(edges == -1)[:, 1]
    rows, cols = starts[:, 0].tolist(), starts[:, 1].tolist()
    stops = ends.tolist()
    parent = list(range(len(rows)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    prev_lo = prev_hi = cur_lo = 0  # run index ranges of the previous and current row
    for i, row in enumerate(rows):
        if i == 0 or row != rows[i - 1]:
            if i and row == rows[i - 1] + 1:
                prev_lo, prev_hi = cur_lo, i
            else:
                prev_lo = prev_hi = i
            cur_lo = i
        j = prev_lo
        while j < prev_hi and stops[j] < cols[i]:  # runs of the row above that end before this one
            j += 1
        while j < prev_hi and cols[j] <= stops[i]:  # overlap, diagonal contact included
            a, b = find(i), find(j)
            if a != b:
                parent[a] = b
            j += 1
    regions: dict[int, list[int]] = {}
    for i in range(len(rows)):
        r = regions.setdefault(find(i), [rows[i], rows[i], cols[i], stops[i]])
        r[0], r[1] = min(r[0], rows[i]), max(r[1], rows[i])
        r[2], r[3] = min(r[2], cols[i]), max(r[3], stops[i])
    return [(y0, y1 + 1, x0, x1) for y0, y1, x0, x1 in regions.values()]
