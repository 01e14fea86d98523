"""The tray icon: Translate clipboard, Show/Hide, Quit."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal, SignalInstance
from PySide6.QtGui import QAction, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QMenu, QSystemTrayIcon, QWidget

from ..i18n import translate

__all__ = [
    "Tray",
    "notice_windows",
]


class Tray(QObject):
    """Tray icon and menu. The menu and its actions exist even where the desktop has no
    tray (``available`` False), so the same intents work from tests and other menus."""

    translateClipboard = Signal()
    toggleWindow = Signal()
    quitRequested = Signal()

    def __init__(self, icon: QIcon, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.menu = QMenu()
        self.translate_action = self._action(translate("Tray", "Translate clipboard"), self.translateClipboard)
        self.toggle_action = self._action(translate("Tray", "Show/Hide window"), self.toggleWindow)
        self.menu.addSeparator()
        self.quit_action = self._action(translate("Tray", "Quit"), self.quitRequested)
        self.available = QSystemTrayIcon.isSystemTrayAvailable()
        self.icon = QSystemTrayIcon(icon, self)
        self.icon.setToolTip("desktop-mt")
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)
        self.last_notice: tuple[str, str] | None = None  # what notify() said last (tests)

    def _action(self, text: str, signal: SignalInstance) -> QAction:
        action = QAction(text, self.menu)
        action.triggered.connect(lambda _checked=False: signal.emit())
        self.menu.addAction(action)
        return action

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        # A left click toggles the window, as users of other tray apps expect.
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.toggleWindow.emit()

    def show(self) -> None:
        """Show the icon where the desktop has a tray."""
        if self.available:
            self.icon.show()

    def notify(self, title: str, text: str) -> None:
        """A desktop notification from the tray icon (nothing where there is no tray)."""
        self.last_notice = (title, text)
        if self.available and self.icon.isVisible():
            self.icon.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, 8000)
            for balloon in notice_windows():
                _readable_balloon(balloon)

    def hide(self) -> None:
        """Remove the icon (on quit)."""
        self.icon.hide()


def notice_windows() -> list[QWidget]:
    """Qt's own notice windows (where the desktop has no notification service, X11 trays)."""
    return [w for w in QApplication.topLevelWidgets() if w.metaObject().className() == "QBalloonTip"]


def _readable_balloon(balloon: QWidget) -> None:
    """Qt paints its notice on its own palette's Window colour (a light yellow) but, under an
    application stylesheet, its labels take the application's palette: under a dark theme,
    light text on light yellow. Its labels get the notice's own text colour."""
    text = balloon.palette().color(QPalette.ColorRole.WindowText)
    for label in balloon.findChildren(QLabel):
        palette = label.palette()
        palette.setColor(QPalette.ColorRole.WindowText, text)
        label.setPalette(palette)
