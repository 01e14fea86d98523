"""The window at 480 px and in a dark palette: nothing cut, the toolbar's » visible, the two
panes told apart and the alignment highlight readable, all from the palette; About says when
the model is a demo."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette

from desktop_mt.gui.window import fonts, theme
from desktop_mt.gui.window.look import HIGHLIGHT_CONTRAST, TEXT_CONTRAST, highlight_color, mix
from desktop_mt.gui.window.main import MainWindow


@pytest.fixture
def app_palette(qapp):
    """Sets the application's palette as a dark system theme would; the old one after."""
    old = qapp.palette()
    yield qapp.setPalette
    qapp.setPalette(old)


def dark_window(qtbot, set_palette, palette: QPalette | None = None) -> MainWindow:
    """The window in a dark palette, with the app's stylesheet on it (as at start)."""
    set_palette(palette or theme.dark_palette())
    window = MainWindow()
    qtbot.addWidget(window)
    window.setStyleSheet(fonts.stylesheet())
    return window


@pytest.fixture
def narrow(qtbot, app_palette):
    window = dark_window(qtbot, app_palette)
    window.resize(480, 560)
    window.set_demo_notice(True)
    window.set_model("tatoeba-en-zh-small · int8")
    window.set_state("stopped", "1 of 4 sentences translated; Ctrl+Enter translates the text again")
    window.set_stats(0.014, 450.0, 21)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_at_480_px_no_status_label_shows_a_cut_word(narrow):
    assert narrow.width() == 480
    for label in (narrow.model_label, narrow.state_label, narrow.stats_label):
        shown = label.shown_text()
        assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width(), shown
        assert shown in (label.text(), *label.shorter), f"{shown!r} is cut"  # a whole form
        assert label.toolTip() == label.text()  # the full text is one hover away
    assert "tok/s" in narrow.stats_label.shown_text() and narrow.state_label.shown_text().startswith("stopped")


def test_at_480_px_the_demo_banner_wraps_instead_of_being_cut(narrow):
    label = narrow.demo_notice.label
    assert label.isVisible() and label.geometry().right() <= narrow.demo_notice.contentsRect().right()
    assert label.wordWrap() and label.height() >= label.heightForWidth(label.width())


def test_the_toolbar_extension_button_is_visible_in_the_dark_palette(narrow):
    button = narrow.look.extension_button()
    assert button is not None and button.isVisible()  # 480 px: not every button fits
    image = button.icon().pixmap(16, 16).toImage()
    background = narrow.palette().color(QPalette.ColorRole.Button)
    drawn = [image.pixelColor(x, y) for x in range(16) for y in range(16) if image.pixelColor(x, y).alpha() > 200]
    assert drawn and max(theme.contrast_ratio(c, background) for c in drawn) >= 4.5


def pane_background(editor) -> QColor:
    return editor.viewport().grab().toImage().pixelColor(4, 4)


@pytest.mark.parametrize("same_bases", [False, True])
def test_the_two_panes_are_told_apart_in_a_dark_palette(qtbot, app_palette, same_bases):
    palette = theme.dark_palette()
    if same_bases:  # some dark themes give both bases one colour
        palette.setColor(QPalette.ColorRole.AlternateBase, palette.color(QPalette.ColorRole.Base))
    window = dark_window(qtbot, app_palette, palette)
    window.show()
    qtbot.waitExposed(window)
    source, target = pane_background(window.source), pane_background(window.target)
    assert theme.contrast_ratio(source, target) >= 1.15, (source.name(), target.name())
    text = palette.color(QPalette.ColorRole.Text)
    assert theme.contrast_ratio(text, target) >= 4.5  # still a dark pane: its light text readable


@pytest.mark.parametrize(
    "highlight,base", [("#8ab4f8", "#26272b"), ("#2a82da", "#232323"), ("#3daee9", "#31363b"), ("#308cc6", "#ffffff")]
)
def test_the_alignment_highlight_stands_out_and_keeps_the_text_readable(highlight, base):
    palette = QPalette()
    dark = QColor(base).lightnessF() < 0.5
    palette.setColor(QPalette.ColorRole.Highlight, QColor(highlight))
    palette.setColor(QPalette.ColorRole.Text, QColor("#e8eaed" if dark else "#000000"))
    color = highlight_color(palette, QColor(base))
    shown = mix(QColor(base), color, color.alphaF())
    assert theme.contrast_ratio(shown, QColor(base)) >= HIGHLIGHT_CONTRAST
    assert theme.contrast_ratio(palette.color(QPalette.ColorRole.Text), shown) >= TEXT_CONTRAST


def test_about_says_when_the_model_is_the_demo(tmp_path):
    import dataclasses

    from desktop_mt.engine.model_format import bundled_model_dir, inspect_model_dir
    from desktop_mt.gui.controller import about_text

    bundled = inspect_model_dir(bundled_model_dir())
    demo = about_text(bundled, "int8")
    assert "bundled demo model" in demo and "not for real text" in demo
    real = about_text(dataclasses.replace(bundled, name="opus-mt-en-zh", path=tmp_path), "int8")
    assert "demo" not in real and "Model: opus-mt-en-zh (int8)" in real
