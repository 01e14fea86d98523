"""Save a screenshot of the translator window on Qt's offscreen platform (the Windows stage
runs it under Wine: ``python gui_screenshot.py OUT.png``, the checkout on PYTHONPATH).

The window opens on the bundled model, translates one line, and is grabbed once the
translation is on screen (or after 60 s, whatever is there then). A tool for docs/, not a test.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication

from desktop_mt.gui.app import build

TEXT = "Good morning. The weather is nice today, so let's go for a walk in the park."


def main(out: str) -> int:
    app = QApplication(sys.argv[:1])
    _load_fonts(app)
    window, controller, _tray = build([])
    window.resize(900, 560)
    controller.start()
    window.show()
    window.set_source(TEXT)
    QTimer.singleShot(3000, lambda: window.translateRequested.emit(window.source_text()))
    waited = [0]

    def grab_when_translated() -> None:
        waited[0] += 1
        done = any("\u4e00" <= c <= "\u9fff" for c in _target_text(window))
        if done or waited[0] >= 120:
            QTimer.singleShot(500, lambda: (window.grab().save(out), controller.shutdown(), app.quit()))
            return
        QTimer.singleShot(500, grab_when_translated)

    QTimer.singleShot(3500, grab_when_translated)
    app.exec()
    return 0 if os.path.isfile(out) else 1


def _load_fonts(app: QApplication) -> None:
    """Under Wine 8.0 Qt's font database lists no system font (every glyph a box), but fonts
    added from a file work: add those of C:\\windows\\Fonts (the stage puts Noto Sans CJK there)."""
    folder = os.path.join(os.environ.get("WINDIR", r"C:\windows"), "Fonts")
    families: list[str] = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if name.lower().endswith((".ttf", ".ttc", ".otf")):
            font_id = QFontDatabase.addApplicationFont(os.path.join(folder, name))
            families += QFontDatabase.applicationFontFamilies(font_id) if font_id >= 0 else []
    if "Noto Sans CJK SC" in families:
        app.setFont(QFont("Noto Sans CJK SC", 10))


def _target_text(window) -> str:
    target = getattr(window, "target", None)
    return target.toPlainText() if target is not None and hasattr(target, "toPlainText") else ""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
