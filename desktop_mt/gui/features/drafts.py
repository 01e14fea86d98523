"""Nothing typed is ever lost: the panes are saved continuously and come back on the next start.

The source text, the translation, the source cursor and the file job that runs (if any) are
written to ``draft.json`` in the data folder, after a quit, a crash or ``kill -9`` alike:

- **Debounced**: an edit (a keystroke, a streamed piece of translation, a cursor move) starts a
  short timer; the state is taken when it fires. A stream of changes (a long translation) is
  saved at least every :data:`_MAX_WAIT_MS`, not only when it ends.
- **Off the UI thread**: :class:`DraftWriter` writes in a thread of its own; only the newest
  state waits there (an older one still waiting is dropped), so a slow disk never stalls typing.
- **Atomic**: :func:`desktop_mt.base.fsutil.atomic_write`; the file is the old state or the new one.
- A clean quit writes the last state at once (``flush``), so nothing typed in the last moment
  is lost either. A draft file that cannot be read is kept aside (``draft.corrupt-*.json``).

A translation that had not finished when the draft was written (the app quit while it
streamed, or it was stopped: the pane ends with the stop mark, ``progress.has_mark``) is saved with
``incomplete``; on restore the pane ends with the same quiet "— stopped here —" line and the
banner says how far it got ("605 of 2,000 lines") until the next translation or Clear.

The translation's sentences are saved with it (``sentences``: each one's source sentence, its
translation, the machine's, whether the user edited it, where it is in the panes), so after a
crash an edited sentence is still the user's: a new translation keeps it until its own source
changes (``postedit``), and pointing at it still shows the machine's version. With them goes
``made_with``, a fingerprint of the settings and model the translation was made with: when they
are the same after the restart, Translate sends only the changed or untranslated sentences to
the model, as within one session (before, a restored 310-sentence draft was translated again whole).

The direction (Auto, English -> Chinese, Chinese -> English) is a setting (``direction`` in the
settings file), not part of the draft.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

from ...app.session import Ended
from ...base.fsutil import atomic_write
from .. import paths
from ..i18n import translate
from ..services import FileJobStart, Services
from ..window import progress
from ..window.progress import has_mark
from .alignment import AlignmentView, Pair
from .bilingual import BilingualView
from .postedit import PostEditFeature

__all__ = [
    "Draft",
    "DraftKeeper",
    "DraftWriter",
    "draft_path",
    "incomplete_note",
    "load_draft",
    "parse_draft",
    "restored_pairs",
]


_logger = logging.getLogger(__name__)

_DRAFT_FILE = "draft.json"
_DRAFT_VERSION = 1
_SAVE_DELAY_MS = 300  # after the last change
_MAX_WAIT_MS = 2000  # a stream of changes is still saved this often


def draft_path() -> Path:
    """The draft file in the (possibly redirected) data folder."""
    return paths.data_dir() / _DRAFT_FILE


@dataclasses.dataclass
class Draft:
    """What the window held: the panes, the source cursor (its selection too), the file job
    that was running (``{"src": ..., "dst": ...}``; None when none ran) and whether the
    translation was incomplete (still streaming, or stopped)."""

    source: str = ""
    translation: str = ""
    cursor: int = 0
    anchor: int = 0
    file_job: dict[str, str] | None = None
    incomplete: bool = False
    sentences: list[dict[str, object]] = dataclasses.field(default_factory=list)  # pair_record()s
    made_with: str = ""  # postedit.fingerprint of the settings and model the translation was made with

    def to_json(self) -> str:
        """The file's text."""
        return json.dumps({"version": _DRAFT_VERSION, **dataclasses.asdict(self)}, ensure_ascii=False)


def _text(data: dict[str, object], key: str) -> str:
    value = data.get(key, "")
    return value if isinstance(value, str) else ""


def _number(data: dict[str, object], key: str) -> int:
    value = data.get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _job(data: dict[str, object]) -> dict[str, str] | None:
    job = data.get("file_job")
    if isinstance(job, dict) and all(isinstance(job.get(k), str) and job[k] for k in ("src", "dst")):
        return {"src": job["src"], "dst": job["dst"]}
    return None


def _pair_record(pair: Pair) -> dict[str, object]:
    """What the draft keeps of one aligned sentence (``sentences``)."""
    return {
        "source": pair.source,
        "translation": pair.translation,
        "machine": pair.machine,
        "edited": pair.edited,
        "origin": pair.origin,
        "src": list(pair.src) if pair.src is not None else None,
        "tgt": list(pair.tgt),
    }


def _span(value: object) -> tuple[int, int] | None:
    if isinstance(value, list) and len(value) == 2 and all(type(v) is int and v >= 0 for v in value):
        start, end = value
        return (start, end) if start <= end else None
    return None


