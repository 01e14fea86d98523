"""A translator's checklist for terminology and memory (issue 46), on the real window and the
bundled models, under Xvfb, redoable:

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python tests/gui/tools/terms_memory_checklist.py docs/checklist

Each step is done as a translator does it (keys sent to the focused pane, the clipboard, the
Settings glossary file), then checked and shot to OUT_DIR/46-N-name.png; the figures (what was
shown and where each sentence's translation came from: ``model``, ``kept`` from before,
``memory``) are printed as one JSON line per step and
written to OUT_DIR/46-figures.json. Steps:

1. paste  - glossary "train station,火车站" and "Beijing,北京"; paste 我明天要去北京。火车站在哪里？
2. type   - type 我爱你。 at the end, Ctrl+Enter: the term at the start of a sentence stays (defect 1)
3. glossary - remove "Beijing,北京" and apply Settings: only that sentence is translated again (defect 2)
4. fuzzy  - an approved pair close to a new sentence: the match panel, Ctrl+1 inserts it (defect 4)
5. confirm - Ctrl+Shift+Enter confirms that sentence only; it goes into the memory approved (defect 5)
6. restart - a second process on the same data folder: the draft comes back and Translate sends
   only the changed sentence (defect 7)
7. file   - a file job from the window: the sentence confirmed in step 5 comes from the memory (defect 6)

Everything is written to a temporary data folder, never the user's. Exit status 0 when every
check held, 1 otherwise (the failed checks are printed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

PASTED = "我明天要去北京。火车站在哪里？"
TYPED = "我爱你。"
ENGLISH = "Where is the new train station? I love you."
CONFIRMED = "Where is the new train station?"  # its sentence of ENGLISH, confirmed in step 5
APPROVED = ("Where is the train station?", "火车站在哪里？")
TERMS = (("train station", "火车站"), ("Beijing", "北京"))


class Checklist:
    """The steps, one after the other, each started when the window is done with the last."""

    def __init__(self, out_dir: Path, phase: str) -> None:
        from PySide6.QtWidgets import QApplication

        from desktop_mt.gui import app as app_mod
        from desktop_mt.gui import qtcompat
        from desktop_mt.gui.window import fonts

        self.out_dir, self.phase = out_dir, phase
        self.app = QApplication(sys.argv[:1])
        qtcompat.install_none_refcount_guard()
        self.app.setStyleSheet(fonts.stylesheet())
        self.window, self.controller, self._tray = app_mod.build([])
        self.window.resize(960, 480)
        self.window.move(10, 10)
        self.window.show()
        self.figures: list[dict[str, object]] = []
        self.failed: list[str] = []

    # -- helpers --------------------------------------------------------------------------------

    def after(self, signal, then: Callable[[], None], delay_ms: int = 300) -> None:
        """Run ``then`` once, ``delay_ms`` after ``signal`` (the window has painted)."""
        from PySide6.QtCore import QTimer

        def once(*_args: object) -> None:
            signal.disconnect(once)
            QTimer.singleShot(delay_ms, then)

        signal.connect(once)

    def key(self, widget, key, modifiers=None) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        QTest.keyClick(widget, key, modifiers or Qt.KeyboardModifier.NoModifier)

    def check(self, name: str, ok: bool, what: str) -> None:
        if not ok:
            self.failed.append(f"{name}: {what}")

    def record(self, step: str, **figures: object) -> None:
        from PySide6.QtGui import QImage

        image: QImage = self.window.grab().toImage()
        path = self.out_dir / f"46-{step}.png"
        image.save(str(path))
        try:  # fewer colours: a fraction of the size, text stays sharp
            from PIL import Image

            Image.open(path).convert("RGB").quantize(colors=96).save(path, optimize=True)
        except ImportError:
            pass
        pairs = sorted(self.controller.alignment.view.alignment.pairs, key=lambda p: p.tgt)
        row = {
            "step": step,
            "source": self.window.source_text(),
            "shown": self.window.target_text(),
            "origins": [f"{p.source} <- {p.origin}" for p in pairs],  # model / kept / memory
            **figures,
        }
        self.figures.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)

    def cursor_in_target(self, text: str) -> None:
        pane = self.window.target
        self.window.activateWindow()  # Xvfb has no window manager to activate it
        pane.setFocus()
        self.app.processEvents()
        cursor = pane.textCursor()
        cursor.setPosition(max(0, self.window.target_text().find(text)) + 1)
        pane.setTextCursor(cursor)

    def finish(self) -> None:
        figures = self.out_dir / f"46-figures-{self.phase}.json"
        figures.write_text(json.dumps(self.figures, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        for failure in self.failed:
            print(f"FAILED {failure}", flush=True)
        self.controller.shutdown()
        self.app.exit(1 if self.failed else 0)

    # -- phase 1 --------------------------------------------------------------------------------

    def paste(self) -> None:
        from PySide6.QtCore import Qt

        self.window.source.setFocus()
        self.app.clipboard().setText(PASTED)
        self.after(self.controller.requestFinished, self.pasted)
        self.key(self.window.source, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)

    def pasted(self) -> None:
        shown = self.window.target_text()
        self.check("paste", "train station" in shown.lower() and "Beijing" in shown, f"terms kept in {shown!r}")
        self.record("1-paste", terms_kept=sum(t.lower() in shown.lower() for t, _ in TERMS))
        from PySide6.QtCore import Qt
        from PySide6.QtGui import QTextCursor

        self.window.source.setFocus()
        self.window.source.moveCursor(QTextCursor.MoveOperation.End)
        self.window.source.insertPlainText(TYPED)  # as typed: one undo step, the pane's own edit
        self.after(self.controller.requestFinished, self.typed)
        self.key(self.window.source, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    def typed(self) -> None:
        shown = self.window.target_text()
        self.check("type", "train station" in shown.lower(), f"the term at a sentence start kept in {shown!r}")
        self.record("2-type")
        from desktop_mt.engine.glossary import Glossary, Term
        from desktop_mt.gui.dialogs.glossary_editor import save_glossary

        save_glossary(Glossary((Term(*TERMS[0]),)))  # "Beijing,北京" removed in Settings' editor
        self.after(self.controller.requestFinished, self.glossary_changed)
        self.controller.apply_settings(self.controller.settings)  # Settings > OK

    def glossary_changed(self) -> None:
        shown = self.window.target_text()
        self.check("glossary", "Beijing" not in shown, f"the removed term left the pane: {shown!r}")
        self.check("glossary", "train station" in shown.lower(), f"the kept term stayed: {shown!r}")
        self.record("3-glossary")
        memory = self.controller.postedit.memory
        memory.add(*APPROVED, "en-zh", origin="approved")
        self.window.source.setFocus()
        self.window.source.selectAll()
        self.app.clipboard().setText(ENGLISH)
        self.after(self.controller.requestFinished, self.fuzzy_offered)
        from PySide6.QtCore import Qt

        self.key(self.window.source, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)

    def fuzzy_offered(self) -> None:
        first = self.controller.alignment.view.alignment.pairs[0]
        self.cursor_in_target(first.machine[:2] if first.machine else "")
        self.app.processEvents()
        bar = self.window.suggestion_bar
        labels = [label.text() for label in bar.labels if label.isVisible()]
        self.check("fuzzy", bar.isVisible() and bool(labels), "the match panel shows a match")
        self.record("4-fuzzy-offered", matches=labels)
        from PySide6.QtCore import Qt

        self.key(self.window.target, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
        self.app.processEvents()
        shown = self.window.target_text()
        self.check("fuzzy", shown.startswith(APPROVED[1]), f"Ctrl+1 inserted the match: {shown!r}")
        self.record("4-fuzzy-inserted")
        self.cursor_in_target(APPROVED[1])
        control_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
        self.key(self.window.target, Qt.Key.Key_Return, control_shift)
        self.app.processEvents()
        entry = self.controller.postedit.memory.exact(CONFIRMED, "en-zh")
        confirmed = entry is not None and entry.entry.origin == "approved" and entry.entry.target == APPROVED[1]
        self.check("confirm", confirmed, "the confirmed sentence is in the memory, approved")
        others = self.controller.postedit.memory.exact("I love you.", "en-zh")
        self.check("confirm", others is None, "the unreviewed sentence is not approved")
        self.record("5-confirm", memory_entries=self.controller.postedit.memory.count())
        self.finish()

    # -- phase 2 --------------------------------------------------------------------------------

    def restarted(self) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtGui import QTextCursor

        restored = self.window.source_text()
        self.check("restart", restored == ENGLISH, f"the draft came back: {restored!r}")
        self.record("6-restart-restored")
        self.window.source.setFocus()
        self.window.source.moveCursor(QTextCursor.MoveOperation.End)
        self.window.source.insertPlainText(" It is late.")
        self.after(self.controller.requestFinished, self.retranslated)
        self.key(self.window.source, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    def retranslated(self) -> None:
        self.record("6-restart-translated")
        origins = [p.origin for p in self.controller.alignment.view.alignment.pairs]
        self.check("restart", origins.count("model") == 1, f"only the new sentence translated: {origins}")
        src = Path(tempfile.mkdtemp(prefix="h46-file-")) / "notes.txt"
        src.write_text(f"{CONFIRMED}\nThe museum opens at nine.\n", encoding="utf-8")
        self.after(self.controller.fileJobEnded, lambda: self.file_done(src))
        self.check("file", bool(self.controller.translate_file(str(src))), "the file job started")

    def file_done(self, src: Path) -> None:
        out = src.with_name("notes.zh.txt")
        text = out.read_text(encoding="utf-8") if out.exists() else ""
        self.check("file", text.splitlines()[:1] == [APPROVED[1]], f"the memory's sentence in the file: {text!r}")
        self.record("7-file", output=text)
        self.finish()


def main() -> int:
    out_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/checklist")
    phase = sys.argv[2] if len(sys.argv) > 2 else ""
    out_dir.mkdir(parents=True, exist_ok=True)
    if not phase:  # both phases, each its own process on one data folder (a real restart)
        env = {**os.environ, "DESKTOP_MT_HOME": tempfile.mkdtemp(prefix="desktop-mt-checklist-")}
        env.setdefault("QT_QPA_PLATFORM", "xcb")
        status = 0
        for name in ("first", "restart"):
            status |= subprocess.run([sys.executable, __file__, str(out_dir), name], env=env).returncode
        return status
    from PySide6.QtCore import QTimer

    from desktop_mt.engine.glossary import Glossary, Term
    from desktop_mt.gui.dialogs.glossary_editor import save_glossary

    if phase == "first":
        save_glossary(Glossary(tuple(Term(*t) for t in TERMS)))
    run = Checklist(out_dir, phase)
    started: list[int] = []

    def begin(*_args: object) -> None:
        if not started:
            started.append(1)
            QTimer.singleShot(500, run.paste if phase == "first" else run.restarted)

    run.controller.modelLoaded.connect(begin)
    run.controller.start()
    QTimer.singleShot(240_000, lambda: (print("FAILED timed out", flush=True), run.app.exit(2)))
    return run.app.exec()


if __name__ == "__main__":
    sys.exit(main())
