"""The real app in a real X session: text typed and translated, then ``kill -9``; on the next
start both panes hold exactly what they held (read back through the clipboard, as a user
would copy them). Quitting while work runs asks: test_drafts.py (offscreen is enough there)."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from ..test_real_window import launch, log_lines
from ..xsession import XSession, wait_for

SENTINEL = "(nothing copied yet)"
TYPED = "Where is the station?\nI will be late today, sorry. "  # two lines and a trailing space


def copy_from(session: XSession, wid: str, keys: str) -> str:
    """Press ``keys`` in the window and read what it put on the clipboard."""
    subprocess.run(
        ["xclip", "-selection", "clipboard"], input=SENTINEL, text=True, env=session.env, timeout=10, check=True
    )
    session.x("xdotool", "windowfocus", "--sync", wid, "key", "--clearmodifiers", *keys.split(), check=True)
    return wait_for(
        lambda: (lambda text: text != SENTINEL and text)(
            subprocess.run(
                ["xclip", "-o", "-selection", "clipboard"], env=session.env, capture_output=True, text=True, timeout=10
            ).stdout
        ),
        20,
        f"{keys} to copy",
    )


def draft(session: XSession) -> dict:
    path = Path(session.env["DESKTOP_MT_HOME"]) / "data" / "draft.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_typed_and_translated_text_survives_kill_9(session, tmp_path):
    app = launch(session, tmp_path / "first.out")
    try:
        wid = wait_for(session.visible_windows, 60, "the window")[0]
        wait_for(lambda: log_lines(session, r"models loaded"), 120, "the bundled model to load")
        geometry = dict(
            line.split("=") for line in session.x("xdotool", "getwindowgeometry", "--shell", wid).splitlines()
        )
        session.x(
            "xdotool",
            "mousemove",
            "--window",
            wid,
            str(int(geometry["WIDTH"]) // 4),
            str(int(geometry["HEIGHT"]) // 2),
            "click",
            "1",
            check=True,
        )
        for n, line in enumerate(TYPED.split("\n")):  # xdotool types "\n" as Linefeed, not Return
            if n:
                session.x("xdotool", "key", "Return", check=True)
            session.x("xdotool", "type", "--delay", "5", line, check=True)
        session.x("xdotool", "key", "--clearmodifiers", "ctrl+Return", check=True)
        wait_for(lambda: log_lines(session, r"first translated text shown"), 120, "the translation")
        # Saved continuously: the file soon holds what the panes hold; then kill -9.
        shown = wait_for(lambda: copy_from(session, wid, "ctrl+shift+c"), 20, "the translation")
        wait_for(
            lambda: draft(session).get("source") == TYPED and draft(session).get("translation", "").startswith(shown),
            60,
            "the draft to be saved",
        )
        app.send_signal(signal.SIGKILL)
        app.wait(timeout=30)
        translation = draft(session)["translation"]  # what the file held when the app died

        app = launch(session, tmp_path / "second.out")
        wid = wait_for(session.visible_windows, 60, "the window after the restart")[0]
        assert copy_from(session, wid, "ctrl+shift+c") == translation
        session.x("xdotool", "windowfocus", "--sync", wid, check=True)
        session.x(
            "xdotool",
            "mousemove",
            "--window",
            wid,
            str(int(geometry["WIDTH"]) // 4),
            str(int(geometry["HEIGHT"]) // 2),
            "click",
            "1",
            check=True,
        )
        assert copy_from(session, wid, "ctrl+a ctrl+c") == TYPED  # exactly, trailing space too
        assert log_lines(session, rf"draft restored: {len(TYPED)} characters of source")
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
