"""The clipboard and the global hotkey for the window: reading the clipboard (or the primary
selection), translating it in the window or showing it in the popup, and (re)registering the
hotkey with its state in words for the settings dialog. :class:`HotkeyLink` is built on the
window's :class:`~desktop_mt.gui.services.Services` with the features it hands text to (the
popup, OCR for a copied image, the direction control, the input handling) and follows
``Events.settings_applied``; the controller keeps ``translate_clipboard``, ``hotkey_pressed``,
``read_clipboard``, ``register_hotkey`` and ``hotkey_state``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from ..i18n import translate
from ..messages import hotkey_reason
from ..platform.hotkey import FALLBACK_HINT
from .pasting import clipboard_text
from .shortcuts import ShortcutKind, ShortcutState

if TYPE_CHECKING:
    from ..services import Services
    from ..settings import Settings
    from ..window.direction_bar import DirectionFeature
    from ..window.popup import PopupFeature
    from .ocr import OcrFeature
    from .pasting import InputHandling

__all__ = [
    "HotkeyLink",
]


class HotkeyLink(QObject):
    """The window's clipboard and hotkey side (see the module docstring)."""

    def __init__(
        self,
        services: Services,
        popup: PopupFeature,
        ocr: OcrFeature,
        direction: DirectionFeature,
        input_handling: InputHandling,
    ) -> None:
        super().__init__(services.owner)
        self.services, self.window = services, services.window
        self.popup, self.ocr, self.direction, self.input = popup, ocr, direction, input_handling
        self._hotkey_message = ""  # what the last registration attempt said
        self._registered: tuple[bool, str] | None = None  # the settings the hotkey follows
        if services.hotkey is not None:
            services.hotkey.activated.connect(self.hotkey_pressed)
        self._unsubscribe = services.events.settings_applied.subscribe(self._on_settings_applied)

    def read_clipboard(self, selection: bool = False) -> str:
        """Clipboard text (:func:`~.pasting.clipboard_text` with the settings in force)."""
        return clipboard_text(self.services.settings, selection)

    def hotkey_pressed(self) -> None:
        """The global hotkey: the clipboard's translation in the main window, or in the popup
        at the mouse pointer (Settings: "The hotkey shows the translation in"). Either way in the
        Auto direction (each sentence into the other language): the window's control is set to
        Auto first, where it shows."""
        if self.services.settings.hotkey_opens == "popup":
            self.popup.show_for_clipboard()
        else:
            self.direction.use_auto()
            self.translate_clipboard()

    def translate_clipboard(self, selection: bool = False) -> int | None:
        """Bring the window forward and stream the clipboard's translation (``selection``:
        the primary selection's, falling back to the clipboard where there is none)."""
        text = self.read_clipboard(selection)
        self.window.bring_forward()
        if not text.strip():
            if self.ocr.read_clipboard_image():  # a screenshot tool copied an image: read it
                return None
            self.window.statusBar().showMessage(
                translate("HotkeyLink", "The clipboard holds no text to translate."), 4000
            )
            return None
        return self.services.translate(self.input.bring_in(text))  # joined when that is on

    def register_hotkey(self) -> tuple[bool, str]:
        """(Re)register the global hotkey from the settings; problems become a warning."""
        hotkey, settings = self.services.hotkey, self.services.settings
        if hotkey is None:
            return False, translate("HotkeyLink", "No hotkey layer.")
        self._registered = (settings.hotkey_enabled, settings.hotkey)
        if not settings.hotkey_enabled:
            hotkey.stop()
            return False, translate("HotkeyLink", "Global hotkey is off.")
        ok, message = hotkey.start(settings.hotkey)
        self._hotkey_message = message
        if not ok and hotkey.available:  # unavailability is shown in Settings instead
            self.window.show_warning(message)
        return ok, message

    def _on_settings_applied(self, new: Settings) -> None:
        """Apply in the Settings dialog: register the hotkey again when its keys or the global
        shortcuts switch changed."""
        if (new.hotkey_enabled, new.hotkey) != self._registered:
            self.register_hotkey()

    def hotkey_state(self) -> ShortcutState:
        """The global hotkey's real state, in words for the settings dialog: active, failed
        to register (why), off, or unavailable here (why: Wayland, no display, ...)."""
        hk, kind = self.services.hotkey, ShortcutKind
        if hk is None:
            return ShortcutState(
                kind.UNAVAILABLE, translate("HotkeyLink", "Unavailable: this run has no global hotkey layer.")
            )
        if not hk.available:
            return ShortcutState(kind.UNAVAILABLE, translate("HotkeyLink", "Unavailable: {why}").format(why=hk.reason))
        if not self.services.settings.hotkey_enabled:
            return ShortcutState(
                kind.OFF,
                translate("HotkeyLink", "Off. {hint}").format(hint=hotkey_reason(FALLBACK_HINT)),
            )
        if hk.active_sequence:
            return ShortcutState(
                kind.ACTIVE,
                translate("HotkeyLink", "Active: {keys} translates the clipboard from any application.").format(
                    keys=hk.active_sequence
                ),
            )
        why = self._hotkey_message or translate("HotkeyLink", "not registered yet")
        keys = self.services.settings.hotkey
        return ShortcutState(
            kind.NOT_ACTIVE, translate("HotkeyLink", "Failed to register {keys}. {why}").format(keys=keys, why=why)
        )
