"""Issue 46, item 8: the tray notice was unreadable under a dark theme (light text on Qt's
light yellow notice: its labels took the application's dark palette). Under a real X session
with a tray host (Xvfb + trayer), where Qt draws the notice itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QColor

PROBE = Path(__file__).with_name("tray_notice_probe.py")


def _contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours."""

    def luminance(name: str) -> float:
        colour = QColor(name)
        channels = [colour.redF(), colour.greenF(), colour.blueF()]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_tray_notice_reads_under_a_dark_palette(session):
    out = subprocess.run(
        [sys.executable, str(PROBE)], env=session.env, capture_output=True, text=True, timeout=60, check=True
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["available"], "the tray host did not come up"
    assert len(report["labels"]) == 2, report  # the title and the text
    for colour in report["labels"]:
        assert _contrast(colour, report["background"]) >= 4.5, report
