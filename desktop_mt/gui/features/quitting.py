"""Quitting while work runs asks first.

Ctrl+Q, File > Quit, the tray's Quit and a window close that quits (no tray) all go through
``MainWindow.may_quit``. While a translation, a file job or the add of a model folder runs,
:class:`QuitGuard` asks whether to quit now; the default answer keeps the app running. The text
is safe either way (:mod:`drafts` keeps it), a file job stopped by the quit is offered on the
next start (:mod:`job_resume`), and a stopped add must be started again, which the question says.
The question stays true while it is open: a file job goes on meanwhile, so its count is read
again every half second (it said "113 of 193" while the job was at 185). A shorter text does not
shrink the box while it is open, so its buttons stay under the pointer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMessageBox, QWidget

from ..dialogs import folder_adding
from ..i18n import translate
from ..services import Services
from .file_queue import FileJobs

__all__ = [
    "QuitGuard",
]


_REFRESH_MS = 500  # how often an open question reads what runs again


def _question(running: str) -> str:
    running = running or translate("Quitting", "Nothing runs any more.")
    return running + "\n\n" + translate("Quitting", "Quit anyway?")


def _set_text_keeping_size(box: QMessageBox, text: str) -> None:
    """``box.setText(text)`` without shrinking the open box: QMessageBox fits its size to the
    text, and when the job ends behind the question the text drops to one line, the box shrinks
    and the Quit button moves out from under the pointer (a click then lands on nothing)."""
    before = box.size()
    box.setText(text)
    after = box.size()
    box.setFixedSize(max(before.width(), after.width()), max(before.height(), after.height()))


def _ask_quit(parent: QWidget, running: str, live: Callable[[], str] | None = None) -> bool:
    """The question (modal); True to quit. ``live``: what runs now, read again while the
    question is open (the work goes on behind it)."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        translate("Quitting", "Quit desktop-mt?"),
        _question(running),
        QMessageBox.StandardButton.NoButton,
        parent,
    )
    if live is not None:
        timer = QTimer(box)
        timer.setInterval(_REFRESH_MS)
        timer.timeout.connect(lambda: _set_text_keeping_size(box, _question(live())))
        timer.start()
    quit_button = box.addButton(translate("Quitting", "Quit"), QMessageBox.ButtonRole.DestructiveRole)
    keep = box.addButton(translate("Quitting", "Keep running"), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep)
    box.setEscapeButton(keep)
    box.exec()
    return box.clickedButton() is quit_button


class QuitGuard(QObject):
    """Answers the window's ``may_quit`` from what runs: the session's request, the file job
    (``files``), a model folder being added."""

    def __init__(self, services: Services, files: FileJobs, ask: Callable[[QWidget, str], bool] | None = None) -> None:
        super().__init__(services.owner)
        self.files = files
        self.ask: Callable[[QWidget, str], bool] = ask or self._ask_live
        self.window = services.window
        self.session = services.session  # the request that runs
        self.window.may_quit = self.may_quit

    def running(self) -> str:
        """What quitting would stop, in words ("" when nothing runs)."""
        job, progress = self.files.job, self.files.progress
        parts = []
        if self.session.current is not None:
            parts.append(translate("Quitting", "A translation is running; the part translated so far is kept."))
        if job is not None:
            done = (
                translate("Quitting", " ({done} of {total} segments done)").format(done=progress[0], total=progress[1])
                if progress
                else ""
            )
            parts.append(
                translate(
                    "Quitting",
                    "{name} is being translated{done}. What is done is kept, and desktop-mt offers to "
                    "continue it when it starts again.",
                ).format(name=Path(job.src).name, done=done)
            )
        for name in folder_adding.adds_running():
            parts.append(
                translate(
                    "Quitting",
                    "{name} is being added as a model; quitting stops that, and it can be added again later.",
                ).format(name=name)
            )
        return "\n".join(parts)

    def _ask_live(self, parent: QWidget, running: str) -> bool:
        """:func:`_ask_quit`, its text kept up to date from :meth:`running`."""
        return _ask_quit(parent, running, self.running)

    def may_quit(self) -> bool:
        """True when nothing runs, or the user chose to quit anyway."""
        running = self.running()
        return not running or self.ask(self.window.window(), running)
