"""Screenshots of the real window with a streamed translation (bundled model), via Qt's grab().

    xvfb-run -s "-screen 0 1280x800x24" .venv/bin/python tests/gui/tools/screenshots.py OUT_DIR [--dark] [--width 480]
    QT_SCALE_FACTOR=2 xvfb-run -s "-screen 0 1920x1080x24" .venv/bin/python tests/gui/tools/screenshots.py OUT_DIR

Writes OUT_DIR/<name>.png (name from the options: dark, w480, scale2) and prints the window's
size and the screen's free area, so a note can say it fits.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

TEXT = ("The weather is nice today, so we decided to walk to the old library.\n\n"
        "Could you tell me where the nearest train station is?")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--dark", action="store_true", help="a dark palette (a dark system theme)")
    parser.add_argument("--width", type=int, default=0, help="resize the window to this width")
    args = parser.parse_args()
    os.environ.setdefault("DESKTOP_MT_HOME", tempfile.mkdtemp(prefix="desktop-mt-shot-"))
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_mt.gui import app as app_mod, fonts, qtcompat, theme

    app = QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()
    if args.dark:
        app.setStyle("Fusion")  # the platform style on a bare X server ignores palettes partly
        app.setPalette(theme.dark_palette())
    app.setStyleSheet(fonts.stylesheet())
    window, controller, _tray = app_mod.build([])
    window.show()
    if args.width:
        window.resize(args.width, 560)
    controller.start()
    name = "-".join(p for p in ("dark" if args.dark else "", f"w{args.width}" if args.width else "",
                                f"scale{os.environ['QT_SCALE_FACTOR']}" if os.environ.get("QT_SCALE_FACTOR")
                                else "") if p) or "default"
    out = Path(args.out_dir) / f"{name}.png"

    def translate_when_loaded(_info) -> None:
        window.set_source(TEXT)
        controller.translate(TEXT)

    def shoot(_req_id: int) -> None:
        window.grab().save(str(out))
        free = window.screen().availableGeometry()
        print(f"wrote {out}: window {window.width()}x{window.height()} at {window.x()},{window.y()}; "
              f"screen free area {free.width()}x{free.height()} (logical px)")
        controller.shutdown()
        app.quit()

    controller.modelLoaded.connect(translate_when_loaded)
    controller.requestFinished.connect(shoot)
    QTimer.singleShot(120_000, app.quit)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
