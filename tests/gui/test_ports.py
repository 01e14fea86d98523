"""The GUI's feature ports (desktop_mt.gui.ports) fit the real Controller and MainWindow.

The Protocols are structural: nothing at run time says the controller implements them. mypy
does, on :func:`hosts_fit` and :func:`windows_fit` below (never called: they are there to be
type-checked); the test runs mypy (strict) on this file, so a controller or window that loses
or changes a member a feature uses fails here, naming the member.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from desktop_mt.gui import ports
from desktop_mt.gui.controller import Controller
from desktop_mt.gui.window.main import MainWindow
from desktop_mt.gui.window.tray import Tray


def hosts_fit(c: Controller) -> list[object]:
    """The controller as each feature's host (and its parts as theirs)."""
    hosts: list[object] = []
    bilingual: ports.BilingualHost = c
    drafts: ports.DraftsHost = c
    job_resume: ports.JobResumeHost = c
    quitting: ports.QuitHost = c
    stale: ports.StaleHost = c
    progress: ports.ProgressHost = c
    popup: ports.PopupHost = c
    ocr: ports.OcrHost = c
    local_api: ports.LocalApiHost = c
    replace: ports.ReplaceHost = c
    settings: ports.SettingsPort = c
    hosts += [bilingual, drafts, job_resume, quitting, stale, progress, popup, ocr, local_api, replace, settings]
    # the controller's own collaborators (requests, engine loading, file jobs, hotkey, models, results)
    for_requests: ports.RequestHost = c
    for_engine: ports.EngineHost = c
    for_files: ports.FileJobsHost = c
    for_hotkey: ports.HotkeyHost = c
    for_models: ports.ModelsHubHost = c
    for_results: ports.ResultsHost = c
    hosts += [for_requests, for_engine, for_files, for_hotkey, for_models, for_results]
    # the collaborators the features reach by a port of their own
    worker: ports.WorkerPort = c.worker
    record: ports.JobRecord = c.drafts
    shower: ports.PopupPort = c.popup
    reader: ports.OcrPort = c.ocr
    request_control: ports.RequestControl = c.requests
    engine: ports.EngineSource = c.engine
    return hosts + [worker, record, shower, reader, request_control, engine]


def windows_fit(w: MainWindow, tray: Tray) -> list[object]:
    """The main window as the features' window (the controller's ``window`` is the MainWindow)."""
    window: ports.WindowPort = w
    the_tray: ports.TrayPort = tray
    return [window, the_tray]


@pytest.mark.slow  # about 20 s of CPU with a cold mypy cache (a fresh clone), 2 s warm
def test_controller_and_window_fit_the_ports() -> None:
    pytest.importorskip("mypy")
    here = Path(__file__).resolve()
    root = here.parents[2]
    command = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-error-summary"]
    done = subprocess.run([*command, str(here.relative_to(root))], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
