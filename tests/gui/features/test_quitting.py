"""The quit question while work runs: its text follows the running job while it is open."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QPoint, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QWidget

from desktop_mt.app.session import Session
from desktop_mt.gui.features.quitting import QuitGuard


@dataclasses.dataclass
class Job:
    src: str


class Window(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.may_quit = lambda: True


@dataclasses.dataclass
class Services:
    """The window's services as the guard uses them: the window, its session (nothing runs)."""

    window: Window
    session: Session = dataclasses.field(default_factory=Session)
    owner: None = None


@dataclasses.dataclass
class Files:
    """The file jobs as the guard sees them: a job at 113 of 193 segments."""

    job: Job | None = dataclasses.field(default_factory=lambda: Job("/data/film.srt"))
    progress: tuple[int, int] | None = (113, 193)


def test_the_quit_question_reads_the_job_count_again_while_it_is_open(qtbot):
    window = Window()
    qtbot.addWidget(window)
    files = Files()
    guard = QuitGuard(Services(window), files)
    assert window.may_quit == guard.may_quit
    seen: list[str] = []

    def answer() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.append(box.text())
        try:
            files.progress = (185, 193)  # the job goes on behind the question
            qtbot.waitUntil(lambda: "185 of 193" in box.text(), timeout=10_000)
            seen.append(box.text())
            files.job, files.progress = None, None  # and ends
            qtbot.waitUntil(lambda: "Nothing runs" in box.text(), timeout=10_000)
            seen.append(box.text())
        finally:  # answered even when a wait fails, so the test ends
            next(b for b in box.buttons() if b.text() == "Keep running").click()

    QTimer.singleShot(0, answer)
    assert window.may_quit() is False
    assert "film.srt is being translated (113 of 193 segments done)" in seen[0]
    assert len(seen) == 3, seen
    assert "(185 of 193 segments done)" in seen[1] and "113" not in seen[1]


def test_the_quit_button_stays_under_the_pointer_when_the_question_shortens(qtbot):
    """The job ends while the question is open: its text shrinks to "Nothing runs any more.",
    and the Quit button stays where it was (the pointer on it still clicks it)."""
    window = Window()
    qtbot.addWidget(window)
    files = Files()
    guard = QuitGuard(Services(window), files)
    assert window.may_quit == guard.may_quit
    places: list[tuple[int, int, int, int]] = []

    def place(button: QPushButton) -> tuple[int, int, int, int]:
        QApplication.sendPostedEvents()  # the layout the text change asked for
        corner = button.mapToGlobal(QPoint(0, 0))
        return corner.x(), corner.y(), button.width(), button.height()

    def answer() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        quit_button = next(b for b in box.buttons() if b.text() == "Quit")
        keep = next(b for b in box.buttons() if b.text() == "Keep running")
        try:
            qtbot.waitExposed(box)
            places.append(place(quit_button))
            files.job, files.progress = None, None  # the job ends behind the question
            qtbot.waitUntil(lambda: "Nothing runs" in box.text(), timeout=10_000)
            places.append(place(quit_button))
        finally:  # answered even when a wait fails, so the test ends
            keep.click()

    QTimer.singleShot(0, answer)
    assert window.may_quit() is False
    assert len(places) == 2, places
    assert places[1] == places[0]
