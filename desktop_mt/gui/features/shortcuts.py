"""The app's global shortcuts as the user sees them: one per action, each a Settings field.

- :data:`ACTIONS`: the actions (translate clipboard, translate selection, screen region, show
  the window, translate and replace) with the Settings field that holds each one's keys.
- :func:`conflicts`: which fields hold the same keys (the settings dialog refuses them).
- :func:`state`: one shortcut's real state in words (active, off, taken by another program...),
  a :class:`ShortcutState`: the words in the interface language, the :class:`ShortcutKind` beside
  them for the colour (nothing reads the translated words to pick it).
- :class:`SelectionAndShow`: the two actions no other feature owns, "Translate selection" (the
  PRIMARY selection on X11; elsewhere the clipboard) and "Show the window"; registered from the
  settings and again after every Apply, so a change needs no restart.

The clipboard shortcut stays with :mod:`.hotkey_link`, the region one with :mod:`.ocr_feature`
and translate-and-replace with :mod:`.replace`; all of them go through the one
:class:`~.hotkeys.hub.HotkeyHub`, which refuses a chord a second action asks for.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QCursor, QGuiApplication

from ..i18n import QT_TRANSLATE_NOOP, translate
from ..platform.hotkey import GlobalHotkey
from ..platform.hotkeys.chord import Chord, parse_chord
from ..platform.hotkeys.hub import HotkeyHub
from ..platform.keys import KeySimulator, default_keys
from .pasting import clipboard_text, join_lines
from .selection_copy import SelectionCopy

if TYPE_CHECKING:
    from ..ports import HotkeyLayer
    from ..services import Services
    from ..settings import Settings
    from ..window.direction_bar import DirectionFeature
    from ..window.popup import PopupFeature
    from .pasting import InputHandling

__all__ = [
    "ACTIONS",
    "LABELS",
    "SelectionAndShow",
    "ShortcutKind",
    "ShortcutState",
    "conflicts",
    "release_changed",
    "state",
    "states",
    "tone_of",
]


_logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class _ShortcutAction:
    """An action with a global shortcut: its Settings field and its name in the interface
    (``source_label``/``source_tooltip`` are the English; ``label``/``tooltip`` translated)."""

    field: str
    source_label: str
    source_tooltip: str

    @property
    def label(self) -> str:
        """The action's name in the interface language."""
        return translate("Shortcuts", self.source_label)

    @property
    def tooltip(self) -> str:
        """What the action does, in the interface language."""
        return translate("Shortcuts", self.source_tooltip)


ACTIONS = (
    _ShortcutAction(
        "hotkey",
        QT_TRANSLATE_NOOP("Shortcuts", "Translate clipboard"),
        QT_TRANSLATE_NOOP("Shortcuts", "Translate the text on the clipboard, from any application."),
    ),
    _ShortcutAction(
        "selection_hotkey",
        QT_TRANSLATE_NOOP("Shortcuts", "Translate selection"),
        QT_TRANSLATE_NOOP(
            "Shortcuts",
            "Translate the text selected in any application (X11: the PRIMARY selection, the clipboard "
            "untouched; elsewhere the clipboard).",
        ),
    ),
    _ShortcutAction(
        "region_hotkey",
        QT_TRANSLATE_NOOP("Shortcuts", "Translate screen region"),
        QT_TRANSLATE_NOOP("Shortcuts", "Select a part of the screen and translate the text in it."),
    ),
    _ShortcutAction(
        "show_hotkey",
        QT_TRANSLATE_NOOP("Shortcuts", "Show the window"),
        QT_TRANSLATE_NOOP("Shortcuts", "Bring the desktop-mt window forward."),
    ),
    _ShortcutAction(
        "replace_hotkey",
        QT_TRANSLATE_NOOP("Shortcuts", "Translate and replace"),
        QT_TRANSLATE_NOOP(
            "Shortcuts",
            "Select text in any application and press this: the text is replaced by its translation "
            "(English into Chinese, Chinese into English).",
        ),
    ),
)


class _Labels(Mapping[str, str]):
    """Field -> the action's name, translated when it is read (after the translator is in)."""

    def __getitem__(self, field: str) -> str:
        for action in ACTIONS:
            if action.field == field:
                return action.label
        raise KeyError(field)

    def __contains__(self, field: object) -> bool:
        return any(a.field == field for a in ACTIONS)

    def __iter__(self) -> Iterator[str]:
        return (a.field for a in ACTIONS)

    def __len__(self) -> int:
        return len(ACTIONS)


LABELS: Mapping[str, str] = _Labels()


