"""Screenshots of post-editing (issue 28) and the direction control (issue 26) on the real
window and the bundled model(s), under Xvfb:

    xvfb-run -s "-screen 0 1280x800x24" .venv/bin/python tests/gui/tools/postedit_screenshots.py docs

writes postedit-edited.png (a sentence of the translation corrected by the user, highlighted
with its source), postedit-completion.png (the model's completion of a sentence from what was
typed, offered under the line: Tab accepts, Esc dismisses), postedit-memory.png (a new text
whose first sentence is the memory's exact match, underlined and never sent to the model, and
a fuzzy match offered in the suggestion bar) and direction-auto.png (Chinese pasted with the
direction on Auto: translated into English when a Chinese->English model is installed, else the
banner names the model to download). Everything goes to a temporary data folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

TEXT = (
    "The weather is nice today. We decided to walk to the old library.\n\n"
    "Could you tell me where the nearest train station is? I do not want to miss my train."
)
FIX = "我们决定步行去那座老图书馆。"  # the user's correction of the second sentence
AGAIN = "We decided to walk to the old library. We decided to walk to the new library. It was closed."
CHINESE = "今天天气很好。我们决定步行去图书馆。"


def main() -> int:
    out_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    os.environ.setdefault("DESKTOP_MT_HOME", tempfile.mkdtemp(prefix="desktop-mt-shot-"))
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

    from PySide6.QtCore import QEvent, Qt, QTimer
    from PySide6.QtGui import QImage, QKeyEvent, QTextCursor
    from PySide6.QtWidgets import QApplication

    from desktop_mt.gui import app as app_mod
    from desktop_mt.gui import qtcompat
    from desktop_mt.gui.window import fonts

    app = QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()
    app.setStyleSheet(fonts.stylesheet())
    window, controller, _tray = app_mod.build([])
    window.resize(940, 460)
    window.move(20, 20)
    window.show()
    feature = controller.postedit
    pane = window.target
    steps: list = []

    def save(image: QImage, name: str) -> None:
        path = out_dir / name
        image.save(str(path))
        try:  # fewer colours: a fraction of the size, text stays sharp
            from PIL import Image

            Image.open(path).convert("RGB").quantize(colors=96).save(path, optimize=True)
        except ImportError:
            pass
        print(f"wrote {path} ({path.stat().st_size // 1024} KiB, {image.width()}x{image.height()})", flush=True)

    def after(signal, then) -> None:
        """Run ``then`` once, 300 ms after ``signal`` (the window has painted)."""

        def once(*_args) -> None:
            signal.disconnect(once)
            QTimer.singleShot(300, then)

        signal.connect(once)

    def pairs():
        return controller.alignment.view.alignment.pairs

    def translate(text: str, then) -> None:
        window.set_source(text)
        after(controller.requestFinished, then)
        controller.translate(text)

    def replace(start: int, end: int, text: str) -> None:
        cursor = pane.textCursor()
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        with pane.user_edit():
            cursor.insertText(text)
        pane.setTextCursor(cursor)

    def edited_shot() -> None:
        second = pairs()[1]
        replace(second.tgt[0], second.tgt[1], FIX)
        feature.cancel()
        controller.alignment.view.hover("target", pairs()[1].tgt[0] + 3)  # the pointer over it
        app.processEvents()
        save(window.grab().toImage(), "postedit-edited.png")
        controller.alignment.view.hover(None, 0)
        completion_step()

    def completion_step() -> None:
        last = pairs()[-1]
        keep = max(2, len(last.machine) // 3)
        replace(last.tgt[0], last.tgt[1], last.machine[: keep - 1])
        feature.cancel()
        after(feature.completionFinished, completion_shot)
        key = QKeyEvent(QEvent.Type.KeyPress, 0, Qt.KeyboardModifier.NoModifier, last.machine[keep - 1])
        QApplication.sendEvent(pane, key)

    def completion_shot() -> None:
        save(window.grab().toImage(), "postedit-completion.png")
        QApplication.sendEvent(pane, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Tab, Qt.KeyboardModifier.NoModifier))
        feature.approve()  # every sentence pair shown, the correction included, into the memory
        controller.clear()  # a new text: nothing kept from this one, the memory answers
        translate(AGAIN, memory_shot)

    def memory_shot() -> None:
        controller.alignment.view.hover("target", pairs()[1].tgt[0] + 1)  # the fuzzy match's sentence
        app.processEvents()
        save(window.grab().toImage(), "postedit-memory.png")
        window.statusBar().clearMessage()
        translate(CHINESE, direction_shot)

    def direction_shot() -> None:
        save(window.grab().toImage(), "direction-auto.png")
        controller.shutdown()
        app.quit()

    controller.modelLoaded.connect(lambda _info: steps or (steps.append(1), translate(TEXT, edited_shot)))
    controller.start()
    QTimer.singleShot(240_000, app.quit)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
