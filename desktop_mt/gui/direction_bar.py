"""Which way the window translates (issue 26): Auto, English -> Chinese or Chinese -> English,
and the swap button.

- :class:`DirectionBar` is the toolbar's control: a combo box and a swap button. Passive: it
  emits what the user chose.
- :class:`DirectionFeature` (the controller's helper) keeps the choice (``Settings.direction``
  where the settings have that field), passes it to every request as
  ``GenerationOptions.target``, shows in the Auto entry what Auto decided for the text
  (``engine.direction.describe``: the one rule, for every front end) and swaps: the
  translation goes into the source pane (one undoable step, Ctrl+Z in the source brings the
  text back) and the direction flips, as DeepL does.

The hotkey, the popup and translate-and-replace use Auto: they translate through the engine's
default options (``GenerationOptions.target`` is ``"auto"``), whatever the window shows.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QToolButton, QWidget

from desktop_mt.engine import direction

from .ports import StrEnum

SWAP_SHORTCUT = "Ctrl+Shift+S"
DESCRIBED = 2000  # characters of the text the Auto entry describes
AUTO_LABEL_LENGTH = 24  # characters the combo box has room for


class Target(StrEnum):
    """The window's direction choice, as ``GenerationOptions.target`` takes it."""

    AUTO = direction.AUTO
    CHINESE = direction.ZH  # English -> Chinese
    ENGLISH = direction.EN  # Chinese -> English


LABELS = {
    Target.AUTO: "Auto",
    Target.CHINESE: "English → Chinese",
    Target.ENGLISH: "Chinese → English",
}


def swapped(target: Target) -> Target:
    """The choice after a swap: an explicit direction flips; Auto stays Auto (it translates
    the former translation back into the other language anyway)."""
    if target is Target.CHINESE:
        return Target.ENGLISH
    if target is Target.ENGLISH:
        return Target.CHINESE
    return Target.AUTO


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
        self.combo.setMinimumContentsLength(AUTO_LABEL_LENGTH)
        self.combo.setToolTip("Translation direction: Auto translates each sentence into the other language")
        for target, label in LABELS.items():
            self.combo.addItem(label, target.value)
        self.swap_button = QToolButton(self)
        self.swap_button.setObjectName("swap")
        self.swap_button.setText("⇄")
        self.swap_button.setToolTip(
            f"Swap ({SWAP_SHORTCUT}): the translation becomes the source and the direction flips "
            "(Ctrl+Z in the source brings the text back)"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.combo)
        layout.addWidget(self.swap_button)
        self.combo.activated.connect(lambda index: self.targetChosen.emit(str(self.combo.itemData(index))))
        self.swap_button.clicked.connect(lambda _c=False: self.swapRequested.emit())

    def target(self) -> Target:
        """The direction shown."""
        return Target(str(self.combo.currentData()))

    def set_target(self, target: Target) -> None:
        """Show ``target`` (no signal: the program set it)."""
        self.combo.setCurrentIndex(self.combo.findData(target.value))

    def set_detected(self, description: str) -> None:
        """The Auto entry's text: what Auto does with the text now (``engine.direction.describe``'s
        words, shortened: "Auto (Chinese → English)", "Auto (mixed)", "Auto (Japanese: kept)")."""
        short = description.split(":")[0] if description.startswith("mixed") else description
        short = short.replace(" -> ", " → ").replace("left as it is", "kept")
        short = short.split(", ")[-1] if "already" in short else short  # "Chinese: already Chinese, kept"
        index = self.combo.findData(Target.AUTO.value)
        self.combo.setItemText(index, f"Auto ({short})" if short else LABELS[Target.AUTO])


class DirectionFeature(QObject):
    """The controller's side of the direction control (see the module docstring)."""

    changed = Signal(str)  # the Target value now in use

    def __init__(self, controller: Any) -> None:
        super().__init__(controller)
        self.controller = controller
        self.window = window = controller.window
        saved = str(getattr(controller.settings, "direction", Target.AUTO.value))
        self.target: Target = Target(saved) if saved in {t.value for t in Target} else Target.AUTO
        self.bar: DirectionBar = window.direction_bar
        self.bar.set_target(self.target)
        self.bar.targetChosen.connect(self.choose)
        window.swapRequested.connect(self.swap)
        controller.requestStarted.connect(self._on_request_started)

    def choose(self, value: str) -> None:
        """The user chose a direction: keep it and translate the source again with it."""
        self._set(Target(value))
        source = self.window.source_text()
        if source.strip():
            self.controller.translate(source)

    def use_auto(self) -> None:
        """Auto from now on (the global hotkey: text from anywhere, in either language)."""
        if self.target is not Target.AUTO:
            self._set(Target.AUTO)

    def _set(self, target: Target) -> None:
        self.target = target
        self.bar.set_target(target)
        if hasattr(self.controller.settings, "direction"):
            self.controller.settings.direction = target.value
            self.controller.save()
        self.changed.emit(target.value)

    def swap(self) -> None:
        """Put the translation into the source pane (one undoable step), flip the direction
        and translate it. With no translation the direction alone flips."""
        translation = self.window.target_text().strip()
        self._set(swapped(self.target))
        if not translation:
            return
        self.controller.postedit.before_new_text()
        self.window.set_source(translation)
        self.controller.translate(translation)

    def _on_request_started(self, _req_id: int, text: str) -> None:
        # What Auto does with the text, from its start (a label: quick on a long text).
        self.bar.set_detected(direction.describe(text[:DESCRIBED]) if self.target is Target.AUTO else "")
