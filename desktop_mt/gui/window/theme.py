"""Colours that follow the palette, so a dark system theme stays readable.

The stylesheet uses ``palette(role)`` only. Labels that need a tone (an error, a warning, a
quiet hint) call :func:`set_tone`: the colour is chosen for the window's background, a dark
red on a light theme and a light red on a dark one, instead of one literal colour that is
unreadable on one of them.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QWidget

__all__ = [
    "contrast_ratio",
    "dark_palette",
    "set_tone",
    "tone_color",
]


# (on a light background, on a dark background): WCAG contrast >= 4.5 against white / #202020.
_TONES = {"error": ("#b00020", "#ff8a80"), "warning": ("#8a5a00", "#ffd180")}


def _is_dark(palette: QPalette) -> bool:
    """Whether the palette's window background is dark."""
    return palette.color(QPalette.ColorRole.Window).lightnessF() < 0.5


def tone_color(palette: QPalette, tone: str) -> QColor:
    """The colour of ``tone`` ("error", "warning", "quiet") for this palette."""
    if tone == "quiet":
        return palette.color(QPalette.ColorRole.PlaceholderText)
    light, dark = _TONES[tone]
    return QColor(dark if _is_dark(palette) else light)


def set_tone(widget: QWidget, tone: str | None) -> None:
    """Colour ``widget``'s text for ``tone`` (None: the palette's normal text colour)."""
    palette = widget.palette()
    base = widget.window().palette() if widget.window() is not widget else palette
    color = base.color(QPalette.ColorRole.WindowText) if tone is None else tone_color(base, tone)
    palette.setColor(QPalette.ColorRole.WindowText, color)
    widget.setPalette(palette)


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG 2 contrast ratio of two colours (1 = none, 21 = black on white)."""

    def luminance(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def dark_palette() -> QPalette:
    """A dark palette (the screenshot tool and the dark-theme test use it to stand in for a
    dark system theme; Qt takes the real one from the desktop)."""
    palette = QPalette()
    roles = QPalette.ColorRole
    for role, color in (
        (roles.Window, "#202124"),
        (roles.WindowText, "#e8eaed"),
        (roles.Base, "#181818"),
        (roles.AlternateBase, "#26272b"),
        (roles.Text, "#e8eaed"),
        (roles.Button, "#2d2e31"),
        (roles.ButtonText, "#e8eaed"),
        (roles.Mid, "#5f6368"),
        (roles.ToolTipBase, "#3c3a2a"),
        (roles.ToolTipText, "#fff3c4"),
        (roles.PlaceholderText, "#9aa0a6"),
        (roles.Highlight, "#8ab4f8"),
        (roles.HighlightedText, "#202124"),
        (roles.Light, "#3c4043"),
        (roles.Dark, "#101010"),
        (roles.Link, "#8ab4f8"),
        (roles.LinkVisited, "#c58af9"),
    ):
        palette.setColor(role, QColor(color))
    for role in (roles.WindowText, roles.Text, roles.ButtonText):  # greyed-out commands
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#80868b"))
    return palette
