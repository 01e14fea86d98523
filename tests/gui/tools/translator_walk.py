"""Use the real window as a translator would, with xdotool on Xvfb, and keep a screenshot of each
step (issue 42's walk through the window after the GUI was composed of parts):

    .venv/bin/python tests/gui/tools/translator_walk.py OUT_DIR [--lang zh_CN.UTF-8]

Each step prints what the window shows and the screenshot it wrote (OUT_DIR/NN-step.png): a
paste streams (the time until the translation pane first holds text, polled every 20 ms); a long
paste stopped with Esc keeps its part and the "stopped" line; Clear then Ctrl+Z brings back the
text with its translation; a swap flips the direction and the model label; a file job (600
distinct lines) is killed with SIGKILL mid-way, and the next start brings back the draft and
offers to continue the job. The app runs under a temporary DESKTOP_MT_HOME and XDG folders, on
the bundled demo models. Not run by the suite (screenshots are looked at, not asserted).
"""

from __future__ import annotations

import argparse
import itertools
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/gui: xsession

from xsession import ROOT, XSession, wait_for

PARAGRAPH = (
    "The weather is nice today. We decided to walk to the old library near the river. "
    "Could you tell me where the nearest train station is?"
)
WINDOW_TITLE = "desktop-mt —"  # the main window, not the tray's helper windows


def distinct_sentences(count: int) -> list[str]:
    """``count`` different short sentences (the translation cache would make repeats instant)."""
    subjects = ["My brother", "The old teacher", "Her friend", "The doctor", "Our neighbour", "The farmer"]
    verbs = ["likes", "bought", "painted", "found", "lost", "wanted", "cleaned", "sold"]
    objects = ["a red car", "the small house", "an old book", "the blue bicycle", "a big dog"]
    times = ["yesterday", "on Sunday", "after lunch"]
    lines = [f"{s} {v} {o} {t}." for s, v, o, t in itertools.product(subjects, verbs, objects, times)]
    return lines[:count]


class Walk:
    """The app on an X session, driven with xdotool; screenshots with PIL."""

    def __init__(self, out: Path, tmp: Path, lang: str) -> None:
        self.out, self.tmp, self.step = out, tmp, 0
        self.x = XSession(tmp)
        xdg = {name: tmp / "xdg" / name for name in ("config", "data", "cache", "state", "runtime")}
        for path in xdg.values():
            path.mkdir(parents=True, exist_ok=True)
        xdg["runtime"].chmod(0o700)
        self.env = {
            **self.x.env,
            "LANG": lang,
            "XDG_CONFIG_HOME": str(xdg["config"]),
            "XDG_DATA_HOME": str(xdg["data"]),
            "XDG_CACHE_HOME": str(xdg["cache"]),
            "XDG_STATE_HOME": str(xdg["state"]),
            "XDG_RUNTIME_DIR": str(xdg["runtime"]),
        }
        self.env.pop("LANGUAGE", None)
        self.app: subprocess.Popen[bytes] | None = None
        self.wid = ""

    def start(self) -> None:
        log = (self.tmp / "app.log").open("ab")
        self.app = subprocess.Popen(
            [sys.executable, "-m", "desktop_mt"], env=self.env, cwd=ROOT, stdout=log, stderr=log
        )
        self.wid = wait_for(lambda: self.xdo("search", "--onlyvisible", "--name", WINDOW_TITLE), 60, "the window")
        self.wid = self.wid.split()[0]
        time.sleep(1.0)  # the window maps before the model label and the draft are in place

    def xdo(self, *args: str) -> str:
        return self.x.x("xdotool", *args)

    def shot(self, name: str, note: str = "") -> None:
        from PIL import ImageGrab

        self.step += 1
        path = self.out / f"{self.step:02d}-{name}.png"
        ImageGrab.grab(xdisplay=self.x.display).crop((0, 0, 1000, 620)).save(path)
        print(f"{path.name}: {note}")

    def click_source(self) -> None:
        self.xdo("mousemove", "--window", self.wid, "200", "300", "click", "1")

    def paste(self, text: str) -> None:
        subprocess.run(["xclip", "-selection", "clipboard"], input=text.encode(), env=self.env, check=True)
        self.click_source()
        self.xdo("key", "ctrl+a", "ctrl+v")

    def key(self, *keys: str) -> None:
        self.xdo("key", *keys)

    def target_shows_text(self) -> bool:
        """Whether the translation pane holds text: dark pixels in its upper part."""
        from PIL import ImageGrab

        pane = ImageGrab.grab(xdisplay=self.x.display).crop((490, 140, 940, 200)).convert("L")
        return pane.getextrema()[0] < 60

    def kill(self) -> None:
        if self.app is not None and self.app.poll() is None:
            os.kill(self.app.pid, signal.SIGKILL)
            self.app.wait()

    def stop(self) -> None:
        if self.app is not None and self.app.poll() is None:
            self.app.terminate()
            try:
                self.app.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.x.stop()


def walk(w: Walk, files: Path) -> None:
    w.start()
    w.shot("start", "the window on the bundled models")
    started = time.monotonic()
    w.paste(PARAGRAPH)
    wait_for(w.target_shows_text, 30, "the first translated text")
    first = time.monotonic() - started
    time.sleep(1.5)
    w.shot("paste", f"first text {first * 1000:.0f} ms after Ctrl+V (xdotool and polling included)")

    w.paste(" ".join(distinct_sentences(240)))
    time.sleep(1.0)
    w.key("Escape")
    time.sleep(0.8)
    w.shot("stopped", "Esc mid-way: the part stays, the stopped line, the status says how far")

    w.paste(PARAGRAPH)
    time.sleep(2.0)
    w.xdo("key", "ctrl+shift+BackSpace")  # Clear
    time.sleep(0.5)
    w.shot("cleared", "Clear: both panes empty")
    w.click_source()
    w.key("ctrl+z")
    time.sleep(0.5)
    w.shot("undo-clear", "Ctrl+Z: the text and its own translation at once (no new run)")

    w.key("ctrl+shift+s")
    time.sleep(1.5)
    w.shot("swap", "swap: the translation is the source, the direction and the model label follow")

    big = files / "walk.txt"
    big.write_text("\n".join(distinct_sentences(720)) + "\n", encoding="utf-8")
    w.click_source()
    w.key("ctrl+o")
    time.sleep(1.5)
    w.xdo("type", "--delay", "5", str(big))
    w.key("Return")
    time.sleep(3.0)
    w.shot("file-job", "a file job runs: the strip's progress")
    w.kill()
    print("killed with SIGKILL; journal beside the output:", sorted(p.name for p in files.iterdir()))
    w.start()
    w.shot("restart", "after kill -9: the draft is back, the job is offered (Continue / Discard)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--lang", default="C.UTF-8", help="LANG for the app (zh_CN.UTF-8: the Chinese interface)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="desktop-mt-walk-") as tmp:
        files = Path(tmp, "files")
        files.mkdir()
        w = Walk(args.out, Path(tmp), args.lang)
        try:
            walk(w, files)
        finally:
            w.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
