"""``desktop_mt.gui.app.main``: the entry point ``desktop-mt`` calls without a subcommand."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QApplication

from ..base.resources_path import resource_path
from . import i18n, paths, qtcompat
from .controller import Controller
from .dialogs.settings_dialog import SettingsDialog
from .features import replace, shortcuts
from .logsetup import log_file, safe_traceback, setup_logging
from .platform.hotkey import GlobalHotkey
from .platform.single_instance import SingleInstance, send_to_running
from .ports import EngineConfig
from .settings import load_settings, settings_path
from .window import fonts
from .window.main import MainWindow
from .window.tray import Tray

__all__ = [
    "ExceptionReporter",
    "build",
    "main",
    "on_hidden_to_tray",
    "on_remote_message",
    "open_settings",
    "parse_args",
]


_logger = logging.getLogger(__name__)


class _KeepAlive(QObject):
    """A child of the window holding Python objects that must live as long as it although
    nothing else in Python refers to them (the controller, the exception reporter...): Qt's
    parent keeps this child, and the child keeps them, until the window is deleted."""

    def __init__(self, window: MainWindow, *objects: object) -> None:
        super().__init__(window)
        self.setObjectName("keepAlive")
        self.objects = objects


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Options of the window (all optional)."""
    parser = argparse.ArgumentParser(prog="desktop-mt", description="Open the translator window.")
    parser.add_argument("--model", metavar="DIR", help="use this exported model folder for this run")
    parser.add_argument(
        "--clipboard", action="store_true", help="translate the clipboard at once (in the running window, if any)"
    )
    parser.add_argument(
        "--selection",
        action="store_true",
        help="translate the primary selection (the text selected last; the clipboard where the platform has none)",
    )
    parser.add_argument(
        "files", nargs="*", metavar="FILE", help="files to translate (.txt, .srt, .docx), output next to each"
    )
    return parser.parse_args(argv)


def _act_on(args: argparse.Namespace, cwd: str, window: MainWindow, controller: Controller) -> None:
    """Do what a command line asks of the window: bring it forward, translate the clipboard,
    translate the files one after another."""
    window.bring_forward()
    if args.clipboard or args.selection:
        controller.translate_clipboard(selection=args.selection)
    if args.files:  # one after another (a job already running: after it)
        controller.translate_files([str(Path(cwd, name)) for name in args.files])


def on_remote_message(message: dict[str, Any], window: MainWindow, controller: Controller) -> None:
    """A second launch handed over its command line (see single_instance)."""
    try:
        args = parse_args(message["argv"])
    except SystemExit:  # bad options: still show the window, as a plain second launch would
        window.bring_forward()
        return
    _act_on(args, message["cwd"] or os.getcwd(), window, controller)


def on_hidden_to_tray(controller: Controller, tray: Tray) -> None:
    """The first time the close button hides the window, say that the app keeps running."""
    _logger.info("window hidden to the tray")
    if controller.settings.tray_notice_shown:
        return
    tray.notify(
        QCoreApplication.translate("App", "desktop-mt is still running"),
        QCoreApplication.translate(
            "App", "The hotkey and this tray icon keep working. Quit from the tray menu or with Ctrl+Q."
        ),
    )
    controller.settings.tray_notice_shown = True
    controller.save()


def _app_icon() -> QIcon:
    """The packaged icons/desktop-mt.svg, or a plain painted square if it is missing."""
    path = resource_path("icons", "desktop-mt.svg")
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

    def hook(self, exc_type: type[BaseException], exc: BaseException | None, tb: TracebackType | None) -> None:
        """Log type + frames (never the message: it may quote user text) and report."""
        if issubclass(exc_type, KeyboardInterrupt):
            QApplication.quit()
            return
        _logger.error("unexpected exception:\n%s", safe_traceback(exc_type, tb))
        self._report.emit(f"{exc_type.__name__}: {exc}")

    def _show(self, summary: str) -> None:
        self.window.show_error(
            QCoreApplication.translate("App", "Unexpected error"),
            QCoreApplication.translate(
                "App",
                "Something went wrong, but your text is safe and the app keeps running.\n\n{summary}\n\n"
                "Details (without your text) were written to {log}.",
            ).format(summary=summary, log=log_file()),
        )


