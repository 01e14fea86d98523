"""The main window's file-job face: files dropped on it, the job's strip (progress, Cancel),
File > Recent files, and the questions before a job (an existing output, an interrupted job's
journal) with their answers as enums. :class:`WindowFiles` is a part the main window owns
(``MainWindow.file_actions``, beside its chrome and menus); like the rest of the window it only
shows and asks, and says what the user wants by the window's signals (``translateFileRequested``)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QMessageBox

from ..features.file_jobs import OutputAnswer, ResumeAnswer
from ..i18n import translate
from .chrome import AnswerT, WindowChrome, dropped_file
from .menus import WindowMenus
from .shell import WindowShell

__all__ = [
    "WindowFiles",
]


class WindowFiles(QObject):
    """File drops, the file-job strip, Recent files and the job's questions (see the module
    docstring). A QObject: it filters the drag events of the window's panes."""

    def __init__(self, window: WindowShell, chrome: WindowChrome, menus: WindowMenus) -> None:
        super().__init__(window.qt_window())
        self.shell = window
        self.window = window.qt_window()
        self.chrome = chrome
        self.recent_menu = menus.recent_menu
        self.set_recent_files([])
        # The editors take drops themselves (text); file drops on them go to the job too.
        self.window.setAcceptDrops(True)  # the window's own drag events come here by MainWindow's handlers
        for editor in (chrome.source, chrome.target):
            editor.viewport().installEventFilter(self)

    # ---- drops --------------------------------------------------------------------------
    @staticmethod
    def accept_file_drag(event: QDragMoveEvent) -> bool:
        """Accept a drag that carries a local file (DragEnter is a DragMove); whether it did."""
        if not dropped_file(event.mimeData()):
            return False
        event.acceptProposedAction()
        return True

    def take_file_drop(self, event: QDropEvent) -> bool:
        """A dropped local file is to be translated (``translateFileRequested``); whether it was one."""
        path = dropped_file(event.mimeData())
        if not path:
            return False
        event.acceptProposedAction()
        self.shell.translateFileRequested.emit(path)
        return True

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        """A file dragged over the window or a pane is accepted, and dropped it is translated;
        anything else (text) goes on to the widget."""
        if isinstance(event, QDragMoveEvent) and self.accept_file_drag(event):  # DragEnter too
            return True
        if event.type() == QEvent.Type.Drop and isinstance(event, QDropEvent):
            return self.take_file_drop(event)
        return super().eventFilter(obj, event)

    # ---- the running job ------------------------------------------------------------------
    def show_file_job(self, name: str) -> None:
        """Show the job panel for ``name``; no second job can start meanwhile."""
        self.chrome.file_job.start(name)
        self._set_file_entry_enabled(False)

    def set_file_progress(self, done: int, total: int, rate: float) -> None:
        """Job progress: segments done/total and segments per second."""
        self.chrome.file_job.set_progress(done, total, rate)

    def set_file_job_text(self, text: str) -> None:
        """Replace the job panel's label (e.g. "Cancelling…")."""
        self.chrome.file_job.label.setText(text)
        self.chrome.file_job.cancel_button.setEnabled(False)

    def end_file_job(self, message: str) -> None:
        """Hide the job panel and show ``message`` in the status bar."""
        self.chrome.file_job.hide()
        self._set_file_entry_enabled(True)
        self.window.statusBar().showMessage(message, 10_000)

    def _set_file_entry_enabled(self, enabled: bool) -> None:
        self.chrome.file_action.setEnabled(enabled)
        self.recent_menu.setEnabled(enabled)
        self.window.setAcceptDrops(enabled)

    def set_recent_files(self, files: list[str]) -> None:
        """The File > Recent files entries (newest first); choosing one translates it again."""
        self.recent_menu.clear()
        for path in files:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.setData(path)
            action.triggered.connect(lambda _c=False, p=path: self.shell.translateFileRequested.emit(p))
        if not files:
            self.recent_menu.addAction(translate("WindowFiles", "(none yet)")).setEnabled(False)

    def recent_files(self) -> list[str]:
        """The paths the Recent files menu offers."""
        return [a.data() for a in self.recent_menu.actions() if a.data()]

    def ask_output_exists(self, path: str, keep_both_name: str) -> OutputAnswer:
        """Ask what to do with an existing output: overwrite, keep (write ``keep_both_name``
        beside it) or cancel."""
        return self._ask(
            translate("WindowFiles", "The translation exists"),
            translate(
                "WindowFiles",
                "{name} already exists in {folder}.\n\nReplace it, or keep it and save the new translation as {other}?",
            ).format(name=Path(path).name, folder=Path(path).parent, other=keep_both_name),
            (translate("WindowFiles", "Keep both"), OutputAnswer.KEEP),
            (translate("WindowFiles", "Replace"), OutputAnswer.OVERWRITE),
            OutputAnswer.CANCEL,
        )

    def ask_resume(self, name: str, kept: int, total: int) -> ResumeAnswer:
        """An interrupted job of ``name`` left a journal: resume, restart or cancel."""
        return self._ask(
            translate("WindowFiles", "Continue the interrupted translation?"),
            translate(
                "WindowFiles",
                "An earlier translation of {name} stopped with {kept} of {total} "
                "segments done. Continue from there, or start over?",
            ).format(name=name, kept=kept, total=total),
            (translate("WindowFiles", "Continue"), ResumeAnswer.RESUME),
            (translate("WindowFiles", "Start over"), ResumeAnswer.RESTART),
            ResumeAnswer.CANCEL,
        )

    def _ask(
        self, title: str, text: str, default: tuple[str, AnswerT], other: tuple[str, AnswerT], cancel: AnswerT
    ) -> AnswerT:
        """A modal question with two answers and Cancel; returns the chosen answer."""
        box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.NoButton, self.window)
        first = box.addButton(default[0], QMessageBox.ButtonRole.AcceptRole)
        second = box.addButton(other[0], QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(first)
        box.exec()
        clicked = box.clickedButton()
        return default[1] if clicked is first else other[1] if clicked is second else cancel
