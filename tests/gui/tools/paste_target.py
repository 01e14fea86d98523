"""A plain Qt text field as the target of "translate and replace" under Xvfb (another
application than desktop-mt): ``paste_target.py OUT TEXT`` shows a window titled
"paste-target" whose line edit starts with TEXT and writes its text to OUT on every change
(and appends it, one line per change, to OUT with the suffix .history)."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication, QLineEdit


def main() -> int:
    out, text = Path(sys.argv[1]), sys.argv[2]
    app = QApplication(sys.argv[:1])
    field = QLineEdit(text)
    field.setWindowTitle("paste-target")
    history = out.with_suffix(".history")

    def changed(now: str) -> None:
        out.write_text(now, encoding="utf-8")
        with history.open("a", encoding="utf-8") as f:  # every change, one per line
            f.write(now.replace("\n", " ") + "\n")

    field.textChanged.connect(changed)
    field.resize(600, 60)
    field.move(100, 650)
    field.show()
    out.write_text(text, encoding="utf-8")
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