def restored_pairs(draft: Draft) -> list[Pair]:
    """The sentences of ``draft`` that still match its panes (a record that does not is left out)."""
    target16 = draft.translation.encode("utf-16-le")
    source16 = draft.source.encode("utf-16-le")
    pairs = []
    for number, record in enumerate(draft.sentences):
        source, translation, machine = (_text(record, k) for k in ("source", "translation", "machine"))
        tgt, src = _span(record.get("tgt")), _span(record.get("src"))
        if not source or tgt is None or target16[2 * tgt[0] : 2 * tgt[1]].decode("utf-16-le", "replace") != translation:
            continue
        if src is not None and src[1] * 2 > len(source16):
            src = None
        origin = _text(record, "origin") or "model"
        pairs.append(Pair(number, source, translation, src, tgt, origin, record.get("edited") is True, machine))
    return pairs


def parse_draft(text: str) -> Draft:
    """A :class:`Draft` from the file's text; ``ValueError`` when it is not one."""
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("version") != _DRAFT_VERSION:
        raise ValueError("not a desktop-mt draft")
    return Draft(
        _text(data, "source"),
        _text(data, "translation"),
        _number(data, "cursor"),
        _number(data, "anchor"),
        _job(data),
        data.get("incomplete") is True,  # absent in a draft of an older version: complete
        [r for r in sentences if isinstance(r, dict)] if isinstance(sentences := data.get("sentences"), list) else [],
        _text(data, "made_with"),  # absent in an older draft: its sentences are translated again
    )


def incomplete_note(draft: Draft) -> str:
    """What the banner says about a restored translation that had not finished."""
    total = sum(1 for line in draft.source.splitlines() if line.strip())
    done = min(total, sum(1 for line in draft.translation.splitlines() if line.strip()))
    how_far = (
        translate("Drafts", " ({done} of {total} lines translated)").format(done=f"{done:,}", total=f"{total:,}")
        if total > 1
        else ""
    )
    return translate(
        "Drafts", "The translation restored from last time is incomplete{how_far}. Translate to finish it."
    ).format(how_far=how_far)


def _mark_stopped(target: QPlainTextEdit) -> None:
    """End a restored ``target`` with the "stopped here" line as the progress feature draws it
    after a stop (:func:`progress._mark_stopped`), not as an undo step."""
    progress.mark_stopped(target)
    target.document().clearUndoRedoStacks()


