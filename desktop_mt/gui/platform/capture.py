"""Screen capture for "Translate screen region": snapshots of every screen, HiDPI correct, and
the conversion of Qt images to the RGB arrays OCR reads.

The region is chosen on a frozen snapshot (as Flameshot, Pot and Bob do): every screen is
grabbed at its device pixels first, the overlay shows the snapshot, and the selection is cut
from it. What is read is what the user saw when pressing the hotkey, and a selection in logical
(device-independent) coordinates maps to exact device pixels on a screen scaled 1.25x or 2x.

Wayland does not let a client read the screen (``QScreen.grabWindow`` returns an empty or black
image there); :func:`capture_problem` says so, and the front end offers the desktop portal's
screenshot (``portal.py``) or an image copied to the clipboard instead.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping

import numpy as np
from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication, QImage, QPainter, QPixmap, QScreen

from ..i18n import QT_TRANSLATE_NOOP, translate

__all__ = [
    "ScreenShot",
    "WAYLAND_MESSAGE",
    "capture_problem",
    "grab_screens",
    "qimage_to_rgb",
]


WAYLAND_MESSAGE = QT_TRANSLATE_NOOP(
    "Capture",
    "This desktop (Wayland) does not let apps capture the screen. Take a screenshot of "
    "the region with your desktop's screenshot tool, copying it to the clipboard, then "
    "paste it into desktop-mt with Ctrl+V (or drop an image file on the window).",
)


@dataclasses.dataclass
class ScreenShot:
    """One screen's snapshot: ``geometry`` in logical (virtual desktop) coordinates and its
    pixels at the screen's device pixel ratio ``ratio``."""

    screen: QScreen
    geometry: QRect
    ratio: float
    pixmap: QPixmap

    def crop(self, rect: QRect) -> QImage:
        """``rect`` (logical, relative to this screen's top-left) cut at device pixels."""
        r = self.device_rect(rect)
        return self.pixmap.copy(r).toImage()

    def device_rect(self, rect: QRect) -> QRect:
        """``rect`` (logical, relative to this screen) in the snapshot's device pixels, clipped
        to it. Edges are rounded outward so that no selected pixel is lost at 1.25x or 1.5x."""
        x0, y0 = math.floor(rect.left() * self.ratio), math.floor(rect.top() * self.ratio)
        x1 = math.ceil((rect.left() + rect.width()) * self.ratio)
        y1 = math.ceil((rect.top() + rect.height()) * self.ratio)
        return QRect(x0, y0, x1 - x0, y1 - y0).intersected(self.pixmap.rect())


def capture_problem(env: Mapping[str, str] | None = None, platform: str | None = None) -> str | None:
    """Why this session cannot capture the screen (a message for the user), or None."""
    env = os.environ if env is None else env
    platform = QGuiApplication.platformName() if platform is None else platform
    if platform.startswith("wayland") or (platform == "" and env.get("WAYLAND_DISPLAY")):
        return translate("Capture", WAYLAND_MESSAGE)
    if platform in ("offscreen", "minimal"):
        return translate("Capture", "There is no screen to capture in this session.")
    return None


def grab_screens() -> list[ScreenShot]:
    """A snapshot of every screen at its device pixels (grabbing the root window: what is on
    the screen, every application's windows included)."""
    shots = []
    for screen in QGuiApplication.screens():
        geometry = screen.geometry()
        pixmap = screen.grabWindow(0)
        if pixmap.isNull():
            continue
        # grabWindow(0) returns device pixels; its own ratio is not reliable on every platform.
        ratio = pixmap.width() / max(1, geometry.width())
        shots.append(ScreenShot(screen, geometry, ratio, pixmap))
    return shots


def _grab_region(rect: QRect) -> QImage:
    """The pixels of ``rect`` (logical, virtual desktop coordinates) on the screen that holds
    its centre, at that screen's device pixels."""
    for shot in grab_screens():
        if shot.geometry.contains(rect.center()):
            return shot.crop(rect.translated(-shot.geometry.topLeft()))
    return QImage()


def qimage_to_rgb(image: QImage) -> np.ndarray:
    """A copy of ``image`` as an RGB uint8 array (height x width x 3); transparent pixels over
    white, as the OCR's file reader does."""
    image = QImage(image)
    image.setDevicePixelRatio(1.0)  # pixels, not logical size: a 2x snapshot stays 2x
    if image.hasAlphaChannel():
        flat = QImage(image.size(), QImage.Format.Format_RGB888)
        flat.fill(0xFFFFFF)
        painter = QPainter(flat)
        painter.drawImage(0, 0, image)
        painter.end()
        image = flat
    else:
        image = image.convertToFormat(QImage.Format.Format_RGB888)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    buffer = np.frombuffer(image.constBits(), dtype=np.uint8, count=stride * height)
    rgb: np.ndarray = buffer.reshape(height, stride)[:, : width * 3].reshape(height, width, 3).copy()
    return rgb
