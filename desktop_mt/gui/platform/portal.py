"""The desktop portal's screenshot (``org.freedesktop.portal.Screenshot``): how a Wayland app
gets an image of the screen. The portal asks the user (GNOME and KDE show their own dialog,
where an area can be selected) and answers with the file it wrote, by a ``Response`` signal on
a request object whose path the app can compute in advance (so no answer can be missed).

https://flatpak.github.io/xdg-desktop-portal/docs/doc-org.freedesktop.portal.Screenshot.html
"""

from __future__ import annotations

import itertools
import os

from PySide6.QtCore import SLOT, QObject, QUrl, Signal, Slot
from PySide6.QtDBus import QDBusConnection, QDBusMessage

from ..i18n import translate

__all__ = [
    "INTERFACE",
    "PATH",
    "PortalScreenshot",
    "REQUEST",
    "SERVICE",
]


SERVICE = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"
INTERFACE = "org.freedesktop.portal.Screenshot"
REQUEST = "org.freedesktop.portal.Request"
_tokens = itertools.count(1)
# The slot as Qt's SLOT() macro spells it. PySide's stubs type QDBusConnection.connect's
# ``const char*`` slot as bytes, but only this str works at run time (bytes: never called).
_RESPONSE_SLOT = SLOT("_on_response(uint,QVariantMap)")


class PortalScreenshot(QObject):
    """One screenshot request at a time: ``captured(path)``, ``cancelled(message)`` (the user
    cancelled in the portal's dialog) or ``failed(message)`` (the portal failed)."""

    captured = Signal(str)
    cancelled = Signal(str)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None, bus: QDBusConnection | None = None) -> None:
        super().__init__(parent)
        self.bus = bus or QDBusConnection.sessionBus()
        self._request_path = ""

    def available(self) -> bool:
        """Whether a portal service is on the session bus."""
        if not self.bus.isConnected():
            return False
        reply = self.bus.interface().isServiceRegistered(SERVICE)
        return bool(reply.value()) if reply.isValid() else False

    def request(self) -> bool:
        """Ask the portal for an interactive screenshot; False when the call could not be made."""
        token = f"desktop_mt_{os.getpid()}_{next(_tokens)}"
        sender = self.bus.baseService().lstrip(":").replace(".", "_")
        path = f"{PATH}/request/{sender}/{token}"
        self._forget()
        connected = self.bus.connect(  # type: ignore[call-overload]  # str slot: see _RESPONSE_SLOT
            "", path, REQUEST, "Response", self, _RESPONSE_SLOT
        )
        if not connected:
            return False
        self._request_path = path
        call = QDBusMessage.createMethodCall(SERVICE, PATH, INTERFACE, "Screenshot")
        call.setArguments(["", {"handle_token": token, "interactive": True, "modal": True}])
        reply = self.bus.call(call)
        if reply.type() == QDBusMessage.MessageType.ErrorMessage:
            self._forget()
            self.failed.emit(
                translate("Portal", "The desktop's screenshot portal failed: {error}").format(
                    error=reply.errorMessage()
                )
            )
            return False
        return True

    @Slot("uint", "QVariantMap")
    def _on_response(self, code: int, results: dict[str, object]) -> None:
        self._forget()
        uri = str(results.get("uri", "")) if code == 0 else ""
        path = QUrl(uri).toLocalFile() if uri else ""
        if path:
            self.captured.emit(path)
        elif code == 1:
            self.cancelled.emit(translate("Portal", "The screenshot was cancelled."))
        else:
            self.failed.emit(translate("Portal", "The desktop's screenshot portal gave no image."))

    def _forget(self) -> None:
        if self._request_path:
            self.bus.disconnect(  # type: ignore[call-overload]  # str slot: see _RESPONSE_SLOT
                "", self._request_path, REQUEST, "Response", self, _RESPONSE_SLOT
            )
            self._request_path = ""
