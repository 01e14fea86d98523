"""Reading an image for OCR: any format Pillow decodes, with clear messages for bad input and a
bound on the memory a huge image may take.

A decoded image is an ``RGB`` numpy array (height, width, 3), uint8. Transparent pixels are
composited over white (a screenshot tool's PNG with an alpha channel has black text on
transparent pixels, which would otherwise read as black on black).
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np

from ..base.errors import DesktopMTError

__all__ = [
    "MAX_DECODED_PIXELS",
    "MAX_SIDE",
    "ImageError",
    "load_image",
    "to_rgb_array",
    "is_image_path",
]

# Decoded pixels we accept (RGBA: 4 bytes each, so ~256 MB at most). A JPEG beyond it is decoded
# at a reduced scale by libjpeg (draft mode) without ever holding the full image; other formats
# must be decoded whole, so they are refused with a message instead.
MAX_DECODED_PIXELS = 64_000_000
# The longest side OCR works on: larger images are downscaled (text in them stays readable
# down to ~10 px high; screenshots of 4K screens are 3840 wide).
MAX_SIDE = 4096
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff")


class ImageError(DesktopMTError):
    """An image could not be read: not an image, truncated, or too large."""


def load_image(source: str | Path | bytes, name: str | None = None) -> np.ndarray:
    """Decode ``source`` (a path or the bytes of an image file) to an RGB uint8 array.

    Raises :class:`ImageError` naming ``name`` (or the path) and what went wrong.
    """
    from PIL import Image, UnidentifiedImageError  # here: translating text never needs Pillow

    label = name or (str(source) if not isinstance(source, bytes) else "the image")
    try:
        stream = io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise ImageError(f"{label}: cannot be read ({exc.strerror or exc})") from exc
    with stream, warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            img = Image.open(stream)
            img = _reduced(img, label)
            img.load()
        except ImageError:
            raise
        except (UnidentifiedImageError, Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise ImageError(
                f"{label}: not an image Pillow can read (PNG, JPEG, WebP, BMP, GIF, TIFF)"
                if isinstance(exc, UnidentifiedImageError)
                else f"{label}: the image is too large to read safely ({exc})"
            ) from exc
        except (OSError, ValueError, SyntaxError, EOFError) as exc:  # Pillow's decoders raise all of these
            raise ImageError(f"{label}: the image is damaged or truncated ({exc})") from exc
        return to_rgb_array(img)


def _reduced(img, label: str):  # type: ignore[no-untyped-def]  # PIL types stay local to this module
    """``img`` set up to decode within MAX_DECODED_PIXELS (JPEG: at a reduced scale)."""
    w, h = img.size
    if w <= 0 or h <= 0:
        raise ImageError(f"{label}: the image is empty ({w}x{h})")
    if w * h <= MAX_DECODED_PIXELS:
        return img
    if img.format == "JPEG":
        # libjpeg decodes at 1/2, 1/4 or 1/8 scale; draft() picks the smallest at least this size.
        shrink = next((s for s in (2, 4, 8) if -(-w // s) * -(-h // s) <= MAX_DECODED_PIXELS), 8)
        img.draft("RGB", (-(-w // shrink), -(-h // shrink)))
        if img.size[0] * img.size[1] <= MAX_DECODED_PIXELS:
            return img
    raise ImageError(
        f"{label}: the image is too large ({w}x{h} pixels; at most "
        f"{MAX_DECODED_PIXELS // 1_000_000} million can be read). Crop or scale it down first."
    )


def to_rgb_array(img) -> np.ndarray:  # type: ignore[no-untyped-def]
    """An opened Pillow image as RGB uint8, transparency over white, at most MAX_SIDE a side."""
    from PIL import Image

    if getattr(img, "n_frames", 1) > 1:
        img.seek(0)  # animated GIF/WebP: the first frame
    if img.mode not in ("RGB", "L"):
        rgba = img.convert("RGBA")
        img = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        img.alpha_composite(rgba)
    img = img.convert("RGB")
    if max(img.size) > MAX_SIDE:
        img.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
    return np.asarray(img, dtype=np.uint8)


def is_image_path(path: str | Path) -> bool:
    """Whether ``path``'s suffix is one of the image formats OCR reads."""
    return Path(path).suffix.lower() in _IMAGE_SUFFIXES
