"""The clipboard and the global hotkey for the window: reading the clipboard (or the primary
selection), translating it in the window or showing it in the popup, and (re)registering the
hotkey with its state in words for the settings dialog. The controller's collaborator
(:class:`HotkeyLink`); the controller keeps ``translate_clipboard``, ``hotkey_pressed``,
``read_clipboard``, ``register_hotkey`` and ``hotkey_state``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QClipboard, QGuiApplication

from .hotkey import FALLBACK_HINT

if TYPE_CHECKING:
    from .controller import Controller


class HotkeyLink(QObject):
    """The controller's clipboard and hotkey side (see the module docstring)."""

    def __init__(self, controller: Controller) -> None:
        super().__init__(controller)
        self.controller = controller
        self._hotkey_message = ""  # what the last registration attempt said
        if controller.hotkey is not None:
            controller.hotkey.activated.connect(self.hotkey_pressed)

    def read_clipboard(self, selection: bool = False) -> str:
        """Clipboard text; the PRIMARY selection (the text selected last) first when
        ``selection`` is asked for or that option is on, where the platform has one."""
        clipboard = QGuiApplication.clipboard()
        if (selection or self.controller.settings.use_primary_selection) and clipboard.supportsSelection():
            text = clipboard.text(QClipboard.Mode.Selection)
            if text.strip():
                return text
        return clipboard.text(QClipboard.Mode.Clipboard)

    def hotkey_pressed(self) -> None:
        """The global hotkey: the clipboard's translation in the main window, or in the popup
        at the mouse pointer (Settings: "The hotkey shows the translation in"). Either way in the
        Auto direction (each sentence into the other language): the window's control is set to
        Auto first, where it shows."""
        if self.controller.settings.hotkey_opens == "popup":
            self.controller.popup.show_for_clipboard()
        else:
            self.controller.direction.use_auto()
            self.translate_clipboard()

    def translate_clipboard(self, selection: bool = False) -> int | None:
        """Bring the window forward and stream the clipboard's translation (``selection``:
        the primary selection's, falling back to the clipboard where there is none)."""
        text = self.read_clipboard(selection)
        self.controller.window.bring_forward()
        if not text.strip():
            if self.controller.ocr.read_clipboard_image():  # a screenshot tool copied an image: read it
                return None
            self.controller.window.statusBar().showMessage("The clipboard holds no text to translate.", 4000)
            return None
        return self.controller.translate(self.controller.input.bring_in(text))  # joined when that is on

    def register_hotkey(self) -> tuple[bool, str]:
        """(Re)register the global hotkey from the settings; problems become a warning."""
        if self.controller.hotkey is None:
            return False, "No hotkey layer."
        if not self.controller.settings.hotkey_enabled:
            self.controller.hotkey.stop()
            return False, "Global hotkey is off."
        ok, message = self.controller.hotkey.start(self.controller.settings.hotkey)
        self._hotkey_message = message
        if not ok and self.controller.hotkey.available:  # unavailability is shown in Settings instead
            self.controller.window.show_warning(message)
        return ok, message

    def hotkey_state(self) -> str:
        """The global hotkey's real state, in words for the settings dialog: active, failed
        to register (why), off, or unavailable here (why: Wayland, no display, ...)."""
        hk = self.controller.hotkey
        if hk is None:
            return "Unavailable: this run has no global hotkey layer."
        if not hk.available:
            return f"Unavailable: {hk.reason}"
        if not self.controller.settings.hotkey_enabled:
            return f"Off. {FALLBACK_HINT}"
        if hk.active_sequence:
            return f"Active: {hk.active_sequence} translates the clipboard from any application."
        why = self._hotkey_message or "not registered yet"
        return f"Failed to register {self.controller.settings.hotkey}. {why}"
