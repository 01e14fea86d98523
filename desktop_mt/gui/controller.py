"""The controller: wires the passive window to the worker thread, settings, hotkey, tray.

It owns the Qt-free session (:mod:`desktop_mt.app.session`: the current request), the
interactive worker's thread and the window's :class:`~desktop_mt.gui.services.Services`, and
has :func:`~desktop_mt.gui.compose.compose` build every part of the window on them (the request
flow and its results, the engine's loading, the features, the dialogs' hubs); no part gets the
controller. It connects the request flow to the worker, adapts the session's and the app's
topics to its Qt signals (``requestStarted``, ``requestFinished``, ``translationCompleted``...)
for tests and scripts, applies and saves the settings (``Events.settings_applied``: the parts
that follow them react), shuts everything down in order, and keeps the public names its callers
and the tests use, each delegating to the part that does the work.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QThread, Signal

from desktop_mt.app.session import Session
from desktop_mt.engine.direction import Target
from desktop_mt.engine.events import TranslationStats
from desktop_mt.engine.model_format import ModelInfo
from desktop_mt.engine.options import GenerationOptions
from desktop_mt.engine.protocols import TranslatorFace
from desktop_mt.tm import TranslationMemory

from .compose import WindowParts, compose
from .features import file_jobs
from .features.engine_loading import about_text  # noqa: F401 - its old home (tests import it)
from .features.shortcuts import ACTIONS as SHORTCUT_ACTIONS
from .i18n import translate
from .platform.hotkey import GlobalHotkey
from .ports import EngineConfig, HotkeyLayer
from .requests import Request
from .services import Events, Services
from .settings import Settings
from .workers.translation import FileJob, TranslationWorker, default_translator_factory

if TYPE_CHECKING:
    from .window.main import MainWindow

__all__ = [
    "Controller",
]


_logger = logging.getLogger(__name__)


class Controller(QObject):
    """Owns the session, the worker thread and the services; see the module docstring."""

    fileJobStarted = Signal(str, str)  # source, output (the draft records the running job)
    fileJobEnded = Signal(str)  # "finished" / "failed" / "cancelled" (tests)
    requestFinished = Signal(int)  # emitted after a request's result was shown (tests)
    requestStarted = Signal(int, str)  # request id, source text (sentence alignment)
    translationCompleted = Signal(str, str)  # source, translation: ran to its end (history)
    modelLoaded = Signal(ModelInfo)  # the primary model (LoadedModels.primary)
    stateChanged = Signal(str)

    def __init__(
        self,
        window: MainWindow,
        settings: Settings,
        *,
        settings_path: Path | None = None,
        translator_factory: Callable[[EngineConfig], TranslatorFace] | None = None,
        hotkey: GlobalHotkey | None = None,
        model_override: str | None = None,
    ) -> None:
        super().__init__()
        self.window = window
        self.tray_available = False  # set by the app; with the setting, closing hides to it
        self._shut_down = False
        # The one owner of the current request (Qt-free); its start is adapted to requestStarted.
        self.session = Session(options=self.window_options)
        events = Events()  # the app's other topics (status bar state, file jobs, model, settings)
        self._start_worker(translator_factory)
        # What every feature gets instead of this controller (gui/services.py).
        self.services = Services(
            window,
            self.session,
            self.worker,
            settings,
            settings_path=settings_path,
            hotkey=hotkey,
            events=events,
            owner=self,
        )
        self.services.bind(
            translate=self.translate,
            show_entry=self.show_entry,
            options=self.generation_options,
            target=self._window_target,
        )
        self._connect_window()
        self._update_shortcut_help()
        # Apply: the close button and Help > Keyboard shortcuts follow the new settings, as the
        # features do (subscribed before them: in the order Apply did these before the topic).
        events.settings_applied.subscribe(lambda _new: self._update_close_to_tray())
        events.settings_applied.subscribe(lambda _new: self._update_shortcut_help())
        # Every part of the window, built on the services (gui/compose.py); the controller keeps
        # their names (its callers and the tests use them) and wires the request core to the worker.
        parts: WindowParts = compose(
            self.services,
            window.direction_bar,
            translator_factory=translator_factory or default_translator_factory,
            real_engine=translator_factory in (None, default_translator_factory),
            model_override=model_override,
            apply_settings=self.apply_settings,
        )
        self.parts = parts
        self.input, self.direction, self.glossary = parts.input, parts.direction, parts.glossary
        self.requests, self.results, self.engine = parts.requests, parts.results, parts.engine
        self.requests.translateRequested.connect(self.worker.translate)
        self.requests.planRequested.connect(self.worker.translate_plan)
        self.bilingual, self.models_hub, self.first_start = parts.bilingual, parts.models_hub, parts.first_start
        self.alignment, self.alternatives, self.postedit = parts.alignment, parts.alternatives, parts.postedit
        self.history, self.popup, self.ocr = parts.history, parts.popup, parts.ocr
        self.hotkey_link, self.files, self.local_api = parts.hotkey_link, parts.files, parts.local_api
        self.drafts, self.job_resume, self.quit_guard = parts.drafts, parts.job_resume, parts.quit_guard
        self.progress, self.stale = parts.progress, parts.stale
        self._adapt_topics()  # last: a test waiting on a signal sees every feature's work done

    def _window_target(self) -> Target:
        """The window's direction as a request's target (the direction control's)."""
        return self.direction.target

    def _adapt_topics(self) -> None:
        """The session's and the app's Qt-free topics as this controller's Qt signals, for tests
        and scripts that wait on them (the features subscribe to the topics themselves)."""
        session, events = self.session, self.services.events
        session.started.subscribe(lambda request: self.requestStarted.emit(request.req_id, request.text))
        session.shown.subscribe(lambda ended: self.requestFinished.emit(ended.request.req_id))
        session.completed.subscribe(lambda done: self.translationCompleted.emit(done.source, done.translation))
        events.state.subscribe(lambda state: self.stateChanged.emit(state.value))
        events.file_started.subscribe(lambda job: self.fileJobStarted.emit(job.src, job.dst))
        events.file_ended.subscribe(self.fileJobEnded.emit)
        events.model_loaded.subscribe(self.modelLoaded.emit)

    # ---- wiring -------------------------------------------------------------------------
    def _start_worker(self, factory: Callable[[EngineConfig], TranslatorFace] | None) -> None:
        self.worker_thread = QThread()
        self.worker_thread.setObjectName("translation-worker")
        self.worker = TranslationWorker(factory)
        self.worker.moveToThread(self.worker_thread)

    @property
    def translation_memory(self) -> TranslationMemory | None:
        """The user's translation memory (``tm.TranslationMemory``, opened when first needed;
        None when it cannot be opened): post-editing, file jobs and the Local API share it."""
        return self.postedit.memory

    def _connect_window(self) -> None:
        win = self.window
        win.translateRequested.connect(self.translate)
        win.stopRequested.connect(self.stop)
        win.clearRequested.connect(self.clear)
        win.sourceEdited.connect(lambda _text: self.requests.source_edited())
        win.clipboardTranslateRequested.connect(self.translate_clipboard)
        win.translateFileRequested.connect(lambda path: self.translate_files([path]))  # queued if busy
        win.fileCancelRequested.connect(self.cancel_file)
        win.fontSizeChanged.connect(self._on_font_size_changed)
        win.restore_layout(self.settings.window_geometry, self.settings.splitter_state)
        win.fit_to_screen()
        win.set_font_size(self.settings.font_size)
        win.set_recent_files(self.settings.recent_files)

    def start(self) -> None:
        """Start the worker thread, load the model and register the hotkey."""
        self.worker_thread.start()
        self.files.worker_thread.start()
        self.reload_engine()
        self.register_hotkey()

    def generation_options(self) -> GenerationOptions:
        """GenerationOptions for a request (beams 0 and length 0 = the model's default;
        Traditional scripts are converted from the model's Simplified output by the engine).
        Their target is Auto (each sentence into the other language): the hotkey's popup, file
        jobs and alternatives use these; the window's own requests use :meth:`window_options`."""
        return GenerationOptions(
            beams=self.settings.beams or None,
            max_length=self.settings.max_output_length or None,
            script=self.settings.script,
            glossary=self.glossary.get(),
        )

    def window_options(self) -> GenerationOptions:
        """:meth:`generation_options` with the window's direction (Auto, English -> Chinese,
        Chinese -> English) as the target (the services' rule, which the features use too)."""
        return self.services.window_options()

    # ---- requests (the session; RequestFlow) -------------------------------------------
    @property
    def current(self) -> Request | None:
        """The interactive request that runs (None when none runs): the session's."""
        return self.session.current

    @property
    def last_stats(self) -> TranslationStats | None:
        """The figures of the last request that ran (the session's)."""
        return self.session.last_stats

    @property
    def first_text_ms(self) -> float:
        """The last request's first text on screen, ms after the request (the session's)."""
        return self.session.first_text_ms

    def translate(self, text: str) -> int | None:
        """Start translating ``text``, superseding any running request. Returns its id."""
        return self.requests.translate(text)

    def show_entry(self, source: str, translation: str) -> None:
        """Put a kept translation (History > Open) into the panes (``RequestFlow.show_entry``)."""
        self.requests.show_entry(source, translation)

    def stop(self) -> None:
        """Stop the running request; the text streamed so far stays."""
        self.requests.stop()

    def clear(self) -> None:
        """Stop and empty both panes."""
        self.requests.clear()

    def read_clipboard(self, selection: bool = False) -> str:
        """Clipboard text (``HotkeyLink.read_clipboard``)."""
        return self.hotkey_link.read_clipboard(selection)

    def hotkey_pressed(self) -> None:
        """The global hotkey (``HotkeyLink.hotkey_pressed``)."""
        self.hotkey_link.hotkey_pressed()

    def translate_clipboard(self, selection: bool = False) -> int | None:
        """Bring the window forward and translate the clipboard (``HotkeyLink``)."""
        return self.hotkey_link.translate_clipboard(selection)

    # ---- file jobs ----------------------------------------------------------------------
    def translate_files(self, paths: list[str]) -> None:
        """Translate these files one after another (``FileJobs.translate_files``)."""
        self.files.translate_files(paths)

    def translate_file(self, path: str, dst: Path | None = None, resume: bool | None = None) -> bool:
        """Start a batch job for ``path`` (``FileJobs.translate_file``: the file is named and
        parsed in the job's thread first); whether the file was taken."""
        return self.files.translate_file(path, dst, resume)

    def cancel_file(self) -> None:
        """Stop the file job (``FileJobs.cancel_file``)."""
        self.files.cancel_file()

    @property
    def file_job(self) -> FileJob | None:
        """The running file job, None when none runs."""
        return self.files.job

    @property
    def file_progress(self) -> tuple[int, int] | None:
        """Segments done and total of the running job (None before its first report)."""
        return self.files.progress

    @property
    def file_queue(self) -> list[str]:
        """Files waiting for the running job."""
        return self.files.queue.waiting

    @property
    def gate(self) -> file_jobs.InteractiveGate:
        """Typing pauses the file job between batches while a request runs."""
        return self.files.gate

    @property
    def file_worker(self) -> TranslationWorker:
        return self.files.worker

    @property
    def settings(self) -> Settings:
        """The settings in force (the services'; replaced on Apply)."""
        return self.services.settings

    @settings.setter
    def settings(self, new: Settings) -> None:
        self.services.settings = new

    @property
    def hotkey(self) -> HotkeyLayer | None:
        """The app's global hotkey layer (the services'; None: none, e.g. unit tests)."""
        return self.services.hotkey

    @hotkey.setter
    def hotkey(self, layer: HotkeyLayer | None) -> None:
        self.services.hotkey = layer

    @property
    def settings_path(self) -> Path | None:
        """Where the settings are saved (None: the default file)."""
        return self.services.settings_path

    def _on_font_size_changed(self, size: int) -> None:
        self.settings.font_size = size
        self.save()

    # ---- settings -----------------------------------------------------------------------
    def engine_config(self) -> EngineConfig:
        """What the worker should build from the current settings (``EngineLoading``)."""
        return self.engine.engine_config()

    def reload_engine(self) -> None:
        """Ask the worker for a new Translator if model/variant/threads changed."""
        self.engine.reload_engine()

    @property
    def loaded_config(self) -> EngineConfig | None:
        """What the engine runs (after a fallback too); None before the first load."""
        return self.engine.loaded_config

    @property
    def model_info(self) -> ModelInfo | None:
        """The loaded translator's model information (None before the first load)."""
        return self.engine.model_info

    def apply_settings(self, new: Settings) -> None:
        """Adopt ``new``: persist, reload the engine in the worker if needed, then publish
        ``Events.settings_applied`` (the close button, the shortcut help, the hotkeys, the Local
        API, post-editing's glossary follow it). The window's text is left alone, but for the
        sentences a changed glossary renders differently: those are translated again at once."""
        # What the window changed while the dialog was open is not the dialog's to undo.
        new = dataclasses.replace(
            new,
            font_size=self.settings.font_size,
            recent_files=list(self.settings.recent_files),
            tray_notice_shown=self.settings.tray_notice_shown,
            first_start_dismissed=self.settings.first_start_dismissed,
            join_lines=self.settings.join_lines,
            bilingual=self.settings.bilingual,
            direction=self.settings.direction,
        )
        self.settings = new
        self.save()
        # A direct call, before the topic: the load it queues must reach the worker ahead of the
        # re-translation post-editing's glossary_applied queues on settings_applied, so those
        # sentences are translated by the new model (a subscriber's place in the order is not
        # something the composition should have to keep right).
        self.reload_engine()
        self.services.events.settings_applied.publish(new)

    def _update_shortcut_help(self) -> None:
        """Help > Keyboard shortcuts lists the global shortcuts as the settings have them
        (Ctrl+Alt+E, Ctrl+Alt+O... were missing from it)."""
        s = self.settings
        rows = [
            (
                str(getattr(s, action.field)),
                translate("Controller", "{action}, from any application (Settings > Global shortcuts)").format(
                    action=action.label
                ),
            )
            for action in SHORTCUT_ACTIONS
            if s.hotkey_enabled and str(getattr(s, action.field))
        ]
        self.window.set_global_shortcuts(rows)

    def set_tray_available(self, available: bool) -> None:
        """Whether a tray icon shows (the close button then hides to it, if the setting is on)."""
        self.tray_available = available
        self._update_close_to_tray()

    def _update_close_to_tray(self) -> None:
        self.window.close_to_tray = self.tray_available and self.settings.close_to_tray

    def register_hotkey(self) -> tuple[bool, str]:
        """(Re)register the global hotkey from the settings (``HotkeyLink``)."""
        return self.hotkey_link.register_hotkey()

    def hotkey_state(self) -> str:
        """The global hotkey's real state, in words for the settings dialog (``HotkeyLink``)."""
        return self.hotkey_link.hotkey_state()

    def save(self) -> None:
        """Write the settings (with the current window layout) to disk (the services')."""
        self.services.save()

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Stop the request, the worker thread and the hotkey; save settings (idempotent)."""
        if self._shut_down:
            return
        self._shut_down = True
        self.drafts.close()  # first: with the running file job still recorded
        self.requests.debounce.stop()
        self.requests.cancel_current()
        self.cancel_file()
        self.models_hub.shutdown()
        self.first_start.shutdown()
        self.postedit.close()  # the last edits into the memory and the history
        self.history.close()
        self.alternatives.cancel()
        self.popup.close()
        self.ocr.shutdown()
        self.local_api.close()
        if self.hotkey is not None:
            self.hotkey.stop()
        self.save()
        for thread, worker in ((self.worker_thread, self.worker), (self.files.worker_thread, self.files.worker)):
            thread.quit()
            if not thread.wait(timeout_ms):
                _logger.warning("%s did not stop within %d ms", thread.objectName(), timeout_ms)
                continue  # do not close sessions a running thread still uses
            worker.close()
