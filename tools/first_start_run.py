"""A user's first start, scripted (issue 48): the real app (``desktop_mt.gui.app.main``) on a fresh
home, in the locale's language, from the first-start page to downloaded models.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python tools/first_start_run.py docs/i18n --lang zh_CN.UTF-8
    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python tools/first_start_run.py docs/i18n --lang en_US.UTF-8
    QT_SCALE_FACTOR=2 xvfb-run -a -s "-screen 0 2560x1600x24" .venv/bin/python tools/first_start_run.py docs/i18n
    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python tools/first_start_run.py docs/i18n \\
        --lang zh_CN.UTF-8 --download

Without ``--download`` it shoots the page as a user sees it on first start, with the shipped catalog
(the real OPUS-MT models, their sizes and licence): ``first-start-<lang>.png``.

With ``--download`` nothing comes from the Internet: a local stand-in Hub (``tests/models/fake_hub.py``)
serves the tiny random Marian of the tests (built here, about a minute, with torch) as both catalog
models, under their real names, and ``HF_ENDPOINT`` points at it, as a user in China points it at a
mirror. The script then does what a user does: presses "Download both", waits for a file half-way
(the stand-in holds it), shoots ``first-start-downloading-<lang>.png``, presses Pause, shoots
``first-start-paused-<lang>.png``, presses Resume, waits until the page is gone and the window has
loaded the downloaded models, shoots ``first-start-done-<lang>.png``, and prints what is installed
and active. Exit status 0 when all of it happened, 1 otherwise (timeout: ``--timeout`` seconds).

The buttons are pressed with ``QAbstractButton.click()`` on the real widgets; the waits poll the
window every 100 ms (a tool, not a test: it is watched by a person, and the stand-in is local).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.models (the stand-in Hub) and the checkout's desktop_mt

HELD = "onnx/decoder_model_quantized.onnx"  # the file the stand-in holds half-way (for Pause)


def stand_in_hub(work: Path):
    """Build the tiny Marian, serve it as opus-mt-en-zh and opus-mt-zh-en; set the catalog and
    HF_ENDPOINT to use it. Returns the started hub."""
    from tests.model_factory import export_model, make_marian
    from tests.models.conftest import catalog_entry, repo_files, tiny_hub

    model = export_model(make_marian(work / "hf"), work / "onnx")
    hub = tiny_hub(model)
    size = sum(len(data) for path, data in repo_files(model).items() if "quantized" in path)
    entries = []
    for name, source, target in (("opus-mt-en-zh", "en", "zh"), ("opus-mt-zh-en", "zh", "en")):
        entry = catalog_entry(name)
        entry.update(source_lang=source, target_lang=target, title=f"stand-in for {name} (tiny test Marian)")
        entry["variants"]["int8"]["approx_bytes"] = size
        entries.append(entry)
    catalog = work / "catalog.json"
    catalog.write_text(json.dumps({"models": entries}), encoding="utf-8")
    os.environ["DESKTOP_MT_CATALOG"] = str(catalog)  # replaces the shipped entries of those names
    os.environ["HF_ENDPOINT"] = hub.url
    hub.hold_after[HELD] = 65536
    return hub


class Run:
    """The user's steps, each waiting for what the window shows."""

    def __init__(self, out: Path, lang: str, download: bool, hub, timeout: float) -> None:
        self.out, self.lang, self.download, self.hub = out, lang, download, hub
        self.deadline = time.monotonic() + timeout
        self.ok = False
        self.steps: list[tuple[str, Callable[[], bool], Callable[[], None]]] = []

    def window(self):
        from PySide6.QtWidgets import QApplication

        from desktop_mt.gui.window.main import MainWindow

        return next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()), None)

    def page(self):
        from desktop_mt.gui.features.first_start import FirstStartPage

        window = self.window()
        return window.findChild(FirstStartPage) if window is not None else None

    def shoot(self, name: str) -> None:
        from PySide6.QtWidgets import QApplication

        QApplication.processEvents()
        scale = os.environ.get("QT_SCALE_FACTOR")  # QT_SCALE_FACTOR=2: first-start-zh-CN-scale2.png
        path = self.out / f"{name}-{self.lang}{f'-scale{scale}' if scale else ''}.png"
        self.window().grab().save(str(path))
        print(f"wrote {path}")

    def plan(self) -> None:
        page, window = self.page, self.window
        self.step(
            "the first-start page on the demo models",
            lambda: page() is not None and page().isVisible() and "·" in window().model_label.text(),
            lambda: self.shoot("first-start"),
        )
        if not self.download:
            return
        self.step("Download both", lambda: True, lambda: page().download_button.click())
        self.step("a file half-way in", lambda: self.hub.held.is_set() and page().file_label.text() != "", self.pause)
        self.step("paused", lambda: page().resume_button.isVisible(), self.resume)
        self.step("the page gone", lambda: not page().isVisible(), lambda: None)
        self.step(
            "the downloaded models loaded",
            lambda: "opus-mt" in window().model_label.text() + window().model_label.toolTip(),
            self.finish,
        )

    def step(self, what: str, ready: Callable[[], bool], then: Callable[[], None]) -> None:
        self.steps.append((what, ready, then))

    def pause(self) -> None:
        self.shoot("first-start-downloading")
        self.page().pause_button.click()
        self.hub.hold_after.clear()
        self.hub.release.set()

    def resume(self) -> None:
        self.shoot("first-start-paused")
        self.page().resume_button.click()

    def finish(self) -> None:
        from desktop_mt.app.settings import active_models
        from desktop_mt.models import list_installed

        self.shoot("first-start-done")
        print(f"installed: {sorted(m.name for m in list_installed())}; active: {active_models()}")
        print(f"model label: {self.window().model_label.text()}")
        ranges = [r for r in self.hub.gets(HELD) if r]
        print(f"{HELD}: {len(self.hub.gets(HELD))} requests, continued with {ranges}")

    def tick(self) -> None:
        """Run the next step whose condition holds; quit when done or out of time."""
        from PySide6.QtCore import QTimer

        if not self.steps:
            self.ok = True
            self.close()
            return
        what, ready, then = self.steps[0]
        try:
            due = self.window() is not None and ready()
        except AttributeError:  # the page or window not there yet
            due = False
        if due:
            print(f"step: {what}")
            self.steps.pop(0)
            then()
        elif time.monotonic() > self.deadline:
            print(f"timed out waiting for: {what}", file=sys.stderr)
            self.close()
            return
        if self.steps or not self.ok:
            QTimer.singleShot(100, self.tick)

    def close(self) -> None:
        window = self.window()
        self.steps = []
        if window is not None:
            window.close_to_tray = False
            window.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--lang", default=os.environ.get("LANG", "C.UTF-8"), help="the locale (LANG), e.g. zh_CN.UTF-8")
    parser.add_argument("--download", action="store_true", help="download from a local stand-in Hub")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="desktop-mt-first-start-"))
    os.environ.update(DESKTOP_MT_HOME=str(work / "home"), LANG=args.lang, QT_QPA_PLATFORM="xcb")
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "HF_HUB_OFFLINE", "HF_ENDPOINT", "DESKTOP_MT_CATALOG"):
        os.environ.pop(name, None)
    hub = stand_in_hub(work) if args.download else None
    args.out_dir.mkdir(parents=True, exist_ok=True)

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_mt.gui import app as app_mod

    app = QApplication([sys.argv[0]])  # main() takes it over, as a second launch's would be
    lang = "zh-CN" if args.lang.startswith("zh") else "en"
    run = Run(args.out_dir, lang, args.download, hub, args.timeout)
    run.plan()
    QTimer.singleShot(100, run.tick)
    code = app_mod.main([])
    del app
    if hub is not None:
        hub.stop()
    print("done" if run.ok else "FAILED", f"(app exit {code})")
    return 0 if run.ok and code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
