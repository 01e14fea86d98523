"""The GUI's ports (desktop_mt.gui.ports) fit the real parts they stand for.

A window feature is built on the window's Services and on the features it uses, typed by their
classes; the few Protocols left stand for what a class cannot: the main window, the interactive
worker, the tray, the global hotkey layer, and post-editing for the request flow (its class would
make an import circle). They are structural: nothing at run time says the real parts implement
them. mypy does, on :func:`parts_fit` below (never called: it is there to be type-checked); the
test runs mypy (strict) on this file, so a window or worker that loses or changes a member a
feature uses fails here, naming the member.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from desktop_mt.gui import ports
from desktop_mt.gui.controller import Controller
from desktop_mt.gui.platform.hotkey import GlobalHotkey
from desktop_mt.gui.services import Services
from desktop_mt.gui.window.main import MainWindow
from desktop_mt.gui.window.tray import Tray


def parts_fit(c: Controller, w: MainWindow, tray: Tray, hotkey: GlobalHotkey) -> list[object]:
    """The real window, worker, tray, hotkey layer and post-editing as the ports they stand for,
    and the controller's services built on them."""
    window: ports.WindowPort = w
    worker: ports.WorkerPort = c.worker
    the_tray: ports.TrayPort = tray
    layer: ports.HotkeyLayer = hotkey
    postedit: ports.PostEditPort = c.postedit
    services: Services = c.services
    return [window, worker, the_tray, layer, postedit, services]


@pytest.mark.slow  # about 20 s of CPU with a cold mypy cache (a fresh clone), 2 s warm
def test_the_real_parts_fit_the_ports() -> None:
    pytest.importorskip("mypy")
    here = Path(__file__).resolve()
    root = here.parents[2]
    command = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-error-summary"]
    done = subprocess.run([*command, str(here.relative_to(root))], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_port_that_does_not_fit_is_reported(tmp_path: Path) -> None:
    """The check above can fail: a window without the members a feature uses is no WindowPort."""
    pytest.importorskip("mypy")
    root = Path(__file__).resolve().parents[2]
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from desktop_mt.gui import ports\n"
        "from PySide6.QtWidgets import QMainWindow\n"
        "def fit(w: QMainWindow) -> object:\n"
        "    window: ports.WindowPort = w\n"
        "    return window\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-error-summary", str(probe)]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True)
    assert done.returncode != 0 and "WindowPort" in done.stdout, done.stdout + done.stderr
