"""Translate and replace: a second global hotkey that turns the selected text in any
application into its translation in place: English into Chinese, Chinese into English (Auto,
each sentence into the other language: :mod:`desktop_mt.engine.direction`).

One run of :class:`_ReplaceFlow`, all on the UI thread and never blocking it:

1. the clipboard's current contents are saved (every format it offers);
2. the selection is read: on X11 the PRIMARY selection (what was selected last); elsewhere a
   simulated Ctrl+C (Cmd+C) and the clipboard's change, with a time limit;
3. it is translated by the interactive worker (its own request ids, negative, so the window's
   requests never see its output; the worker thread does the work);
4. the translation goes on the clipboard and a simulated Ctrl+V pastes it into the focused window;
5. the saved contents are put back once the target has fetched the text: on X11 when its
   request for the text has been answered (:class:`_X11FetchWatch`), elsewhere after a short
   delay (the target reads the clipboard when it handles the key press).

Whatever fails (nothing selected, nothing to translate such as Japanese text, the model, a cancel, the key press),
the clipboard is put back as it was and the reason is shown in the status bar (and in the tray
when the window is hidden). The key presses go through :class:`keys.KeySimulator`.
"""

from __future__ import annotations

import ctypes
import dataclasses
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractNativeEventFilter, QCoreApplication, QMimeData, QObject, QTimer, Signal
from PySide6.QtGui import QClipboard, QGuiApplication

from desktop_mt.engine.direction import AUTO, directions_needed
from desktop_mt.engine.options import GenerationOptions

from ..i18n import QT_TRANSLATE_NOOP, translate
from ..messages import describe_text
from ..platform.hotkey import GlobalHotkey
from ..platform.keys import KeySimulationError, KeySimulator, default_keys
from ..ports import StrEnum, TrayPort, WorkerPort
from ..services import Services

if TYPE_CHECKING:
    from desktop_mt.engine.events import TranslationStats
    from desktop_mt.engine.options import GenerationOptions

__all__ = [
    "COPY_TIMEOUT_MS",
    "NO_SELECTION",
    "POLL_MS",
    "TranslateReplace",
    "install",
    "left_as_it_is",
    "same_x_client",
    "snapshot",
]


_logger = logging.getLogger(__name__)

COPY_TIMEOUT_MS = 1500  # how long a simulated Ctrl+C may take to change the clipboard
_RESTORE_DELAY_MS = 800  # time the target gets to fetch the pasted text before the restore
POLL_MS = 50  # how often the clipboard is looked at while waiting for Ctrl+C
_FETCH_TIMEOUT_MS = 3000  # X11: the restore waits this long at most for the target's request
_AFTER_FETCH_MS = 300  # X11: ...and this long after the last request for the text
# Request ids of this flow: negative (never the session's) and far from the popup's -1, -2...
_FIRST_REQUEST_ID = -1_000_000_000
NO_SELECTION = QT_TRANSLATE_NOOP("Replace", "Translate and replace: no text is selected. Select some text first.")


def left_as_it_is(text: str) -> str:
    """What the flow says about a selection with nothing to translate in it (Japanese,
    numbers only...): :func:`desktop_mt.engine.direction.describe`'s words in the interface
    language (:func:`..messages.describe_text`)."""
    why = describe_text(text) or translate("Replace", "nothing to translate; left as it is")
    return translate("Replace", "Translate and replace: {why}.").format(why=why)


class _ReplaceState(StrEnum):
    """Where a run of :class:`_ReplaceFlow` is (compares equal to its value)."""

    IDLE = "idle"
    COPYING = "copying"  # waiting for the simulated Ctrl+C to change the clipboard
    TRANSLATING = "translating"
    PASTING = "pasting"  # the translation was pasted; the clipboard is put back soon


class _Outcome(StrEnum):
    """How a run ended (``ReplaceFlow.finished``'s first argument; compares equal to its value)."""

    REPLACED = "replaced"
    FAILED = "failed"
    CANCELLED = "cancelled"


