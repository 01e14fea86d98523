"""Screenshots of a PDF paste before and after joining its lines (issue 19), via Qt's grab().

    xvfb-run -s "-screen 0 1280x800x24" .venv/bin/python tests/gui/tools/paste_screenshots.py docs

The real window and the bundled model: the two-column sample of tests/data/pdf_paste goes on the
clipboard and Translate clipboard brings it in, once with Edit > Join lines on paste off
(``pdf-paste-before.png``: every printed line translated on its own) and once with it on
(``pdf-paste-after.png``).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "tests" / "data" / "pdf_paste" / "two_column_before.txt"


def shrink(path: Path) -> None:
    """64 colours are plenty for a window of text: a third of the bytes (Pillow, if there)."""
    try:
        from PIL import Image
    except ImportError:
        return
    image = Image.open(path).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    image.save(path, optimize=True)


def main() -> int:
    out_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    os.environ.setdefault("DESKTOP_MT_HOME", tempfile.mkdtemp(prefix="desktop-mt-shot-"))
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    from desktop_mt.gui import app as app_mod
    from desktop_mt.gui import qtcompat
    from desktop_mt.gui.window import fonts

    app = QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()
    app.setStyleSheet(fonts.stylesheet())
    window, controller, _tray = app_mod.build([])
    window.resize(900, 400)
    window.show()
    controller.start()
    shots = [("pdf-paste-before.png", False), ("pdf-paste-after.png", True)]

    def next_shot(_info=None) -> None:
        name, join = shots[0]
        controller.input.set_join_lines(join)
        QGuiApplication.clipboard().setText(SAMPLE.read_text(encoding="utf-8"))
        controller.translate_clipboard()

    def shoot(_req_id: int) -> None:
        name, _join = shots.pop(0)
        path = out_dir / name
        window.grab().save(str(path), "PNG", 0)
        shrink(path)
        print(f"wrote {path} ({path.stat().st_size} bytes)")
        if shots:
            QTimer.singleShot(0, next_shot)
        else:
            controller.shutdown()
            app.quit()

    controller.modelLoaded.connect(next_shot)
    controller.requestFinished.connect(shoot)
    QTimer.singleShot(180_000, app.quit)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