def load_draft(path: Path) -> Draft:
    """The saved draft (an empty one when there is none). An unreadable file is moved aside,
    never overwritten: it may hold the only copy of someone's text."""
    try:
        return parse_draft(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Draft()
    except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        aside = path.with_name(f"{path.stem}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}{path.suffix}")
        _logger.warning("draft file unreadable (%s); kept as %s", type(exc).__name__, aside.name)
        with contextlib.suppress(OSError):
            path.replace(aside)
        return Draft()


class DraftWriter:
    """Writes drafts in a thread of its own; only the newest one submitted waits (see the
    module docstring). ``flush`` writes the newest in the caller's thread and stops."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()  # one write at a time, and the queue below
        self._wake = threading.Condition(threading.Lock())
        self._pending: tuple[int, str] | None = None
        self._seq = 0
        self._written = 0  # the sequence number of the state on disk
        self._stopped = False
        self.failures = 0
        self._thread = threading.Thread(target=self._run, name="draft-writer", daemon=True)
        self._thread.start()

    def submit(self, text: str) -> None:
        """Queue ``text`` to be written (replacing an older text still waiting)."""
        with self._wake:
            self._seq += 1
            self._pending = (self._seq, text)
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._pending is None and not self._stopped:
                    self._wake.wait()
                if self._stopped:
                    return
                item, self._pending = self._pending, None
            if item is not None:
                self._write(*item)

    def _write(self, seq: int, text: str) -> None:
        with self._lock:
            if seq <= self._written:  # a newer state is already on disk (flush overtook us)
                return
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(self.path, text, mode=0o600)  # private: it is the user's text
                self._written = seq
            except OSError as exc:
                self.failures += 1
                _logger.warning("could not save the draft: %s", type(exc).__name__)

    def flush(self, text: str) -> None:
        """Write ``text`` now (the last state, at quit) and stop the thread."""
        with self._wake:
            self._seq += 1
            seq, self._pending, self._stopped = self._seq, None, True
            self._wake.notify()
        self._write(seq, text)
        self._thread.join(timeout=5)


class DraftKeeper(QObject):
    """Restores the draft into the window at start, saves it as it changes (see the module
    docstring), and records the running file job. ``view``: the sentences of the panes (their
    edits are kept); ``postedit``: what the translation was made with (only changes go to the
    model after a restart); ``bilingual``: View > Bilingual (the restored translation is shown
    paired when it is on; the draft saves the plain translation)."""

    def __init__(
        self,
        services: Services,
        view: AlignmentView | None = None,
        postedit: PostEditFeature | None = None,
        path: Path | None = None,
        bilingual: BilingualView | None = None,
    ) -> None:
        super().__init__(services.owner)
        self.bilingual = bilingual  # View > Bilingual: the restored translation shown paired; saved plain
        self.session = services.session  # the request that runs
        self.window = window = services.window
        self.postedit = postedit
        self.path = path or draft_path()
        self.restored = load_draft(self.path)
        self.file_job: dict[str, str] | None = self.restored.file_job  # until offered (job_resume)
        self.note = ""  # the banner's note that the restored translation is incomplete (while shown)
        self.view = view
        self._restore(self.restored)
        self.writer = DraftWriter(self.path)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._save)
        self._first_change = 0.0
        self._closed = False
        for signal in (
            window.source.textChanged,
            window.target.textChanged,
            window.source.cursorPositionChanged,
            window.source.selectionChanged,
        ):
            signal.connect(self.changed)
        events = services.events
        self._unsubscribe = [
            self.session.shown.subscribe(self._request_shown),
            events.file_started.subscribe(self._job_started),
            events.file_ended.subscribe(self._job_ended),
        ]

    def _restore(self, draft: Draft) -> None:
        """Put ``draft`` into the panes as their starting state (no undo step, no translation:
        the translation it had comes back with it)."""
        if not (draft.source or draft.translation):
            return
        source = self.window.source
        source.blockSignals(True)  # not an edit: as-you-type must not translate it again
        try:
            source.setPlainText(draft.source)
            end = len(draft.source.encode("utf-16-le")) // 2
            cursor = QTextCursor(source.document())
            cursor.setPosition(min(draft.anchor, end))
            cursor.setPosition(min(draft.cursor, end), QTextCursor.MoveMode.KeepAnchor)
            source.setTextCursor(cursor)
        finally:
            source.blockSignals(False)
        self.window.target.setPlainText(draft.translation)
        pairs = restored_pairs(draft)
        if pairs and self.view is not None:
            self.view.restore(draft.source, pairs)  # the user's edits stay theirs
            if self.postedit is not None:  # made with the same settings and model: only changes go to the model
                self.postedit.restored_with = draft.made_with
        if self.bilingual is not None and draft.translation:  # paired when Bilingual is on, and toggles
            self.bilingual.show_kept(draft.source, draft.translation)
        if draft.incomplete and draft.translation:
            _mark_stopped(self.window.target)
            self.note = incomplete_note(draft)
            self.window.show_warning(self.note)
        _logger.info(
            "draft restored: %d characters of source, %d of translation", len(draft.source), len(draft.translation)
        )

    def current(self) -> Draft:
        """The window's state now."""
        cursor = self.window.source.textCursor()
        incomplete = self.session.busy or has_mark(self.window.target.toPlainText())
        alignment = self.view.alignment if self.view is not None else None
        translation = self.window.target_text()
        if self.bilingual is not None:  # the plain translation, not the pairs on screen
            translation = self.bilingual.plain(translation)
        return Draft(
            self.window.source_text(),
            translation,
            cursor.position(),
            cursor.anchor(),
            self.file_job,
            incomplete and bool(translation),
            [_pair_record(p) for p in alignment.pairs] if alignment is not None else [],
            self._made_with(),
        )

    def _made_with(self) -> str:
        return self.postedit.translated_with() if self.postedit is not None else ""

    def changed(self) -> None:
        """Something changed: save after a short pause, or now and then during a stream."""
        if self._closed:
            return  # quitting: the last state is written; the window may be gone
        if self.note and not has_mark(self.window.target.toPlainText()):
            self.window.clear_warning(self.note)  # translated again, or cleared: no longer true
            self.note = ""
        now = time.monotonic()
        if not self._timer.isActive():
            self._first_change = now
        elif (now - self._first_change) * 1000 >= _MAX_WAIT_MS:
            return  # let the running timer fire: a stream must not postpone the save forever
        self._timer.start(_SAVE_DELAY_MS)

    def _save(self) -> None:
        # The timer fired: hand the state to the writer thread.
        self.writer.submit(self.current().to_json())

    def _request_shown(self, _ended: Ended) -> None:
        # The stream ended: the draft must say whether it ran to its end (the pane may not
        # change again; a stop's mark comes after this and is saved as a change).
        self.changed()

    def _job_started(self, job: FileJobStart) -> None:
        self.file_job = {"src": job.src, "dst": job.dst}
        self.changed()

    def _job_ended(self, outcome: str) -> None:
        self.file_job = None
        self.changed()

    def forget_job(self) -> None:
        """The interrupted job was continued or discarded: no longer offered."""
        self.file_job = None
        self.changed()

    def close(self) -> None:
        """Write the last state now (quit); the session's and the app's events no longer reach it."""
        self._closed = True
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._timer.stop()
        self.writer.flush(self.current().to_json())