def snapshot(mime: QMimeData | None) -> QMimeData:
    """A copy of every format of ``mime`` (the clipboard's data belongs to the clipboard)."""
    copy = QMimeData()
    if mime is None:
        return copy
    for fmt in mime.formats():
        copy.setData(fmt, mime.data(fmt))
    if mime.hasImage():
        copy.setImageData(mime.imageData())
    return copy


class _X11FetchWatch(QAbstractNativeEventFilter):
    """X11: calls ``on_fetch`` when another client asks this process for the data of a
    selection it owns (a SelectionRequest for text, not for the list of TARGETS), i.e. when the
    target of the simulated Ctrl+V fetches the pasted text. Installed only while pasting."""

    _META = ("TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS")

    def __init__(self, on_fetch: Callable[[], None]) -> None:
        super().__init__()
        self.on_fetch = on_fetch
        self.meta_atoms: set[int] | None = None

    def _meta(self) -> set[int]:
        if self.meta_atoms is None:
            self.meta_atoms = set()
            try:  # python-xlib comes with pynput on Linux; atoms are the same for every client
                from Xlib import display  # type: ignore[import-untyped, unused-ignore]  # no stubs shipped

                d = display.Display()
                self.meta_atoms = {d.intern_atom(name) for name in self._META}
                d.close()
            except Exception as exc:  # noqa: BLE001 - then every request counts
                _logger.info("translate and replace: no X atoms (%s)", type(exc).__name__)
        return self.meta_atoms

    def nativeEventFilter(self, event_type: Any, message: Any) -> tuple[bool, int]:
        if bytes(event_type) == b"xcb_generic_event_t":
            address = int(message)
            # xcb_selection_request_event_t: response_type 30; the target atom at byte 20.
            if (
                ctypes.c_uint8.from_address(address).value & 0x7F == 30
                and ctypes.c_uint32.from_address(address + 20).value not in self._meta()
            ):
                self.on_fetch()
        return False, 0


def _fetch_watch(on_fetch: Callable[[], None]) -> _X11FetchWatch | None:
    """The watch where the platform lets one see the paste being fetched (X11), else None."""
    return _X11FetchWatch(on_fetch) if QGuiApplication.platformName() == "xcb" else None


class _Cookie(ctypes.Structure):
    _fields_ = [("sequence", ctypes.c_uint)]


def same_x_client(window_a: int, window_b: int, resource_id_mask: int) -> bool:
    """Whether two X windows were created by one client: the server gives each client its own
    base for resource ids, and the bits outside ``resource_id_mask`` are that base."""
    return (window_a & ~resource_id_mask) == (window_b & ~resource_id_mask)


def _primary_is_in_focused_app() -> bool | None:
    """X11: whether the PRIMARY selection belongs to the application that has the keyboard
    focus. PRIMARY keeps the text that was selected last, possibly in another window, long
    after; only the focused application's selection is the one to replace. None when it
    cannot be told (no libxcb, no display, focus on the root); the caller then trusts it."""
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    conn = xcb.xcb_connect(None, None)
    try:
        return _primary_owner_vs_focus(xcb, libc, conn)
    finally:
        xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
        xcb.xcb_disconnect(conn)


def _primary_owner_vs_focus(xcb: Any, libc: Any, conn: int) -> bool | None:
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    if not conn or xcb.xcb_connection_has_error(conn):
        return None
    xcb.xcb_get_setup.restype = ctypes.c_void_p
    xcb.xcb_get_setup.argtypes = [ctypes.c_void_p]
    # xcb_setup_t: status, pad, 2 versions, length (8 bytes), release (4), resource_id_base
    # (4), then resource_id_mask at byte 16.
    mask = ctypes.c_uint32.from_address(xcb.xcb_get_setup(conn) + 16).value
    owner = _reply_window(xcb, libc, conn, "get_selection_owner", 1)  # atom 1: PRIMARY
    focus = _reply_window(xcb, libc, conn, "get_input_focus")
    if owner is None or focus is None or focus <= 1:  # 0 None, 1 PointerRoot
        return None
    return owner != 0 and same_x_client(owner, focus, mask)


