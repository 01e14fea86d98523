"""Offline OCR: text in an image (a screen region, a pasted image, an image file) to lines with
their boxes in reading order and paragraph-joined text, ready to translate.

PP-OCRv4's detection, direction and recognition models (shipped in ``resources/ocr/``, made from
the ``rapidocr-onnxruntime`` wheel by ``packaging/ocr_models.py``: int8 weights where reading
does not change) run on the ONNX Runtime the translator uses; the pre- and
post-processing is numpy and Pillow, without OpenCV (whose wheels bundle a second Qt and would
add ~100 MB to the app bundle). Sessions are created by ``desktop_mt.engine.runtime`` (the one
module that imports onnxruntime), lazily, on the first image.

    engine = OcrEngine()
    result = engine.read_file("picture.png")
    result.text          # paragraphs joined like pasted PDF text
    result.lines         # OcrLine(text, box, confidence), top to bottom
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import time
from pathlib import Path

import numpy as np

from ..base.errors import DesktopMTError
from ..base.resources_path import resource_path
from ..engine.options import SessionOptions
from . import image
from .detect import Box, boxes_from_map, det_input
from .image import ImageError, is_image_path, load_image
from .layout import assemble, group_lines, merge_line
from .recognise import Run, recognise, upside_down

__all__ = [
    "OcrEngine",
    "OcrResult",
    "OcrLine",
    "OcrError",
    "ImageError",
    "Box",
    "load_image",
    "is_image_path",
    "MODEL_FILES",
    "models_dir",
    "NO_TEXT",
]

NO_TEXT = "no text was found in the image"

# The model files, their sizes and sha256 (checked before loading: a damaged file gets a message
# naming it instead of a crash or wrong text). Source, licence, how made: resources/ocr/README.md.
MODEL_FILES = {
    "det": ("ch_PP-OCRv4_det_infer.onnx", 1329218, "a739275b38b0990dbf05767b911bb46a8454bb3b85483e2cb8d8d28c40e47462"),
    "rec": ("ch_PP-OCRv4_rec_infer.onnx", 7794224, "b20174ac769c368b42c65d340f040da04cdd007f256ecf4fd04b2b82141e2aa8"),
    "cls": (
        "ch_ppocr_mobile_v2.0_cls_infer.onnx",
        585532,
        "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
    ),
}


class OcrError(DesktopMTError):
    """The OCR models are missing or damaged."""


@dataclasses.dataclass(frozen=True)
class OcrLine:
    """One recognised text segment: its text, its box in the image's pixels, the recogniser's
    mean character confidence (0-1)."""

    text: str
    box: Box
    confidence: float


@dataclasses.dataclass(frozen=True)
class OcrResult:
    """What was read in one image. ``text`` is empty when nothing was found."""

    lines: tuple[OcrLine, ...]
    line_texts: tuple[str, ...]  # one entry per text line (far-apart segments joined by a tab)
    text: str  # paragraphs, lines of a paragraph joined
    size: tuple[int, int]  # (width, height) of the image read
    seconds: float

    @property
    def empty(self) -> bool:
        return not self.text.strip()


def models_dir() -> Path:
    """Where the OCR models are: ``desktop_mt/resources/ocr`` (also inside the app bundle)."""
    return resource_path("ocr")


class OcrEngine:
    """Reads text in images. Thread-safe; the models load on the first call (about a second)."""

    def __init__(self, model_dir: Path | None = None, threads: int = 0, use_direction: bool = True):
        self.model_dir = model_dir or models_dir()
        self.threads = threads
        self.use_direction = use_direction
        self._lock = threading.Lock()
        self._runs: dict[str, Run] | None = None
        self._charset: list[str] = []

    def _load(self) -> dict[str, Run]:
        with self._lock:
            if self._runs is None:
                self._runs = self._open_sessions()
            return self._runs

    def _open_sessions(self) -> dict[str, Run]:
        from ..engine.runtime import make_session, resolve_provider

        options = SessionOptions(intra_op_threads=self.threads)
        runs: dict[str, Run] = {}
        for key, (name, size, sha) in MODEL_FILES.items():
            path = self.model_dir / name
            _check_model_file(path, size, sha)
            session = make_session(path, options, resolve_provider("cpu"))
            if key == "rec":
                self._charset = session.get_modelmeta().custom_metadata_map["character"].splitlines()
            input_name = session.get_inputs()[0].name
            runs[key] = (lambda s, n: lambda x: s.run(None, {n: x})[0])(session, input_name)
        return runs

    def read_file(self, path: str | Path) -> OcrResult:
        """OCR of an image file (ImageError: not an image, damaged, too large)."""
        return self.read(load_image(path))

    def read(self, rgb: np.ndarray) -> OcrResult:
        """OCR of an RGB uint8 image (height x width x 3)."""
        started = time.perf_counter()
        if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
            raise ImageError(f"expected an RGB uint8 image, got shape {rgb.shape} {rgb.dtype}")
        if max(rgb.shape[:2]) > image.MAX_SIDE:  # e.g. a capture of several 4K screens: bounded work
            rgb = image.to_rgb_array(_pil(rgb))
        h, w = rgb.shape[:2]
        if min(h, w) < 4:
            return OcrResult((), (), "", (w, h), time.perf_counter() - started)
        runs = self._load()
        padded, top = _letterbox(rgb)
        x, sy, sx = det_input(padded)
        prob = runs["det"](x)[0, 0]
        boxes = [
            Box(b.x0, max(0, b.y0 - top), b.x1, min(h, b.y1 - top))
            for b in boxes_from_map(prob, sy, sx, padded.shape[:2])
        ]
        lines = [merge_line(line) for line in group_lines([b for b in boxes if b.height > 1])]
        flat = [b for line in lines for b in line]
        crops = [_crop(rgb, b) for b in flat]
        if self.use_direction and crops:
            flips = upside_down(runs["cls"], crops)
            crops = [c[::-1, ::-1] if f else c for c, f in zip(crops, flips)]
        read = recognise(runs["rec"], self._charset, crops) if crops else []
        segments = [OcrLine(text.strip(), box, conf) for box, (text, conf) in zip(flat, read) if text.strip()]
        by_line: list[list[tuple[Box, str]]] = []
        i = 0
        for line in lines:
            by_line.append([(b, t) for b, (t, _) in zip(line, read[i : i + len(line)])])
            i += len(line)
        line_texts, text = assemble(by_line)
        return OcrResult(tuple(segments), tuple(line_texts), text, (w, h), time.perf_counter() - started)


def _pil(rgb: np.ndarray):  # type: ignore[no-untyped-def]
    from PIL import Image

    return Image.fromarray(rgb)


_CROP_MARGIN = 0.1  # of a line's height, around its box: without it the recogniser drops word spaces


def _crop(rgb: np.ndarray, box: Box) -> np.ndarray:
    """A line's pixels with a margin (measured on rendered English at 12-28 px: 0.1 of the
    height took errors from 4-10% of characters to under 1%, mostly lost spaces)."""
    m = int(round(_CROP_MARGIN * box.height))
    return rgb[max(0, box.y0 - m) : box.y1 + m, max(0, box.x0 - m) : box.x1 + m]


def _letterbox(rgb: np.ndarray) -> tuple[np.ndarray, int]:
    """A thin strip (one line of text) padded above and below with its edge colour, as RapidOCR
    does: the detector misses text that fills a very wide, low image. Returns the top padding."""
    h, w = rgb.shape[:2]
    target = max(w // 8, 30) * 2
    if h > 30 and w <= 8 * h:
        return rgb, 0
    pad = max(0, (target - h) // 2)
    return np.pad(rgb, ((pad, pad), (0, 0), (0, 0)), mode="edge"), pad


def _check_model_file(path: Path, size: int, sha256: str) -> None:
    """Raise OcrError unless ``path`` exists with the expected size and sha256."""
    if not path.is_file():
        raise OcrError(f"OCR model {path} is missing; reinstall desktop-mt (the OCR models ship with it)")
    actual = path.stat().st_size
    digest = hashlib.sha256(path.read_bytes()).hexdigest() if actual == size else ""
    if digest != sha256:
        raise OcrError(
            f"OCR model {path} is damaged ({actual} bytes, expected {size} with sha256 "
            f"{sha256[:12]}...); reinstall desktop-mt"
        )
