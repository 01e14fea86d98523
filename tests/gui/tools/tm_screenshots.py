"""Screenshots of issue 28's Translation memory and History dialogs, under Xvfb:

    xvfb-run -s "-screen 0 1280x800x24" .venv/bin/python tests/gui/tools/tm_screenshots.py docs

writes tm-dialog.png (the Translation memory dialog: sentences the user post-edited or
approved and a CAT tool's TMX, tests/tm/cat_tool.tmx, imported) and history-edited.png (the
History dialog on an edited entry, compared with the machine's translation). The machine's
translations are the bundled model's (``desktop-mt translate``); the edits are the user's fixes
of its errors. Everything is written to a temporary data folder, never the user's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
# (source, the user's post-edit of the machine's translation, or None: approved as it was)
SENTENCES = (
    ("Could you tell me where the nearest train station is?", "你能告诉我最近的火车站在哪里吗？"),
    ("The museum opens at nine tomorrow morning.", "博物馆明天早上九点开门。"),
    ("I like to read books.", None),
)


def machine_translations(sources: list[str]) -> list[str]:
    """The bundled model's translations (the command line, one line each)."""
    done = subprocess.run(
        [sys.executable, "-m", "desktop_mt", "translate", "--to", "zh"],
        input="\n".join(sources) + "\n",
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    lines = done.stdout.splitlines()
    assert len(lines) == len(sources), done.stdout
    return lines


def main() -> int:
    out_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    home = Path(tempfile.mkdtemp(prefix="desktop-mt-shot-"))
    os.environ["DESKTOP_MT_HOME"] = str(home)
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    sources = [s for s, _ in SENTENCES]
    machine = machine_translations(sources)

    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QApplication

    from desktop_mt.app.history import History
    from desktop_mt.gui import qtcompat
    from desktop_mt.gui.dialogs.history_dialog import HistoryDialog
    from desktop_mt.gui.dialogs.tm_dialog import open_tm_dialog
    from desktop_mt.gui.window import fonts
    from desktop_mt.tm import APPROVED, EDITED, TranslationMemory
    from desktop_mt.tm.tmx import import_tmx

    app = QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()
    app.setStyleSheet(fonts.stylesheet())

    def save(image: QImage, name: str) -> None:
        path = out_dir / name
        image.save(str(path))
        try:  # fewer colours: a fraction of the size, text stays sharp
            from PIL import Image

            Image.open(path).convert("RGB").quantize(colors=96).save(path, optimize=True)
        except ImportError:
            pass
        print(f"wrote {path} ({path.stat().st_size // 1024} KiB, {image.width()}x{image.height()})")

    history = History(home / "history.sqlite3")
    memory = TranslationMemory(home / "tm.sqlite3")
    import_tmx(memory, ROOT / "tests" / "tm" / "cat_tool.tmx", "en-zh")
    edited_id = 0
    for (source, final), mt in zip(SENTENCES, machine):
        entry_id = history.add(source, mt, "tatoeba-en-zh-small")
        if final is not None and final != mt:
            history.update_final(entry_id, final)
            memory.add(source, final, "en-zh", EDITED, machine=mt)
            edited_id = edited_id or entry_id
        else:
            memory.add(source, mt, "en-zh", APPROVED)

    dialog = HistoryDialog(history)
    dialog.resize(900, 460)
    dialog.show()
    row = next(i for i, e in enumerate(dialog.entries()) if e.id == edited_id)
    dialog.list.setCurrentRow(row)
    dialog.compare_check.setChecked(True)
    app.processEvents()
    save(dialog.grab().toImage(), "history-edited.png")
    dialog.close()

    tm = open_tm_dialog(None, memory, "en-zh")
    tm.resize(980, 470)
    app.processEvents()
    tm.table.selectRow(0)
    app.processEvents()
    save(tm.grab().toImage(), "tm-dialog.png")
    tm.close()
    history.close()
    memory.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