class ShortcutKind(enum.Enum):
    """What a shortcut's state is, whatever language its words are in."""

    UNAVAILABLE = "unavailable"  # no shortcut can work in this session (Wayland without portal...)
    OFF = "off"
    ACTIVE = "active"
    NOT_ACTIVE = "not active"  # set, but not registered (taken, refused, not bound yet)

    @property
    def tone(self) -> str:
        """The theme tone of its line: a warning, an error where a set shortcut fails, quiet."""
        return {ShortcutKind.UNAVAILABLE: "warning", ShortcutKind.NOT_ACTIVE: "error"}.get(self, "quiet")


class ShortcutState(str):
    """A shortcut's state: its words (a ``str``, shown as it is, in the interface language)
    and its :class:`ShortcutKind`, which picks the colour."""

    kind: ShortcutKind

    def __new__(cls, kind: ShortcutKind, text: str) -> ShortcutState:
        made = super().__new__(cls, text)
        made.kind = kind
        return made


def tone_of(text: str) -> str:
    """The theme tone of a state line: its kind's where it is a :class:`ShortcutState`, quiet
    for plain words (a note such as "Default: Ctrl+Alt+E")."""
    return text.kind.tone if isinstance(text, ShortcutState) else "quiet"


def conflicts(sequences: Mapping[str, str]) -> dict[str, str]:
    """Field -> what is wrong, for every shortcut of ``sequences`` (field -> text) whose keys
    another field holds too. Empty and malformed texts take part in nothing."""
    by_chord: dict[Chord, list[str]] = {}
    for field, text in sequences.items():
        try:
            chord = parse_chord(text) if text.strip() else None
        except ValueError:
            chord = None
        if chord is not None:
            by_chord.setdefault(chord, []).append(field)
    found = {}
    for chord, fields in by_chord.items():
        if len(fields) > 1:
            names = translate("Shortcuts", " and ").join(LABELS.get(f, f) for f in fields)
            for field in fields:
                found[field] = translate(
                    "Shortcuts", "{keys} is the shortcut of both {names}: choose another for one of them."
                ).format(keys=chord, names=names)
    return found


def state(key: GlobalHotkey | None, sequence: str, enabled: bool = True) -> ShortcutState:
    """One shortcut's real state in words for Settings: unavailable here (why), off, active,
    or not registered (why: taken by another program, held by another action, malformed)."""
    kind = ShortcutKind
    if key is None:
        return ShortcutState(
            kind.UNAVAILABLE, translate("Shortcuts", "Unavailable: this run has no global shortcut layer.")
        )
    if not key.available:
        return ShortcutState(kind.UNAVAILABLE, translate("Shortcuts", "Unavailable: {why}").format(why=key.reason))
    if not enabled or not sequence.strip():
        return ShortcutState(kind.OFF, translate("Shortcuts", "Off."))
    if key.active_sequence:
        trigger = key.desktop_trigger()
        if trigger == "":
            return ShortcutState(
                kind.NOT_ACTIVE,
                translate(
                    "Shortcuts",
                    "Not active: the desktop has not bound {keys} (confirm it in the desktop's "
                    "dialog; if it was refused, choose the keys in the desktop's shortcut settings).",
                ).format(keys=key.active_sequence),
            )
        if trigger:
            return ShortcutState(
                kind.ACTIVE,
                translate("Shortcuts", "Active: the desktop bound it to {keys}; it works from any application.").format(
                    keys=trigger
                ),
            )
        note = f" {key.reason}" if key.reason else ""
        return ShortcutState(
            kind.ACTIVE,
            translate("Shortcuts", "Active: {keys} works from any application.{note}").format(
                keys=key.active_sequence, note=note
            ),
        )
    why = key.message or translate("Shortcuts", "not registered yet.")
    return ShortcutState(kind.NOT_ACTIVE, translate("Shortcuts", "Not active: {why}").format(why=why))


