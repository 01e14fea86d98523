"""The GUI's feature ports (desktop_mt.gui.ports) fit the real Controller and MainWindow.

The Protocols are structural: nothing at run time says the controller implements them. mypy
does, on :func:`hosts_fit` and :func:`windows_fit` below (never called: they are there to be
type-checked); the test runs mypy (strict) on this file, so a controller or window that loses
or changes a member a feature uses fails here, naming the member.
"""

from __future__ import annotations

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
    return [
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
    the_tray: ports.TrayPort = tray
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
        the_tray,
    ]
    return parts


def test_controller_and_window_fit_the_ports() -> None:
    api = pytest.importorskip("mypy.api")
    stdout, stderr, status = api.run(
        ["--strict", "--follow-imports=silent", "--no-error-summary", "--show-error-codes", __file__]
    )
    assert status == 0, stdout + stderr
