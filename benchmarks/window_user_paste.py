#!/usr/bin/env python3
"""A user's paste into the real window (issue 49), timed from outside the app: the app is started
as a user starts it (``python -m desktop_mt gui``, a fresh data folder, default settings: the
bundled models), the text goes onto the X clipboard (``xclip``), Ctrl+V is typed into the focused
source pane (``xdotool``), and the run is timed from the key to the app's log lines: the first
text on screen (``first translated text shown ... ms after the request``) and the worker's end of
the request (``request N: M segments in S s``, figures only). The same paragraphs go through
``translate_batch`` on the bundled model in this process (the file job's path) just before the
app starts and just after it ends (the app is not running then): the ratio is taken against
each, as the machine's load moves. The script's sessions share one ONNX Runtime thread pool,
as the app's do when started as ``desktop-mt`` or ``python -m desktop_mt`` (``cli.entry``;
``--own-pools``: a pool per session, the library's default). Needs an X display:

    xvfb-run -a -s "-screen 0 1280x800x24" python benchmarks/window_user_paste.py [--words 3000]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "flores200-dev.en-zh.tsv"
TITLE = "desktop-mt"


def paste_text(data: Path, words: int) -> list[str]:
    """FLORES dev English, 5 sentences a paragraph, until ``words`` words."""
    english = [line.split("\t")[0] for line in data.read_text(encoding="utf-8").splitlines()]
    paragraphs, count = [], 0
    for k in range(0, len(english), 5):
        paragraph = " ".join(english[k : k + 5])
        paragraphs.append(paragraph)
        count += len(paragraph.split())
        if count >= words:
            break
    return paragraphs


def wait_for_line(log: Path, pattern: str, since: int, timeout: float) -> tuple[re.Match[str], float]:
    """The first line of the log after byte ``since`` matching ``pattern``, and when it was seen."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if log.exists():
            with log.open(encoding="utf-8", errors="replace") as f:
                f.seek(since)
                found = re.search(pattern, f.read())
            if found:
                return found, time.perf_counter()
        time.sleep(0.02)
    raise TimeoutError(f"no log line {pattern!r} in {timeout:.0f} s")


def xdotool(*args: str) -> str:
    return subprocess.run(["xdotool", *args], check=True, capture_output=True, text=True).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--words", type=int, default=3000)
    parser.add_argument(
        "--own-pools", action="store_true", help="a pool per session, in the app (run_gui) and for translate_batch"
    )
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        sys.exit("needs an X display: run it under xvfb-run -a")
    paragraphs = paste_text(args.data, args.words)
    text = "\n\n".join(paragraphs)
    home = Path(tempfile.mkdtemp(prefix="desktop-mt-paste-"))
    env = dict(os.environ, DESKTOP_MT_HOME=str(home), PYTHONPATH=str(ROOT))
    log = home / "logs" / "desktop-mt.log"
    sys.path.insert(0, str(ROOT))
    from desktop_mt import Translator
    from desktop_mt.engine.runtime import share_thread_pool

    if not args.own_pools:
        share_thread_pool(0)  # as the app started as a user starts it

    translator = Translator()
    translator.translate_batch(paragraphs[:2])  # warm up

    def batch_seconds() -> float:
        began = time.perf_counter()
        translator.translate_batch(paragraphs)
        return time.perf_counter() - began

    before = batch_seconds()
    start = (
        ["-c", "import sys; from desktop_mt.cli.gui_launch import run_gui; sys.exit(run_gui([]))"]
        if args.own_pools
        else ["-m", "desktop_mt", "gui"]
    )
    app = subprocess.Popen([sys.executable, *start], env=env, cwd=ROOT)
    clip = None
    try:
        wait_for_line(log, r"models loaded", 0, 120)
        window = xdotool("search", "--sync", "--onlyvisible", "--name", TITLE).splitlines()[0]
        clip = subprocess.Popen(
            ["xclip", "-selection", "clipboard", "-i", "-quiet"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert clip.stdin is not None
        clip.stdin.write(text.encode("utf-8"))
        clip.stdin.close()
        time.sleep(0.5)  # xclip owns the selection
        xdotool("windowfocus", "--sync", window)  # no window manager under Xvfb: focus it directly
        since = log.stat().st_size
        started = time.perf_counter()
        xdotool("key", "--clearmodifiers", "ctrl+v")
        first, first_seen = wait_for_line(log, r"first translated text shown (\d+) ms", since, 60)
        done, done_seen = wait_for_line(
            log, r"request \d+: (\d+) segments in ([\d.]+) s, first text after (\d+) ms", since, 3600
        )
    finally:
        app.terminate()
        app.wait(30)
        if clip is not None:
            clip.kill()
    words = len(text.split())
    print(f"paste: {words} words, {len(paragraphs)} paragraphs (FLORES dev English)")
    print(
        f"window: first text {int(first.group(1))} ms after the request (the app's clock), "
        f"{(first_seen - started) * 1000:.0f} ms after Ctrl+V as this script saw the log"
    )
    print(
        f"window: whole paste {float(done.group(2)):.1f} s in the worker ({done.group(1)} segments), "
        f"{done_seen - started:.1f} s from Ctrl+V to the log line"
    )
    after = batch_seconds()
    window_s = float(done.group(2))
    print(
        f"translate_batch, the same paragraphs, bundled model, this process, before / after the app: "
        f"{before:.1f} / {after:.1f} s (window / batch: {window_s / before:.2f}x / {window_s / after:.2f}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
