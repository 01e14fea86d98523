"""Which way the window translates (issue 26): Auto, English -> Chinese or Chinese -> English,
and the swap button.

- :class:`DirectionBar` is the toolbar's control: a combo box and a swap button. Passive: it
  emits what the user chose.
- :class:`DirectionFeature` (on the window's services) keeps the choice (``Settings.direction``
  where the settings have that field), passes it to every request as
  ``GenerationOptions.target``, shows in the Auto entry what Auto decided for the text
  (``engine.direction.describe``: the one rule, for every front end; it follows the source
  pane's text, so Japanese or Korean text that is kept shows "Auto (Japanese: kept)") and
  swaps: the translation goes into the source pane and the direction flips, as DeepL does, in
  one undoable step: Ctrl+Z in the source brings back the text and the direction before the
  swap (Ctrl+Shift+Z or Ctrl+Y, the swapped ones), and the stale guard puts back their
  translation. The Auto entry's text goes out as ``textShown``: the model label follows it.

The hotkey, the popup and translate-and-replace use Auto: they translate through the engine's
default options (``GenerationOptions.target`` is ``"auto"``), whatever the window shows.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QToolButton, QWidget

from desktop_mt.app.session import Request
from desktop_mt.engine import direction
from desktop_mt.engine.direction import AUTO, EN, TARGETS, ZH, Target, check_target

from ..features.pasting import end_undo_step
from ..i18n import QT_TRANSLATE_NOOP, translate
from ..messages import described, direction_title
from ..services import Services

__all__ = [
    "CHOICES",
    "DESCRIBED",
    "DirectionBar",
    "DirectionFeature",
    "LABELS",
    "SWAP_SHORTCUT",
    "swapped",
]


SWAP_SHORTCUT = "Ctrl+Shift+S"
DESCRIBED = 2000  # characters of the text the Auto entry describes
_AUTO_LABEL_LENGTH = 24  # characters the combo box has room for
_LABEL_DELAY_MS = 150  # the Auto entry follows the source pane's text this long after a change
_SWAPS_KEPT = 32  # swaps whose undo and redo bring their direction back


# The window's direction choice is the engine's Target ("auto", "zh": English -> Chinese, "en":
# Chinese -> English), as ``GenerationOptions.target`` takes it. The combo box lists the engine's
# TARGETS in the window's order: Auto, English -> Chinese, Chinese -> English (as DIRECTIONS).
CHOICES: tuple[Target, ...] = (AUTO, ZH, EN)
LABELS: dict[Target, str] = {AUTO: QT_TRANSLATE_NOOP("DirectionBar", "Auto")}  # shown translated


def _choice_label(target: Target) -> str:
    """A choice's words in the interface language: "Auto", or its direction's title
    (engine.direction.DIRECTION_TITLES)."""
    way = direction.direction_into(target)
    return direction_title(way) if way is not None else translate("DirectionBar", LABELS[target])


_SWAPPED: dict[Target, Target] = {ZH: EN, EN: ZH, AUTO: AUTO}


def swapped(target: Target) -> Target:
    """The choice after a swap: an explicit direction flips; Auto stays Auto (it translates
    the former translation back into the other language anyway)."""
    return _SWAPPED[target]


class DirectionBar(QWidget):
    """The toolbar's direction combo box and swap button (see the module docstring)."""

    targetChosen = Signal(str)  # a Target value, chosen by the user
    swapRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("directionBar")
        self.combo = QComboBox(self)
        self.combo.setObjectName("direction")
        # Room for the longest entry ("Auto (Chinese → English)") whatever it shows now.
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(_AUTO_LABEL_LENGTH)
        self.combo.setToolTip(
            translate("DirectionBar", "Translation direction: Auto translates each sentence into the other language")
        )
        for target in CHOICES:
            self.combo.addItem(_choice_label(target), target)
        self.swap_button = QToolButton(self)
        self.swap_button.setObjectName("swap")
        self.swap_button.setText("⇄")
        self.swap_button.setToolTip(
            translate(
                "DirectionBar",
                "Swap ({keys}): the translation becomes the source and the direction flips "
                "(Ctrl+Z in the source brings the text and the direction back)",
            ).format(keys=SWAP_SHORTCUT)
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.combo)
        layout.addWidget(self.swap_button)
        self.combo.activated.connect(lambda index: self.targetChosen.emit(str(self.combo.itemData(index))))
        self.swap_button.clicked.connect(lambda _c=False: self.swapRequested.emit())

    def target(self) -> Target:
        """The direction shown."""
        return check_target(str(self.combo.currentData()))

    def set_target(self, target: Target) -> None:
        """Show ``target`` (no signal: the program set it)."""
        self.combo.setCurrentIndex(self.combo.findData(target))

    def set_detected(self, short: str) -> None:
        """The Auto entry's text: what Auto does with the text now, in ``engine.direction.describe``'s
        short words ("Auto (Chinese → English)", "Auto (mixed)", "Auto (Japanese: kept)"); ""
        shows plain "Auto"."""
        detected = described(short)  # the popup says describe()'s words through it too
        index = self.combo.findData(AUTO)
        shown = (
            translate("DirectionBar", "Auto ({detected})").format(detected=detected)
            if short
            else translate("DirectionBar", LABELS[AUTO])
        )
        self.combo.setItemText(index, shown)

    def detected(self) -> str:
        """The Auto entry's text as shown (tests)."""
        return self.combo.itemText(self.combo.findData(AUTO))


