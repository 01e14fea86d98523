"""The model's completion of the sentence being corrected (issue 28): typing in a translated
sentence asks the worker for the rest of it from what was typed (``prefix=``; a new request id
and cancel flag per keystroke, greedy), the pane shows it as it streams, Tab puts it in (it
replaces the rest of the sentence), Esc dismisses it. Post-editing's collaborator
(:class:`Completion`, ``postedit.PostEditFeature.completion``).
"""

from __future__ import annotations

import dataclasses
import threading

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QTextCursor

from desktop_mt.engine.options import GenerationOptions

from ..i18n import QT_TRANSLATE_NOOP, translate
from ..services import Services
from ..window.postedit_pane import document_slice
from .alignment import AlignmentView, Pair

__all__ = [
    "Completion",
]


_COMPLETION_FAILED = QT_TRANSLATE_NOOP("Completion", "No completion: {why}")


class Completion(QObject):
    """The completion requests of the translation pane (see the module docstring)."""

    _completeRequested = Signal(int, str, str, GenerationOptions, threading.Event)  # queued into the worker's thread
    shown = Signal(str)  # the completion offered so far
    finished = Signal(int)  # request id: the model's completion is all there

    def __init__(self, services: Services, view: AlignmentView, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.window = services.window
        self.pane = services.window.target
        self.view = view  # the sentences of the panes
        self._next_id = 0
        self.pending: tuple[int, threading.Event] | None = None
        self._completion = ""
        self._pair: Pair | None = None  # the sentence being completed
        self.accepting = False  # an accepted completion goes in: no new request for it
        worker = services.worker
        self._completeRequested.connect(worker.complete)
        worker.completionDelta.connect(self._on_delta)
        worker.completionDone.connect(self._on_done)
        self.pane.completionAccepted.connect(self.accept)
        self.pane.completionDismissed.connect(self.cancel)

    def _pair_and_prefix(self) -> tuple[Pair, str, int] | None:
        """The translated sentence at the pane's cursor, what was typed of it up to the cursor,
        and the cursor's position; None when the cursor is in no sentence."""
        pos = self.pane.textCursor().position()
        alignment = self.view.alignment
        last = alignment.last_edited if alignment is not None else None
        # Where two sentences meet (no space between Chinese ones) the one being typed in.
        if last is not None and alignment is not None and last in alignment.pairs and last.tgt[0] < pos <= last.tgt[1]:
            pair: Pair | None = last
        else:
            pair = self.view.pair_at("target", pos)
        if pair is None or pos <= pair.tgt[0]:
            return None
        return pair, document_slice(self.pane.document(), pair.tgt[0], pos), pos

    def request(self) -> int | None:
        """Ask the worker for the model's completion of the sentence at the cursor from what
        was typed there (the previous request is cancelled). Returns the request id."""
        self.cancel()
        found = self._pair_and_prefix()
        if found is None or not found[1].strip():
            return None
        pair, prefix, _pos = found
        self._next_id += 1
        cancel = threading.Event()
        self.pending = (self._next_id, cancel)
        self._pair = pair
        self._completion = ""
        # Greedy: a completion while typing must come at once (Settings' beams are for translations).
        options = dataclasses.replace(self.services.window_options(), beams=1)
        self._completeRequested.emit(self._next_id, pair.source, prefix, options, cancel)
        return self._next_id

    def cancel(self) -> None:
        """Drop the completion asked for or shown (its flag stops the model within one step)."""
        if self.pending is not None:
            self.pending[1].set()
            self.pending = None
        self._completion = ""
        self.pane.hide_completion()

    def _on_delta(self, req_id: int, text: str) -> None:
        if self.pending is None or self.pending[0] != req_id:
            return
        self._completion += text
        pair = self._pair
        self.pane.show_completion(self._completion, pair.tgt[1] if pair is not None else None)
        self.shown.emit(self._completion)

    def _on_done(self, req_id: int, message: str) -> None:
        if self.pending is None or self.pending[0] != req_id:
            return
        if message:
            self.window.statusBar().showMessage(translate("Completion", _COMPLETION_FAILED).format(why=message), 6000)
        self.finished.emit(req_id)

    def accept(self, completion: str) -> None:
        """Tab: the completion replaces the rest of the sentence after the cursor."""
        found = self._pair_and_prefix()
        self.cancel()
        if found is None:
            return
        pair, _prefix, pos = found
        cursor = QTextCursor(self.pane.document())
        cursor.setPosition(pos)
        cursor.setPosition(min(pair.tgt[1], self.pane.document().characterCount() - 1), QTextCursor.MoveMode.KeepAnchor)
        self.accepting = True
        try:
            with self.pane.user_edit():
                cursor.beginEditBlock()
                cursor.insertText(completion)
                cursor.endEditBlock()
        finally:
            self.accepting = False
        self.pane.setTextCursor(cursor)
