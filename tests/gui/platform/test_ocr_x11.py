"""OCR of a real screen (Xvfb) through the app's own capture code, at scale 1 and 2: known
English and Chinese sentences shown in a window, captured, read; the region picker's overlay
picks exactly the window's pixels on a scale-2 screen; GUI and OCR share one process with one Qt.

The work runs in ``tests/ocr/x11_probe.py`` (a child process: QT_SCALE_FACTOR must be set
before Qt starts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import sysdeps

ROOT = Path(__file__).resolve().parents[3]
ACCURACY = {"en": 0.98, "zh": 0.95}


@pytest.fixture(scope="module")
def display():
    sysdeps.require("xvfb", "fonts-noto-cjk")
    read, write = os.pipe()
    xvfb = subprocess.Popen(
        # -noreset: by default the server resets when its last client leaves, and a client
        # connecting during the reset is refused ("cannot open display", seen under load).
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as f:
        name = ":" + f.readline().strip()
    yield name
    xvfb.terminate()
    xvfb.wait(timeout=10)


@pytest.fixture(scope="module", params=[1, 2], ids=["scale1", "scale2"])
def probe(request, display) -> dict:
    env = {
        **os.environ,
        "DISPLAY": display,
        "QT_QPA_PLATFORM": "xcb",
        "QT_SCALE_FACTOR": str(request.param),
        "PYTHONPATH": str(ROOT),
    }
    env.pop("WAYLAND_DISPLAY", None)
    out = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "ocr" / "x11_probe.py")],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["scale"] == request.param
    return report


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_captured_sentences_are_read_accurately(probe, lang):
    measured = probe[lang]
    assert 1 - measured["errors"] / measured["chars"] >= ACCURACY[lang], measured["got"]
    assert len(measured["got"]) == measured["lines"]
    # the capture is at device pixels: twice the size on a scale-2 screen
    assert measured["size"][0] >= 250 * probe["scale"]


def test_the_overlay_picks_the_window_pixels_at_device_resolution(probe):
    overlay = probe["overlay"]
    assert overlay["rect"] == overlay["window_rect"]
    assert overlay["picked_size"] == [round(v * probe["scale"]) for v in overlay["window_rect"][2:]]
    assert overlay["pixels_equal"], overlay


def test_gui_and_ocr_share_one_process_and_one_qt(probe):
    assert len(probe["qt_cores"]) == 1 and "PySide6" in probe["qt_cores"][0]
    assert probe["cv2"] is False
