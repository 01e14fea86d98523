"""The region picker: a full-screen overlay on every screen showing its frozen snapshot, where
the user drags a rectangle. Esc (or a right click) cancels; a click without a drag does nothing.

Each screen gets its own overlay window (so each is laid out at its own scale, HiDPI correct);
the selection is made on one screen, in logical coordinates, and cut from that screen's
snapshot at device pixels (``capture.ScreenShot.crop``).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QPoint, QRect, Qt, Signal
from PySide6.QtGui import QColor, QCursor, QGuiApplication, QImage, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from ..i18n import QT_TRANSLATE_NOOP, translate
from ..platform.capture import ScreenShot

__all__ = [
    "RegionOverlay",
    "RegionPicker",
]


_HINT = QT_TRANSLATE_NOOP("RegionOverlay", "Drag over the text to translate  ·  Esc cancels")
_MIN_SIZE = 4  # logical pixels: a smaller drag is a click


class RegionOverlay(QWidget):
    """One screen's overlay: the snapshot dimmed, the selection shown undimmed."""

    selected = Signal(QRect)  # logical, relative to the screen
    cancelled = Signal()

    def __init__(self, shot: ScreenShot) -> None:
        super().__init__(
            None, Qt.WindowType.FramelessWindowHint | Qt.WindowType.WindowStaysOnTopHint | Qt.WindowType.Tool
        )
        self.shot = shot
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.setMouseTracking(True)
        self.setWindowTitle(translate("RegionOverlay", "desktop-mt: select a region"))
        self._origin: QPoint | None = None
        self.selection = QRect()
        self.setScreen(shot.screen)
        self.setGeometry(shot.geometry)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.drawPixmap(self.rect(), self.shot.pixmap)
        painter.fillRect(self.rect(), QColor(0, 0, 0, 110))
        if not self.selection.isNull():
            painter.drawPixmap(self.selection, self.shot.pixmap, self.shot.device_rect(self.selection))
            painter.setPen(QPen(QColor(64, 156, 255), 2))
            painter.drawRect(self.selection.adjusted(0, 0, -1, -1))
        else:
            painter.setPen(QColor("white"))
            painter.drawText(
                self.rect().adjusted(0, 40, 0, 0),
                Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
                translate("RegionOverlay", _HINT),
            )
        painter.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.RightButton:
            self.cancelled.emit()
            return
        self._origin = event.position().toPoint()
        self.selection = QRect(self._origin, self._origin)
        self.update()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._origin is not None:
            self.selection = QRect(self._origin, event.position().toPoint()).normalized()
            self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._origin is None or event.button() != Qt.MouseButton.LeftButton:
            return
        rect = QRect(self._origin, event.position().toPoint()).normalized()
        self._origin = None
        if rect.width() < _MIN_SIZE or rect.height() < _MIN_SIZE:
            self.selection = QRect()
            self.update()
            return
        self.selected.emit(rect)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.cancelled.emit()
        else:
            super().keyPressEvent(event)


class RegionPicker(QObject):
    """Shows an overlay on every screen; emits ``picked(image, global_rect)`` with the selected
    pixels (device resolution) and the selection in virtual desktop coordinates, or
    ``cancelled``. The overlays close either way."""

    picked = Signal(QImage, QRect)
    cancelled = Signal()

    def __init__(self, shots: list[ScreenShot], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.overlays = [RegionOverlay(shot) for shot in shots]
        for overlay in self.overlays:
            overlay.selected.connect(lambda rect, o=overlay: self._on_selected(o, rect))
            overlay.cancelled.connect(self._on_cancelled)

    def show(self) -> None:
        for overlay in self.overlays:
            overlay.show()
            overlay.raise_()
            overlay.activateWindow()
        if self.overlays:
            under = QGuiApplication.screenAt(QCursor.pos())  # keyboard focus where the user is
            first = next((o for o in self.overlays if o.shot.screen is under), self.overlays[0])
            first.activateWindow()
            first.setFocus()

    def cancel(self) -> None:
        """Close the overlays without a selection (emits ``cancelled``)."""
        self._on_cancelled()

    def _on_selected(self, overlay: RegionOverlay, rect: QRect) -> None:
        image = overlay.shot.crop(rect)
        self._close()
        self.picked.emit(image, rect.translated(overlay.shot.geometry.topLeft()))

    def _on_cancelled(self) -> None:
        self._close()
        self.cancelled.emit()

    def _close(self) -> None:
        overlays, self.overlays = self.overlays, []
        for overlay in overlays:
            overlay.close()
