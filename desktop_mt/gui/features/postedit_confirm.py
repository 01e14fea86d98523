"""Per-sentence confirmation in the window (issue 46), as a CAT tool confirms a segment.

Each sentence shown has a status (:func:`SentenceStatus`): the model's (``machine``), changed
by the user (``edited``), the memory's approved or imported translation (``memory``) or
confirmed by the user (``confirmed``: the memory holds it, approved, exactly as shown). Only a
confirmation writes an *approved* pair; an edit goes in as an unapproved edit when the text
moves on (``PostEditFeature.commit``).

- **Confirm sentence** (Ctrl+Shift+Enter) confirms the sentence at the cursor and moves the
  cursor to the next sentence not confirmed yet (memoQ's Ctrl+Enter; here Ctrl+Enter translates).
- **Confirm all sentences…** asks first, saying how many sentences it confirms and how many
  of them are the machine's, unreviewed; **Undo confirm all** puts the memory back as it was.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence, QTextCursor
from PySide6.QtWidgets import QMessageBox

from desktop_mt.engine.direction import sentence_direction
from desktop_mt.tm.store import Entry

from ..i18n import QT_TRANSLATE_NOOP, translate
from ..ports import StrEnum, WindowPort
from ..window.direction_bar import DirectionFeature
from .alignment import MEMORY, AlignmentView, Pair
from .user_memory import UserMemory

__all__ = [
    "Confirmation",
    "Said",
    "SentenceStatus",
]


_logger = logging.getLogger(__name__)

_CONFIRM_SHORTCUT = "Ctrl+Shift+Return"


class SentenceStatus(StrEnum):
    """Where a shown sentence's translation stands."""

    MACHINE = "machine translation"
    EDITED = "edited, not confirmed"
    MEMORY = "from the translation memory"
    CONFIRMED = "confirmed"


class Said(StrEnum):
    """What the status bar says about confirmation (English; shown through :meth:`shown`)."""

    CONFIRMED = QT_TRANSLATE_NOOP(
        "PostEditConfirm", "Sentence confirmed ({done} of {total}): kept in the translation memory as approved"
    )
    ALREADY = QT_TRANSLATE_NOOP("PostEditConfirm", "This sentence is confirmed already ({done} of {total})")
    NO_SENTENCE = QT_TRANSLATE_NOOP("PostEditConfirm", "Put the cursor in a translated sentence to confirm it.")
    NOTHING = QT_TRANSLATE_NOOP("PostEditConfirm", "Nothing to confirm: every sentence shown is confirmed.")

    def shown(self, **values: object) -> str:
        """The message in the interface language, its ``{fields}`` filled."""
        return translate("PostEditConfirm", self.value).format(**values)


@dataclasses.dataclass(frozen=True)
class _Before:
    """A memory entry as it was before a confirmation wrote over it (None: there was none)."""

    written_id: int
    previous: Entry | None


