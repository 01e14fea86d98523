"""Translate what is on the screen: a screen region, an image on the clipboard, an image file.

* **Translate screen region** (File menu, toolbar, global shortcut ``region_hotkey``): every
  screen is captured, an overlay on each lets the user drag a rectangle (Esc cancels), the
  region is read by OCR and the text goes into the source pane and is translated, or into the
  popup when the hotkey's translations go there (Settings: "The hotkey shows the translation
  in"). On Wayland, where an app cannot capture the screen, the desktop portal's screenshot
  is asked for (``portal.py``: the desktop's own dialog selects the area); without a portal it
  says so and points to the clipboard path.
* **Ctrl+V** in the source pane with an image (and no text) on the clipboard, **Translate
  clipboard** with an image on it, and **dropping** a PNG/JPEG/WebP/BMP/GIF/TIFF file do the same.

OCR runs in its own thread (``_OcrWorker``); the models load on first use (about a second).
A newer image supersedes one still being read: only the latest result is used.

:class:`OcrFeature` is built on the window's :class:`~desktop_mt.gui.services.Services` and the
hotkey's popup; it follows ``Events.settings_applied`` for its region shortcut.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QThread, Signal, Slot
from PySide6.QtGui import QAction, QCursor, QGuiApplication, QImage, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QMenu

from desktop_mt.base.errors import DesktopMTError
from desktop_mt.ocr import OcrEngine, OcrResult

from ..dialogs.ocr_overlay import RegionPicker
from ..i18n import QT_TRANSLATE_NOOP, translate
from ..logsetup import log_exception
from ..platform.capture import WAYLAND_MESSAGE, capture_problem, grab_screens, qimage_to_rgb
from ..platform.hotkey import GlobalHotkey

if TYPE_CHECKING:
    from PySide6.QtDBus import QDBusConnection

    from ..platform.portal import PortalScreenshot
    from ..services import Services
    from ..settings import Settings
    from ..window.popup import PopupFeature

__all__ = [
    "NO_TEXT_MESSAGE",
    "OcrFeature",
]


_logger = logging.getLogger(__name__)

NO_TEXT_MESSAGE = QT_TRANSLATE_NOOP("OcrFeature", "No text was found in the image.")  # shown translated


class _OcrReader(Protocol):
    """What the OCR thread uses of :class:`desktop_mt.ocr.OcrEngine` (tests pass fakes)."""

    def read(self, rgb: np.ndarray) -> OcrResult: ...

    def read_file(self, path: str) -> OcrResult: ...


class _OcrWorker(QObject):
    """Reads images in the OCR thread; the engine is made on the first image."""

    done = Signal(int, OcrResult)  # request id, desktop_mt.ocr.OcrResult
    failed = Signal(int, str)

    def __init__(self, engine_factory: Callable[[], _OcrReader] | None = None) -> None:
        super().__init__()
        self._factory = engine_factory
        self._engine: _OcrReader | None = None

    @Slot(int, object)
    def read(self, req_id: int, image: object) -> None:
        try:
            engine = self._engine
            if engine is None:
                engine = self._engine = (self._factory or OcrEngine)()
            if isinstance(image, str):
                result = engine.read_file(image)
            elif isinstance(image, np.ndarray):
                result = engine.read(image)
            else:
                raise TypeError(f"not an image: {type(image).__name__}")
        except DesktopMTError as exc:  # not an image, damaged, too large; OCR model missing
            self.failed.emit(req_id, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - a failed read must not take the app down
            log_exception("ocr", exc)
            self.failed.emit(req_id, translate("OcrFeature", "Reading the image failed: {error}").format(error=exc))
            return
        self.done.emit(req_id, result)


class OcrFeature(QObject):
    """The window's OCR commands (see the module docstring)."""

    # object: a file path (str) or an RGB image (numpy array), told apart by OcrWorker.read
    _readRequested = Signal(int, object)
    textRead = Signal(str)  # the recognised text was handed on ("" when there was none)
    readFailed = Signal(str)  # the message shown
    pickerShown = Signal(RegionPicker)  # the RegionPicker (tests drive it)

    def __init__(
        self, services: Services, popup: PopupFeature, engine_factory: Callable[[], _OcrReader] | None = None
    ) -> None:
        super().__init__(services.owner)
        self.services = services
        self.window = services.window
        self.popup = popup  # a reading from the hotkey shows in the popup (setting)
        # Not ``self.thread``: that would hide QObject.thread() (the thread this object lives in).
        self.ocr_thread = QThread()
        self.ocr_thread.setObjectName("ocr-worker")
        self.worker = _OcrWorker(engine_factory)
        self.worker.moveToThread(self.ocr_thread)
        self._readRequested.connect(self.worker.read)
        self.worker.done.connect(self._on_done)
        self.worker.failed.connect(self._on_failed)
        self.ocr_thread.start()
        self._next_id = 0
        self._pending: tuple[int, bool, QPoint | None] | None = None  # id, to the popup, where
        self.picker: RegionPicker | None = None
        self.portal: PortalScreenshot | None = None  # made on first use (Wayland)
        self.portal_bus: QDBusConnection | None = None  # the D-Bus connection it uses (None: the session bus)
        self._portal_to_popup = False
        self.last_result: OcrResult | None = None
        self.action = self._add_action()
        self.window.source.installEventFilter(self)  # Ctrl+V with an image
        self.hotkey: GlobalHotkey | None = None
        self._registered: tuple[bool, str] | None = None  # the settings the region hotkey follows
        if services.hotkey is not None:  # the app's hotkey layer exists (not in unit tests)
            self.hotkey = GlobalHotkey(self, action=translate("Shortcuts", "Translate screen region"))
            self.hotkey.activated.connect(lambda: self.start_region(via_hotkey=True))
            self.register_hotkey()
        self._unsubscribe = services.events.settings_applied.subscribe(self._on_settings_applied)

    def _add_action(self) -> QAction:
        """ "Translate screen region" next to "Translate clipboard" (toolbar and File menu)."""
        win = self.window
        action = QAction(translate("OcrFeature", "Translate screen region"), win.window())
        action.setToolTip(
            translate(
                "OcrFeature",
                "Select a part of the screen and translate the text in it (from any application: "
                "Settings > Global shortcuts)",
            )
        )
        action.triggered.connect(lambda _checked=False: self.start_region())
        anchor = win.clipboard_action
        for obj in anchor.associatedObjects():
            holder = obj if isinstance(obj, QMenu) else win.toolbar if obj is win.toolbar else None
            if holder is None:
                continue
            actions = holder.actions()
            after = actions.index(anchor) + 1 if anchor in actions else len(actions)
            if after < len(actions):
                holder.insertAction(actions[after], action)
            else:
                holder.addAction(action)
        return action

    def register_hotkey(self) -> None:
        """The region hotkey (Settings: ``region_hotkey``, "" = off) follows the global
        shortcuts setting (on/off)."""
        if self.hotkey is None:
            return
        settings = self.services.settings
        self._registered = (settings.hotkey_enabled, settings.region_hotkey)
        sequence = settings.region_hotkey.strip()
        if not settings.hotkey_enabled or not sequence:
            self.hotkey.stop()
            return
        ok, message = self.hotkey.start(sequence)
        if not ok and self.hotkey.available:
            _logger.warning("region hotkey: %s", message)

    def _on_settings_applied(self, new: Settings) -> None:
        """Apply in the Settings dialog: register the region hotkey again when its keys or the
        global shortcuts switch changed."""
        if (new.hotkey_enabled, new.region_hotkey) != self._registered:
            self.register_hotkey()

    # ---- where images come from ---------------------------------------------------------
    def start_region(self, via_hotkey: bool = False) -> bool:
        """Show the region overlay on every screen; False (with a message) where the screen
        cannot be captured."""
        problem = capture_problem()
        if problem == translate("Capture", WAYLAND_MESSAGE) and self._request_portal_screenshot(via_hotkey):
            return True
        shots = grab_screens() if problem is None else []
        if problem is None and not shots:
            problem = translate("OcrFeature", "The screen could not be captured.")
        if problem is not None:
            self.window.bring_forward()
            self._show_failure(problem)
            return False
        if self.picker is not None:
            self.picker.cancel()
        self.picker = RegionPicker(shots, self)
        self.picker.picked.connect(lambda image, rect: self._on_picked(image, rect, via_hotkey))
        self.picker.cancelled.connect(self._on_pick_cancelled)
        self.picker.show()
        self.pickerShown.emit(self.picker)
        return True

    def _request_portal_screenshot(self, via_hotkey: bool) -> bool:
        """Wayland: ask the desktop portal for a screenshot (its own dialog selects the area);
        False where there is no portal or the request could not be made."""
        if self.portal is None:
            from ..platform.portal import PortalScreenshot

            self.portal = PortalScreenshot(self, self.portal_bus)
            self.portal.captured.connect(lambda path: self._submit(path, self._portal_to_popup, None))
            self.portal.cancelled.connect(lambda message: self.window.statusBar().showMessage(message, 4000))
            self.portal.failed.connect(
                lambda message: self._show_failure(f"{message} {translate('Capture', WAYLAND_MESSAGE)}")
            )
        if not self.portal.available():
            return False
        self._portal_to_popup = via_hotkey and self._popup_in_use()
        return bool(self.portal.request())

    def _on_picked(self, image: QImage, rect: QRect, via_hotkey: bool) -> None:
        self.picker = None
        self.read_image(image, to_popup=via_hotkey and self._popup_in_use(), near=rect.bottomLeft())

    def _on_pick_cancelled(self) -> None:
        self.picker = None

    def read_clipboard_image(self, to_popup: bool = False) -> bool:
        """OCR the image on the clipboard, if there is one (and no text)."""
        mime = QGuiApplication.clipboard().mimeData()
        if mime is None or not mime.hasImage() or (mime.hasText() and mime.text().strip()):
            return False
        image = QGuiApplication.clipboard().image()
        if image.isNull():
            return False
        self.read_image(image, to_popup=to_popup, near=QCursor.pos() if to_popup else None)
        return True

    def read_file(self, path: str) -> None:
        """OCR an image file (dropped on the window)."""
        self._submit(path, False, None)

    def read_image(self, image: QImage | np.ndarray, to_popup: bool = False, near: QPoint | None = None) -> int:
        """OCR ``image`` in the OCR thread; its text then goes to the source pane (translated)
        or, with ``to_popup``, to the popup shown at ``near``. Returns the request id."""
        rgb = qimage_to_rgb(image) if isinstance(image, QImage) else image
        return self._submit(rgb, to_popup, near)

    def _submit(self, image: object, to_popup: bool, near: QPoint | None) -> int:
        self._next_id += 1
        self._pending = (self._next_id, to_popup, near)
        self.window.statusBar().showMessage(translate("OcrFeature", "Reading the text in the image…"))
        self._readRequested.emit(self._next_id, image)
        return self._next_id

    def _popup_in_use(self) -> bool:
        return self.services.settings.hotkey_opens == "popup"

    # ---- results ------------------------------------------------------------------------
    def _on_done(self, req_id: int, result: OcrResult) -> None:
        if self._pending is None or self._pending[0] != req_id:
            return  # superseded by a newer image
        _, to_popup, near = self._pending
        self._pending = None
        self.last_result = result
        if result.empty:
            self.window.statusBar().showMessage(translate("OcrFeature", NO_TEXT_MESSAGE), 6000)
            self.textRead.emit("")
            return
        self.window.statusBar().showMessage(
            (
                translate("OcrFeature", "Read {count} line in {seconds} s")
                if len(result.line_texts) == 1
                else translate("OcrFeature", "Read {count} lines in {seconds} s")
            ).format(count=len(result.line_texts), seconds=f"{result.seconds:.1f}"),
            6000,
        )
        if to_popup:
            self.popup.show_for(result.text, near or QCursor.pos())
        else:
            self.window.bring_forward()
            self.window.set_source(result.text)
            self.services.translate(result.text)
        self.textRead.emit(result.text)

    def _on_failed(self, req_id: int, message: str) -> None:
        if self._pending is None or self._pending[0] != req_id:
            return
        self._pending = None
        self._show_failure(message)

    def _show_failure(self, message: str) -> None:
        self.window.statusBar().showMessage(message, 10000)
        self.window.show_warning(message)
        self.readFailed.emit(message)

    # ---- Ctrl+V -------------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.matches(QKeySequence.StandardKey.Paste)
            and self.read_clipboard_image()
        ):
            return True
        return super().eventFilter(obj, event)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Stop the hotkey, close an open overlay and the OCR thread (idempotent)."""
        self._unsubscribe()
        if self.hotkey is not None:
            self.hotkey.stop()
        if self.picker is not None:
            self.picker.cancel()
        self._pending = None
        self.ocr_thread.quit()
        if not self.ocr_thread.wait(timeout_ms):
            _logger.warning("the OCR thread did not stop within %d ms", timeout_ms)