class SelectionAndShow(QObject):
    """The "Translate selection" and "Show the window" shortcuts (see the module docstring).

    Built on the window's ``services`` with the features it hands the text to (the popup, the
    input handling, the direction control); registered again on Apply (``Events.settings_applied``).
    ``hub``: the registry (the session's shared one by default); ``keys``: what presses copy where
    the platform has no PRIMARY selection and the user opted in (``selection_copy``; by default
    the platform's, made on first use)."""

    def __init__(
        self,
        services: Services,
        popup: PopupFeature,
        input_handling: InputHandling,
        direction: DirectionFeature,
        hub: HotkeyHub | None = None,
        keys: KeySimulator | None = None,
    ) -> None:
        super().__init__(services.owner)
        self.services, self.popup, self.input, self.direction = services, popup, input_handling, direction
        self.window = services.window  # the one window: its warnings, brought forward
        self._keys = keys
        self.copier: SelectionCopy | None = None
        self.selection = GlobalHotkey(self, action=LABELS["selection_hotkey"], hub=hub)
        self.show = GlobalHotkey(self, action=LABELS["show_hotkey"], hub=hub)
        self.selection.activated.connect(self.translate_selection)
        self.show.activated.connect(self.show_window)
        self._unsubscribe = services.events.settings_applied.subscribe(self._on_settings_applied)

    def register(self) -> None:
        """(Re)register both from the settings; a failure becomes the window's warning."""
        settings = self.services.settings
        for key, sequence in ((self.selection, settings.selection_hotkey), (self.show, settings.show_hotkey)):
            if not settings.hotkey_enabled or not sequence.strip():
                key.stop()
                continue
            if key.active_sequence and parse_chord(sequence).text == key.active_sequence:
                continue  # unchanged: keep the grab (a re-grab could lose it to another program)
            ok, message = key.start(sequence)
            if not ok and key.available:
                self.window.show_warning(f"{key.action}: {message}")

    def _on_settings_applied(self, _new: Settings) -> None:
        self.register()

    def translate_selection(self) -> None:
        """The selected text's translation, where the clipboard shortcut shows its own (the
        window or the popup at the pointer). X11: the PRIMARY selection, the clipboard only
        read. Elsewhere, opted in: a simulated copy, the clipboard put back after
        (:class:`~.selection_copy.SelectionCopy`); not opted in: the clipboard."""
        settings = self.services.settings
        if settings.selection_copy and not QGuiApplication.clipboard().supportsSelection():
            copier = self._copier()
            if copier is not None:
                copier.start()
                return
        self._show(clipboard_text(settings, selection=True))

    def _copier(self) -> SelectionCopy | None:
        if self.copier is None:
            keys, why = (self._keys, "") if self._keys is not None else default_keys()
            if keys is None:
                self.window.show_warning(translate("Shortcuts", "Translate selection: {why}").format(why=why))
                return None
            self.copier = SelectionCopy(keys, self)
            self.copier.done.connect(self._show)
        return self.copier

    def _show(self, text: str) -> None:
        """``text`` translated in the popup or the window (Auto: each sentence into the other
        language)."""
        _logger.info("translate selection: %d characters", len(text))  # never the text itself
        if self.services.settings.hotkey_opens == "popup":
            self.popup.show_for(join_lines(text) if self.input.joining else text, QCursor.pos())
            return
        self.direction.use_auto()
        self.window.bring_forward()
        if not text.strip():
            self.window.statusBar().showMessage(translate("Shortcuts", "No text was selected to translate."), 4000)
            return
        self.services.translate(self.input.bring_in(text))

    def show_window(self) -> None:
        """Bring the window forward (from the tray too)."""
        self.window.bring_forward()

    def shutdown(self) -> None:
        """Give both shortcuts back (idempotent)."""
        self._unsubscribe()
        self.selection.stop()
        self.show.stop()


def release_changed(keys: Mapping[str, HotkeyLayer | None], new: object) -> None:
    """Before new settings are applied: give back every shortcut (field -> its key) whose keys
    change, so that two actions may swap keys in one Apply (registered one after the other,
    the first would find its new keys still held by the second)."""
    for field, key in keys.items():
        if key is None or not key.active_sequence:
            continue
        wanted = str(getattr(new, field, "")).strip()
        try:
            same = bool(wanted) and parse_chord(wanted).text == key.active_sequence
        except ValueError:
            same = False
        if not same or not getattr(new, "hotkey_enabled", True):
            key.stop()


def states(
    settings: Settings,
    clipboard: str,
    region: GlobalHotkey | None,
    extra: SelectionAndShow | None,
    replace: GlobalHotkey | None,
) -> dict[str, str]:
    """Field -> the state of each action's shortcut under ``settings``, for the settings dialog.
    ``clipboard``: the clipboard shortcut's, in words (``HotkeyLink.hotkey_state``); ``region``
    the OCR feature's key, ``extra`` the selection and show-window keys, ``replace``
    translate-and-replace's (independent of the on/off switch)."""
    s = settings
    on = s.hotkey_enabled
    return {
        "hotkey": clipboard,
        "selection_hotkey": state(extra.selection if extra else None, s.selection_hotkey, on),
        "region_hotkey": state(region, s.region_hotkey, on),
        "show_hotkey": state(extra.show if extra else None, s.show_hotkey, on),
        "replace_hotkey": state(replace, s.replace_hotkey),
    }
