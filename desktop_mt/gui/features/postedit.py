"""Post-editing in the window (issue 28): the window's side of the editable translation pane.

- **Incremental translation.** When the source changes, :meth:`PostEditFeature.plan` asks
  ``tm.incremental.plan_update`` which sentences changed: only those go to the model (the
  worker's ``translate_plan``); every other sentence keeps its translation, and a sentence the
  user edited stays theirs until its own source changes. ``figures`` counts the sentences
  planned and those sent to the model.
- **Completion.** Typing in a translated sentence asks the worker (a new request id and cancel
  flag each time, so typing never waits) for the model's completion of that sentence from what
  was typed (``prefix=``). The pane shows it distinctly; Tab puts it in, Esc dismisses it.
- **Alternatives from a word.** A click places the cursor (the next key goes to the pane) and
  asks in the background for the n-best continuations from that word on (``alternatives(...,
  prefix=<text before the word>)``), offered in a list that never takes the keyboard; Alt+Down
  asks for them as a keyboard menu; see ``alternatives.AlternativesFeature.request_from``.
- **Translation memory.** Edited sentences go into ``tm.TranslationMemory`` for their direction
  when the text moves on (a new translation, a swap, quitting), as unapproved edits that never
  replace an approved entry; a sentence the user confirms (Ctrl+Shift+Enter, or Edit > Confirm
  all sentences…, which asks and can be undone: ``postedit_confirm``) goes in as approved.
  An approved or imported exact match is used as the translation, marked "from memory" (never
  sent to the model); an unapproved edit's exact match, or a fuzzy match (>= 75 %), is offered
  in the suggestion bar while its sentence's source is unchanged. Edit > Translation memory… opens
  the memory dialog. The history keeps the final text and the machine's. A status message about
  the sentences shown (from memory, edited) goes when a new translation starts, and at once on Clear.
- **Glossary.** A sentence whose translation lacks a term its source holds (a kept edit, a
  memory entry) is marked with a wavy underline naming the term (``missing_terms``); a glossary
  applied in Settings, or a memory entry changed in its dialog, re-translates at once only the
  sentences it changes (``glossary_applied``, ``refresh_changed``).
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import itertools
import logging
import sqlite3
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal, SignalInstance
from PySide6.QtGui import QAction, QKeySequence, QTextCursor
from PySide6.QtWidgets import QDialog, QWidget

from desktop_mt.app.session import Ended, Request
from desktop_mt.engine.direction import sentence_direction
from desktop_mt.engine.glossary import Glossary, Term
from desktop_mt.engine.options import GenerationOptions
from desktop_mt.tm import TranslationMemory
from desktop_mt.tm.incremental import Sentence, is_marker, plan_update
from desktop_mt.tm.store import Match, match_key

from ..dialogs.glossary_editor import GlossaryStore
from ..dialogs.tm_dialog import open_tm_dialog
from ..i18n import QT_TRANSLATE_NOOP, translate
from ..ports import EngineConfig, StrEnum
from ..services import Services
from ..window.direction_bar import DirectionFeature
from ..workers.translation import IncrementalPlan
from .alignment import MEMORY, MODEL, AlignmentView, Pair, SegmentSpan, missing_terms_text, utf16_len
from .engine_loading import EngineLoading
from .postedit_completion import Completion
from .postedit_confirm import Confirmation, SentenceStatus
from .tm_matches import MAX_MATCHES, MatchPanel
from .user_memory import UserMemory

__all__ = [
    "Figures",
    "PostEditFeature",
    "SuggestionBar",
    "fingerprint",
    "index16_table",
    "planned_summary",
]


_logger = logging.getLogger(__name__)

_HISTORY_DELAY_MS = 800  # the history follows the user's edits after this pause


class _Said(StrEnum):
    """What the status bar says about post-editing (English; shown through :meth:`format_with`,
    which translates; the counted ones are ``translate(..., n)`` calls where they are said)."""

    NOTHING_TO_APPROVE = QT_TRANSLATE_NOOP("PostEdit", "Nothing to approve: translate a text first.")
    EDITED = QT_TRANSLATE_NOOP(
        "PostEdit",
        "Your translation of this sentence (kept when the text is translated again); the machine's: {machine}",
    )
    REMEMBERED = QT_TRANSLATE_NOOP("PostEdit", "From the translation memory (not sent to the model)")
    CONFIRMED = QT_TRANSLATE_NOOP(
        "PostEdit", "Confirmed: in the translation memory as approved (used as it is when the sentence comes again)"
    )

    def format_with(self, **values: object) -> str:
        """The message in the interface language, its ``{fields}`` filled."""
        return translate("PostEdit", self.value).format(**values)


@dataclasses.dataclass
class Figures:
    """Sentences in the texts translated since the start, and those the model translated."""

    sentences: int = 0
    to_model: int = 0

    @property
    def saved(self) -> int:
        """Model calls incremental translation and the memory saved."""
        return self.sentences - self.to_model


SuggestionBar = MatchPanel  # its old name (the window builds it under the panes)
_MadeWith = tuple[
    GenerationOptions, EngineConfig | None
]  # the options and the model config a translation was made with


class PostEditFeature(QObject):
    """The window's side of post-editing (see the module docstring)."""

    # source, final text, the machine's text: the user edited the translation shown (the history
    # keeps the final text and the machine's, HistoryFeature.translation_edited)
    translationEdited = Signal(str, str, str)

    def __init__(
        self,
        services: Services,
        view: AlignmentView,
        direction: DirectionFeature,
        glossary: GlossaryStore,
        engine: EngineLoading,
        memory: UserMemory,
    ) -> None:
        super().__init__(services.owner)
        self.services = services
        self.window = window = services.window
        self.direction = direction  # the window's direction control (Auto, EN->ZH, ZH->EN)
        self.glossary = glossary  # the terms in force (a changed glossary: retranslate)
        self.engine = engine  # the model config in force (what a translation was made with)
        self.pane = window.target
        self.view = view
        self.figures = Figures()
        self.completion = Completion(services, view, self)  # the model's completion of the sentence being typed
        self.user_memory = memory  # the user's translation memory (shared with the file jobs and the Local API)
        self._committed: set[tuple[str, str, str]] = set()
        self._source = ""  # the source text the translation shown was made from
        self._made_with: _MadeWith | None = None  # the options and model the translation shown was made with
        self.restored_with = ""  # a restored draft's translated_with(), until the next translation
        self._planned = False  # the current request is incremental (else the model has all of it)
        self._to_model = 0  # the sentences of the planned request that go to the model
        self.tm_dialog: QDialog | None = None
        self._req_id, self._whole = 0, True
        self._suggestions: dict[str, Match] = {}  # match key -> the memory's fuzzy match, this request's
        self._remembered = 0  # sentences of this request from the memory (the status bar says so)
        self._announced = False  # the status bar says what this request kept or took from the memory
        self._model_ran = True  # the current request sent something to the model (its figures mean something)
        self._said = ""  # the status message about the sentences shown (memory, edits), shown last
        services.session.started.subscribe(self._on_request_started)
        services.session.shown.subscribe(self._on_request_shown)
        services.events.settings_applied.subscribe(lambda _settings: self.glossary_applied())
        services.worker.segmentDone.connect(self._on_span)
        direction.swapping.connect(self.before_new_text)  # the edits shown are kept before a swap replaces them
        window.clearRequested.connect(self._on_cleared)
        self.view.pairsEdited.connect(self._on_pairs_edited)
        self.view.highlighted.connect(self._on_highlighted)
        self._memory_changed = False  # the memory changed since the translation shown was planned
        memory.changed.connect(self._on_memory_changed)
        self._term_checks: dict[tuple[str, str, Glossary], tuple[Term, ...]] = {}  # (source, translation, glossary)
        self.view.missing_terms = self.missing_terms
        window.suggestion_bar.useRequested.connect(self.use_suggestion)
        self._shown: tuple[Pair, list[Match]] | None = None  # the sentence the match panel shows matches for
        bar = window.suggestion_bar
        QWidget.setTabOrder(window.target, bar.buttons[0])  # Tab from the translation reaches Use 1..3
        for first, second in itertools.pairwise(bar.buttons):
            QWidget.setTabOrder(first, second)
        self._history_timer = QTimer(self)
        self._history_timer.setSingleShot(True)
        self._history_timer.setInterval(_HISTORY_DELAY_MS)
        self._history_timer.timeout.connect(self.sync_history)
        self._build_actions()

    def _build_actions(self) -> None:
        window = self.window
        # Confirm sentence, Confirm all…, Undo confirm all
        self.confirmation = Confirmation(window, self.view, self.direction, self.user_memory, self)
        # Confirming moves the cursor on: the completion of the sentence left behind goes.
        self.confirmation.confirm_action.triggered.connect(lambda _c=False: self.completion.cancel())
        self.match_actions = []
        for number in range(1, MAX_MATCHES + 1):  # memoQ's Ctrl+1..3: insert the match shown in that row
            action = QAction(
                translate("PostEdit", "Insert memory match {number}").format(number=number), window.window()
            )
            action.setShortcut(QKeySequence(f"Ctrl+{number}"))
            action.triggered.connect(lambda _c=False, i=number - 1: self.use_suggestion(i))
            window.addAction(action)
            self.match_actions.append(action)
        self.memory_action = QAction(translate("PostEdit", "Translation memory…"), window.window())
        self.memory_action.setToolTip(
            translate("PostEdit", "Search, edit, import and export the translation memory (TMX)")
        )
        self.memory_action.triggered.connect(lambda _c=False: self.open_memory())
        window.add_postedit_actions([*self.confirmation.actions, self.memory_action])

    # ---- the memory ------------------------------------------------------------------------
    @property
    def memory(self) -> TranslationMemory | None:
        """The translation memory (opened when first needed), or None when it cannot be opened."""
        return self.user_memory.memory

    def use_memory(self, memory: TranslationMemory) -> None:
        """Use ``memory`` (tests give one in ``:memory:``)."""
        self.user_memory.use(memory)

    def commit(self, origin: str = "edited") -> int:
        """Put the sentences the user edited (``origin`` "approved": every sentence) into the
        memory of their direction. Returns how many pairs were written. An edit undone (back
        to the machine's text) writes nothing, and an unapproved edit never replaces an
        approved or imported entry (``TranslationMemory.add``): only an approval does."""
        alignment = self.view.alignment
        memory = self.memory
        if alignment is None or memory is None:
            return 0
        target = self.direction.target
        written = 0
        for pair in alignment.pairs:
            final = pair.translation.strip()
            if not final or not (pair.edited or origin == "approved"):
                continue
            way = sentence_direction(pair.source, target)
            key = (pair.source, final, origin)
            if (
                way is None
                or key in self._committed
                or (pair.edited and final == pair.machine.strip() and origin != "approved")
            ):
                continue
            try:
                entry = memory.add(pair.source, final, way, origin=origin, machine=pair.machine if pair.edited else "")
            except (ValueError, sqlite3.Error) as exc:
                _logger.warning("memory entry not written (%s)", type(exc).__name__)
                continue
            self._committed.add(key)
            written += entry.origin == origin  # an approved entry is not replaced by an edit
        if written:
            self.user_memory.changed.emit()
        return written

    def approve(self) -> int:
        """Confirm every sentence shown without asking (``Confirmation.confirm_all``; the menu's
        Confirm all asks first). Returns how many pairs were written as approved."""
        if self.view.alignment is None or not self.view.alignment.pairs:
            self.window.statusBar().showMessage(_Said.NOTHING_TO_APPROVE.format_with(), 4000)
            return 0
        return self.confirmation.confirm_all(ask=False)

    def open_memory(self) -> QDialog | None:
        """Edit > Translation memory…: the memory dialog (search, edit, delete, TMX)."""
        memory = self.memory
        if memory is None:
            self.user_memory.say_unavailable()
            return None
        if self.tm_dialog is not None and self.tm_dialog.isVisible():
            self.tm_dialog.raise_()
            return self.tm_dialog
        self.commit()
        self.tm_dialog = open_tm_dialog(self.window.window(), memory)
        changed = getattr(self.tm_dialog, "memoryChanged", None)
        if changed is not None:  # an entry edited, deleted or imported: the sentences it touches again
            changed.connect(self._on_memory_edited)
        return self.tm_dialog

    # ---- incremental translation -------------------------------------------------------------
    def before_new_text(self) -> None:
        """A new translation (or a swap) replaces the pane: keep the user's edits first."""
        self.cancel()
        self.commit()
        if self._history_timer.isActive():
            self._history_timer.stop()
            self.sync_history()

    def plan(self, text: str) -> IncrementalPlan | None:
        """What to translate of ``text``: None to send it whole to the model (nothing kept and
        nothing in the memory), else the sentences with their kept or remembered translations."""
        self._suggestions, self._remembered, self._announced = {}, 0, False
        alignment = self.view.alignment
        pairs = list(alignment.pairs) if alignment is not None else []
        memory = self.memory
        if memory is not None and memory.count() == 0:
            memory = None
        made_with = (self.services.window_options(), self.engine.loaded_config)
        if made_with != self._made_with and not self._restored_with_these(made_with):
            pairs = [p for p in pairs if p.edited or self._untouched(p, made_with)]
        self.restored_with = ""
        if self._memory_changed and memory is not None:  # an entry approved, edited or deleted since
            pairs = [p for p in pairs if p.edited or not self._memory_differs(p, memory)]
        self._made_with, self._memory_changed = made_with, False
        if not pairs and memory is None:
            return None  # counted as the model translates it (_on_span)
        previous = [Sentence(p.source, p.translation, p.edited, p.suggestion) for p in pairs]
        planned = plan_update(previous, text, memory, self.direction.target)
        # A fuzzy match stays offered while its source sentence is unchanged (kept or translated again).
        self._suggestions = {match_key(p.source): p.suggestion for p in planned if p.suggestion is not None}
        # The sentence at the source's cursor (the one being typed) streams alone, the others batch.
        source = self.window.source
        cursor = source.textCursor().position() if source.toPlainText() == text else None
        plan = IncrementalPlan(planned, {match_key(p.source): p.machine for p in pairs if p.edited}, cursor)
        if all(p.origin == MODEL or is_marker(p.source) for p in planned):
            return None  # nothing kept: the engine translates the whole text (its own layout)
        self.figures.sentences += sum(1 for p in planned if not is_marker(p.source))
        self.figures.to_model += plan.to_model
        self._planned, self._to_model = True, plan.to_model
        self._remembered = sum(1 for p in planned if p.origin == MEMORY)
        kept = sum(1 for p in planned if p.origin not in (MEMORY, MODEL) and not is_marker(p.source))
        if self._remembered or not plan.to_model:
            self._announced = True
            self._say(planned_summary(kept, self._remembered, plan.to_model), 8000)
        return plan

    def translated_with(self) -> str:
        """A fingerprint of the settings and model the translation shown was made with (the
        draft keeps it, so that after a restart only changed sentences go to the model)."""
        return fingerprint(self._made_with) if self._made_with is not None else self.restored_with

    def _restored_with_these(self, made_with: _MadeWith) -> bool:
        """Whether the translation shown is a restored draft's, made with these settings and this
        model (its sentences are then kept as a translation of this session's would be)."""
        return self._made_with is None and bool(self.restored_with) and self.restored_with == fingerprint(made_with)

    def _untouched(self, pair: Pair, made_with: _MadeWith) -> bool:
        """Whether a sentence translated with ``self._made_with`` is still right with
        ``made_with``: only the glossary changed (same model, same other options) and it renders
        the same terms in this sentence as before. Any other change: translate it again."""
        if self._made_with is None:
            return False
        (old, old_model), (new, new_model) = self._made_with, made_with
        if old_model != new_model or dataclasses.replace(old, glossary=new.glossary) != new:
            return False
        way = sentence_direction(pair.source, self.direction.target)
        source_lang = way.split("-")[0] if way else ""
        return bool(way) and _renders(old.glossary, pair.source, source_lang) == _renders(
            new.glossary, pair.source, source_lang
        )

    def _memory_differs(self, pair: Pair, memory: TranslationMemory) -> bool:
        """Whether the memory now has another translation for ``pair``'s sentence than the one
        shown (an entry approved, edited or deleted since it was shown)."""
        way = sentence_direction(pair.source, self.direction.target)
        if way is None:
            return False
        confirmed = memory.confirmed(pair.source, way)
        if confirmed is None:
            return pair.origin == MEMORY  # its entry went: the model's translation now
        return bool(confirmed.entry.target.strip() != pair.translation.strip())

    def refresh_changed(self) -> int | None:
        """The glossary or the memory changed: translate the text shown again at once; only
        the sentences the change touches go to the model (:meth:`plan`). The request's id, or
        None when nothing is shown."""
        alignment = self.view.alignment
        source = self.window.source_text()
        if alignment is None or not alignment.pairs or not source.strip():
            return None
        request_id: int | None = self.services.translate(source)
        return request_id

    def _on_memory_changed(self) -> None:
        self._memory_changed = True

    def _on_memory_edited(self) -> None:
        self.user_memory.changed.emit()  # the sentences' statuses are read again; the next plan checks the memory
        self.refresh_changed()

    def glossary_applied(self) -> int | None:
        """Settings applied: when the glossary is not the one the text shown was translated
        with, translate again the sentences whose terms it changes (:meth:`refresh_changed`)."""
        if self._made_with is None or self._made_with[0].glossary == self.glossary.get():
            return None
        return self.refresh_changed()

    def _on_request_started(self, request: Request) -> None:
        self._source, self._req_id = request.text, request.req_id
        self._whole = not self._planned
        self._model_ran = self._whole or self._to_model > 0
        self._planned = False
        self.window.suggestion_bar.hide()
        self._shown = None
        status = self.window.statusBar()
        if not self._announced and self._said and status.currentMessage() == self._said:
            status.clearMessage()  # the status bar speaks of this translation, not the one before
        self._remembered, self._announced = 0, False

    def _on_request_shown(self, ended: Ended) -> None:
        if ended.request.req_id != self._req_id:
            return
        if not self._model_ran:
            self.window.clear_stats()  # nothing went to the model: no "0 tok/s" figures
        lost = len(self.view.term_pairs())
        if lost:  # said last: a term lost is what the translator must see
            self._say(
                translate("PostEdit", "%n sentence(s) without a glossary term (wavy underline)", None, lost), 10000
            )

    def _on_cleared(self) -> None:
        """Clear empties the panes: a message about their sentences goes at once (it stayed up to
        its 6 s, speaking of a sentence no longer there)."""
        status = self.window.statusBar()
        if self._said and status.currentMessage() == self._said:
            status.clearMessage()
        self._said = ""

    def _say(self, message: str, ms: int) -> None:
        """Show ``message`` about the sentences shown (it goes when a new translation starts)."""
        self._said = message
        self.window.statusBar().showMessage(message, ms)

    def _on_span(self, req_id: int, span: SegmentSpan) -> None:
        if req_id != self._req_id:
            return
        if self._whole:  # a sentence of a text the model has whole
            self.figures.sentences += 1
            self.figures.to_model += 1
        alignment = self.view.alignment  # AlignmentFeature added the span's pair just before
        if self._suggestions and alignment is not None and alignment.pairs:
            pair = alignment.pairs[-1]
            if pair.suggestion is None and not pair.edited and pair.origin == MODEL:
                pair.suggestion = self._suggestions.get(match_key(pair.source))
                if pair.suggestion is not None and pair is self.view.pair:
                    self._on_highlighted(pair)

    # ---- the glossary's guarantee ------------------------------------------------------------
    def missing_terms(self, pair: Pair) -> tuple[Term, ...]:
        """The glossary terms ``pair``'s source holds whose target its translation lacks
        (``Glossary.missing``, oriented for the sentence's language). The model's output always
        has them (the engine protects them); a kept edit or a memory entry may not: the view
        marks such a sentence. Remembered per sentence and glossary (asked at every repaint)."""
        glossary = self.glossary.get()
        if glossary is None or not pair.translation.strip():
            return ()
        key = (pair.source, pair.translation, glossary)
        if key not in self._term_checks:
            way = sentence_direction(pair.source, self.direction.target)
            lost = () if way is None else glossary.oriented(way.split("-")[0]).missing(pair.source, pair.translation)
            if len(self._term_checks) > 4096:
                self._term_checks.clear()
            self._term_checks[key] = lost
        return self._term_checks[key]

    # ---- the history ---------------------------------------------------------------------------
    def machine_text(self) -> str:
        """The pane's text with each edited sentence's machine translation in place of the user's."""
        text = str(self.window.target_text())
        alignment = self.view.alignment
        if alignment is None or not any(p.edited for p in alignment.pairs):
            return text
        index = index16_table(text)
        out, at = [], 0
        for pair in sorted(alignment.pairs, key=lambda p: p.tgt):
            start, end = index(pair.tgt[0]), index(pair.tgt[1])
            out.append(text[at:start])
            out.append(pair.machine if pair.edited else text[start:end])
            at = end
        out.append(text[at:])
        return "".join(out)

    def sync_history(self) -> None:
        """The history's entry gets the final (edited) text and the machine's."""
        final = self.window.target_text()
        alignment = self.view.alignment
        source = self._source or (alignment.source_text if alignment is not None else "")  # a restored draft's
        if final.strip():
            self.translationEdited.emit(source, final, self.machine_text())

    # ---- completion ----------------------------------------------------------------------------
    def _on_pairs_edited(self, _pairs: list[Pair]) -> None:
        self._history_timer.start()
        if not self.completion.accepting:
            self.completion.request()

    def request_completion(self) -> int | None:
        """Ask for the model's completion at the cursor (``Completion.request``)."""
        return self.completion.request()

    def cancel(self) -> None:
        """Drop the completion asked for or shown."""
        self.completion.cancel()

    @property
    def completionShown(self) -> SignalInstance:
        """(str): the completion offered so far (tests, screenshots)."""
        return self.completion.shown

    @property
    def completionFinished(self) -> SignalInstance:
        """(int): a completion request's model output is all there."""
        return self.completion.finished

    # ---- the memory's suggestion -------------------------------------------------------------
    def _on_highlighted(self, pair: Pair | None) -> None:
        lost = self.missing_terms(pair) if pair is not None else ()
        if lost:
            self._say(missing_terms_text(lost), 8000)
        elif pair is not None and pair.edited and pair.machine.strip() != pair.translation.strip():
            self._say(_Said.EDITED.format_with(machine=pair.machine), 6000)
        elif pair is not None and pair.origin == MEMORY:
            self._say(_Said.REMEMBERED.format_with(), 6000)
        elif pair is not None and self.confirmation.status(pair) is SentenceStatus.CONFIRMED:
            self._say(_Said.CONFIRMED.format_with(), 6000)
        if pair is None:
            return  # the pointer left the panes (onto the panel, maybe): the panel stays
        bar = self.window.suggestion_bar
        matches = self.matches_for(pair)
        self._shown = (pair, matches) if matches else None
        if not matches:
            bar.hide()
            return
        bar.show_matches(pair.source, matches)

    def matches_for(self, pair: Pair) -> list[Match]:
        """The memory's matches to offer for ``pair`` (a sentence the model translated, not
        edited): its suggestion first (an unapproved edit's exact match, or the best fuzzy
        one), then the next best fuzzy ones, up to three."""
        if pair.edited or pair.suggestion is None:
            return []
        found = [pair.suggestion]
        memory = self.memory
        way = sentence_direction(pair.source, self.direction.target)
        if memory is not None and way is not None:
            try:
                more = memory.fuzzy(pair.source, way, limit=MAX_MATCHES)
            except sqlite3.Error as exc:
                _logger.warning("fuzzy matches not read (%s)", type(exc).__name__)
                more = []
            found += [m for m in more if m.entry.id not in {f.entry.id for f in found}]
        return found[:MAX_MATCHES]

    def use_suggestion(self, index: int = 0) -> None:
        """Use N (Ctrl+1..3): match ``index`` of the panel replaces the translation of the
        sentence the panel shows matches for."""
        if self._shown is None or index >= len(self._shown[1]) or not self.window.suggestion_bar.isVisible():
            return
        pair, matches = self._shown
        alignment = self.view.alignment
        if alignment is None or pair not in alignment.pairs:
            return
        text = matches[index].entry.target
        cursor = QTextCursor(self.pane.document())
        cursor.setPosition(pair.tgt[0])
        cursor.setPosition(pair.tgt[1], QTextCursor.MoveMode.KeepAnchor)
        with self.pane.user_edit():
            cursor.beginEditBlock()
            cursor.insertText(text)
            cursor.endEditBlock()
        self._shown = None
        self.window.suggestion_bar.hide()

    def close(self) -> None:
        """Quitting: keep the edits in the memory and the history, then close the memory."""
        self.before_new_text()
        self.user_memory.close()


