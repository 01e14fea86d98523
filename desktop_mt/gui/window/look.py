"""The window's look on any palette and at any width; every colour comes from the palette.

- **Panes told apart**: the translation pane takes the palette's alternate base when it
  differs enough from the base, else the base moved toward the text colour until it does
  (some dark themes give both one colour).
- **Alignment highlight**: the palette's highlight over the pane, as opaque as it must be to
  stand out from the pane (:data:`HIGHLIGHT_CONTRAST`) while the text on it stays readable
  (:data:`TEXT_CONTRAST`).
- **The toolbar's »** (its extension button, shown when the window is too narrow for every
  button) is drawn in the palette's button text colour: the style's own arrow is a dark
  bitmap, invisible on a dark toolbar.
- **Status labels** (:class:`FitLabel`) never show a cut word: a label too narrow for its text
  shows a shorter form of it, else the text elided with "…"; the full text is its tooltip.

:class:`WindowLook` applies all this and again whenever the palette changes.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPaintEvent, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QLabel, QToolButton, QWidget

from ..ports import WindowPort
from .theme import contrast_ratio

__all__ = [
    "FitLabel",
    "HIGHLIGHT_CONTRAST",
    "TEXT_CONTRAST",
    "WindowLook",
    "highlight_color",
    "mix",
]


_PANE_CONTRAST = 1.15  # the translation pane's background against the source pane's
HIGHLIGHT_CONTRAST = 1.8  # the highlight against the pane it is on
TEXT_CONTRAST = 4.5  # the text on the highlight (WCAG AA)
_MAX_MINIMUM_WIDTH = 140  # px a status label claims at most for its shortest form


def mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved ``t`` (0..1) of the way toward ``b``."""
    pairs = ((a.redF(), b.redF()), (a.greenF(), b.greenF()), (a.blueF(), b.blueF()))
    return QColor.fromRgbF(*(x + (y - x) * t for x, y in pairs))


def _pane_color(palette: QPalette) -> QColor:
    """The translation pane's background (see the module docstring)."""
    base = palette.color(QPalette.ColorRole.Base)
    alternate = palette.color(QPalette.ColorRole.AlternateBase)
    if contrast_ratio(base, alternate) >= _PANE_CONTRAST:
        return alternate
    text = palette.color(QPalette.ColorRole.Text)
    for step in range(1, 21):
        color = mix(base, text, step / 100)
        if contrast_ratio(base, color) >= _PANE_CONTRAST:
            return color
    return alternate


def highlight_color(palette: QPalette, background: QColor) -> QColor:
    """The alignment highlight on ``background``: the palette's highlight with the lowest
    alpha that stands out, kept readable (see the module docstring)."""
    highlight = palette.color(QPalette.ColorRole.Highlight)
    text = palette.color(QPalette.ColorRole.Text)
    best = None
    for alpha in range(60, 221, 10):
        shown = mix(background, highlight, alpha / 255)
        if contrast_ratio(text, shown) < TEXT_CONTRAST:
            break  # more colour would hurt the text
        best = alpha
        if contrast_ratio(shown, background) >= HIGHLIGHT_CONTRAST:
            break
    color = QColor(highlight)
    color.setAlpha(best if best is not None else 60)
    return color


def _chevron_icon(color: QColor, size: int = 16) -> QIcon:
    """A » drawn in ``color`` (the toolbar's extension button)."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(color, max(1.5, size / 9)))
    for x in (size * 0.25, size * 0.55):
        painter.drawPolyline([QPointF(x, size * 0.25), QPointF(x + size * 0.22, size * 0.5), QPointF(x, size * 0.75)])
    painter.end()
    return QIcon(pixmap)


class FitLabel(QLabel):
    """A status bar label that never shows a cut word (module docstring). ``text()`` stays
    the full text; ``shorter`` holds shorter forms of it, longest first."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.shorter: list[str] = []

    def set_text(self, text: str, shorter: list[str] | None = None) -> None:
        """Show ``text``, or the first of ``shorter`` that fits, else ``text`` elided."""
        self.shorter = list(shorter or [])
        self.setText(text)
        self.setToolTip(text)
        # At least room for the shortest form (within reason: a long model folder name is
        # elided rather than making the window wider than a small screen).
        shortest = min((text, *self.shorter), key=len) if text else ""
        margins = self.contentsMargins()
        need = self.fontMetrics().horizontalAdvance(shortest) + margins.left() + margins.right() + 2
        self.setMinimumWidth(min(need, _MAX_MINIMUM_WIDTH) if shortest else 0)

    def shown_text(self) -> str:
        """What the label shows at its current width."""
        width = self.contentsRect().width()
        metrics = self.fontMetrics()
        for candidate in (self.text(), *self.shorter):
            if metrics.horizontalAdvance(candidate) <= width:
                return candidate
        last = self.shorter[-1] if self.shorter else self.text()
        return metrics.elidedText(last, Qt.TextElideMode.ElideRight, width)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        rect = QRectF(self.contentsRect())
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), self.shown_text())
        painter.end()


class WindowLook(QObject):
    """Applies the module's rules to a ``MainWindow``, now and on every palette change."""

    def __init__(self, window: WindowPort) -> None:
        self.widget = window.window()  # the window's own QWidget: its palette, its events
        super().__init__(self.widget)
        self.window = window
        self.widget.installEventFilter(self)
        self.apply()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.widget and event.type() == QEvent.Type.PaletteChange:
            self.apply()
        return super().eventFilter(obj, event)

    def extension_button(self) -> QToolButton | None:
        """The toolbar's » button (Qt's own, found by its object name)."""
        button = self.window.toolbar.findChild(QToolButton, "qt_toolbar_ext_button")
        return button if isinstance(button, QToolButton) else None

    def apply(self) -> None:
        """Colour the translation pane and the » from the window's palette."""
        palette = self.widget.palette()
        target = self.window.target
        pane = _pane_color(palette)
        own = QPalette()  # only these two roles set: the others follow the window's palette
        for role in (QPalette.ColorRole.Base, QPalette.ColorRole.AlternateBase):
            own.setColor(role, pane)
        target.setPalette(own)
        # The app's stylesheet reads palette(alternate-base) from the application palette, not
        # this one: a rule on the pane itself, with the colour computed above, takes precedence.
        target.setStyleSheet(f"QPlainTextEdit#target {{ background: {pane.name()}; }}")
        button = self.extension_button()
        if button is not None:
            button.setIcon(_chevron_icon(palette.color(QPalette.ColorRole.ButtonText)))
