"""The popup at the cursor: placement inside the screen, streaming the clipboard, Copy,
Open in main window, Esc / focus loss, and the hotkey setting."""

from __future__ import annotations

import re
import threading

import pytest
from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget

from desktop_mt.engine import direction
from desktop_mt.engine.options import GenerationOptions
from desktop_mt.gui import i18n
from desktop_mt.gui.settings import Settings
from desktop_mt.gui.window.popup import OFFSET, direction_title, place_near

from ..fakes import wait_emitted
from ..sentence_fake import sentence_factory

AREA = QRect(0, 0, 1280, 760)  # a screen's available geometry (a panel below)
SIZE = QSize(420, 220)


def test_place_near_below_right_flipped_and_clamped():
    assert place_near(QPoint(100, 100), SIZE, AREA) == QPoint(100 + OFFSET.x(), 100 + OFFSET.y())
    corner = place_near(QPoint(1270, 750), SIZE, AREA)  # no room right or below: above-left
    assert corner == QPoint(1270 - OFFSET.x() - 420, 750 - OFFSET.y() - 220)
    for pointer in (QPoint(-50, -50), QPoint(5000, 5000), QPoint(1279, 10), QPoint(10, 759)):
        rect = QRect(place_near(pointer, SIZE, AREA), SIZE)
        assert AREA.contains(rect), (pointer, rect)
    offset_area = QRect(1280, 24, 1920, 1056)  # a second screen with a top panel
    rect = QRect(place_near(QPoint(1300, 30), SIZE, offset_area), SIZE)
    assert offset_area.contains(rect)
    assert place_near(QPoint(10, 10), QSize(3000, 3000), AREA) == QPoint(0, 0)


def _controller(qtbot, make_controller, settings=None, **kwargs):
    window, controller = make_controller(settings or Settings(hotkey_opens="popup"), factory=sentence_factory(**kwargs))
    return window, controller


def test_hotkey_opens_the_popup_near_the_pointer_and_streams_the_clipboard(qtbot, make_controller):
    window, controller = _controller(qtbot, make_controller)
    QGuiApplication.clipboard().setText("Hello world. Fine.")
    feature = controller.popup
    popup = feature.popup
    with qtbot.waitSignal(feature.finished, timeout=10_000):
        controller.hotkey_pressed()
    assert popup.isVisible()
    assert popup.translation() == "<Hello><world.> <Fine.>"
    area = popup.screen().availableGeometry()
    assert area.contains(popup.frameGeometry())
    assert window.target_text() == ""  # the main window is not touched
    assert window.source_text() == ""
    # Kept in the history like any finished translation.
    [entry] = controller.history.history().search()
    assert (entry.source, entry.translation) == ("Hello world. Fine.", "<Hello><world.> <Fine.>")
    popup.copy_button.click()
    assert QGuiApplication.clipboard().text() == "<Hello><world.> <Fine.>"
    qtbot.keyClick(popup.text, Qt.Key.Key_Escape)
    assert not popup.isVisible()


def test_popup_placed_at_a_given_pointer(qtbot, make_controller):
    window, controller = _controller(qtbot, make_controller)
    popup = controller.popup.popup
    area = QGuiApplication.primaryScreen().availableGeometry()
    pointer = area.bottomRight() - QPoint(2, 2)
    with qtbot.waitSignal(controller.popup.finished, timeout=10_000):
        controller.popup.show_for("Near the corner.", pointer)
    assert area.contains(popup.frameGeometry())
    assert popup.geometry().bottom() < pointer.y() and popup.geometry().right() < pointer.x()
    popup.close()


def test_open_in_main_window_hands_over_undoably(qtbot, make_controller):
    window, controller = _controller(qtbot, make_controller)
    window.set_source("my draft")
    with qtbot.waitSignal(controller.popup.finished, timeout=10_000):
        controller.popup.show_for("Hello world.", QPoint(50, 50))
    controller.popup.popup.open_button.click()
    assert not controller.popup.popup.isVisible()
    assert window.source_text() == "Hello world."
    assert window.target_text() == "<Hello><world.>"
    window.source.undo()
    assert window.source_text() == "my draft"


def test_open_while_streaming_translates_in_the_window(qtbot, make_controller):
    gate = threading.Event()
    window, controller = _controller(qtbot, make_controller, gate=gate)
    feature = controller.popup
    with wait_emitted(qtbot, controller.worker.delta, timeout=10_000):
        feature.show_for("One. Two.", QPoint(50, 50))
    qtbot.waitUntil(lambda: feature.popup.translation() == "<One.>", timeout=10_000)
    assert not feature.done
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        feature.popup.open_button.click()
        gate.set()
    assert window.source_text() == "One. Two."
    assert window.target_text() == "<One.> <Two.>"
    assert feature.popup.translation() == "<One.>"  # the popup's request was cancelled


