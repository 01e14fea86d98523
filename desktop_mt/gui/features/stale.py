"""A translation never sits beside a text it does not belong to.

Ctrl+Z (or Ctrl+Shift+Z) in the source pane can bring back a whole earlier text: the draft
that a clipboard translation, History > Open or Clear replaced. The translation pane then
showed the replaced text's translation beside it. :class:`StaleGuard` notices an undo or redo
step (the document's undo/redo counts move; a new edit adds a command instead) and puts the
translation that belongs to the text now shown: the one made for it earlier in this session
(the last :data:`_REMEMBERED` are kept; paired with its source when View > Bilingual is on),
else none (a running translation of the replaced text is stopped too). Ctrl+Enter, or
translate-as-you-type, translates it again.
"""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QObject

from desktop_mt.app.session import Completed

from ..i18n import QT_TRANSLATE_NOOP, translate
from ..services import Services
from .bilingual import BilingualView

__all__ = [
    "StaleGuard",
]


_REMEMBERED = 16  # finished translations kept for undo/redo (texts, in memory only)
_UNDONE = QT_TRANSLATE_NOOP("Stale", "Ctrl+Z brought back an earlier text; Ctrl+Enter translates it.")


class StaleGuard(QObject):
    """See the module docstring; ``restored``: the draft's source and translation."""

    def __init__(
        self, services: Services, restored: tuple[str, str] | None = None, bilingual: BilingualView | None = None
    ) -> None:
        super().__init__(services.owner)
        self.services = services
        self.bilingual = bilingual  # shows a kept translation paired when View > Bilingual is on
        self.window = services.window
        self.known: OrderedDict[str, str] = OrderedDict()
        if restored and restored[0] and restored[1]:
            self.remember(*restored)
        document = self.window.source.document()
        self._counts = (document.availableUndoSteps(), document.availableRedoSteps())
        self._added = False
        document.undoCommandAdded.connect(self._on_command_added)
        document.contentsChanged.connect(self._on_changed)
        services.session.completed.subscribe(self._on_completed)

    def remember(self, source: str, translation: str) -> None:
        """``translation`` belongs to ``source`` (a finished translation)."""
        self.known[source] = translation
        self.known.move_to_end(source)
        while len(self.known) > _REMEMBERED:
            self.known.popitem(last=False)

    def _on_completed(self, done: Completed) -> None:
        self.remember(done.source, done.translation)

    def _on_command_added(self) -> None:
        self._added = True

    def _on_changed(self) -> None:
        document = self.window.source.document()
        before_undo, before_redo = self._counts
        self._counts = undo, redo = document.availableUndoSteps(), document.availableRedoSteps()
        added, self._added = self._added, False
        # Undoing a pure removal (Clear) leaves Qt's redo count at 0, so an undo step is also
        # the undo count falling with no command added; a redo, the count rising with none.
        undone = redo > before_redo or (undo < before_undo and not added)
        redone = undo > before_undo and not added
        if undone or redone:
            self._follow(self.window.source_text())

    def _follow(self, text: str) -> None:
        """The source became ``text`` by undo/redo: show its translation, or none."""
        known = self.known.get(text)
        if known is not None and self.window.target_text() == known:
            return
        self.services.translate("")  # stops a running translation, empties the pane
        self.window.clear_stats()
        if known is not None and self.bilingual is not None:
            self.bilingual.show_kept(text, known)
        elif known is not None:
            self.window.append_target(known)
        elif text.strip():
            self.window.statusBar().showMessage(translate("Stale", _UNDONE), 8000)
            self.window.sourceEdited.emit(text)  # as-you-type (when on) translates it again