@dataclasses.dataclass
class _Swap:
    """One swap in the source pane's undo history: the document's undo index before and after
    its edit, the choice before and after, and whether it is undone now."""

    before: int
    after: int
    old: Target
    new: Target
    undone: bool = False


class DirectionFeature(QObject):
    """The window's side of the direction control (see the module docstring)."""

    changed = Signal(str)  # the Target now in use
    textShown = Signal(str)  # under Auto: the text whose directions the Auto entry now shows
    swapping = Signal()  # the translation is about to become the source (post-editing keeps the edits first)

    def __init__(self, services: Services, bar: DirectionBar) -> None:
        super().__init__(services.owner)
        self.services = services
        self.window = window = services.window
        saved = str(getattr(services.settings, "direction", AUTO))
        self.target: Target = check_target(saved) if saved in TARGETS else AUTO
        self.bar = bar  # the toolbar's control (the window's)
        self.bar.set_target(self.target)
        self.bar.targetChosen.connect(self.choose)
        window.swapRequested.connect(self.swap)
        services.session.started.subscribe(self._on_request_started)
        # The Auto entry follows the source pane's text (typing, a paste, Japanese text that is
        # kept and so never starts a request), a moment after it changes.
        self._label_timer = QTimer(window.window())  # goes with the window (no label to update after it)
        self._label_timer.setSingleShot(True)
        self._label_timer.setInterval(_LABEL_DELAY_MS)
        self._label_timer.timeout.connect(lambda: self.update_label(self.window.source_text()))
        # Undo and redo of a swap bring its direction back with its text (connected before the
        # stale guard, which then translates with the direction restored).
        self._swaps: list[_Swap] = []
        document = window.source.document()
        self._counts = (document.availableUndoSteps(), document.availableRedoSteps())
        self._added = False
        document.undoCommandAdded.connect(self._on_command_added)
        document.contentsChanged.connect(self._on_source_changed)

    def choose(self, value: str) -> None:
        """The user chose a direction: keep it and translate the source again with it."""
        self._set(check_target(value))
        source = self.window.source_text()
        if source.strip():
            self.services.translate(source)

    def use_auto(self) -> None:
        """Auto from now on (the global hotkey: text from anywhere, in either language)."""
        if self.target != AUTO:
            self._set(AUTO)

    def _set(self, target: Target) -> None:
        self.target = target
        self.bar.set_target(target)
        if hasattr(self.services.settings, "direction"):
            self.services.settings.direction = target
            self.services.save()
        self.update_label(self.window.source_text())
        self.changed.emit(target)

    def swap(self) -> None:
        """Put the translation into the source pane (one undoable step), flip the direction
        and translate it. With no translation the direction alone flips. Undoing the step
        (Ctrl+Z in the source) brings back the text and the direction before the swap; redoing
        it, the swapped ones."""
        translation = self.window.target_text().strip()
        old = self.target
        if not translation:
            self._set(swapped(old))
            return
        self.swapping.emit()
        document = self.window.source.document()
        before = document.availableUndoSteps()
        self._set(swapped(old))
        self.window.set_source(translation)
        end_undo_step(self.window.source)  # typing after the swap is an undo step of its own
        self._swaps.append(_Swap(before, document.availableUndoSteps(), old, self.target))
        del self._swaps[:-_SWAPS_KEPT]
        self.services.translate(translation)

    # ---- undo and redo of a swap --------------------------------------------------------------
    def _on_command_added(self) -> None:
        self._added = True

    def _on_source_changed(self) -> None:
        self._label_timer.start()
        document = self.window.source.document()
        before_undo, before_redo = self._counts
        self._counts = undo, redo = document.availableUndoSteps(), document.availableRedoSteps()
        added, self._added = self._added, False
        if added:  # a new edit: the swaps undone before it cannot be redone any more
            self._swaps = [s for s in self._swaps if not s.undone]
        if undo == 0 and redo == 0:  # the undo history was cleared
            self._swaps.clear()
            return
        if redo > before_redo:  # an undo step
            for record in reversed(self._swaps):
                if not record.undone and undo <= record.before:
                    record.undone = True
                    self._follow_swap(record.old)
        elif not added and redo < before_redo and undo > before_undo:  # a redo step
            for record in self._swaps:
                if record.undone and undo >= record.after:
                    record.undone = False
                    self._follow_swap(record.new)

    def _follow_swap(self, target: Target) -> None:
        if target != self.target:
            self._set(target)

    # ---- the Auto entry -----------------------------------------------------------------------
    def update_label(self, text: str) -> None:
        """Show in the Auto entry what Auto does with ``text`` (its start: a label, quick on a
        long text); plain "Auto" while another direction is chosen."""
        self._label_timer.stop()
        auto = self.target == AUTO
        self.bar.set_detected(direction.describe(text[:DESCRIBED], short=True) if auto else "")
        if auto:  # the model label follows it (an undone swap's text, typing, a request)
            self.textShown.emit(text)

    def _on_request_started(self, request: Request) -> None:
        self.update_label(request.text)
