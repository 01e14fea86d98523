"""Translate and replace (issue 19) in a real X session: the real app (bundled model, its own
global hotkey) turns the English selected in another application's plain Qt text field into
Chinese, and the clipboard holds what it held before.

The X11 path end to end: pynput's hotkey, the PRIMARY selection, the worker's translation,
``xdotool key ctrl+v`` (the real :class:`keys.XdotoolKeys`) into the focused field of the other
process, and the restore of the old clipboard, which xclip owned (read back with ``xclip -o``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from desktop_mt.gui.settings import Settings, save_settings, settings_path

from ..xsession import ROOT, XSession, wait_for

TARGET = Path(__file__).resolve().parents[1] / "tools" / "paste_target.py"
ENGLISH = "Where is the train station?"
OLD_CLIPBOARD = "what the user had copied before"
CJK = re.compile("[\u4e00-\u9fff]")


def log_text(session: XSession) -> str:
    path = Path(session.env["DESKTOP_MT_HOME"]) / "logs" / "desktop-mt.log"
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def test_hotkey_replaces_the_selection_in_another_app_and_restores_the_clipboard(session, tmp_path):
    save_settings(Settings(replace_hotkey="Ctrl+Alt+R"), settings_path())
    code = "import sys; from desktop_mt.cli.main import main; sys.exit(main(['gui']))"
    with open(tmp_path / "app.out", "w", encoding="utf-8") as out:
        app = subprocess.Popen(
            [sys.executable, "-c", code], env=session.env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        )
    field_file = tmp_path / "field.txt"
    target = subprocess.Popen(
        [sys.executable, str(TARGET), str(field_file), ENGLISH],
        env=session.env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: "models loaded" in log_text(session), 120, "the bundled model to load")
        wid = wait_for(
            lambda: session.x("xdotool", "search", "--onlyvisible", "--name", "paste-target"), 30, "the target field"
        ).split()[0]
        # Select the field's text as a user would (click, Ctrl+A): X11 makes it the PRIMARY selection.
        session.x("xdotool", "mousemove", "--window", wid, "300", "30", "click", "1", check=True)
        session.x("xdotool", "key", "--clearmodifiers", "ctrl+a", check=True)
        wait_for(
            lambda: session.x("xclip", "-o", "-selection", "primary") == ENGLISH,
            10,
            "the field's selection to be the PRIMARY selection",
        )
        subprocess.run(
            ["xclip", "-selection", "clipboard"],
            input=OLD_CLIPBOARD,
            text=True,
            env=session.env,
            timeout=10,
            check=True,
        )
        session.x("xdotool", "key", "--clearmodifiers", "ctrl+alt+r", check=True)
        found = wait_for(
            lambda: re.search(r"translate and replace: (replaced|failed|cancelled)", log_text(session)),
            90,
            "the replace to end",
        )
        assert found.group(1) == "replaced", (tmp_path / "app.out").read_text()
        replaced = wait_for(
            lambda: CJK.search(field_file.read_text(encoding="utf-8")) and field_file.read_text(encoding="utf-8"),
            10,
            "Chinese in the field",
        )
        assert "train" not in replaced and "?" not in replaced.replace("？", ""), replaced
        # One change: the paste replaced the selected text (the hotkey typed nothing into it).
        history = field_file.with_suffix(".history").read_text(encoding="utf-8").splitlines()
        assert history == [replaced], history
        assert session.x("xclip", "-o", "-selection", "clipboard") == OLD_CLIPBOARD
        # Text selected earlier in another application (xclip owns PRIMARY now) is not the
        # focused field's selection: the press fails and nothing is pasted.
        owner = subprocess.Popen(
            ["xclip", "-quiet", "-selection", "primary", "-loops", "9"],
            stdin=subprocess.PIPE,
            env=session.env,
            text=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        owner.stdin.write("Good morning, everyone.")
        owner.stdin.close()
        wait_for(
            lambda: session.x("xclip", "-o", "-selection", "primary") == "Good morning, everyone.",
            10,
            "xclip to own PRIMARY",
        )
        session.x("xdotool", "windowfocus", "--sync", wid, check=True)
        session.x("xdotool", "key", "--clearmodifiers", "ctrl+alt+r", check=True)

        def outcomes() -> list[str]:
            return re.findall(r"translate and replace: (replaced|failed|cancelled)", log_text(session))

        assert wait_for(lambda: len(outcomes()) == 2 and outcomes(), 30, "the second press to end")[1] == "failed"
        assert field_file.read_text(encoding="utf-8") == replaced
        owner.kill()
        owner.wait(timeout=10)
        assert app.poll() is None
    finally:
        target.terminate()
        target.wait(timeout=20)
        app.terminate()
        app.wait(timeout=30)
