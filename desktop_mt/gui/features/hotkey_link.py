"""The clipboard and the global hotkey for the window: reading the clipboard (or the primary
selection), translating it in the window or showing it in the popup, and (re)registering the
hotkey with its state in words for the settings dialog. The controller's collaborator
(:class:`HotkeyLink`, on its port ``ports.HotkeyHost``); the controller keeps
``translate_clipboard``, ``hotkey_pressed``, ``read_clipboard``, ``register_hotkey`` and
``hotkey_state``.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QClipboard, QGuiApplication

from ..i18n import translate
from ..messages import hotkey_reason
from ..platform.hotkey import FALLBACK_HINT
from ..ports import HotkeyHost, qt_parent
from .shortcuts import ShortcutKind, ShortcutState


class HotkeyLink(QObject):
    """The controller's clipboard and hotkey side (see the module docstring)."""

    def __init__(self, host: HotkeyHost) -> None:
        super().__init__(qt_parent(host))
        self.host = host
        self._hotkey_message = ""  # what the last registration attempt said
        if host.hotkey is not None:
            host.hotkey.activated.connect(self.hotkey_pressed)

    def read_clipboard(self, selection: bool = False) -> str:
        """Clipboard text; the PRIMARY selection (the text selected last) first when
        ``selection`` is asked for or that option is on, where the platform has one."""
        clipboard = QGuiApplication.clipboard()
        if (selection or self.host.settings.use_primary_selection) and clipboard.supportsSelection():
            text = clipboard.text(QClipboard.Mode.Selection)
            if text.strip():
                return text
        return clipboard.text(QClipboard.Mode.Clipboard)

    def hotkey_pressed(self) -> None:
        """The global hotkey: the clipboard's translation in the main window, or in the popup
        at the mouse pointer (Settings: "The hotkey shows the translation in"). Either way in the
        Auto direction (each sentence into the other language): the window's control is set to
        Auto first, where it shows."""
        if self.host.settings.hotkey_opens == "popup":
            self.host.popup.show_for_clipboard()
        else:
            self.host.direction.use_auto()
            self.translate_clipboard()

    def translate_clipboard(self, selection: bool = False) -> int | None:
        """Bring the window forward and stream the clipboard's translation (``selection``:
        the primary selection's, falling back to the clipboard where there is none)."""
        text = self.read_clipboard(selection)
        self.host.window.bring_forward()
        if not text.strip():
            if self.host.ocr.read_clipboard_image():  # a screenshot tool copied an image: read it
                return None
            self.host.window.statusBar().showMessage(
                translate("HotkeyLink", "The clipboard holds no text to translate."), 4000
            )
            return None
        return self.host.translate(self.host.input.bring_in(text))  # joined when that is on

    def register_hotkey(self) -> tuple[bool, str]:
        """(Re)register the global hotkey from the settings; problems become a warning."""
        hotkey = self.host.hotkey
        if hotkey is None:
            return False, translate("HotkeyLink", "No hotkey layer.")
        if not self.host.settings.hotkey_enabled:
            hotkey.stop()
            return False, translate("HotkeyLink", "Global hotkey is off.")
        ok, message = hotkey.start(self.host.settings.hotkey)
        self._hotkey_message = message
        if not ok and hotkey.available:  # unavailability is shown in Settings instead
            self.host.window.show_warning(message)
        return ok, message

    def hotkey_state(self) -> ShortcutState:
        """The global hotkey's real state, in words for the settings dialog: active, failed
        to register (why), off, or unavailable here (why: Wayland, no display, ...)."""
        hk, kind = self.host.hotkey, ShortcutKind
        if hk is None:
            return ShortcutState(
                kind.UNAVAILABLE, translate("HotkeyLink", "Unavailable: this run has no global hotkey layer.")
            )
        if not hk.available:
            return ShortcutState(kind.UNAVAILABLE, translate("HotkeyLink", "Unavailable: {why}").format(why=hk.reason))
        if not self.host.settings.hotkey_enabled:
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
        return ShortcutState(
            kind.NOT_ACTIVE,
            translate("HotkeyLink", "Failed to register {keys}. {why}").format(keys=self.host.settings.hotkey, why=why),
        )
