"""What live translation while typing costs (issue 45): CPU seconds per minute of typing with
Translate as you type on vs off, in one run, real window, bundled model, offscreen Qt.

Scripted keystrokes type FLORES dev sentences into the source pane in real time (as the
window's as-you-type pause is a wall-clock timer): ``--cps`` characters a second, a longer
pause after a sentence's end (1.5 s) and a comma (0.7 s), as ``tm.incremental.simulate_typing``
types. Each key is a key event delivered to the pane, so the whole path runs: the edit, the
keystroke's cancel of the running translation, the pause timer, the sentence-level plan (only
the sentence being typed goes to the model), the worker thread, the engine.

- off: the text is typed, then translated once (the Translate button) - what typing costs
  without live translation.
- on: the same keystrokes with Translate as you type on, until the last pause's translation
  has finished.

CPU is the process's CPU time (``time.process_time``: every thread, ONNX Runtime's included,
user + system), not wall time; it is divided by the minutes the typing took (the same script in
both modes). The ratio on/off is the figure; the absolute seconds depend on the machine.

    python benchmarks/typing_cost.py [--data FLORES.tsv] [--chars 280] [--cps 5]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "flores200-dev.en-zh.tsv"
PAUSES = {".": 1.5, "?": 1.5, "!": 1.5, ",": 0.7}  # seconds after these keys (the typist thinks)


def typing_script(text: str, cps: float) -> list[tuple[float, str]]:
    """``(seconds after the start, key)`` for each character of ``text``."""
    at, out = 0.0, []
    for char in text:
        out.append((at, char))
        at += PAUSES.get(char, 1.0 / cps)
    return out


@dataclasses.dataclass
class Run:
    """One mode's figures."""

    cpu: float = 0.0  # process CPU seconds from the first key to the last translation's end
    typing: float = 0.0  # seconds the keystrokes took (the script's length)
    requests: int = 0
    cancelled: int = 0  # requests a keystroke cancelled
    to_model: int = 0  # sentences sent to the model

    @property
    def per_minute(self) -> float:
        return self.cpu / (self.typing / 60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--chars", type=int, default=280, help="type FLORES sentences up to this many characters")
    parser.add_argument("--cps", type=float, default=5.0, help="typing speed, characters a second")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("DESKTOP_MT_HOME", tempfile.mkdtemp(prefix="desktop-mt-bench-"))
    from PySide6.QtCore import QEvent, QEventLoop, Qt, QTimer
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    from desktop_mt.gui import qtcompat
    from desktop_mt.gui.controller import Controller
    from desktop_mt.gui.settings import Settings
    from desktop_mt.gui.window.main import MainWindow
    from desktop_mt.gui.workers.translation import default_translator_factory

    rows = [line.split("\t")[0] for line in args.data.read_text(encoding="utf-8").splitlines()]
    text = ""
    for sentence in rows:
        text = f"{text} {sentence}".strip()
        if len(text) >= args.chars:
            break
    app = QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()
    window = MainWindow()
    settings = Settings(translate_as_you_type=False, keep_history=False)
    controller = Controller(
        window,
        settings,
        settings_path=Path(tempfile.mkdtemp()) / "s.json",
        translator_factory=default_translator_factory,
    )
    window.show()
    finished: list[int] = []
    started: dict[int, Any] = {}  # request id -> its cancel Event
    controller.requestFinished.connect(finished.append)
    controller.requestStarted.connect(lambda rid, _text: started.__setitem__(rid, controller.current.cancel))

    def until(predicate: Any, timeout_s: float = 300.0) -> None:
        """Run Qt's event loop until ``predicate()``: it sleeps between events (a loop of
        ``processEvents`` would burn the CPU this measures), checked every 50 ms."""
        if predicate():
            return
        end = time.monotonic() + timeout_s
        loop = QEventLoop()
        poll = QTimer()
        poll.setInterval(50)
        poll.timeout.connect(lambda: loop.quit() if predicate() or time.monotonic() > end else None)
        poll.start()
        loop.exec()
        poll.stop()
        if not predicate():
            raise TimeoutError("the window did not answer")

    def idle() -> bool:
        return controller.current is None and not controller.requests.debounce.isActive()

    loaded: list[object] = []
    controller.modelLoaded.connect(loaded.append)
    controller.start()
    until(lambda: bool(loaded))
    warm = "The weather is nice today."  # first-run costs (allocations, caches) out of the figures
    window.set_source(warm)
    controller.translate(warm)
    until(idle)

    def run(live: bool) -> Run:
        controller.clear()
        controller.postedit.figures.to_model = 0
        controller.apply_settings(dataclasses.replace(controller.settings, translate_as_you_type=live))
        window.source.setFocus()
        script = typing_script(text, args.cps)
        first_id = max(started, default=0)
        cpu0, t0 = time.process_time(), time.monotonic()
        sent = 0

        def next_key() -> None:  # each key on a timer, its time from the start (no drift)
            nonlocal sent
            key = QKeyEvent(QEvent.Type.KeyPress, 0, Qt.KeyboardModifier.NoModifier, script[sent][1])
            QApplication.sendEvent(window.source, key)
            sent += 1
            if sent < len(script):
                wait_s = script[sent][0] - (time.monotonic() - t0)
                QTimer.singleShot(max(0, round(wait_s * 1000)), next_key)

        QTimer.singleShot(0, next_key)
        until(lambda: sent == len(script), timeout_s=script[-1][0] + 120)
        if not live:
            controller.translate(window.source_text())  # the Translate button, once
        until(idle)
        out = Run(time.process_time() - cpu0, script[-1][0] + 1.0 / args.cps)
        ids = [rid for rid in started if rid > first_id]
        out.requests = len(ids)
        out.cancelled = sum(1 for rid in ids if started[rid].is_set())
        out.to_model = controller.postedit.figures.to_model
        if window.source_text() != text:
            raise RuntimeError("the keystrokes did not type the text")
        return out

    print(f"model {controller.model_info.name}; {len(text)} characters typed at {args.cps:g}/s", flush=True)
    off = run(False)
    on = run(True)
    for name, r in (("off", off), ("on", on)):
        print(
            f"live {name:3}: {r.cpu:6.1f} CPU s over {r.typing:5.1f} s of typing = {r.per_minute:5.1f} CPU s per "
            f"minute of typing; {r.requests} requests ({r.cancelled} cancelled by a keystroke), "
            f"{r.to_model} sentences the sentence plan sent to the model (whole-text requests not counted)",
            flush=True,
        )
    print(f"live on / off: {on.per_minute / off.per_minute:.2f}x the CPU per minute of typing", flush=True)
    controller.shutdown()
    app.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
