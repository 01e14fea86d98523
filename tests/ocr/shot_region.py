"""The screenshots of docs/OCR.md: a region of another window selected with "Translate screen
region", then the window with the recognised text and its translation (bundled model).

    xvfb-run -s "-screen 0 1280x800x24" .venv/bin/python tests/ocr/shot_region.py OUT_DIR

Writes OUT_DIR/region-select.png (the overlay while dragging) and OUT_DIR/region-translated.png
(the whole screen after the translation finished).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

DOCUMENT = (
    "Release notes\n\nThe new version starts twice as fast and uses less memory.\n"
    "Files you open are saved automatically every five minutes.\n"
    "Please restart the application after installing the update."
)


def main() -> int:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DESKTOP_MT_HOME", tempfile.mkdtemp(prefix="desktop-mt-shot-"))
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

    from PySide6.QtCore import QPoint, Qt, QTimer
    from PySide6.QtGui import QFont, QGuiApplication
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QLabel

    from desktop_mt.gui import app as app_mod
    from desktop_mt.gui import qtcompat
    from desktop_mt.gui.window import fonts

    app = QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()
    app.setStyleSheet(fonts.stylesheet())
    document = QLabel(DOCUMENT)
    document.setWindowFlag(Qt.WindowType.FramelessWindowHint)
    document.setStyleSheet("background: #fdfdf6; color: #222; padding: 18px; border: 1px solid #bbb;")
    font = QFont("DejaVu Sans")
    font.setPixelSize(16)
    document.setFont(font)
    document.move(660, 60)
    document.show()
    window, controller, _tray = app_mod.build([])
    window.move(10, 10)
    window.resize(620, 520)
    window.show()
    controller.start()

    def drag(picker) -> None:
        overlay = picker.overlays[0]
        QTest.qWaitForWindowExposed(overlay)
        top_left = document.geometry().topLeft() + QPoint(4, 40)
        bottom_right = document.geometry().bottomRight() - QPoint(4, 4)
        QTest.mousePress(overlay, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, top_left)
        QTest.mouseMove(overlay, bottom_right)
        overlay.repaint()
        overlay.grab().save(str(out_dir / "region-select.png"))
        QTest.mouseRelease(overlay, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, bottom_right)

    def shoot(_req_id: int) -> None:
        app.processEvents()
        QGuiApplication.primaryScreen().grabWindow(0).save(str(out_dir / "region-translated.png"))
        print("source:", window.source_text())
        print("translation:", window.target_text())
        controller.shutdown()
        app.quit()

    controller.ocr.pickerShown.connect(drag)
    controller.modelLoaded.connect(lambda _info: controller.ocr.start_region())
    controller.requestFinished.connect(shoot)
    QTimer.singleShot(180_000, app.quit)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
