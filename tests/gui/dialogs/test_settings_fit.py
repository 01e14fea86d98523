"""The Settings dialog fits the screen at any scale and scrolls: QT_SCALE_FACTOR=2 on a
1600x1000 screen (800x500 logical) keeps OK / Apply / Cancel on screen, and every row (the
Local API key, last of them) can be scrolled into view. Qt's scale factor is read when the
application starts, so the dialog is measured in a fresh process on the offscreen platform
with a screen of that size."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ..xsession import ROOT

MEASURE = r"""
import json, sys
from PySide6.QtWidgets import QApplication
from PySide6.QtGui import QGuiApplication
from desktop_mt.gui.settings import Settings
from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog
app = QApplication([])
dialog = SettingsDialog(Settings(local_api=True), True, "")
dialog.show()
app.processEvents()
free = QGuiApplication.primaryScreen().availableGeometry()
frame = dialog.frameGeometry()
buttons = [dialog.buttons.mapTo(dialog, dialog.buttons.rect().bottomRight())]
dialog.scroll_area.ensureWidgetVisible(dialog.local_api_key_edit)
app.processEvents()
key = dialog.local_api_key_edit
corner = key.mapTo(dialog.scroll_area.viewport(), key.rect().bottomLeft())
print(json.dumps({
    "free": [free.x(), free.y(), free.width(), free.height()],
    "frame": [frame.x(), frame.y(), frame.width(), frame.height()],
    "buttons_inside": all(dialog.rect().contains(p) for p in buttons) and dialog.buttons.isVisible(),
    "key_in_view": dialog.scroll_area.viewport().rect().contains(corner),
    "scrolls": dialog.scroll_area.verticalScrollBar().maximum() > 0,
}))
"""


@pytest.mark.parametrize("scale", ["1", "2"])
def test_settings_fit_a_1600x1000_screen_and_scroll(tmp_path, scale):
    config = tmp_path / "screen.json"
    config.write_text(
        json.dumps(
            {
                "screens": [
                    {
                        "name": "laptop",
                        "x": 0,
                        "y": 0,
                        "width": 1600,
                        "height": 1000,
                        "logicalDpi": 96,
                        "logicalBaseDpi": 96,
                        "dpr": 1,
                    }
                ]
            }
        )
    )
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
        "QT_SCALE_FACTOR": scale,
        "DESKTOP_MT_HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-c", MEASURE], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    fx, fy, fw, fh = got["frame"]
    x, y, w, h = got["free"]
    assert (w, h) == (1600 // int(scale), 1000 // int(scale))
    assert x <= fx and y <= fy and fx + fw <= x + w and fy + fh <= y + h, got
    assert got["buttons_inside"] and got["key_in_view"], got
    if scale == "2":
        assert got["scrolls"], got  # the rows need more than the screen: they scroll


def test_settings_speak_a_translators_words(qtbot):
    from PySide6.QtWidgets import QLabel

    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog
    from desktop_mt.gui.settings import Settings

    dialog = SettingsDialog(Settings(intra_op_threads=4, inter_op_threads=2, beams=3), True, "")
    qtbot.addWidget(dialog)
    shown = " ".join(
        [label.text() for label in dialog.findChildren(QLabel)]
        + [dialog.intra_spin.text()]
        + [dialog.quality_combo.itemText(i) for i in range(dialog.quality_combo.count())]
    )
    for engine_word in ("beam", "thread", "parallel", "CPU"):
        assert engine_word not in shown
    assert dialog.intra_spin.text() == "Use 4 processor cores"
    dialog.intra_spin.setValue(1)
    assert dialog.intra_spin.text() == "Use 1 processor core"
    dialog.intra_spin.setValue(0)
    assert dialog.intra_spin.text() == "Use all processor cores (automatic)"
    assert [dialog.quality_combo.itemText(i).split(" ")[0] for i in range(3)] == ["faster", "better", "custom"]
    assert dialog.quality_combo.currentData() == 3  # a number chosen before is kept, not lost
    got = dialog.current_settings()
    assert (got.beams, got.inter_op_threads, got.intra_op_threads) == (3, 2, 0)