def _reply_window(xcb: Any, libc: Any, conn: int, request: str, *args: int) -> int | None:
    """The window of a GetSelectionOwner/GetInputFocus reply (both carry it at byte 8)."""
    send, wait = getattr(xcb, f"xcb_{request}"), getattr(xcb, f"xcb_{request}_reply")
    send.restype, send.argtypes = _Cookie, [ctypes.c_void_p] + [ctypes.c_uint32] * len(args)
    wait.restype, wait.argtypes = ctypes.c_void_p, [ctypes.c_void_p, _Cookie, ctypes.c_void_p]
    reply = wait(conn, send(conn, *args), None)
    if not reply:
        return None
    window = ctypes.c_uint32.from_address(reply + 8).value
    libc.free.argtypes = [ctypes.c_void_p]
    libc.free(reply)
    return window


class _ReplaceFlow(QObject):
    """One translate-and-replace at a time (see the module docstring)."""

    finished = Signal(str, str)  # Outcome's value ("replaced", "failed", "cancelled"), message
    _translateRequested = Signal(int, str, GenerationOptions, threading.Event)

    def __init__(
        self,
        worker: WorkerPort,
        options: Callable[[], GenerationOptions],
        keys: KeySimulator | None,
        no_keys_reason: str = "",
        report: Callable[[str, bool], None] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.keys = keys
        self.no_keys_reason = no_keys_reason
        self.options = options  # the flow translates with target "auto" whatever these say
        self.report = report or (lambda message, problem: None)
        self.primary_in_focus: Callable[[], bool | None] = _primary_is_in_focused_app
        self.copy_timeout_ms = COPY_TIMEOUT_MS
        self.restore_delay_ms = _RESTORE_DELAY_MS
        self._watch = _fetch_watch(self._on_fetched)
        self._watching = False
        self.state = _ReplaceState.IDLE
        self._saved: QMimeData | None = None
        self._touched = False  # whether the clipboard was changed (by Ctrl+C or by us)
        self._listening = False  # connected to the clipboard's dataChanged
        self._req_id = 0
        self._next_id = _FIRST_REQUEST_ID
        self._cancel: threading.Event | None = None
        self._parts: list[str] = []
        self._frame = ("", "")  # the selection's leading and trailing white space
        self._copy_timer = self._timer(self._on_copy_timeout)
        # macOS tells an inactive app about clipboard changes only when it becomes active, so
        # the copy is also noticed by looking at the clipboard now and then.
        self._poll_timer = QTimer(self)
        self._poll_timer.setInterval(POLL_MS)
        self._poll_timer.timeout.connect(self._poll_copied)
        self._restore_timer = self._timer(self._on_restore_due)
        self._translateRequested.connect(worker.translate)  # queued: the worker has its thread
        worker.delta.connect(self._on_delta)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)

    def _timer(self, slot: Callable[[], None]) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.timeout.connect(slot)
        return timer

    @staticmethod
    def clipboard() -> QClipboard:
        return QGuiApplication.clipboard()

    # ---- steps --------------------------------------------------------------------------
    def trigger(self) -> bool:
        """Start a run (the hotkey); pressed again while one runs, cancel it. False when no
        run started (or it failed at once)."""
        if self.state != _ReplaceState.IDLE:
            self.cancel()
            return False
        if self.keys is None:
            self._end(
                _Outcome.FAILED,
                self.no_keys_reason or translate("Replace", "Translate and replace is unavailable here."),
            )
            return False
        clipboard = self.clipboard()
        self._saved = snapshot(clipboard.mimeData(QClipboard.Mode.Clipboard))
        self._touched = False
        if clipboard.supportsSelection():  # X11: the PRIMARY selection is the selected text
            if self.primary_in_focus() is False:  # selected earlier in another application
                self._end(_Outcome.FAILED, translate("Replace", NO_SELECTION))
                return False
            self._selected(clipboard.text(QClipboard.Mode.Selection))
            return self.state != _ReplaceState.IDLE
        self.state = _ReplaceState.COPYING
        self._touched = True  # the simulated Ctrl+C replaces the clipboard
        clipboard.dataChanged.connect(self._on_copied)
        self._listening = True
        self._copy_timer.start(self.copy_timeout_ms)
        self._poll_timer.start()
        try:
            self.keys.copy()
        except KeySimulationError as exc:
            self._end(_Outcome.FAILED, translate("Replace", "Translate and replace: {error}").format(error=exc))
            return False
        return self.state != _ReplaceState.IDLE

    def _on_copied(self) -> None:
        if self.state != _ReplaceState.COPYING:
            return
        self._stop_copying()
        self._selected(self.clipboard().text(QClipboard.Mode.Clipboard))

    def _on_copy_timeout(self) -> None:
        if self.state == _ReplaceState.COPYING:
            self._end(_Outcome.FAILED, translate("Replace", NO_SELECTION))

    def _poll_copied(self) -> None:
        saved = self._saved
        now = self.clipboard().mimeData(QClipboard.Mode.Clipboard)
        if saved is not None and now is not None and (now.text() != saved.text() or now.formats() != saved.formats()):
            self._on_copied()

    def _stop_copying(self) -> None:
        self._copy_timer.stop()
        self._poll_timer.stop()
        if self._listening:
            self._listening = False
            self.clipboard().dataChanged.disconnect(self._on_copied)

    def _selected(self, text: str) -> None:
        core = text.strip()
        if not core:
            self._end(_Outcome.FAILED, translate("Replace", NO_SELECTION))
            return
        if not directions_needed(core):  # Japanese, Korean, numbers only: nothing to translate
            self._end(_Outcome.FAILED, left_as_it_is(core))
            return
        start = text.index(core[0])
        self._frame = (text[:start], text[start + len(core) :])
        self._next_id -= 1
        self._req_id = self._next_id
        self._cancel = threading.Event()
        self._parts = []
        self.state = _ReplaceState.TRANSLATING
        self.report(translate("Replace", "Translating the selection…"), False)
        _logger.info("translate and replace: translating %d characters", len(core))
        options = dataclasses.replace(self.options(), target=AUTO)  # each sentence into the other language
        self._translateRequested.emit(self._req_id, core, options, self._cancel)

    def _mine(self, req_id: int) -> bool:
        return self.state == _ReplaceState.TRANSLATING and req_id == self._req_id

    def _on_delta(self, req_id: int, text: str) -> None:
        if self._mine(req_id):
            self._parts.append(text)

    def _on_failed(self, req_id: int, message: str) -> None:
        if self._mine(req_id):
            self._end(
                _Outcome.FAILED,
                translate("Replace", "Translate and replace: the translation failed. {error}").format(error=message),
            )

    def _on_finished(self, req_id: int, stats: TranslationStats | None) -> None:
        if not self._mine(req_id):
            return
        if (self._cancel is not None and self._cancel.is_set()) or (stats is not None and stats.cancelled):
            self._end(
                _Outcome.CANCELLED, translate("Replace", "Translate and replace was cancelled; nothing was pasted.")
            )
            return
        translation = "".join(self._parts).strip()
        if not translation:
            self._end(_Outcome.FAILED, translate("Replace", "Translate and replace: the translation came out empty."))
            return
        keys = self.keys
        if keys is None:  # trigger() does not start without keys; a test may take them away
            self._end(
                _Outcome.FAILED,
                self.no_keys_reason or translate("Replace", "Translate and replace is unavailable here."),
            )
            return
        self.state = _ReplaceState.PASTING
        self.clipboard().setText(self._frame[0] + translation + self._frame[1], QClipboard.Mode.Clipboard)
        self._touched = True
        app = QCoreApplication.instance()
        if self._watch is not None and app is not None:  # X11: restore once the target has fetched the text
            app.installNativeEventFilter(self._watch)
            self._watching = True
        try:
            keys.paste()
        except KeySimulationError as exc:
            self._end(_Outcome.FAILED, translate("Replace", "Translate and replace: {error}").format(error=exc))
            return
        self._restore_timer.start(_FETCH_TIMEOUT_MS if self._watching else self.restore_delay_ms)

    def _on_fetched(self) -> None:
        if self.state == _ReplaceState.PASTING:
            self._restore_timer.start(_AFTER_FETCH_MS)  # again after each request (large texts)

    def _on_restore_due(self) -> None:
        if self.state == _ReplaceState.PASTING:
            self._end(
                _Outcome.REPLACED,
                translate(
                    "Replace", "Replaced the selection with its translation; the clipboard holds what it held before."
                ),
            )

    def cancel(self) -> None:
        """Stop a run: before the paste nothing is pasted and the clipboard is put back
        (once pasted, the restore that follows is not cut short)."""
        if self.state == _ReplaceState.COPYING:
            self._end(
                _Outcome.CANCELLED, translate("Replace", "Translate and replace was cancelled; nothing was pasted.")
            )
        elif self.state == _ReplaceState.TRANSLATING and self._cancel is not None:
            self._cancel.set()  # the worker stops within a decode step and reports back

    def _end(self, outcome: _Outcome, message: str) -> None:
        """Finish the run: put the clipboard back if it was changed, say how it went."""
        self._stop_copying()
        self._restore_timer.stop()
        app = QCoreApplication.instance()
        if self._watching and self._watch is not None and app is not None:
            app.removeNativeEventFilter(self._watch)
        self._watching = False
        if self._touched and self._saved is not None:
            self._restore()
        self._saved, self._touched, self._cancel, self._parts = None, False, None, []
        self.state = _ReplaceState.IDLE
        _logger.info("translate and replace: %s", outcome.value)
        self.report(message, outcome is not _Outcome.REPLACED)
        self.finished.emit(outcome.value, message)

    def _restore(self) -> None:
        saved = self._saved
        if saved is None or not saved.formats():
            self.clipboard().clear(QClipboard.Mode.Clipboard)
        else:
            self.clipboard().setMimeData(snapshot(saved), QClipboard.Mode.Clipboard)


