"""The window's OCR paths (offscreen Qt, real OCR engine, fake translator): Ctrl+V with an
image, Translate clipboard with an image, a dropped image file, the popup, bad images, and
the OCR running in its own thread of the GUI's process."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent, QGuiApplication, QImage

from desktop_mt.gui.features import ocr as ocr_feature
from desktop_mt.gui.platform import capture
from tests.ocr.texts import CHINESE, ENGLISH, render, save

TEXT = ENGLISH[:2]
JOINED = " ".join(TEXT)


def qimage(rgb: np.ndarray) -> QImage:
    h, w = rgb.shape[:2]
    return QImage(np.ascontiguousarray(rgb).data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()


@pytest.fixture
def ocr_window(make_controller, qtbot):
    window, controller = make_controller()
    window.show()
    return window, controller


def _read(qtbot, controller, trigger) -> str:
    with qtbot.waitSignal(controller.ocr.textRead, timeout=60_000) as blocker:
        trigger()
    return blocker.args[0]


def test_ctrl_v_with_an_image_reads_and_translates_it(ocr_window, qtbot):
    window, controller = ocr_window
    QGuiApplication.clipboard().setImage(qimage(render(TEXT)))
    window.source.setFocus()
    with qtbot.waitSignal(controller.requestFinished, timeout=60_000):
        assert (
            _read(
                qtbot,
                controller,
                lambda: qtbot.keyClick(window.source, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier),
            )
            == JOINED
        )
    assert window.source_text() == JOINED
    assert window.target_text().startswith("<The>")  # the fake engine's translation of it


def test_translate_clipboard_reads_an_image_when_there_is_no_text(ocr_window, qtbot):
    window, controller = ocr_window
    QGuiApplication.clipboard().setImage(qimage(render(CHINESE[:2])))
    assert _read(qtbot, controller, controller.translate_clipboard) == "".join(CHINESE[:2])
    assert window.source_text() == "".join(CHINESE[:2])


def test_a_dropped_image_file_is_read_not_queued_as_a_document(ocr_window, qtbot, tmp_path):
    window, controller = ocr_window
    path = save(render(TEXT), tmp_path / "shot.webp", quality=95)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    drop = QDropEvent(
        QPointF(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    assert _read(qtbot, controller, lambda: window.dropEvent(drop)) == JOINED
    assert controller.file_job is None and not controller.file_queue


def test_png_jpeg_and_clipboard_image_give_the_same_text(ocr_window, qtbot, tmp_path):
    window, controller = ocr_window
    rgb = render(TEXT + CHINESE[:1])
    texts = {
        _read(qtbot, controller, lambda p=p: controller.ocr.read_file(str(p)))
        for p in (save(rgb, tmp_path / "a.png"), save(rgb, tmp_path / "a.jpg", quality=90))
    }
    QGuiApplication.clipboard().setImage(qimage(rgb))
    texts.add(_read(qtbot, controller, controller.ocr.read_clipboard_image))
    assert texts == {JOINED + " " + CHINESE[0]}


def test_ocr_runs_in_its_own_thread_of_the_gui_process(ocr_window, qtbot, monkeypatch):
    import sys

    from desktop_mt.ocr import OcrEngine

    window, controller = ocr_window
    seen = []
    original = OcrEngine.read
    monkeypatch.setattr(
        OcrEngine, "read", lambda self, rgb: seen.append(threading.current_thread()) or original(self, rgb)
    )
    assert _read(qtbot, controller, lambda: controller.ocr.read_image(render(TEXT))) == JOINED
    assert seen and seen[0] is not threading.main_thread()
    assert "PySide6.QtWidgets" in sys.modules and "cv2" not in sys.modules  # one process, one Qt


def test_the_popup_gets_the_text_when_it_is_in_use(ocr_window, qtbot):
    window, controller = ocr_window
    window.set_source("left alone")
    assert (
        _read(qtbot, controller, lambda: controller.ocr.read_image(render(TEXT), to_popup=True, near=QPoint(10, 10)))
        == JOINED
    )
    assert controller.popup.source == JOINED and window.source_text() == "left alone"
    controller.popup.close()


def test_an_image_without_text_says_so_and_changes_nothing(ocr_window, qtbot):
    window, controller = ocr_window
    window.set_source("keep me")
    assert _read(qtbot, controller, lambda: controller.ocr.read_image(np.full((200, 300, 3), 255, np.uint8))) == ""
    assert window.source_text() == "keep me"
    assert window.statusBar().currentMessage() == ocr_feature.NO_TEXT_MESSAGE


def test_a_damaged_image_file_is_a_warning(ocr_window, qtbot, tmp_path):
    window, controller = ocr_window
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    with qtbot.waitSignal(controller.ocr.readFailed, timeout=60_000) as blocker:
        controller.translate_files([str(bad)])
    assert "broken.png" in blocker.args[0]
    assert any("broken.png" in line for line in window.banner.lines())


def test_region_capture_where_the_screen_cannot_be_read_points_to_the_clipboard(ocr_window, qtbot, monkeypatch):
    window, controller = ocr_window
    monkeypatch.setattr(ocr_feature, "capture_problem", lambda: capture.WAYLAND_MESSAGE)
    from PySide6.QtDBus import QDBusConnection

    # no session bus here, so no screenshot portal (tests/gui/platform/test_ocr_portal.py has one)
    controller.ocr.portal_bus = QDBusConnection.connectToBus("unix:path=/nonexistent/bus", "no-bus")
    with qtbot.waitSignal(controller.ocr.readFailed, timeout=10_000) as blocker:
        assert controller.ocr.start_region() is False
    assert "Ctrl+V" in blocker.args[0] and controller.ocr.picker is None


def test_the_action_sits_next_to_translate_clipboard(ocr_window):
    window, controller = ocr_window
    actions = window.toolbar.actions()
    assert actions[actions.index(window.clipboard_action) + 1] is controller.ocr.action


def test_capture_problem_names_wayland():
    assert capture.capture_problem({"WAYLAND_DISPLAY": "wayland-0"}, "wayland") == capture.WAYLAND_MESSAGE
    assert capture.capture_problem({}, "xcb") is None
    assert capture.capture_problem({}, "offscreen")


def test_qimage_to_rgb_keeps_pixels_and_flattens_alpha():
    rgb = np.random.default_rng(1).integers(0, 256, (7, 5, 3), dtype=np.uint8)  # odd width: padded rows
    assert np.array_equal(capture.qimage_to_rgb(qimage(rgb)), rgb)
    clear = QImage(4, 3, QImage.Format.Format_ARGB32)
    clear.fill(Qt.GlobalColor.transparent)
    assert (capture.qimage_to_rgb(clear) == 255).all()


def test_file_open_offers_images_and_reads_one(ocr_window, qtbot, tmp_path, monkeypatch):
    from desktop_mt.gui.window import main as window_mod

    window, controller = ocr_window
    path = save(render(TEXT), tmp_path / "page.jpg", quality=92)
    offered = []

    def choose(parent, title, folder, filters):
        offered.append(filters)
        return str(path), ""

    monkeypatch.setattr(window_mod.QFileDialog, "getOpenFileName", choose)
    assert _read(qtbot, controller, window.choose_file) == JOINED
    assert "*.png" in offered[0] and "*.jpg" in offered[0]
