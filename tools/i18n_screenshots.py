"""Screenshots of the interface in English and Simplified Chinese, at 1x and 2x, offscreen.

    .venv/bin/python tools/i18n_screenshots.py [OUT_DIR]        (default: docs/i18n/)

For each language (en, zh_CN) and scale (1, 2) it starts itself again with QT_SCALE_FACTOR on
Qt's offscreen platform (a 1600x1000 screen: 800x500 logical at 2x) and a fresh app home,
installs the translators as the app's ``main()`` does, builds the real window on the bundled
models, translates a short text, and grabs: the main window (``main``), Settings
(``settings``), Models (``models``), the translation memory (``memory``, two entries) and the
window with its first-start page where the app has one (``first-start``). Files:
``OUT_DIR/<what>-<en|zh-CN>[-scale2].png``. No X server is needed; fonts come from fontconfig
(Noto Sans CJK SC for the Chinese, as the app picks).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("en", "zh_CN")
SCALES = ("1", "2")
TEXT = {
    "en": "The weather is nice today, so we decided to walk to the old library.",
    "zh_CN": "今天天气很好，所以我们决定步行去老图书馆。",
}
SCREEN = {"name": "shots", "x": 0, "y": 0, "width": 1600, "height": 1000, "logicalDpi": 96, "logicalBaseDpi": 96}


def shoot(out_dir: Path, language: str) -> int:
    """In the child process: build the app, translate, grab each window, quit."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QWidget

    from desktop_mt.gui import app as app_mod
    from desktop_mt.gui import i18n, qtcompat
    from desktop_mt.gui.dialogs.models_dialog import ModelsDialog
    from desktop_mt.gui.dialogs.tm_dialog import TMDialog
    from desktop_mt.gui.features.models import StoreBackend
    from desktop_mt.gui.window import fonts
    from desktop_mt.tm import TranslationMemory

    app = QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()
    app.setStyle("Fusion")  # the same look on every machine (offscreen has no platform style)
    app.setStyleSheet(fonts.stylesheet())
    i18n.install(app, language)
    window, controller, _tray = app_mod.build([])
    window.resize(760, 520)
    window.show()
    suffix = language.replace("_", "-") + ("-scale2" if os.environ.get("QT_SCALE_FACTOR") == "2" else "")
    written: list[str] = []

    def save(widget: QWidget, what: str) -> None:
        widget.show()
        app.processEvents()
        path = out_dir / f"{what}-{suffix}.png"
        widget.grab().save(str(path))
        written.append(f"{path.name} {widget.width()}x{widget.height()}")
        if widget is not window:
            widget.close()

    def translate_when_loaded(_info: object) -> None:
        window.set_source(TEXT[language])
        controller.translate(TEXT[language])

    def shoot_all(_req_id: int) -> None:
        controller.requestFinished.disconnect(shoot_all)
        save(window, "main")
        save(app_mod.open_settings(controller, window), "settings")
        save(ModelsDialog(StoreBackend(), window), "models")
        memory = TranslationMemory(":memory:")
        memory.add("Good morning.", "早上好。", direction="en-zh", origin="approved")
        memory.add("See you tomorrow.", "明天见。", direction="en-zh", origin="edited")
        save(TMDialog(memory, window), "memory")
        first_start = getattr(controller, "first_start", None)  # where the app has the page
        if first_start is not None:
            first_start.show_if_due()  # only the demo models here: it shows
            save(window, "first-start")
        print("WROTE " + json.dumps(written), flush=True)
        controller.shutdown()
        app.quit()

    controller.modelLoaded.connect(translate_when_loaded)
    controller.requestFinished.connect(shoot_all)
    controller.start()
    QTimer.singleShot(120_000, app.quit)  # never hang
    return app.exec()


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        return shoot(Path(argv[1]), argv[2])
    out_dir = Path(argv[0]) if argv else ROOT / "docs" / "i18n"
    out_dir.mkdir(parents=True, exist_ok=True)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="desktop-mt-shots-") as tmp:
        config = Path(tmp) / "screen.json"
        config.write_text(json.dumps({"screens": [{**SCREEN, "dpr": 1}]}), encoding="utf-8")
        for language in LANGUAGES:
            for scale in SCALES:
                env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
                env.update(
                    QT_QPA_PLATFORM=f"offscreen:configfile={config}",
                    QT_SCALE_FACTOR=scale,
                    DESKTOP_MT_HOME=str(Path(tmp) / f"home-{language}-{scale}"),
                    PYTHONPATH=str(ROOT),
                    LANG="zh_CN.UTF-8" if language == "zh_CN" else "en_US.UTF-8",
                )
                done = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--child", str(out_dir), language],
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
                lines = [ln for ln in done.stdout.splitlines() if ln.startswith("WROTE ")]
                if not lines:
                    failed += 1
                    print(f"{language} x{scale}: failed (rc {done.returncode})\n{done.stderr[-2000:]}", file=sys.stderr)
                    continue
                print(f"{language} x{scale}: " + ", ".join(json.loads(lines[-1][len("WROTE ") :])))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
