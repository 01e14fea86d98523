"""Translate selection in a real X session: the real app (bundled model, its own key grab)
translates the PRIMARY selection, which xclip owns, and the clipboard, which xclip also owns,
is the same afterwards (the app reads the selection; it never copies). And with another X client
in focus, logging every key it gets, the app's shortcut reaches the app only.

The translation is read back from the window as a user would take it: click in the translation
pane and select all, which makes it the PRIMARY selection (``xclip -o``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from desktop_mt.gui.settings import Settings, save_settings, settings_path

from ..platform.hotkeys.test_hotkeys_x11 import KeyLogger
from ..xsession import ROOT, XSession, wait_for

SELECTED = "Where is the train station?"
CLIPBOARD = "what the user had copied before"
CJK = re.compile("[\u4e00-\u9fff]")


def log_text(session: XSession) -> str:
    path = Path(session.env["DESKTOP_MT_HOME"]) / "logs" / "desktop-mt.log"
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def xclip_set(session: XSession, selection: str, text: str) -> None:
    subprocess.run(["xclip", "-selection", selection], input=text, text=True, env=session.env, timeout=10, check=True)


def launch(session: XSession, tmp_path: Path) -> subprocess.Popen:
    """``desktop-mt gui`` on the session's display (its output into app.out)."""
    code = "import sys; from desktop_mt.cli.main import main; sys.exit(main(['gui']))"
    with open(tmp_path / "app.out", "w", encoding="utf-8") as out:
        return subprocess.Popen(
            [sys.executable, "-c", code], env=session.env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        )


def end(app: subprocess.Popen) -> None:
    app.terminate()
    try:
        app.wait(timeout=30)
    except subprocess.TimeoutExpired:
        app.kill()
        app.wait()


def test_the_app_s_shortcut_never_reaches_the_application_in_front(session, tmp_path):
    save_settings(Settings(selection_hotkey="Ctrl+Alt+D"), settings_path())
    app = launch(session, tmp_path)
    logger = None
    try:
        wait_for(session.visible_windows, 60, "the window")
        wait_for(lambda: "models loaded" in log_text(session), 120, "the bundled model to load")
        xclip_set(session, "primary", SELECTED)
        logger = KeyLogger(session.env)  # takes the focus
        session.x("xdotool", "key", "x", check=True)
        logger.wait_press("x")
        session.x("xdotool", "key", "ctrl+alt+d", check=True)
        wait_for(
            lambda: f"translate selection: {len(SELECTED)} characters" in log_text(session),
            30,
            "the app to get its shortcut",
        )
        # The app came forward with the translation: give the logger the focus back, then a key.
        wid = next(line.split()[1] for line in logger.lines if line.startswith("ready"))
        session.x("xdotool", "windowfocus", "--sync", wid, check=True)
        session.x("xdotool", "key", "y", check=True)
        seen = logger.wait_press("y")  # everything sent before "y" has reached the logger
        assert "d" not in seen, seen
    finally:
        if logger is not None:
            logger.stop()
        end(app)


def test_the_selection_shortcut_translates_primary_and_leaves_the_clipboard(session, tmp_path):
    save_settings(Settings(selection_hotkey="Ctrl+Alt+D"), settings_path())
    app = launch(session, tmp_path)
    try:
        wid = wait_for(session.visible_windows, 60, "the window")[0]
        wait_for(lambda: "models loaded" in log_text(session), 120, "the bundled model to load")
        xclip_set(session, "clipboard", CLIPBOARD)
        xclip_set(session, "primary", SELECTED)
        session.x("xdotool", "key", "--clearmodifiers", "ctrl+alt+d", check=True)
        wait_for(
            lambda: f"translate selection: {len(SELECTED)} characters" in log_text(session),
            30,
            "the app to read the selection",
        )
        wait_for(lambda: "first translated text shown" in log_text(session), 60, "the translation")
        assert session.x("xclip", "-o", "-selection", "clipboard") == CLIPBOARD

        geometry = dict(line.split("=") for line in session.x("xdotool", "getwindowgeometry", "--shell", wid).split())
        x, y = 3 * int(geometry["WIDTH"]) // 4, int(geometry["HEIGHT"]) // 2
        session.x("xdotool", "mousemove", "--window", wid, str(x), str(y), "click", "1", check=True)
        session.x("xdotool", "key", "--clearmodifiers", "ctrl+a", check=True)
        shown = wait_for(
            lambda: (
                CJK.search(session.x("xclip", "-o", "-selection", "primary"))
                and session.x("xclip", "-o", "-selection", "primary")
            ),
            30,
            "Chinese in the translation pane",
        )
        assert "train" not in shown, shown
        assert session.x("xclip", "-o", "-selection", "clipboard") == CLIPBOARD
    finally:
        end(app)
