"""The controller: wires the passive window to the worker thread, settings, hotkey, tray.

Request bookkeeping lives here (UI thread only): each request gets an id and its own
cancel Event. Starting a request sets the previous request's Event right away, so the
worker's engine loop stops within one decode step; output tagged with an old id is dropped.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject, QThread, QTimer, Signal
from PySide6.QtGui import QClipboard, QGuiApplication

from . import settings as settings_mod
from .hotkey import GlobalHotkey
from .settings import Settings
from .worker import EngineConfig, TranslationWorker

log = logging.getLogger(__name__)

AS_YOU_TYPE_DELAY_MS = 600  # pause after the last keystroke before translating


@dataclasses.dataclass
class _Request:
    req_id: int
    cancel: threading.Event


class Controller(QObject):
    """Owns the worker thread and the request state; see the module docstring."""

    # Queued into the worker thread (the worker lives there, so Qt queues these).
    _loadRequested = Signal(object)
    _translateRequested = Signal(int, str, object, object)
    _fileRequested = Signal(str, object, object)  # src, options, cancel Event
    fileJobEnded = Signal(str)      # "finished" / "failed" / "cancelled" (tests)
    requestFinished = Signal(int)   # emitted after a request's result was shown (tests)
    modelLoaded = Signal(object)
    stateChanged = Signal(str)

    def __init__(self, window, settings: Settings, *, settings_path: Path | None = None,
                 translator_factory: Callable[[EngineConfig], Any] | None = None,
                 hotkey: GlobalHotkey | None = None, model_override: str | None = None) -> None:
        super().__init__()
        self.window = window
        self.settings = settings
        self.settings_path = settings_path
        self.model_override = model_override  # --model for this run; cleared by Apply
        self.hotkey = hotkey
        self.current: _Request | None = None
        self.file_cancel: threading.Event | None = None  # set while a file job runs
        self.last_stats: Any = None
        self.model_info: Any = None
        self._next_id = 0
        self._loaded_key: tuple | None = None
        self._shut_down = False
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(AS_YOU_TYPE_DELAY_MS)
        self._debounce.timeout.connect(self._translate_typed)
        self._start_worker(translator_factory)
        self._connect_window()

    # ---- wiring -------------------------------------------------------------------------
    def _start_worker(self, factory: Callable[[EngineConfig], Any] | None) -> None:
        self.thread = QThread()
        self.thread.setObjectName("translation-worker")
        self.worker = TranslationWorker(factory)
        self.worker.moveToThread(self.thread)
        self._loadRequested.connect(self.worker.load)
        self._translateRequested.connect(self.worker.translate)
        w = self.worker
        w.loadStarted.connect(self._on_load_started)
        w.loaded.connect(self._on_loaded)
        w.loadFailed.connect(self._on_load_failed)
        w.delta.connect(self._on_delta)
        w.finished.connect(self._on_finished)
        w.failed.connect(self._on_failed)
        self._fileRequested.connect(self.worker.translate_file)
        w.fileProgress.connect(self._on_file_progress)
        w.fileFinished.connect(self._on_file_finished)
        w.fileFailed.connect(self._on_file_failed)
        w.fileCancelled.connect(self._on_file_cancelled)

    def _connect_window(self) -> None:
        win = self.window
        win.translateRequested.connect(self.translate)
        win.stopRequested.connect(self.stop)
        win.clearRequested.connect(self.clear)
        win.sourceEdited.connect(self._on_source_edited)
        win.clipboardTranslateRequested.connect(self.translate_clipboard)
        win.translateFileRequested.connect(self.translate_file)
        win.fileCancelRequested.connect(self.cancel_file)
        win.restore_layout(self.settings.window_geometry, self.settings.splitter_state)
        if self.hotkey is not None:
            self.hotkey.activated.connect(self.translate_clipboard)

    def start(self) -> None:
        """Start the worker thread, load the model and register the hotkey."""
        self.thread.start()
        self.reload_engine()
        self.register_hotkey()

    def engine_config(self) -> EngineConfig:
        """What the worker should build from the current settings."""
        s = self.settings
        model = self.model_override or s.model_path or None
        return EngineConfig(model, s.variant, s.intra_op_threads, s.inter_op_threads)

    def generation_options(self) -> Any:
        """GenerationOptions for a request (beams 1 = greedy, length 0 = model default)."""
        from desktop_mt.engine.options import GenerationOptions

        return GenerationOptions(beams=self.settings.beams,
                                 max_length=self.settings.max_output_length or None)

    # ---- requests -----------------------------------------------------------------------
    def translate(self, text: str) -> int | None:
        """Start translating ``text``, superseding any running request. Returns its id."""
        self._debounce.stop()
        self._cancel_current()
        self.window.clear_target()
        if not text.strip():  # nothing to do (and what ran before is cancelled)
            self.window.set_busy(False)
            self._set_state("idle")
            return None
        self._next_id += 1
        request = _Request(self._next_id, threading.Event())
        self.current = request
        self.window.set_busy(True)
        self._set_state("translating", "waiting for the file job to finish" if self.file_cancel else "")
        self._translateRequested.emit(request.req_id, text, self.generation_options(), request.cancel)
        return request.req_id

    def _cancel_current(self) -> None:
        # Set the flag directly (not via a queued slot): the worker is busy in its loop.
        if self.current is not None:
            self.current.cancel.set()
            self.current = None

    def stop(self) -> None:
        """Stop the running request; the text streamed so far stays."""
        self._debounce.stop()
        if self.current is not None:
            self.current.cancel.set()
            self._set_state("stopping")

    def clear(self) -> None:
        """Stop and empty both panes."""
        self._debounce.stop()
        self._cancel_current()
        self.window.clear_all()
        self.window.set_busy(False)
        self._set_state("idle")

    def _on_source_edited(self, _text: str) -> None:
        if self.settings.translate_as_you_type:
            self._debounce.start()

    def _translate_typed(self) -> None:
        self.translate(self.window.source_text())

    def read_clipboard(self) -> str:
        """Clipboard text; the X11 PRIMARY selection first when that option is on."""
        clipboard = QGuiApplication.clipboard()
        if self.settings.use_primary_selection and clipboard.supportsSelection():
            text = clipboard.text(QClipboard.Mode.Selection)
            if text.strip():
                return text
        return clipboard.text(QClipboard.Mode.Clipboard)

    def translate_clipboard(self) -> int | None:
        """Bring the window forward and stream the clipboard's translation."""
        text = self.read_clipboard()
        self.window.bring_forward()
        if not text.strip():
            self.window.statusBar().showMessage("The clipboard holds no text to translate.", 4000)
            return None
        self.window.set_source(text)
        return self.translate(text)

    # ---- file jobs ----------------------------------------------------------------------
    def translate_file(self, path: str) -> bool:
        """Start a batch job for ``path`` (output next to it). One job at a time; while it
        runs, interactive requests wait for it in the worker's queue."""
        if self.file_cancel is not None:
            self.window.statusBar().showMessage("A file is already being translated.", 4000)
            return False
        self.file_cancel = threading.Event()
        self.window.show_file_job(Path(path).name)
        self._fileRequested.emit(path, self.generation_options(), self.file_cancel)
        return True

    def cancel_file(self) -> None:
        """Stop the file job (set directly: the worker is busy in its loop)."""
        if self.file_cancel is not None:
            self.file_cancel.set()
            self.window.set_file_job_text("Cancelling…")

    def _on_file_progress(self, done: int, total: int, rate: float) -> None:
        if self.file_cancel is not None:
            self.window.set_file_progress(done, total, rate)

    def _end_file_job(self, outcome: str, message: str) -> None:
        self.file_cancel = None
        self.window.end_file_job(message)
        self.fileJobEnded.emit(outcome)

    def _on_file_finished(self, out_path: str) -> None:
        self._end_file_job("finished", f"Saved {out_path}")

    def _on_file_failed(self, message: str) -> None:
        self._end_file_job("failed", "File translation failed")
        self.window.show_error("File translation failed", message)

    def _on_file_cancelled(self) -> None:
        self._end_file_job("cancelled", "File translation cancelled; nothing was saved")

    # ---- worker results (UI thread) -----------------------------------------------------
    def _is_current(self, req_id: int) -> bool:
        return self.current is not None and self.current.req_id == req_id

    def _on_delta(self, req_id: int, text: str) -> None:
        if self._is_current(req_id):  # stale output of a superseded request is dropped
            self.window.append_target(text)

    def _on_finished(self, req_id: int, stats: Any) -> None:
        if not self._is_current(req_id):
            return
        self.current = None
        self.window.set_busy(False)
        if stats is not None:
            self.last_stats = stats
            self.window.set_stats(stats.first_token_seconds, stats.tokens_per_second, stats.tokens)
        self._set_state("idle")
        self.requestFinished.emit(req_id)

    def _on_failed(self, req_id: int, message: str) -> None:
        if not self._is_current(req_id):
            return
        self.current = None
        self.window.set_busy(False)
        self._set_state("error", "translation failed")
        self.window.show_error("Translation failed", message)
        self.requestFinished.emit(req_id)

    def _on_load_started(self, description: str) -> None:
        self._set_state("loading", description)

    def _on_loaded(self, info: Any, variant: str) -> None:
        self.model_info = info
        name = getattr(info, "name", None) or "model"
        self.window.set_model(f"{name} · {variant}")
        self._set_state("translating" if self.current else "idle")
        self.modelLoaded.emit(info)

    def _on_load_failed(self, message: str) -> None:
        self._loaded_key = None  # let the next Apply retry even with the same settings
        self._set_state("error", "model not loaded")
        if self.model_info is None:
            self.window.set_model("No model")
        self.window.show_error("Could not load the model", message)

    def _set_state(self, state: str, detail: str = "") -> None:
        self.window.set_state(state, detail)
        self.stateChanged.emit(state)

    # ---- settings -----------------------------------------------------------------------
    def reload_engine(self) -> None:
        """Ask the worker for a new Translator if model/variant/threads changed."""
        config = self.engine_config()
        key = dataclasses.astuple(config)
        if key == self._loaded_key:
            return
        self._loaded_key = key
        self._cancel_current()  # a model change interrupts the running job
        self.window.set_busy(False)
        self._set_state("loading", config.describe())
        self._loadRequested.emit(config)

    def apply_settings(self, new: Settings) -> None:
        """Adopt ``new``: persist, reload the engine in the worker if needed, re-register
        the hotkey. The window's text is left alone."""
        if new.model_path != self.settings.model_path:
            self.model_override = None
        old_hotkey = (self.settings.hotkey_enabled, self.settings.hotkey)
        self.settings = new
        self.save()
        self.reload_engine()
        if (new.hotkey_enabled, new.hotkey) != old_hotkey:
            self.register_hotkey()

    def register_hotkey(self) -> tuple[bool, str]:
        """(Re)register the global hotkey from the settings; problems become a warning."""
        if self.hotkey is None:
            return False, "No hotkey layer."
        if not self.settings.hotkey_enabled:
            self.hotkey.stop()
            return False, "Global hotkey is off."
        ok, message = self.hotkey.start(self.settings.hotkey)
        if not ok and self.hotkey.available:  # unavailability is shown in Settings instead
            self.window.show_warning(message)
        return ok, message

    def save(self) -> None:
        """Write the settings (with the current window layout) to disk."""
        geometry, splitter = self.window.save_layout()
        self.settings.window_geometry, self.settings.splitter_state = geometry, splitter
        try:
            settings_mod.save_settings(self.settings, self.settings_path)
        except OSError as exc:
            self.window.show_warning(f"Could not save settings: {exc}")

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Stop the request, the worker thread and the hotkey; save settings (idempotent)."""
        if self._shut_down:
            return
        self._shut_down = True
        self._debounce.stop()
        self._cancel_current()
        self.cancel_file()
        if self.hotkey is not None:
            self.hotkey.stop()
        self.save()
        self.thread.quit()
        if not self.thread.wait(timeout_ms):
            log.warning("worker thread did not stop within %d ms", timeout_ms)
            return  # do not close sessions a running thread still uses
        self.worker.close()