def test_click_elsewhere_closes_and_cancels(qtbot, make_controller):
    gate = threading.Event()
    window, controller = _controller(qtbot, make_controller, gate=gate)
    other = QWidget()
    qtbot.addWidget(other)
    other.setGeometry(600, 400, 200, 100)
    other.show()
    qtbot.waitExposed(other)
    feature = controller.popup
    with wait_emitted(qtbot, controller.worker.delta, timeout=10_000):
        feature.show_for("One. Two.", QPoint(50, 50))
    popup = feature.popup
    assert popup.isVisible()
    with qtbot.waitSignal(popup.closed, timeout=10_000):
        # Through the window (the platform's event path), where Qt's popup handling sees it.
        QTest.mouseClick(
            other.windowHandle(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(20, 20)
        )
    assert not popup.isVisible()
    assert feature._current is None  # its translation was cancelled
    gate.set()


def test_hotkey_setting_main_window(qtbot, make_controller):
    window, controller = _controller(qtbot, make_controller, settings=Settings(hotkey_opens="window"))
    QGuiApplication.clipboard().setText("Hello world.")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.hotkey_pressed()
    assert not controller.popup.popup.isVisible()
    assert window.target_text() == "<Hello><world.>"


def test_empty_clipboard_says_so(qtbot, make_controller):
    window, controller = _controller(qtbot, make_controller)
    QGuiApplication.clipboard().setText("")
    assert controller.popup.show_for_clipboard(QPoint(10, 10)) is None
    assert "no text" in controller.popup.popup.status.text()
    controller.popup.popup.close()


def test_popup_joins_pdf_line_breaks_when_joining_is_on(qtbot, make_controller):
    window, controller = _controller(qtbot, make_controller)
    feature = controller.popup
    QGuiApplication.clipboard().setText("The transla-\ntion is\nready.")
    with qtbot.waitSignal(feature.finished, timeout=10_000):
        controller.hotkey_pressed()
    assert feature.source == "The translation is ready."
    feature.popup.close()
    controller.input.set_join_lines(False)
    with qtbot.waitSignal(feature.finished, timeout=10_000):
        controller.hotkey_pressed()
    assert feature.source == "The transla-\ntion is\nready."


def test_the_popup_translates_chinese_too_and_says_which_way(qtbot, make_controller):
    """Auto direction (issue 26): the popup asks for target "auto" whatever the window's options
    say, and its title names the direction of the text it shows."""
    window, controller = make_controller(Settings(hotkey_opens="popup"))
    controller.generation_options = lambda: GenerationOptions(target="zh")  # the window: into Chinese
    feature = controller.popup
    with qtbot.waitSignal(feature.finished, timeout=10_000):
        feature.show_for("这是 一个 句子。", QPoint(10, 10))
    assert feature.popup.translation() == "<这是><一个><句子。>"
    assert feature.popup.title.text() == "Chinese → English"
    (call,) = controller.worker.translator.calls
    assert call["options"].target == "auto"
    feature.popup.close()
    assert direction_title("Good morning.") == "English → Chinese"
    assert direction_title("これは日本語です。") == "Japanese: left as it is"


@pytest.fixture
def chinese(qapp):
    """The Chinese interface's translators installed, as a zh_CN start would."""
    installed = i18n.install(qapp, "zh_CN")
    yield installed
    i18n.uninstall(qapp, installed)


LATIN = re.compile(r"[A-Za-z]")


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("这是 一个 句子。", "中文 → 英文"),
        ("これは日本語です。", "日文：保持原样"),
        ("한국어 문장입니다.", "韩文：保持原样"),
    ],
)
def test_the_popup_says_which_way_in_the_interface_language(qtbot, make_controller, chinese, text, title):
    """In the Chinese interface the popup's direction line is Chinese, as the direction bar's
    Auto entry is: both say engine.direction.describe()'s words through gui.messages.described."""
    window, controller = make_controller(Settings(hotkey_opens="popup"))
    feature = controller.popup
    with qtbot.waitSignal(feature.finished, timeout=10_000):
        feature.show_for(text, QPoint(10, 10))
    assert feature.popup.title.text() == title
    assert not LATIN.search(feature.popup.title.text())
    feature.popup.close()
    window.direction_bar.set_detected(direction.describe(text, short=True))
    assert not LATIN.search(window.direction_bar.detected())
