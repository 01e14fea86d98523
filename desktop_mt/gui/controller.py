"""The controller: wires the passive window to the worker thread, settings, hotkey, tray.

It builds the window's features and its own collaborators, each on a port of
:mod:`~desktop_mt.gui.ports` (none imports this module): the interactive requests
(:mod:`~desktop_mt.gui.requests`: ids, cancelling, typing's pause) and their results
(:mod:`~desktop_mt.gui.request_results`), the engine loads (:mod:`~desktop_mt.gui.features.engine_loading`),
the file jobs (:mod:`~desktop_mt.gui.features.file_queue`), the clipboard and the global hotkey
(:mod:`~desktop_mt.gui.features.hotkey_link`). It keeps the settings and the public names the
features and the tests use.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QThread, Signal

from desktop_mt.app.session import Session
from desktop_mt.engine.events import TranslationStats
from desktop_mt.engine.model_format import ModelInfo
from desktop_mt.engine.options import GenerationOptions
from desktop_mt.tm.apply import memory_factory

from .dialogs.glossary_editor import GlossaryStore
from .dialogs.history_dialog import HistoryFeature
from .dialogs.models_dialog import ModelsHub
from .features import bilingual, drafts, file_jobs, job_resume, pasting, quitting, stale
from .features.alignment import AlignmentFeature
from .features.alternatives import AlternativesFeature
from .features.engine_loading import EngineLoading, about_text  # noqa: F401 - about_text: its old home (tests import it)
from .features.file_queue import FileJobs
from .features.first_start import FirstStart
from .features.hotkey_link import HotkeyLink
from .features.local_api import LocalApiFeature
from .features.models import StoreBackend
from .features.ocr import OcrFeature
from .features.postedit import PostEditFeature
from .features.shortcuts import ACTIONS as SHORTCUT_ACTIONS
from .i18n import translate
from .platform.hotkey import GlobalHotkey
from .ports import EngineConfig, HotkeyLayer
from .request_results import RequestResults
from .requests import Request, RequestFlow
from .services import Events, Services
from .settings import Settings
from .window import progress
from .window.direction_bar import DirectionFeature
from .window.popup import PopupFeature
from .workers.translation import FileJob, TranslationWorker, default_translator_factory

if TYPE_CHECKING:
    from .window.main import MainWindow

log = logging.getLogger(__name__)


class Controller(QObject):
    """Owns the worker thread and the request state; see the module docstring."""

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
        translator_factory: Callable[[EngineConfig], Any] | None = None,
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
        self.input = pasting.InputHandling(self.services)  # join lines on paste, text left as it is
        self.direction = DirectionFeature(self.services, window.direction_bar)  # Auto / EN->ZH / ZH->EN, swap
        self.requests = RequestFlow(self.services, self.input, self.direction)  # starts, stops, clears requests
        self.requests.translateRequested.connect(self.worker.translate)
        self.requests.planRequested.connect(self.worker.translate_plan)
        self.results = RequestResults(self.services, self.requests)  # the worker's output of the request, shown
        real_engine = translator_factory in (None, default_translator_factory)
        self.engine = EngineLoading(self.services, self.requests, real_engine, model_override)  # loads, About, fallback
        self.direction.textShown.connect(self.engine.on_text_shown)  # the model label agrees with Auto's entry
        self.engine.on_direction_shown(self.direction.target.value)  # the saved direction, shown before it was built
        self._connect_window()
        self._update_shortcut_help()
        self.glossary = GlossaryStore(on_error=self.window.show_warning)  # Settings > Glossary
        self.bilingual = bilingual.BilingualView(self.services)  # View > Bilingual
        self.models_hub = ModelsHub(self.services, self.apply_settings, StoreBackend)  # Models dialog, demo notice
        self.first_start = FirstStart(self.services, self.models_hub)  # demo models only: the real ones
        self.alignment = AlignmentFeature(self.services)  # highlights a sentence's counterpart
        view = self.alignment.view
        self.alternatives = AlternativesFeature(self.services, view)  # n-best of a sentence
        # The editable translation: completion, memory, incremental translation (the request flow plans with it).
        self.postedit = PostEditFeature(self.services, view, self.direction, self.glossary, self.engine)
        self.requests.use_postedit(self.postedit)
        self.history = HistoryFeature(self.services, self.postedit)  # View > History; finished translations
        self.alternatives.translationReplaced.connect(self.history.translation_replaced)
        self.popup = PopupFeature(self.services, self.input)  # the hotkey's popup at the mouse pointer (setting)
        self.ocr = OcrFeature(self.services, self.popup)  # Translate screen region; pasted and dropped images
        self.hotkey_link = HotkeyLink(self.services, self.popup, self.ocr, self.direction, self.input)  # the hotkey
        # The file queue and the running job, in its own thread; its jobs take the user's memory's
        # exact matches as ``translate --tm`` does (approved beats edited: tm.apply).
        memory_jobs = memory_factory(translator_factory or default_translator_factory, self._file_memory)
        self.files = FileJobs(self.services, self.engine, self.ocr, memory_jobs)
        self.local_api = LocalApiFeature(self.services, self.engine, lambda: self.postedit.memory)  # Local API
        self.drafts = drafts.DraftKeeper(self.services, view, self.postedit)  # the panes saved, restored at start
        self.job_resume = job_resume.JobResumeOffer(self.services, self.drafts, self.files)  # continue a job?
        self.quit_guard = quitting.QuitGuard(self.services, self.files)  # quitting while work runs asks first
        self.progress = progress.ProgressFeature(self.services)  # sentences done; a stop's mark and state
        restored = self.drafts.restored
        self.stale = stale.StaleGuard(self.services, (restored.source, restored.translation))  # undo: no stale
        self._adapt_topics()  # last: a test waiting on a signal sees every feature's work done

    def _window_target(self) -> str:
        """The window's direction as a request's target (the direction control's)."""
        return self.direction.target.value

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
    def _start_worker(self, factory: Callable[[EngineConfig], Any] | None) -> None:
        self.worker_thread = QThread()
        self.worker_thread.setObjectName("translation-worker")
        self.worker = TranslationWorker(factory)
        self.worker.moveToThread(self.worker_thread)

    def _file_memory(self) -> Any:
        """The memory file jobs use: the window's (None until post-editing is built or when it
        cannot be opened)."""
        postedit = getattr(self, "postedit", None)  # built after the workers
        return postedit.memory if postedit is not None else None

    @property
    def translation_memory(self) -> Any:
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
        Chinese -> English) as the target."""
        return dataclasses.replace(self.generation_options(), target=self.direction.target.value)

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
        """Start a batch job for ``path`` (``FileJobs.translate_file``); whether it started."""
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
    def model_info(self) -> Any:
        """The loaded translator's model information (None before the first load)."""
        return self.engine.model_info

    def apply_settings(self, new: Settings) -> None:
        """Adopt ``new``: persist, reload the engine in the worker if needed, re-register
        the hotkey. The window's text is left alone, but for the sentences a changed glossary
        renders differently: those are translated again at once."""
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
        self._update_close_to_tray()
        self.reload_engine()
        self._update_shortcut_help()
        self.services.events.settings_applied.publish(new)  # the hotkeys, the Local API follow

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
                log.warning("%s did not stop within %d ms", thread.objectName(), timeout_ms)
                continue  # do not close sessions a running thread still uses
            worker.close()
