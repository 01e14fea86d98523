"""Wayland: "Translate screen region" asks the desktop portal for the screenshot. A fake portal
on a private session bus answers with an image (read and translated) or a cancel."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtDBus import QDBusConnection

from desktop_mt.gui.features import ocr as ocr_feature
from desktop_mt.gui.platform import capture
from tests import sysdeps
from tests.ocr.texts import ENGLISH, render, save

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def private_bus():
    sysdeps.require("dbus-daemon", "libglib2.0-bin")
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    address = daemon.stdout.readline().strip()
    bus = QDBusConnection.connectToBus(address, f"ocr-portal-test-{daemon.pid}")
    assert bus.isConnected()
    yield address, bus
    QDBusConnection.disconnectFromBus(f"ocr-portal-test-{daemon.pid}")
    _stop(daemon)


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(timeout=10)
    proc.stdout.close()


def _portal(address: str, answer: str) -> subprocess.Popen:
    env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": address, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "ocr" / "fake_portal.py"), answer],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout.readline().strip() == "ready"
    return server


@pytest.fixture
def wayland(make_controller, monkeypatch, private_bus):
    monkeypatch.setattr(ocr_feature, "capture_problem", lambda: capture.WAYLAND_MESSAGE)
    window, controller = make_controller()
    controller.ocr.portal_bus = private_bus[1]
    return window, controller, private_bus[0]


def test_the_portal_screenshot_is_read_and_translated(wayland, qtbot, tmp_path):
    window, controller, address = wayland
    server = _portal(address, str(save(render(ENGLISH[:2]), tmp_path / "Screenshot.png")))
    try:
        with qtbot.waitSignal(controller.ocr.textRead, timeout=60_000) as blocker:
            assert controller.ocr.start_region() is True
        assert blocker.args[0] == " ".join(ENGLISH[:2]) == window.source_text()
    finally:
        _stop(server)


def test_a_cancelled_portal_screenshot_changes_nothing(wayland, qtbot):
    window, controller, address = wayland
    window.set_source("keep")
    server = _portal(address, "--cancel")
    try:
        assert controller.ocr.start_region() is True  # the portal was asked; its answer comes later
        with qtbot.waitSignal(controller.ocr.portal.cancelled, timeout=30_000) as blocker:
            pass
        assert "cancelled" in blocker.args[0] and window.statusBar().currentMessage() == blocker.args[0]
        assert window.source_text() == "keep" and not window.banner.lines()
    finally:
        _stop(server)


def test_without_a_portal_the_clipboard_path_is_offered(wayland, qtbot):
    window, controller, _address = wayland  # nothing serves the portal on this bus
    with qtbot.waitSignal(controller.ocr.readFailed, timeout=10_000) as blocker:
        assert controller.ocr.start_region() is False
    assert "Ctrl+V" in blocker.args[0]
