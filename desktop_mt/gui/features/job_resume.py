"""An interrupted file job is offered on the next start: Continue or Discard.

A file job that was still running when the app ended (a quit that the user confirmed, a
crash, ``kill -9``) is recorded in the draft (:mod:`drafts`) and left its journal beside the
output. On the next start a strip at the top of the window names the file and how far it got;
Continue starts the job again from its journal, Discard deletes the journal. The strip does
not block the window: the user may type first and answer later.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QBoxLayout, QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from ..i18n import translate
from ..services import Services
from . import file_jobs
from .drafts import DraftKeeper
from .file_queue import FileJobs

__all__ = [
    "JobResumeOffer",
]


_logger = logging.getLogger(__name__)


class _ResumeNotice(QFrame):
    """The strip: what was interrupted, Continue and Discard."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resumeNotice")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel(self)
        self.label.setWordWrap(True)  # a narrow window wraps the file name, never cuts it
        self.continue_button = QPushButton(translate("JobResume", "Continue"), self)
        self.discard_button = QPushButton(translate("JobResume", "Discard"), self)
        self.discard_button.setToolTip(translate("JobResume", "Delete what the interrupted translation kept"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.continue_button)
        layout.addWidget(self.discard_button)
        self.hide()


class JobResumeOffer(QObject):
    """Offers the job the draft (``drafts``) recorded, if its journal is still there (see the
    module docstring); Continue starts it in the file jobs (``files``)."""

    def __init__(self, services: Services, drafts: DraftKeeper, files: FileJobs) -> None:
        super().__init__(services.owner)
        self.drafts = drafts
        self.files = files
        self.window = window = services.window
        self.notice = _ResumeNotice(window.window())
        central = window.centralWidget()
        layout = central.layout() if central is not None else None
        if not isinstance(layout, QBoxLayout):  # the strip goes above the panes
            raise TypeError("the main window's central widget has no box layout for the resume strip")
        layout.insertWidget(0, self.notice)
        self.notice.continue_button.clicked.connect(self.continue_job)
        self.notice.discard_button.clicked.connect(self.discard)
        self.job = self._interrupted()
        if self.job is not None:
            src, dst, kept, total = self.job
            self.notice.label.setText(
                translate(
                    "JobResume",
                    "The translation of {name} was interrupted with {kept} of {total} "
                    "segments done. Continue it, or discard what was kept?",
                ).format(name=Path(src).name, kept=kept, total=total)
            )
            self.notice.show()

    def _interrupted(self) -> tuple[str, str, int, int] | None:
        """(source, output, kept, total) of the recorded job when its journal is there."""
        job = self.drafts.file_job
        if job is None:
            return None
        found = file_jobs.journal_progress(file_jobs.journal_path(Path(job["dst"])))
        if found is None or not Path(job["src"]).is_file():
            self.drafts.forget_job()  # finished (no journal left) or its file is gone
            return None
        return job["src"], job["dst"], found[0], found[1]

    def continue_job(self) -> bool:
        """Continue: the job starts again from its journal, into the same output."""
        if self.job is None:
            return False
        src, dst = self.job[0], Path(self.job[1])
        # An output that appeared meanwhile is never replaced silently: the usual question.
        started = self.files.translate_file(src, dst=None if dst.exists() else dst, resume=True)
        if started:
            self._done()
        return started

    def discard(self) -> None:
        """Discard: delete the journal; the file can be translated again from the start."""
        if self.job is None:
            return
        try:
            file_jobs.journal_path(Path(self.job[1])).unlink(missing_ok=True)
        except OSError as exc:
            self.window.show_warning(
                translate("JobResume", "Could not delete the kept part: {error}").format(error=exc)
            )
            return
        _logger.info("interrupted file job discarded")
        self.drafts.forget_job()
        self._done()

    def _done(self) -> None:
        self.job = None
        self.notice.hide()
