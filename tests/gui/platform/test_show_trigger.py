"""``desktop-mt show --clipboard / --selection`` (issue 18): the trigger for desktop shortcuts
where global hotkeys are impossible (Wayland).

- In process: the window's single-instance server with a scripted translator receives the
  request from a real ``desktop-mt show`` subprocess (plain socket, no Qt in the sender) and
  streams the clipboard's translation into the window.
- In a real X session (Xvfb + tray host + xclip): the real app with the bundled model; on
  ``show --clipboard`` it pastes the X CLIPBOARD, on ``show --selection`` the PRIMARY selection
  (the xclip that owns it serves exactly that one request).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication

from desktop_mt.app import instance_client
from desktop_mt.gui import app as app_mod
from desktop_mt.gui.platform.single_instance import SingleInstance
from tests import sysdeps

from ..fakes import fake_factory
from ..xsession import XSession, wait_for

ROOT = Path(__file__).resolve().parents[3]
# The sender as a desktop shortcut runs it; it reports whether anything imported PySide6.
SHOW = (
    "import sys; from desktop_mt.cli.main import main; rc = main(sys.argv[1:]); "
    "print('qt-loaded' if any(m.startswith('PySide6') for m in sys.modules) else 'no-qt'); "
    "sys.exit(rc)"
)


def run_show(env: dict, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", SHOW, "show", *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.fixture
def home(tmp_path, monkeypatch):
    """Our own settings folder: the instance name (and socket) differ from a real app's."""
    monkeypatch.setenv("DESKTOP_MT_HOME", str(tmp_path / "home"))
    return {**os.environ, "DESKTOP_MT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}


@pytest.fixture
def running(qtbot, home):
    """The assembled window (scripted translator) listening as the running instance."""
    window, controller, tray = app_mod.build([], translator_factory=fake_factory())
    qtbot.addWidget(window)
    with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):
        controller.start()
    instance = SingleInstance()
    assert instance.listen()
    instance.messageReceived.connect(lambda message: app_mod.on_remote_message(message, window, controller))
    yield window, controller
    instance.close()
    controller.shutdown()


@pytest.mark.parametrize("flag", ["--clipboard", "--selection"])
def test_show_from_a_shortcut_process_translates_in_the_window(qtbot, running, home, flag):
    """(offscreen has no primary selection: --selection falls back to the clipboard)"""
    window, controller = running
    window.showMinimized()
    QGuiApplication.clipboard().setText("copied in another app")
    with qtbot.waitSignal(controller.requestFinished, timeout=20_000):
        sender = run_show(home, flag)
    out, _ = sender.communicate(timeout=30)
    assert sender.returncode == 0, out
    assert out.strip().endswith("no-qt")  # the shortcut's process never loaded PySide6
    assert window.source_text() == "copied in another app"
    assert window.target_text() == "<copied><in><another><app>"
    assert window.isVisible() and not window.isMinimized()


def test_show_hands_files_to_the_window(qtbot, running, home, tmp_path, monkeypatch):
    """`desktop-mt show notes.txt -x.txt` (the README's example) queues the files in the
    running window, relative to the sender's folder; a name starting with "-" is a file."""
    window, controller = running
    asked: list[list[str]] = []
    monkeypatch.setattr(controller, "translate_files", asked.append)
    sender = subprocess.Popen(
        [sys.executable, "-c", SHOW, "show", "notes.txt", "--", "-x.txt"],
        env=home,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    # The window answers from its event loop, which runs while waiting here.
    qtbot.waitUntil(lambda: bool(asked) and sender.poll() is not None, timeout=30_000)
    out, _ = sender.communicate(timeout=30)
    assert sender.returncode == 0, out
    assert asked == [[str(tmp_path / "notes.txt"), str(tmp_path / "-x.txt")]]


def test_show_without_a_window_and_no_start_exits_1(home, tmp_path):
    sender = run_show(home, "--selection", "--no-start")
    out, _ = sender.communicate(timeout=30)
    assert sender.returncode == 1 and "no desktop-mt window is running" in out


def test_a_socket_left_by_a_crash_counts_as_not_running(home, monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    path = instance_client.address()
    assert path == str(tmp_path / instance_client.server_name())
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(path)  # bound, never listening: what a killed window leaves behind
    try:
        with pytest.raises(instance_client.NotRunning):
            instance_client.send(["--clipboard"])
    finally:
        stale.close()


# --- the real app in a real X session --------------------------------------------------------


@pytest.fixture
def xsession(tmp_path):
    """Xvfb and a tray host; a short TMPDIR of its own for the app's socket (Unix socket paths
    are limited to ~100 bytes), removed with it even if the app is killed."""
    sysdeps.require("xvfb", "xdotool", "xclip", "trayer")
    session = XSession(tmp_path)
    session.env["TMPDIR"] = tempfile.mkdtemp(prefix="dmt")
    yield session.env
    session.stop()
    shutil.rmtree(session.env["TMPDIR"], ignore_errors=True)


def _name(env: dict) -> str:
    """The instance name the app in ``env`` uses (it depends on DESKTOP_MT_HOME)."""
    code = "from desktop_mt.app.instance_client import server_name; print(server_name())"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=30
    ).stdout.strip()


@pytest.mark.parametrize("flag, selection", [("--clipboard", "clipboard"), ("--selection", "primary")])
def test_real_app_under_xvfb_pastes_on_show(xsession, flag, selection):
    """The app (bundled model) is triggered by ``show``: xclip owns the X selection and exits
    after serving one paste, which only the app's reaction to ``show`` asks for (a ``show``
    without a flag leaves it waiting)."""
    code = "import sys; from desktop_mt.cli.main import main; sys.exit(main(['gui']))"
    app = subprocess.Popen(
        [sys.executable, "-c", code], env=xsession, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    owner = None
    try:
        path = Path(xsession["TMPDIR"], _name(xsession))  # where Qt puts it: $TMPDIR/NAME
        wait_for(path.exists, 60, "the app's single-instance socket")
        # -quiet keeps xclip in the foreground, so its exit is the paste.
        owner = subprocess.Popen(
            ["xclip", "-quiet", "-selection", selection, "-loops", "1"],
            stdin=subprocess.PIPE,
            env=xsession,
            text=True,
            stderr=subprocess.DEVNULL,
        )
        owner.stdin.write("Where is the train station?")
        owner.stdin.close()
        assert owner.poll() is None  # nobody has pasted yet
        sender = run_show(xsession, flag, "--no-start")
        out, _ = sender.communicate(timeout=30)
        assert sender.returncode == 0 and out.strip().endswith("no-qt"), out
        assert owner.wait(timeout=30) == 0  # the app pasted that selection
        assert app.poll() is None  # one app: show handed over, it did not start a second one
    finally:
        if owner is not None and owner.poll() is None:
            owner.kill()
        app.terminate()
        app.wait(timeout=20)