class TranslateReplace(QObject):
    """The feature as the app wires it: the flow, its global hotkey (the setting
    ``replace_hotkey``, off while empty, registered again when settings are applied) and where
    its messages go."""

    def __init__(
        self,
        services: Services,
        tray: TrayPort | None = None,
        hotkey: GlobalHotkey | None = None,
        keys: tuple[KeySimulator | None, str] | None = None,
    ) -> None:
        super().__init__(services.window.window())
        self.services, self.window, self.tray = services, services.window, tray
        simulator, reason = keys if keys is not None else default_keys()
        self.flow = _ReplaceFlow(
            services.worker, services.generation_options, simulator, reason, self.show_message, self
        )
        self.hotkey = hotkey
        if hotkey is not None:
            hotkey.activated.connect(self.flow.trigger)
            services.events.settings_applied.subscribe(lambda _settings: self.register())

    def show_message(self, message: str, problem: bool) -> None:
        """The status bar always; the tray too for a problem while the window is hidden."""
        self.window.statusBar().showMessage(message, 10_000)
        hidden = not self.window.isVisible() or self.window.isMinimized()
        if problem and hidden and self.tray is not None and self.tray.available:
            self.tray.notify("desktop-mt", message)

    def register(self) -> tuple[bool, str]:
        """(Re)register the hotkey from the settings; a failure becomes a warning."""
        sequence = self.services.settings.replace_hotkey.strip()
        if self.hotkey is None:
            return False, translate("Replace", "No hotkey layer.")
        if not sequence:
            self.hotkey.stop()
            return False, translate("Replace", "Translate and replace is off (no hotkey set).")
        s = self.services.settings
        if s.hotkey_enabled and sequence.lower() == s.hotkey.lower():
            self.hotkey.stop()
            message = translate(
                "Replace",
                "The translate-and-replace hotkey {keys} is the clipboard hotkey too; choose another one in Settings.",
            ).format(keys=sequence)
            self.window.show_warning(message)
            return False, message
        ok, message = self.hotkey.start(sequence)
        if ok and self.flow.keys is None:
            message = self.flow.no_keys_reason
            ok = False
        if not ok and self.hotkey.available:
            self.window.show_warning(message)
        return ok, message

    def shutdown(self) -> None:
        """Cancel a running replace and unregister the hotkey (idempotent)."""
        self.flow.cancel()
        if self.hotkey is not None:
            self.hotkey.stop()


def install(services: Services, tray: TrayPort | None = None) -> TranslateReplace:
    """Build the feature with a real global hotkey and register it from the settings."""
    feature = TranslateReplace(services, tray, GlobalHotkey(action=translate("Shortcuts", "Translate and replace")))
    feature.register()
    return feature
