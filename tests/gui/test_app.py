"""The assembled app: tray actions, exception reporting, ``main()``."""

from __future__ import annotations

import sys
import threading

import pytest
from PySide6.QtGui import QGuiApplication

from desktop_mt.gui import app as app_mod
from desktop_mt.gui.logsetup import log_file, setup_logging

from .fakes import fake_factory


@pytest.fixture
def built(qtbot):
    window, controller, tray = app_mod.build([], translator_factory=fake_factory())
    qtbot.addWidget(window)
    with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):
        controller.start()
    window.show()
    qtbot.waitExposed(window)
    yield window, controller, tray
    controller.shutdown()


def test_tray_translate_clipboard_brings_window_forward_and_streams(qtbot, built):
    window, controller, tray = built
    window.showMinimized()
    QGuiApplication.clipboard().setText("from the tray")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        tray.translate_action.trigger()
    assert window.target_text() == "<from><the><tray>"
    assert window.isVisible() and not window.isMinimized()


def test_tray_show_hide_and_quit(qtbot, built):
    window, controller, tray = built
    tray.toggle_action.trigger()
    assert not window.isVisible()
    tray.toggle_action.trigger()
    assert window.isVisible()
    with qtbot.waitSignal(window.closing, timeout=10_000):
        tray.quit_action.trigger()
    assert not window.isVisible()
    assert [a.text() for a in tray.menu.actions() if a.text()] == ["Translate clipboard", "Show/Hide window", "Quit"]


def test_unexpected_exception_logged_without_user_text_and_shown(qtbot, built):
    window, controller, tray = built
    setup_logging()
    reporter = app_mod.ExceptionReporter(window)
    try:
        raise ValueError("cannot handle 'my secret sentence'")
    except ValueError as exc:
        reporter.hook(type(exc), exc, exc.__traceback__)
    qtbot.waitUntil(lambda: len(window.error_dialogs) > 0, timeout=10_000)
    assert "ValueError" in window.error_dialogs[-1].text()
    assert str(log_file()) in window.error_dialogs[-1].text()
    logged = log_file().read_text(encoding="utf-8")
    assert "ValueError" in logged and "test_app.py" in logged
    assert "secret" not in logged


def test_exception_in_a_background_thread_reaches_a_dialog(qtbot, built):
    window, controller, tray = built
    app_mod.ExceptionReporter(window).install()

    def boom():
        raise RuntimeError("thread failure")

    t = threading.Thread(target=boom)
    t.start()
    t.join()
    qtbot.waitUntil(lambda: any("RuntimeError" in d.text() for d in window.error_dialogs), timeout=10_000)
    assert window.isVisible()


# main() runs QApplication.exec(); in the pytest process that leaves later worker threads
# without their event loop (PySide6 6.12), so main() is exercised in a subprocess.
MAIN_SCRIPT = r"""
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from desktop_mt.gui import app as app_mod
import desktop_mt.gui.workers.translation as worker_mod
if sys.argv[1] == "fake":
    from tests.gui.fakes import fake_factory
    worker_mod.default_translator_factory = fake_factory()
app = QApplication([])
def check():
    wins = [w for w in QApplication.topLevelWidgets() if isinstance(w, app_mod.MainWindow) and w.isVisible()]
    label = wins[0].model_label.text() if wins else ""
    if not wins or wins[0].state() not in ("idle", "error"):
        QTimer.singleShot(20, check)
        return
    print("RESULT " + json.dumps({"model": label, "state": wins[0].state(),
                                  "errors": [d.text() for d in wins[0].error_dialogs],
                                  "banner": wins[0].banner.label.text()}), flush=True)
    wins[0].close()
QTimer.singleShot(0, check)
QTimer.singleShot(60_000, QApplication.quit)  # never hang the test run
sys.exit(app_mod.main(sys.argv[2:]))
"""


def run_main(mode: str, *args: str, timeout: float = 120) -> tuple[int, dict]:
    """Run ``main(args)`` in a fresh process; returns (exit code, what the window showed)."""
    import json
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(root))
    proc = subprocess.run(
        [sys.executable, "-c", MAIN_SCRIPT, mode, *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, f"no result; rc={proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}"
    return proc.returncode, json.loads(lines[-1][len("RESULT ") :])


def test_main_opens_window_and_returns_exit_code():
    rc, seen = run_main("fake")
    assert rc == 0
    assert seen["model"] == "fake-en-zh · int8" and seen["state"] == "idle"


def test_main_model_override_that_is_broken_falls_back_to_the_bundled_model(tmp_path):
    rc, seen = run_main("real", "--model", str(tmp_path / "missing-model"))
    assert rc == 0
    assert seen["state"] == "idle"  # translating with the bundled model, not stuck without one
    assert "missing-model" in seen["banner"] and "bundled model instead" in seen["banner"]
    assert "missing-model" not in seen["model"]
