"""How far a translation got: progress by sentence, and where a stopped one stopped.

- While a text of several sentences streams, the status bar counts the finished sentences
  ("translating: 3 of 12 sentences"), in order as they fill in (a long paste's look-ahead
  batches included), and says when all are done ("idle: all 12 sentences translated"); the
  figures of the previous run go at once when a new run starts (they described another text).
- Esc (Stop) leaves the part translated so far and marks its end in the translation pane with
  a quiet "stopped here" line (:data:`STOP_MARK`, in the palette's placeholder colour); the
  status bar says "stopped" and how far it got, not "idle". The mark is not part of the
  translation: ``MainWindow.target_text`` (copy, history, the draft) leaves it out, and the
  next translation or Clear removes it.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

from desktop_mt.app.session import Ended, Request
from desktop_mt.engine.segment import segment_sentences
from desktop_mt.engine.textproc import split_marker

from ..features.alignment import SegmentSpan
from ..i18n import translate
from ..ports import Status
from ..services import Services

__all__ = [
    "ProgressFeature",
    "STOP_MARK",
    "count_sentences",
    "has_mark",
    "mark_stopped",
    "stop_mark",
    "without_mark",
]


STOP_MARK = "\n— stopped here —"  # plain dashes: every font has them (English; stop_mark() is shown)


def stop_mark() -> str:
    """The "stopped here" line in the interface language (:data:`STOP_MARK` in English)."""
    return "\n" + translate("Progress", "— stopped here —")


def has_mark(text: str) -> bool:
    """Whether the translation pane's ``text`` ends with the stop mark, in the language shown
    now or in English (a draft saved under the other interface language)."""
    return text.endswith(stop_mark()) or text.endswith(STOP_MARK)


def mark_stopped(target: QPlainTextEdit) -> None:
    """End ``target`` with the quiet "stopped here" line (:func:`stop_mark`, italic, in the
    palette's placeholder colour)."""
    fmt = QTextCharFormat()
    fmt.setForeground(target.palette().color(QPalette.ColorRole.PlaceholderText))
    fmt.setFontItalic(True)
    cursor = QTextCursor(target.document())
    cursor.movePosition(QTextCursor.MoveOperation.End)
    cursor.insertText(stop_mark(), fmt)


def count_sentences(text: str) -> int:
    """The sentences of ``text`` as the engine splits its lines (at least 1 for any text)."""
    bodies = (split_marker(line)[1].strip() for line in text.splitlines())  # "1.", "2)", "-": not sentences
    return max(1, sum(len(segment_sentences(body)) for body in bodies if body))


def without_mark(text: str) -> str:
    """The translation pane's text without the stop mark (either language's)."""
    for mark in (stop_mark(), STOP_MARK):
        if text.endswith(mark):
            return text[: -len(mark)]
    return text


class ProgressFeature(QObject):
    """Follows the session's requests and the worker's finished sentences (module docstring)."""

    def __init__(self, services: Services) -> None:
        super().__init__(services.owner)
        self.events = services.events  # the status bar's state (a stop's)
        self.session = services.session  # the request that runs
        self.window = services.window
        self.req_id = 0
        self.total = 0
        self.done = 0
        self.stop_asked = False
        self.completed = False  # the request ``req_id`` ran to its end (session's ``ended``)
        self.session.ended.subscribe(self._on_ended)
        self.session.started.subscribe(self._on_started)
        services.worker.segmentDone.connect(self._on_sentence)
        self.session.shown.subscribe(self._on_shown)
        self.window.stopRequested.connect(self._on_stop)

    def _on_started(self, request: Request) -> None:
        self.req_id, self.done, self.stop_asked, self.completed = request.req_id, 0, False, False
        self.total = count_sentences(request.text)
        self.window.clear_stats()  # the last run's figures would pass for this one's
        self._show(Status.TRANSLATING)

    def _on_sentence(self, req_id: int, _span: SegmentSpan) -> None:
        if req_id == self.req_id and self.session.current is not None:
            self.done += 1
            self._show(Status.STOPPING if self.stop_asked else Status.TRANSLATING)

    def _show(self, state: Status) -> None:
        total = self.total
        if total > 1:
            done = min(self.done, total)
            self.window.set_state(
                state, translate("Progress", "{done} of %n sentence(s)", None, total).format(done=done)
            )

    def _on_stop(self) -> None:
        current = self.session.current
        if current is not None and current.req_id == self.req_id:
            self.stop_asked = True

    def _on_ended(self, ended: Ended) -> None:
        if ended.request.req_id == self.req_id:
            self.completed = ended.completed

    def _on_shown(self, ended: Ended) -> None:
        if ended.request.req_id != self.req_id or self.window.state() != Status.IDLE:
            return  # superseded, or failed (the error says so)
        if not self.stop_asked:
            self._say_all_done()
            return
        self.stop_asked = False
        self.mark_stopped()
        done = min(self.done, self.total)
        total = self.total
        what = (
            translate("Progress", "{done} of %n sentence(s) translated", None, total).format(done=done)
            if total > 1
            else translate("Progress", "the translation is incomplete")
        )
        self.window.set_state(Status.STOPPED, what)
        self.events.state.publish(Status.STOPPED)

    def _say_all_done(self) -> None:
        """A text of several sentences ran to its end: the status bar says all are translated
        (not for one interrupted by an edit: a new request follows and counts again)."""
        total = self.total  # a plain name: lupdate reads no other count
        if self.completed and total > 1:
            self.window.set_state(Status.IDLE, translate("Progress", "all %n sentence(s) translated", None, total))

    def mark_stopped(self) -> None:
        """Put the quiet "stopped here" line at the end of the translation pane."""
        mark_stopped(self.window.target)
