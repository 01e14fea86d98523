"""Screenshots of the real window with a streamed translation (bundled model), via Qt's grab().

    xvfb-run -s "-screen 0 1280x800x24" .venv/bin/python tests/gui/tools/screenshots.py OUT_DIR [--dark] [--width 480]
    QT_SCALE_FACTOR=2 xvfb-run -s "-screen 0 1920x1080x24" .venv/bin/python tests/gui/tools/screenshots.py OUT_DIR
    QT_SCALE_FACTOR=2 xvfb-run -s "-screen 0 1600x1000x24" python tests/gui/tools/screenshots.py OUT_DIR --settings
    xvfb-run -s "-screen 0 1280x800x24" .venv/bin/python tests/gui/tools/screenshots.py OUT_DIR --stop
    xvfb-run -s "-screen 0 1280x800x24" .venv/bin/python tests/gui/tools/screenshots.py OUT_DIR --language zh_CN

Writes OUT_DIR/<name>.png (name from the options: dark, w480, scale2, settings, stopped) and
prints the size of what it shot and the screen's free area, so a note can say it fits.
``--settings`` shoots the Settings dialog; ``--stop`` translates a long text and stops it
(Esc) after its second sentence, to show the "stopped here" mark and the status.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

TEXT = (
    "The weather is nice today, so we decided to walk to the old library.\n\n"
    "Could you tell me where the nearest train station is?"
)


LONG_TEXT = " ".join(
    [
        "The library opens at nine in the morning.",
        "Children come after school to read.",
        "On Saturdays there is a story hour.",
        "The old building was built a hundred years ago.",
        "Last year the town painted its walls.",
        "Many people volunteer there every week.",
        "They sort the books and help the visitors.",
        "Everyone is welcome.",
    ]
)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--dark", action="store_true", help="a dark palette (a dark system theme)")
    parser.add_argument("--width", type=int, default=0, help="resize the window to this width")
    parser.add_argument("--settings", action="store_true", help="shoot the Settings dialog")
    parser.add_argument("--stop", action="store_true", help="stop a long text after two sentences")
    parser.add_argument("--language", default="", help="interface language: en or zh_CN (default: the locale's)")
    args = parser.parse_args()
    os.environ.setdefault("DESKTOP_MT_HOME", tempfile.mkdtemp(prefix="desktop-mt-shot-"))
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_mt.gui import app as app_mod
    from desktop_mt.gui import i18n, qtcompat
    from desktop_mt.gui.window import fonts, theme

    app = QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()
    if args.dark:
        app.setStyle("Fusion")  # the platform style on a bare X server ignores palettes partly
        app.setPalette(theme.dark_palette())
    app.setStyleSheet(fonts.stylesheet())
    i18n.install(app, args.language or "system")  # as main() does, before the window is built
    window, controller, _tray = app_mod.build([])
    window.show()
    if args.width:
        window.resize(args.width, 560)
    controller.start()
    name = (
        "-".join(
            p
            for p in (
                "settings" if args.settings else "",
                "stopped" if args.stop else "",
                "dark" if args.dark else "",
                args.language.replace("_", "-") if args.language else "",
                f"w{args.width}" if args.width else "",
                f"scale{os.environ['QT_SCALE_FACTOR']}" if os.environ.get("QT_SCALE_FACTOR") else "",
            )
            if p
        )
        or "default"
    )
    out = Path(args.out_dir) / f"{name}.png"
    text = LONG_TEXT if args.stop else TEXT
    sentences: list[object] = []

    def translate_when_loaded(_info) -> None:
        window.set_source(text)
        controller.translate(text)

    def stop_after_two(_req_id: int, span: object) -> None:
        sentences.append(span)
        if len(sentences) == 2:
            window.stopRequested.emit()  # what Esc does

    def shoot(_req_id: int) -> None:
        shown = app_mod.open_settings(controller, window) if args.settings else window
        if args.settings:
            app.processEvents()
        shown.grab().save(str(out))
        free = shown.screen().availableGeometry()
        print(
            f"wrote {out}: {type(shown).__name__} {shown.width()}x{shown.height()} at {shown.x()},"
            f"{shown.y()}; screen free area {free.width()}x{free.height()} (logical px)"
        )
        controller.shutdown()
        app.quit()

    controller.modelLoaded.connect(translate_when_loaded)
    if args.stop:
        controller.worker.segmentDone.connect(stop_after_two)
    controller.requestFinished.connect(shoot)
    QTimer.singleShot(120_000, app.quit)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