def open_settings(
    controller: Controller,
    window: MainWindow,
    replacer: replace.TranslateReplace | None = None,
    extra: shortcuts.SelectionAndShow | None = None,
) -> SettingsDialog:
    """Show the settings dialog; Apply/OK go to the controller (the shortcuts of translate and
    replace, translate selection and show the window follow its settings_applied)."""
    hk = controller.hotkey
    dialog = SettingsDialog(controller.settings, bool(hk and hk.available), controller.hotkey_state(), window)
    keys = {
        "hotkey": hk,
        "region_hotkey": controller.ocr.hotkey,
        "replace_hotkey": replacer.hotkey if replacer else None,
    }
    if extra is not None:
        keys.update(selection_hotkey=extra.selection, show_hotkey=extra.show)
    dialog.applied.connect(lambda new: shortcuts.release_changed(keys, new))  # first: keys may swap
    dialog.applied.connect(controller.apply_settings)  # the other shortcuts follow settings_applied

    def show_states() -> None:  # what registering really did (active / taken by ... / off)
        dialog.set_shortcut_states(
            shortcuts.states(
                controller.settings,
                controller.hotkey_state(),
                controller.ocr.hotkey,
                extra,
                replacer.hotkey if replacer else None,
            )
        )

    show_states()
    dialog.applied.connect(lambda _s: show_states())
    dialog.open()
    return dialog


def build(
    argv: list[str] | None = None, translator_factory: Callable[[EngineConfig], Any] | None = None
) -> tuple[MainWindow, Controller, Tray]:
    """Create window, controller, tray (the app must exist). Returns them for main/tests."""
    args = parse_args(argv)
    loaded = load_settings()
    window = MainWindow()
    window.set_icon(_app_icon())
    controller = Controller(
        window,
        loaded.settings,
        settings_path=settings_path(),
        translator_factory=translator_factory,
        hotkey=GlobalHotkey(action=shortcuts.LABELS["hotkey"]),
        model_override=args.model,
    )
    reporter = ExceptionReporter(window)
    reporter.install()
    tray = Tray(window.windowIcon(), window)
    tray.translateClipboard.connect(controller.translate_clipboard)
    tray.toggleWindow.connect(lambda: window.hide() if window.isVisible() else window.bring_forward())
    tray.quitRequested.connect(window.quit)
    controller.set_tray_available(tray.available)
    _logger.info("system tray available: %s", "yes" if tray.available else "no")
    window.hiddenToTray.connect(lambda: on_hidden_to_tray(controller, tray))
    replacer = replace.install(controller.services, tray)  # registered again on Apply (settings_applied)
    window.closing.connect(replacer.shutdown)
    # Translate selection, show the window (registered again on Apply: settings_applied).
    extra = shortcuts.SelectionAndShow(controller.services, controller.popup, controller.input, controller.direction)
    extra.register()
    window.closing.connect(extra.shutdown)
    window.settingsRequested.connect(lambda: open_settings(controller, window, replacer, extra))
    for warning in loaded.warnings:
        window.show_warning(warning)
    if not fonts.installed_cjk_families():
        window.show_warning(
            QCoreApplication.translate(
                "App",
                "No Chinese font found: install Noto Sans CJK SC "
                "(Debian/Ubuntu: fonts-noto-cjk) so the translation renders.",
            )
        )
    _KeepAlive(window, controller, reporter, tray, replacer, extra)  # Python wrappers live as long as the window
    return window, controller, tray


def main(argv: list[str] | None = None, share_threads: bool = False) -> int:
    """Open the translator window on the bundled model (or --model DIR), or hand the command
    line to the window already running for this user. Returns the exit code. ``share_threads``:
    the window owns the process (``desktop-mt``): its ONNX Runtime sessions share one thread
    pool of the Settings' thread count (``engine.runtime.share_thread_pool``)."""
    args = parse_args(argv)  # --help and bad options are answered before Qt needs a display
    setup_logging()
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()  # PySide6 6.12 + Python 3.11 (see qtcompat)
    app.setApplicationName(paths.APP_NAME)
    argv_list = list(sys.argv[1:] if argv is None else argv)
    if send_to_running(argv_list):
        _logger.info("handed the command line to the running instance")
        return 0
    instance = SingleInstance()
    instance.listen()
    i18n.install(app, load_settings().settings.language)  # before any widget: they translate as made
    app.setStyleSheet(fonts.stylesheet())
    # The window may hide to the tray; quitting is explicit (window.closing below).
    app.setQuitOnLastWindowClosed(False)
    window, controller, tray = build(argv)
    if share_threads:  # before the worker opens the first session
        from ..engine.runtime import share_thread_pool  # onnxruntime: loaded with the model anyway

        share_thread_pool(controller.settings.intra_op_threads)
    instance.messageReceived.connect(lambda message: on_remote_message(message, window, controller))
    window.closing.connect(controller.shutdown)
    window.closing.connect(instance.close)
    window.closing.connect(app.quit)
    app.aboutToQuit.connect(controller.shutdown)  # also on Ctrl+C / session logout
    controller.start()
    tray.show()
    window.show()
    controller.first_start.show_if_due()  # only the demo models: the page that offers the real ones
    if args.clipboard or args.selection or args.files:
        _act_on(args, os.getcwd(), window, controller)
    try:
        return app.exec()
    finally:
        instance.close()
        tray.hide()
