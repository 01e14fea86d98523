"""``desktop_mt.gui.app.main``: the entry point ``desktop-mt`` calls without a subcommand."""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from types import TracebackType

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QIcon, QPainter, QPixmap, QColor
from PySide6.QtWidgets import QApplication

from . import fonts, paths, qtcompat
from .controller import Controller
from .hotkey import GlobalHotkey
from .logsetup import log_file, safe_traceback, setup_logging
from .settings import load_settings, settings_path
from .settings_dialog import SettingsDialog
from .tray import Tray
from .window import MainWindow

log = logging.getLogger(__name__)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Options of the window (all optional)."""
    parser = argparse.ArgumentParser(prog="desktop-mt", description="Open the translator window.")
    parser.add_argument("--model", metavar="DIR", help="use this exported model folder for this run")
    return parser.parse_args(argv)


def app_icon() -> QIcon:
    """resources/icons/desktop-mt.svg, or a plain painted square if it is missing."""
    path = paths.resources_dir() / "icons" / "desktop-mt.svg"
    icon = QIcon(str(path)) if path.exists() else QIcon()
    if icon.isNull():
        pixmap = QPixmap(32, 32)
        pixmap.fill(QColor("#2f6fb3"))
        QPainter(pixmap).end()
        icon = QIcon(pixmap)
    return icon


class ExceptionReporter(QObject):
    """sys/threading excepthooks: log safely, then show a dialog in the UI thread."""

    _report = Signal(str)

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.window = window
        self._report.connect(self._show)  # queued when emitted from another thread

    def install(self) -> None:
        """Become sys.excepthook and threading.excepthook."""
        sys.excepthook = self.hook
        threading.excepthook = lambda args: self.hook(args.exc_type, args.exc_value, args.exc_traceback)

    def hook(self, exc_type: type[BaseException], exc: BaseException | None,
             tb: TracebackType | None) -> None:
        """Log type + frames (never the message: it may quote user text) and report."""
        if issubclass(exc_type, KeyboardInterrupt):
            QApplication.quit()
            return
        log.error("unexpected exception:\n%s", safe_traceback(exc_type, tb))
        self._report.emit(f"{exc_type.__name__}: {exc}")

    def _show(self, summary: str) -> None:
        self.window.show_error(
            "Unexpected error",
            f"Something went wrong, but your text is safe and the app keeps running.\n\n{summary}\n\n"
            f"Details (without your text) were written to {log_file()}.")


def open_settings(controller: Controller, window: MainWindow) -> SettingsDialog:
    """Show the settings dialog; Apply/OK go to the controller."""
    hk = controller.hotkey
    dialog = SettingsDialog(controller.settings, bool(hk and hk.available),
                            hk.reason if hk else "", window)
    dialog.applied.connect(controller.apply_settings)
    dialog.applied.connect(lambda _s: hk and dialog.set_hotkey_status(
        f"Global hotkey {hk.active_sequence} is active." if hk.active_sequence else hk.reason))
    dialog.open()
    return dialog


def build(argv: list[str] | None = None, translator_factory=None):
    """Create window, controller, tray (the app must exist). Returns them for main/tests."""
    args = parse_args(argv)
    loaded = load_settings()
    window = MainWindow()
    window.set_icon(app_icon())
    controller = Controller(window, loaded.settings, settings_path=settings_path(),
                            translator_factory=translator_factory, hotkey=GlobalHotkey(),
                            model_override=args.model)
    reporter = ExceptionReporter(window)
    reporter.install()
    tray = Tray(window.windowIcon(), window)
    tray.translateClipboard.connect(controller.translate_clipboard)
    tray.toggleWindow.connect(lambda: window.hide() if window.isVisible() else window.bring_forward())
    tray.quitRequested.connect(window.close)
    window.settingsRequested.connect(lambda: open_settings(controller, window))
    for warning in loaded.warnings:
        window.show_warning(warning)
    if not fonts.installed_cjk_families():
        window.show_warning("No Chinese font found: install Noto Sans CJK SC "
                            "(Debian/Ubuntu: fonts-noto-cjk) so the translation renders.")
    window._keep = (controller, reporter, tray)  # keep Python wrappers alive with the window
    return window, controller, tray


def main(argv: list[str] | None = None) -> int:
    """Open the translator window on the bundled model (or --model DIR). Returns the exit code."""
    setup_logging()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()  # PySide6 6.12 + Python 3.11 (see qtcompat)
    app.setApplicationName(paths.APP_NAME)
    app.setStyleSheet(fonts.stylesheet())
    app.setQuitOnLastWindowClosed(True)
    window, controller, tray = build(argv)
    window.closing.connect(controller.shutdown)
    app.aboutToQuit.connect(controller.shutdown)  # also on Ctrl+C / session logout
    controller.start()
    tray.show()
    window.show()
    try:
        return app.exec()
    finally:
        tray.hide()
