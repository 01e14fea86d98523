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
from desktop_mt.gui.tray import Tray
from desktop_mt.gui.window import MainWindow


def hosts_fit(c: Controller) -> list[object]:
    """The controller as each feature's host (and its parts as theirs)."""
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
    worker: ports.StreamWorker = c.worker
    record: ports.JobRecord = c.drafts
    shower: ports.PopupShower = c.popup
    # the controller's own collaborators (requests, engine loading, file jobs, hotkey, models, results)
    own: list[object] = []
    for_requests: ports.RequestHost = c
    for_engine: ports.EngineHost = c
    for_files: ports.FileJobsHost = c
    for_hotkey: ports.HotkeyHost = c
    for_models: ports.ModelsHubHost = c
    for_results: ports.ResultsHost = c
    request_control: ports.RequestControl = c.requests
    loading: ports.LoadingWorker = c.worker
    engine: ports.EngineSource = c.engine
    own += [for_requests, for_engine, for_files, for_hotkey, for_models, for_results, request_control, loading, engine]
    return own + [
        bilingual,
        drafts,
        job_resume,
        quitting,
        stale,
        progress,
        popup,
        ocr,
        local_api,
        replace,
        settings,
        worker,
        record,
        shower,
    ]


def windows_fit(w: MainWindow, tray: Tray) -> list[object]:
    """The main window as each feature's window (the controller's ``window`` is the MainWindow)."""
    parts: list[object] = []
    for_bilingual: ports.BilingualWindow = w
    for_drafts: ports.PanesWindow = w
    for_resume: ports.JobResumeWindow = w
    for_quit: ports.QuitWindow = w
    for_stale: ports.StaleWindow = w
    for_progress: ports.ProgressWindow = w
    for_popup: ports.PopupWindow = w
    for_ocr: ports.OcrWindow = w
    for_api: ports.LocalApiWindow = w
    for_replace: ports.ReplaceWindow = w
    for_focus_and_look: ports.PanesAndToolbar = w
    the_tray: ports.TrayPort = tray
    for_requests: ports.RequestWindow = w
    for_engine: ports.EngineWindow = w
    for_files: ports.FileJobsWindow = w
    for_models: ports.ModelsWindow = w
    for_results: ports.ResultsWindow = w
    parts += [for_requests, for_engine, for_files, for_models, for_results]
    parts += [
        for_bilingual,
        for_drafts,
        for_resume,
        for_quit,
        for_stale,
        for_progress,
        for_popup,
        for_ocr,
        for_api,
        for_replace,
        for_focus_and_look,
        the_tray,
    ]
    return parts


@pytest.mark.slow  # about 20 s of CPU with a cold mypy cache (a fresh clone), 2 s warm
def test_controller_and_window_fit_the_ports() -> None:
    pytest.importorskip("mypy")
    here = Path(__file__).resolve()
    root = here.parents[2]
    command = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-error-summary"]
    done = subprocess.run([*command, str(here.relative_to(root))], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
