"""The window's sentence marks read under a dark theme (issue 46: the memory's dotted underline
took the palette's link colour, dark blue on a dark base under a dark GTK theme)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from desktop_mt.gui.features.alignment import memory_mark_color, term_warning_color


def _palette(base: str, link: str) -> QPalette:
    palette = QPalette()
    palette.setColor(QPalette.ColorRole.Base, QColor(base))
    palette.setColor(QPalette.ColorRole.Window, QColor(base))
    palette.setColor(QPalette.ColorRole.Link, QColor(link))
    return palette


def _contrast(a: QColor, b: QColor) -> int:
    return abs(a.lightness() - b.lightness())


def test_the_memory_mark_reads_on_a_dark_base_with_a_dark_link_colour(qapp):
    dark = _palette("#2b2b2b", "#1a237e")  # Adwaita-dark-like base, a theme's dark link colour
    assert _contrast(memory_mark_color(dark), QColor("#2b2b2b")) >= 100
    assert _contrast(term_warning_color(dark), QColor("#2b2b2b")) >= 80


def test_a_readable_link_colour_is_kept(qapp):
    light = _palette("#ffffff", "#0000ee")
    assert memory_mark_color(light) == QColor("#0000ee")