class Confirmation(QObject):
    """The confirm actions and the sentences' status (see the module docstring)."""

    def __init__(
        self,
        window: WindowPort,
        view: AlignmentView,
        direction: DirectionFeature,
        memory: UserMemory,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window = window
        self.view = view  # the sentences shown
        self.direction = direction  # the window's direction: each sentence's way into the memory
        self.user_memory = memory
        self._undo: list[_Before] = []
        self._status: dict[tuple[str, str], bool] = {}  # (source, translation) -> approved in the memory
        memory.changed.connect(self._status.clear)
        self.confirm_action = QAction(translate("PostEditConfirm", "Confirm sentence"), self.window.window())
        self.confirm_action.setShortcut(QKeySequence(_CONFIRM_SHORTCUT))
        self.confirm_action.setToolTip(
            translate(
                "PostEditConfirm",
                "Keep the sentence at the cursor in the translation memory as approved, then go to the next ({keys})",
            ).format(keys=_CONFIRM_SHORTCUT)
        )
        self.confirm_action.triggered.connect(lambda _c=False: self.confirm_current())
        self.confirm_all_action = QAction(translate("PostEditConfirm", "Confirm all sentences…"), self.window.window())
        self.confirm_all_action.setToolTip(
            translate("PostEditConfirm", "Confirm every sentence shown, after saying how many are unreviewed")
        )
        self.confirm_all_action.triggered.connect(lambda _c=False: self.confirm_all(ask=True))
        self.undo_action = QAction(translate("PostEditConfirm", "Undo confirm all"), self.window.window())
        self.undo_action.setEnabled(False)
        self.undo_action.triggered.connect(lambda _c=False: self.undo_confirm_all())
        self.view.status_of = self.status

    @property
    def actions(self) -> list[QAction]:
        return [self.confirm_action, self.confirm_all_action, self.undo_action]

    # ---- status --------------------------------------------------------------------------
    def status(self, pair: Pair) -> SentenceStatus:
        """``pair``'s status (see :class:`SentenceStatus`)."""
        if pair.origin == MEMORY and not pair.edited:
            return SentenceStatus.MEMORY
        if self._approved(pair):
            return SentenceStatus.CONFIRMED
        return SentenceStatus.EDITED if pair.edited else SentenceStatus.MACHINE

    def _approved(self, pair: Pair) -> bool:
        key = (pair.source, pair.translation.strip())
        if key not in self._status:
            memory, way = self.user_memory.memory, self._direction(pair)
            match = memory.exact(pair.source, way) if memory is not None and way is not None else None
            self._status[key] = bool(
                match is not None and match.entry.origin == "approved" and match.entry.target == key[1]
            )
        return self._status[key]

    def _direction(self, pair: Pair) -> str | None:
        return sentence_direction(pair.source, self.direction.target)

    def counts(self) -> tuple[int, int]:
        """Sentences confirmed (or the memory's) and sentences shown."""
        pairs = self._pairs()
        done = sum(1 for p in pairs if self.status(p) in (SentenceStatus.CONFIRMED, SentenceStatus.MEMORY))
        return done, len(pairs)

    def _pairs(self) -> list[Pair]:
        alignment = self.view.alignment
        if alignment is None:
            return []
        return sorted((p for p in alignment.pairs if p.translation.strip()), key=lambda p: p.tgt)

    # ---- confirming ----------------------------------------------------------------------
    def confirm_current(self) -> bool:
        """Confirm the sentence at the cursor (the translation pane's, else the source's) and
        move the translation pane's cursor to the next sentence not confirmed. Whether one was."""
        pair = self.view.pair_at_cursor() or self.view.pair
        if pair is None or not pair.translation.strip():
            self._say(Said.NO_SENTENCE.shown())
            return False
        if self.status(pair) is SentenceStatus.CONFIRMED:
            done, total = self.counts()
            self._say(Said.ALREADY.shown(done=done, total=total))
            self._next_after(pair)
            return False
        if self._write([pair]) is None:
            return False
        done, total = self.counts()
        self._say(Said.CONFIRMED.shown(done=done, total=total))
        self._next_after(pair)
        return True

    def confirm_all(self, ask: bool = True) -> int:
        """Confirm every sentence shown not confirmed yet; ``ask``: say how many (and how many
        are the machine's, unreviewed) and go on only on Yes. Returns how many were written;
        Undo confirm all takes them back."""
        todo = [p for p in self._pairs() if self.status(p) not in (SentenceStatus.CONFIRMED, SentenceStatus.MEMORY)]
        if not todo:
            self._say(Said.NOTHING.shown())
            return 0
        machine = sum(1 for p in todo if self.status(p) is SentenceStatus.MACHINE)
        if ask and not self._ask(len(todo), machine):
            return 0
        before = self._write(todo)
        if before is None:
            return 0
        self._undo = before
        self.undo_action.setEnabled(bool(before))
        confirmed = len(before)
        self._say(
            translate(
                "PostEditConfirm", "%n sentence(s) confirmed; Edit > Undo confirm all takes them back", None, confirmed
            )
        )
        return len(before)

    def _ask(self, count: int, machine: int) -> bool:
        unreviewed = (
            translate("PostEditConfirm", "\n\n%n of them are the machine's translation, not reviewed.", None, machine)
            if machine
            else ""
        )
        answer = QMessageBox.question(
            self.window.window(),
            translate("PostEditConfirm", "Confirm all sentences"),
            translate(
                "PostEditConfirm",
                "Confirm %n sentence(s)? Each goes into the translation memory as approved, "
                "and is then used as it is wherever the sentence comes again.",
                None,
                count,
            )
            + unreviewed,
        )
        return answer == QMessageBox.StandardButton.Yes

    def undo_confirm_all(self) -> int:
        """Put the memory entries the last Confirm all wrote back as they were."""
        memory, undo, self._undo = self.user_memory.memory, self._undo, []
        self.undo_action.setEnabled(False)
        if memory is None or not undo:
            return 0
        for before in reversed(undo):
            try:
                if before.previous is None:
                    memory.delete(before.written_id)
                else:
                    old = before.previous
                    memory.update(before.written_id, target=old.target, origin=old.origin, machine=old.machine)
            except (KeyError, ValueError, sqlite3.Error) as exc:
                _logger.warning("confirmation not undone (%s)", type(exc).__name__)
        self.user_memory.changed.emit()
        self.view.refresh()
        undone = len(undo)
        self._say(
            translate(
                "PostEditConfirm",
                "Confirm all undone: %n sentence(s) back as they were in the translation memory",
                None,
                undone,
            )
        )
        return len(undo)

    def _write(self, pairs: list[Pair]) -> list[_Before] | None:
        """Write ``pairs`` as approved; what each entry was before (None: no memory)."""
        memory = self.user_memory.memory
        if memory is None:
            self.user_memory.say_unavailable()
            return None
        written: list[_Before] = []
        for pair in pairs:
            way = self._direction(pair)
            if way is None:
                continue
            try:
                previous = memory.exact(pair.source, way)
                entry = memory.add(pair.source, pair.translation.strip(), way, origin="approved", machine=pair.machine)
            except (ValueError, sqlite3.Error) as exc:
                _logger.warning("memory entry not written (%s)", type(exc).__name__)
                continue
            written.append(_Before(entry.id, previous.entry if previous is not None else None))
        if written:
            self.user_memory.changed.emit()
            self.view.refresh()
        return written

    def _next_after(self, pair: Pair) -> None:
        """The translation pane's cursor to the start of the next sentence not confirmed."""
        later = [p for p in self._pairs() if p.tgt[0] > pair.tgt[0]]
        target = next((p for p in later if self.status(p) is not SentenceStatus.CONFIRMED), None)
        if target is None:
            return
        cursor = self.window.target.textCursor()
        cursor.setPosition(target.tgt[0])
        cursor.movePosition(QTextCursor.MoveOperation.NoMove)
        self.window.target.setTextCursor(cursor)

    def _say(self, message: str) -> None:
        self.window.statusBar().showMessage(message, 6000)
