"""Run under a real X server (Xvfb) by tests/gui/platform/test_ocr_x11.py, at QT_SCALE_FACTOR 1 or 2:

1. shows known English and Chinese sentences in a real window, captures the window's region
   through the app's own capture code (``gui.capture``) and OCRs it;
2. drags the region picker's overlay exactly over that window and checks that the picked
   pixels are the window's own rendering, at device resolution;
3. reports which Qt libraries the process loaded (one Qt: the GUI's) and whether cv2 came in.

Prints one JSON object on stdout.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from desktop_mt.gui.dialogs.ocr_overlay import RegionPicker
from desktop_mt.gui.platform.capture import grab_screens, qimage_to_rgb
from desktop_mt.ocr import OcrEngine
from tests.ocr.texts import CHINESE, ENGLISH, edit_distance

FAMILIES = {"en": "DejaVu Sans", "zh": "Noto Sans CJK SC"}


def sentence_window(lines: list[str], family: str) -> QWidget:
    window = QWidget(None, Qt.WindowType.FramelessWindowHint)
    window.setStyleSheet("background: white; color: black;")
    layout = QVBoxLayout(window)
    layout.setContentsMargins(16, 12, 16, 12)
    for line in lines:
        label = QLabel(line)
        font = QFont(family)
        font.setPixelSize(15)  # logical pixels: 15 at scale 1, 30 device pixels at scale 2
        label.setFont(font)
        layout.addWidget(label)
    window.move(40, 30)
    window.show()
    QTest.qWaitForWindowExposed(window)
    return window


def captured(window: QWidget) -> np.ndarray:
    """The window's region, captured from the screen; polls until its text is on the screen."""
    for _ in range(200):
        window.repaint()
        QGuiApplication.sync()
        QApplication.processEvents()
        shot = next(s for s in grab_screens() if s.geometry.contains(window.geometry().center()))
        rgb = qimage_to_rgb(shot.crop(window.geometry().translated(-shot.geometry.topLeft())))
        if (rgb < 100).any():
            return rgb
    raise SystemExit("the window's text never reached the screen")


def read_lines(engine: OcrEngine, key: str, lines: list[str]) -> dict:
    window = sentence_window(lines, FAMILIES[key])
    rgb = captured(window)
    started = time.perf_counter()
    result = engine.read(rgb)
    seconds = time.perf_counter() - started
    window.close()
    got = list(result.line_texts) + [""] * max(0, len(lines) - len(result.line_texts))
    errors = sum(edit_distance(e, g) for e, g in zip(lines, got)) + sum(len(g) for g in got[len(lines) :])
    return {
        "lines": len(lines),
        "chars": sum(map(len, lines)),
        "errors": errors,
        "seconds": seconds,
        "got": list(result.line_texts),
        "size": list(result.size),
    }


def overlay_check() -> dict:
    window = sentence_window(ENGLISH[:2], FAMILIES["en"])
    captured(window)
    shots = grab_screens()
    picker = RegionPicker(shots)
    picked = []
    picker.picked.connect(lambda image, rect: picked.append((image, rect)))
    picker.show()
    overlay = picker.overlays[0]
    QTest.qWaitForWindowExposed(overlay)
    geo = window.geometry()
    QTest.mousePress(overlay, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, geo.topLeft())
    QTest.mouseMove(overlay, geo.center())
    end = geo.bottomRight()  # the drag's end pixel is inside the selection
    QTest.mouseRelease(overlay, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    image, rect = picked[0]
    own = qimage_to_rgb(window.grab().toImage())
    got = qimage_to_rgb(image)
    window.close()
    return {
        "ratio": shots[0].ratio,
        "picked_size": [got.shape[1], got.shape[0]],
        "window_size": [own.shape[1], own.shape[0]],
        "rect": [rect.x(), rect.y(), rect.width(), rect.height()],
        "window_rect": [geo.x(), geo.y(), geo.width(), geo.height()],
        "pixels_equal": bool(got.shape == own.shape and np.array_equal(got, own)),
        "mean_abs_diff": float(np.abs(got.astype(int) - own.astype(int)).mean()) if got.shape == own.shape else -1,
    }


def loaded_qt_cores() -> list[str]:
    with open(f"/proc/{os.getpid()}/maps") as f:
        return sorted({line.split()[-1] for line in f if "libQt6Core" in line})


def main() -> None:
    app = QApplication(sys.argv)
    engine = OcrEngine()
    engine.read(np.full((64, 64, 3), 255, np.uint8))  # load the models outside the timings
    out = {
        "scale": QGuiApplication.primaryScreen().devicePixelRatio(),
        "en": read_lines(engine, "en", ENGLISH),
        "zh": read_lines(engine, "zh", CHINESE),
        "overlay": overlay_check(),
        "qt_cores": loaded_qt_cores(),
        "cv2": "cv2" in sys.modules,
        "pid_threads": os.getpid(),
    }
    print(json.dumps(out, ensure_ascii=False))
    app.quit()


if __name__ == "__main__":
    main()