def index16_table(text: str) -> Callable[[int], int]:
    """The Python index of each UTF-16 position of ``text`` (``alignment.index_of16`` for many
    positions at once: one pass over the text, not one per position)."""
    if utf16_len(text) == len(text):  # no character outside the BMP: the same numbers
        return lambda pos: max(0, min(pos, len(text)))
    starts = list(itertools.accumulate((2 if ord(c) > 0xFFFF else 1 for c in text), initial=0))
    return lambda pos: min(bisect.bisect_left(starts, pos), len(text))


def planned_summary(kept: int, remembered: int, to_model: int) -> str:
    """What the status bar says of an incremental translation: "3 sentences kept, 1 from the
    translation memory (underlined)", "1 sentence from the translation memory (underlined), 2
    translated by the model"; the parts that are 0 are left out."""
    parts = [translate("PostEdit", "%n sentence(s) kept", None, kept)] if kept else []
    if remembered and parts:  # "3 sentences kept, 1 from the translation memory"
        parts.append(translate("PostEdit", "%n from the translation memory (underlined)", None, remembered))
    elif remembered:
        parts.append(translate("PostEdit", "%n sentence(s) from the translation memory (underlined)", None, remembered))
    if to_model:
        parts.append(translate("PostEdit", "%n translated by the model", None, to_model))
    return translate("PostEdit", ", ").join(parts)


def fingerprint(made_with: _MadeWith) -> str:
    """A short digest of ``(options, model config)`` that is the same in every run (frozen
    dataclasses' reprs): what a draft keeps of how its translation was made."""
    return hashlib.sha256(repr(made_with).encode("utf-8")).hexdigest()[:16]


def _renders(glossary: Glossary | None, source: str, source_lang: str) -> list[tuple[int, int, str]]:
    """What ``glossary`` makes of the terms in ``source``: where each is and its target."""
    if not glossary:
        return []
    return [(m.start, m.end, m.term.target) for m in glossary.oriented(source_lang).find(source)]
