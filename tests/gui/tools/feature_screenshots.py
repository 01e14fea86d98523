"""Screenshots of issue 15's features on the real window and the bundled model, under Xvfb:

    xvfb-run -s "-screen 0 1280x800x24" .venv/bin/python tests/gui/tools/feature_screenshots.py docs

writes history.png (the History dialog with a search typed), alignment.png (the cursor in a
source sentence, its translation highlighted), alternatives.png (the Alternatives menu) and
popup.png (the popup beside the pointer). Menus and the popup are their own windows, so those
two are cut from a grab of the whole screen. Colours are quantised to keep the files small.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HISTORY = ("Where is the train station?", "The station is closed on Sundays.")
TEXT = (
    "The weather is nice today. We decided to walk to the old library.\n\n"
    "Could you tell me where the nearest train station is? I do not want to miss my train."
)
POPUP_TEXT = "The museum opens at nine o'clock tomorrow morning."


def main() -> int:
    out_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    os.environ.setdefault("DESKTOP_MT_HOME", tempfile.mkdtemp(prefix="desktop-mt-shot-"))
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

    from PySide6.QtCore import QRect, QTimer
    from PySide6.QtGui import QGuiApplication, QImage, QTextCursor
    from PySide6.QtWidgets import QApplication

    from desktop_mt.gui import app as app_mod
    from desktop_mt.gui import qtcompat
    from desktop_mt.gui.window import fonts

    app = QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()
    app.setStyleSheet(fonts.stylesheet())
    window, controller, _tray = app_mod.build([])
    window.resize(940, 440)
    window.move(20, 20)
    window.show()
    queue = list(HISTORY) + [TEXT]

    def save(image: QImage, name: str) -> None:
        path = out_dir / name
        image.save(str(path))
        try:  # fewer colours: a fraction of the size, text stays sharp
            from PIL import Image

            Image.open(path).convert("RGB").quantize(colors=96).save(path, optimize=True)
        except ImportError:
            pass
        print(f"wrote {path} ({path.stat().st_size // 1024} KiB, {image.width()}x{image.height()})")

    def screen_part(rect: QRect) -> QImage:
        screen = QGuiApplication.primaryScreen()
        return screen.grabWindow(0, rect.x(), rect.y(), rect.width(), rect.height()).toImage()

    def next_text(*_args) -> None:
        if queue:
            text = queue.pop(0)
            window.set_source(text)
            controller.translate(text)
        else:
            controller.requestFinished.disconnect(next_text)
            QTimer.singleShot(300, alignment_shot)

    def alignment_shot() -> None:
        window.source.setFocus()
        cursor = window.source.textCursor()
        cursor.setPosition(TEXT.index("nearest"))
        window.source.setTextCursor(cursor)
        app.processEvents()
        save(window.grab().toImage(), "alignment.png")
        controller.alternatives.menuShown.connect(lambda menu: QTimer.singleShot(300, lambda: alternatives_shot(menu)))
        controller.alternatives.request()

    def alternatives_shot(menu) -> None:
        area = window.frameGeometry().united(menu.geometry())
        save(screen_part(area), "alternatives.png")
        menu.close()
        QTimer.singleShot(100, history_shot)

    def history_shot() -> None:
        dialog = controller.history.show_dialog()
        dialog.resize(720, 420)
        dialog.search.setText("station")
        app.processEvents()
        save(dialog.grab().toImage(), "history.png")
        dialog.close()
        QGuiApplication.clipboard().setText(POPUP_TEXT)
        controller.popup.finished.connect(lambda _id: QTimer.singleShot(300, popup_shot))
        source = window.source
        cursor = QTextCursor(source.document())
        cursor.setPosition(20)
        pointer = source.viewport().mapToGlobal(source.cursorRect(cursor).bottomLeft())
        controller.popup.show_for(POPUP_TEXT, pointer)

    def popup_shot() -> None:
        popup = controller.popup.popup
        area = (
            popup.frameGeometry()
            .adjusted(-200, -120, 60, 40)
            .intersected(window.frameGeometry().united(popup.frameGeometry()))
        )
        save(screen_part(area), "popup.png")
        popup.close()
        controller.shutdown()
        app.quit()

    controller.modelLoaded.connect(lambda _info: next_text())
    controller.requestFinished.connect(next_text)
    controller.start()
    QTimer.singleShot(180_000, app.quit)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
