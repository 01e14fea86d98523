r"""What each window feature needs from the rest of the GUI, as small structural Protocols.

The features (View > Bilingual, drafts, the resume offer, the quit question, undo's stale
guard, sentence progress, the popup, OCR, the Local API, translate-and-replace) used to take
the whole controller (``Any``) and reach into it. Each now takes the Protocol below that names
exactly what it uses: the controller's settings, its request signals, the interactive worker,
the window's panes and messages. They are structural: :class:`~desktop_mt.gui.controller.Controller`
and :class:`~desktop_mt.gui.window.MainWindow` satisfy them as they are (no base class, no
registration), which ``tests/gui/test_ports.py`` has mypy check; a test may hand a feature a
small fake instead.

Attributes are read-only properties here (a Protocol's plain attribute would be invariant and
settable); signals are :class:`~PySide6.QtCore.SignalInstance` properties, which a ``Signal``
class attribute satisfies. The window's own :class:`~PySide6.QtWidgets.QWidget` (a parent for
a feature's widgets and actions, a dialog's owner) is ``window()``: Qt's top-level widget, which
for the main window is the window itself.

The words that cross these seams are enums: :class:`Status` (the status bar's state) here, the
dialogs' answers and the features' states beside the features (``file_jobs.OutputAnswer``,
``local_api.ApiState``...). They are :class:`StrEnum`\ s, so code that compares with the old
strings, or keys a dictionary by them, keeps working.

At run time the module imports only QtCore (the Protocols' annotations are for type checkers).
"""

from __future__ import annotations

import dataclasses
import enum
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject

from .i18n import translate

if TYPE_CHECKING:  # annotations only: importing this module loads no Qt widgets
    from PySide6.QtCore import QPoint, SignalInstance
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QPlainTextEdit, QStatusBar, QToolBar, QWidget

    from desktop_mt.engine.options import GenerationOptions

    from .settings import Settings

__all__ = [
    "BilingualHost",
    "BilingualWindow",
    "ClipboardImages",
    "ClipboardPopup",
    "DirectionPort",
    "DraftsHost",
    "EngineConfig",
    "EngineHost",
    "EngineSource",
    "EngineWindow",
    "FileJobsHost",
    "FileJobsWindow",
    "HotkeyHost",
    "HotkeyLayer",
    "ImageFiles",
    "InputPort",
    "JobRecord",
    "JobResumeHost",
    "LoadingWorker",
    "LocalApiHost",
    "LocalApiWindow",
    "MessagesWindow",
    "ModelsHubHost",
    "ModelsWindow",
    "OcrHost",
    "OcrWindow",
    "PanesAndToolbar",
    "PanesWindow",
    "PopupHost",
    "PopupShower",
    "PostEditPort",
    "ProgressHost",
    "ProgressWindow",
    "qt_parent",
    "QuitHost",
    "QuitWindow",
    "ReplaceHost",
    "ReplaceWindow",
    "RequestControl",
    "RequestHost",
    "RequestLike",
    "RequestWindow",
    "ResultsHost",
    "ResultsWindow",
    "ResultsWorker",
    "RunningFileJob",
    "SettingsPort",
    "StaleHost",
    "StaleWindow",
    "Status",
    "StreamWorker",
    "StrEnum",
    "TrayPort",
]


# ---- words --------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class EngineConfig:
    """What a Translator is built from. ``model_dir`` None is the bundled model."""

    model_dir: str | None = None
    variant: str = "int8"
    intra_op_threads: int = 0
    inter_op_threads: int = 1

    def describe(self) -> str:
        """Short text for the status bar while loading."""
        name = (
            self.model_dir.rstrip("/\\").rsplit("/", 1)[-1]
            if self.model_dir
            else translate("EngineConfig", "default models")
        )
        return f"{name} ({self.variant})"


class StrEnum(str, enum.Enum):
    """An enum of strings whose ``str()`` and ``format()`` are the value on every Python, as
    Python 3.11's ``enum.StrEnum`` (3.10 has none; a plain ``(str, Enum)`` prints as
    ``Status.IDLE`` in an f-string on 3.11). Members compare equal to and hash as their value."""

    def __str__(self) -> str:
        return str(self.value)


class Status(StrEnum):
    """The status bar's state (``MainWindow.set_state``; the stylesheet matches the value)."""

    LOADING = "loading"
    TRANSLATING = "translating"
    IDLE = "idle"
    ERROR = "error"
    STOPPING = "stopping"  # Esc was pressed; the engine stops within a decode step
    STOPPED = "stopped"  # a stopped translation: the part done stays, marked


# ---- pieces -------------------------------------------------------------------------------
class SettingsPort(Protocol):
    """The settings in force (the controller replaces the object on Apply: read it each time)
    and ``save()``, which writes them with the window's layout."""

    @property
    def settings(self) -> Settings: ...

    def save(self) -> None: ...


class RequestLike(Protocol):
    """The interactive request that runs (only its id is read)."""

    @property
    def req_id(self) -> int: ...


class RunningFileJob(Protocol):
    """The file job that runs (only its source path is read)."""

    @property
    def src(self) -> str: ...


class StreamWorker(Protocol):
    """The interactive worker (:class:`~desktop_mt.gui.worker.TranslationWorker`): its
    ``translate`` slot (connect a queued signal to it; it runs in the worker's thread) and what
    it reports, each tagged with the request id."""

    def translate(self, req_id: int, text: str, options: GenerationOptions, cancel: threading.Event) -> None: ...

    @property
    def delta(self) -> SignalInstance: ...  # (int, str): request id, streamed text

    @property
    def finished(self) -> SignalInstance: ...  # (int, TranslationStats | None)

    @property
    def failed(self) -> SignalInstance: ...  # (int, str): request id, message

    @property
    def segmentDone(self) -> SignalInstance: ...  # (int, SegmentSpan): a sentence finished


class MessagesWindow(Protocol):
    """The window's status bar, banner and presence."""

    def window(self) -> QWidget: ...  # the window's own QWidget (parent, dialog owner)

    def statusBar(self) -> QStatusBar: ...

    def show_warning(self, text: str) -> None: ...

    def bring_forward(self) -> None: ...


class PanesWindow(Protocol):
    """The source and translation panes."""

    @property
    def source(self) -> QPlainTextEdit: ...

    @property
    def target(self) -> QPlainTextEdit: ...

    def source_text(self) -> str: ...

    def target_text(self) -> str: ...


class TrayPort(Protocol):
    """The tray icon: whether the desktop has a tray, and its notifications."""

    @property
    def available(self) -> bool: ...

    def notify(self, title: str, text: str) -> None: ...


class JobRecord(Protocol):
    """The draft's record of the file job that ran when the app ended (:mod:`drafts`)."""

    @property
    def file_job(self) -> dict[str, str] | None: ...

    def forget_job(self) -> None: ...


class PopupShower(Protocol):
    """The hotkey's popup (:class:`~desktop_mt.gui.popup.PopupFeature`)."""

    def show_for(self, text: str, pointer: QPoint) -> int | None: ...


# ---- Tab focus (focus.py) and the window's look (look.py) -----------------------------------
class PanesAndToolbar(Protocol):
    """The panes and the toolbar (the main window as it is built: its ``__init__`` makes these)."""

    @property
    def source(self) -> QPlainTextEdit: ...

    @property
    def target(self) -> QPlainTextEdit: ...

    @property
    def toolbar(self) -> QToolBar: ...

    def window(self) -> QWidget: ...


# ---- View > Bilingual (bilingual.py) ------------------------------------------------------
class BilingualWindow(Protocol):
    @property
    def bilingual_action(self) -> QAction: ...

    @property
    def bilingualToggled(self) -> SignalInstance: ...  # (bool)

    def target_text(self) -> str: ...

    def clear_target(self) -> None: ...

    def append_target(self, text: str) -> None: ...


class BilingualHost(SettingsPort, Protocol):
    @property
    def window(self) -> BilingualWindow: ...

    @property
    def current(self) -> RequestLike | None: ...

    @property
    def requestStarted(self) -> SignalInstance: ...  # (int, str): id, source text

    @property
    def requestFinished(self) -> SignalInstance: ...  # (int): id, after its end was shown


# ---- drafts (drafts.py) -------------------------------------------------------------------
class DraftsHost(Protocol):
    @property
    def window(self) -> PanesWindow: ...

    @property
    def fileJobStarted(self) -> SignalInstance: ...  # (str, str): source, output

    @property
    def fileJobEnded(self) -> SignalInstance: ...  # (str): outcome


# ---- the interrupted job's offer (job_resume.py) ------------------------------------------
class JobResumeWindow(MessagesWindow, Protocol):
    def centralWidget(self) -> QWidget | None: ...


class JobResumeHost(Protocol):
    @property
    def window(self) -> JobResumeWindow: ...

    @property
    def drafts(self) -> JobRecord: ...

    def translate_file(self, path: str, dst: Path | None = None, resume: bool | None = None) -> bool: ...


# ---- the quit question (quitting.py) ------------------------------------------------------
class QuitWindow(Protocol):
    may_quit: Callable[[], bool]  # the window asks it before quitting; the guard sets it

    def window(self) -> QWidget: ...


class QuitHost(Protocol):
    @property
    def window(self) -> QuitWindow: ...

    @property
    def current(self) -> RequestLike | None: ...

    @property
    def file_job(self) -> RunningFileJob | None: ...

    @property
    def file_progress(self) -> tuple[int, int] | None: ...


# ---- undo's stale translation guard (stale.py) --------------------------------------------
class StaleWindow(PanesWindow, Protocol):
    @property
    def sourceEdited(self) -> SignalInstance: ...  # (str): a user edit

    def statusBar(self) -> QStatusBar: ...

    def append_target(self, text: str) -> None: ...

    def clear_stats(self) -> None: ...


class StaleHost(Protocol):
    @property
    def window(self) -> StaleWindow: ...

    @property
    def translationCompleted(self) -> SignalInstance: ...  # (str, str)

    def translate(self, text: str) -> int | None: ...


# ---- sentence progress and the stop mark (progress.py) ------------------------------------
class ProgressWindow(Protocol):
    @property
    def target(self) -> QPlainTextEdit: ...

    @property
    def stopRequested(self) -> SignalInstance: ...

    def set_state(self, state: str, detail: str = "") -> None: ...

    def state(self) -> str: ...

    def clear_stats(self) -> None: ...


class ProgressHost(Protocol):
    @property
    def window(self) -> ProgressWindow: ...

    @property
    def worker(self) -> StreamWorker: ...

    @property
    def current(self) -> RequestLike | None: ...

    @property
    def requestStarted(self) -> SignalInstance: ...

    @property
    def requestFinished(self) -> SignalInstance: ...

    @property
    def stateChanged(self) -> SignalInstance: ...  # (str)


# ---- the hotkey's popup (popup.py) ---------------------------------------------------------
class PopupWindow(Protocol):
    def set_source(self, text: str) -> None: ...

    def bring_forward(self) -> None: ...


class JoiningPort(Protocol):
    @property
    def joining(self) -> bool: ...  # Edit > Join lines on paste


class PopupHost(Protocol):
    @property
    def window(self) -> PopupWindow: ...

    @property
    def worker(self) -> StreamWorker: ...

    @property
    def input(self) -> JoiningPort: ...

    @property
    def translationCompleted(self) -> SignalInstance: ...

    def read_clipboard(self, selection: bool = False) -> str: ...

    def generation_options(self) -> GenerationOptions: ...

    def show_entry(self, source: str, translation: str) -> None: ...

    def translate(self, text: str) -> int | None: ...


# ---- OCR (ocr_feature.py) -------------------------------------------------------------------
class OcrWindow(MessagesWindow, Protocol):
    @property
    def source(self) -> QPlainTextEdit: ...

    @property
    def clipboard_action(self) -> QAction: ...

    @property
    def toolbar(self) -> QToolBar: ...

    def set_source(self, text: str) -> None: ...


class OcrHost(Protocol):
    @property
    def window(self) -> OcrWindow: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def hotkey(self) -> object | None: ...  # the app's hotkey layer (None: none, e.g. unit tests)

    @property
    def popup(self) -> PopupShower: ...

    def translate(self, text: str) -> int | None: ...


# ---- Settings > Local API (local_api.py) -----------------------------------------------------
class LocalApiWindow(MessagesWindow, Protocol):
    @property
    def settingsRequested(self) -> SignalInstance: ...

    def clear_warning(self, text: str) -> None: ...


class LocalApiHost(Protocol):
    @property
    def window(self) -> LocalApiWindow: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def loaded_config(self) -> EngineConfig | None: ...  # what the window's engine runs

    @property
    def modelLoaded(self) -> SignalInstance: ...  # (ModelInfo)

    def engine_config(self) -> EngineConfig: ...


# ---- translate and replace (replace.py) ------------------------------------------------------
class ReplaceWindow(MessagesWindow, Protocol):
    def isVisible(self) -> bool: ...

    def isMinimized(self) -> bool: ...


class ReplaceHost(Protocol):
    @property
    def settings(self) -> Settings: ...

    @property
    def worker(self) -> StreamWorker: ...

    def generation_options(self) -> GenerationOptions: ...


# ---- the controller's own collaborators -----------------------------------------------------
# Each takes its host (the controller) through one of these, so none imports the controller.
class RequestControl(Protocol):
    """The window's interactive request (:class:`~desktop_mt.gui.requests.RequestFlow`): the
    one that runs, stopping it, and the status bar's state."""

    @property
    def current(self) -> RequestLike | None: ...

    def cancel_current(self) -> None: ...

    def set_state(self, state: Status, detail: str = "") -> None: ...


class RequestWindow(Protocol):
    """The panes and the status as a request starts, ends or is cleared."""

    def source_text(self) -> str: ...

    def set_source(self, text: str) -> None: ...

    def clear_target(self) -> None: ...

    def append_target(self, text: str) -> None: ...

    def clear_all(self) -> None: ...

    def clear_stats(self) -> None: ...

    def set_busy(self, busy: bool) -> None: ...

    def set_state(self, state: Status, detail: str = "") -> None: ...


class PostEditPort(Protocol):
    """Post-editing as a request starts: the user's edits kept, the sentences to retranslate."""

    def before_new_text(self) -> None: ...

    def plan(self, text: str) -> object | None: ...  # an IncrementalPlan, None: the whole text


class InputPort(Protocol):
    """What the input handling decides about a text (:class:`~desktop_mt.gui.pasting.InputHandling`)."""

    def bring_in(self, text: str) -> str: ...  # joined when Join lines on paste is on

    def left_as_is(self, text: str, target: str) -> bool: ...  # nothing to translate (said so)


class DirectionPort(Protocol):
    """The window's direction control (Auto / English -> Chinese / Chinese -> English)."""

    @property
    def target(self) -> StrEnum: ...

    def use_auto(self) -> None: ...


class RequestHost(SettingsPort, Protocol):
    """What :class:`~desktop_mt.gui.requests.RequestFlow` uses of the controller."""

    @property
    def window(self) -> RequestWindow: ...

    @property
    def postedit(self) -> PostEditPort: ...

    @property
    def input(self) -> InputPort: ...

    @property
    def direction(self) -> DirectionPort: ...

    @property
    def stateChanged(self) -> SignalInstance: ...  # (str)


class LoadingWorker(Protocol):
    """The worker's engine loads: its ``load`` slot (queued) and what it reports."""

    def load(self, config: EngineConfig) -> None: ...

    @property
    def loadStarted(self) -> SignalInstance: ...  # (str): what loads

    @property
    def loaded(self) -> SignalInstance: ...  # (ModelInfo, str): the model, its variant

    @property
    def loadFailed(self) -> SignalInstance: ...  # (str): why


class EngineWindow(Protocol):
    """What the window shows of the engine: the model's name, About's text, load problems."""

    about_text: str

    def set_model(self, text: str) -> None: ...

    def set_busy(self, busy: bool) -> None: ...

    def show_warning(self, text: str) -> None: ...

    def show_error(self, title: str, message: str) -> object: ...


class EngineHost(SettingsPort, Protocol):
    """What :class:`~desktop_mt.gui.engine_loading.EngineLoading` uses of the controller."""

    @property
    def window(self) -> EngineWindow: ...

    @property
    def model_override(self) -> str | None: ...  # --model for this run

    @property
    def requests(self) -> RequestControl: ...

    @property
    def modelLoaded(self) -> SignalInstance: ...  # (ModelInfo)


class EngineSource(Protocol):
    """The window's engine as a file job starts (:class:`~desktop_mt.gui.engine_loading.EngineLoading`)."""

    @property
    def loaded_config(self) -> EngineConfig | None: ...

    def engine_config(self) -> EngineConfig: ...

    def preload_engine(self) -> None: ...


class FileJobsWindow(MessagesWindow, Protocol):
    """The window's file-job face: the questions before a job, its strip, File > Recent files."""

    def ask_output_exists(self, path: str, keep_both_name: str) -> str: ...  # a file_jobs.OutputAnswer

    def ask_resume(self, name: str, kept: int, total: int) -> str: ...  # a file_jobs.ResumeAnswer

    def show_file_job(self, name: str) -> None: ...

    def set_file_progress(self, done: int, total: int, rate: float) -> None: ...

    def set_file_job_text(self, text: str) -> None: ...

    def end_file_job(self, message: str) -> None: ...

    def set_job_status(self, text: str) -> None: ...

    def set_recent_files(self, files: list[str]) -> None: ...

    def show_error(self, title: str, message: str) -> object: ...


class ImageFiles(Protocol):
    """OCR of a dropped or chosen picture (:class:`~desktop_mt.gui.ocr_feature.OcrFeature`)."""

    def read_file(self, path: str) -> None: ...


class FileJobsHost(SettingsPort, Protocol):
    """What :class:`~desktop_mt.gui.file_queue.FileJobs` uses of the controller."""

    @property
    def window(self) -> FileJobsWindow: ...

    @property
    def engine(self) -> EngineSource: ...

    @property
    def ocr(self) -> ImageFiles: ...

    @property
    def fileJobStarted(self) -> SignalInstance: ...  # (str, str): source, output

    @property
    def fileJobEnded(self) -> SignalInstance: ...  # (str): a file_jobs.JobOutcome

    def generation_options(self) -> GenerationOptions: ...


class HotkeyLayer(Protocol):
    """The global hotkey (:class:`~desktop_mt.gui.hotkey.GlobalHotkey`)."""

    @property
    def available(self) -> bool: ...

    @property
    def reason(self) -> str: ...  # why it is unavailable

    @property
    def active_sequence(self) -> str | None: ...

    @property
    def activated(self) -> SignalInstance: ...

    def start(self, sequence: str) -> tuple[bool, str]: ...

    def stop(self) -> None: ...


class ClipboardPopup(Protocol):
    def show_for_clipboard(self) -> int | None: ...


class ClipboardImages(Protocol):
    def read_clipboard_image(self) -> bool: ...  # an image on the clipboard: read it (OCR)


class HotkeyHost(SettingsPort, Protocol):
    """What :class:`~desktop_mt.gui.hotkey_link.HotkeyLink` uses of the controller."""

    @property
    def window(self) -> MessagesWindow: ...

    @property
    def hotkey(self) -> HotkeyLayer | None: ...

    @property
    def popup(self) -> ClipboardPopup: ...

    @property
    def direction(self) -> DirectionPort: ...

    @property
    def ocr(self) -> ClipboardImages: ...

    @property
    def input(self) -> InputPort: ...

    def translate(self, text: str) -> int | None: ...


# ---- the Models dialog's hub (models_dialog.py) ---------------------------------------------
class ModelsWindow(Protocol):
    @property
    def modelsRequested(self) -> SignalInstance: ...  # File > Models…, the demo notice's button

    def set_demo_notice(self, shown: bool) -> None: ...

    def window(self) -> QWidget: ...


class ModelsHubHost(SettingsPort, Protocol):
    """What :class:`~desktop_mt.gui.models_dialog.ModelsHub` uses of the controller."""

    @property
    def window(self) -> ModelsWindow: ...

    @property
    def modelLoaded(self) -> SignalInstance: ...  # (ModelInfo)

    def apply_settings(self, new: Settings) -> None: ...


# ---- the request results (request_results.py) ------------------------------------------------
class ResultsWindow(Protocol):
    def append_target(self, text: str) -> None: ...

    def target_text(self) -> str: ...

    def set_busy(self, busy: bool) -> None: ...

    def set_stats(self, first_token_s: float | None, tokens_per_s: float, tokens: int) -> None: ...

    def show_warning(self, text: str) -> None: ...

    def show_error(self, title: str, message: str) -> object: ...


class ResultsWorker(Protocol):
    """What the interactive worker reports, each tagged with the request id."""

    @property
    def delta(self) -> SignalInstance: ...

    @property
    def finished(self) -> SignalInstance: ...

    @property
    def failed(self) -> SignalInstance: ...

    @property
    def unavailable(self) -> SignalInstance: ...  # (int, str): no model for the direction


class ResultsHost(Protocol):
    """What :class:`~desktop_mt.gui.request_results.RequestResults` uses of the controller."""

    @property
    def window(self) -> ResultsWindow: ...

    @property
    def worker(self) -> ResultsWorker: ...

    @property
    def requests(self) -> RequestControl: ...  # the status bar's state

    @property
    def file_job(self) -> RunningFileJob | None: ...

    @property
    def translationCompleted(self) -> SignalInstance: ...  # (str, str)

    @property
    def requestFinished(self) -> SignalInstance: ...  # (int)


def qt_parent(host: object) -> QObject | None:
    """``host`` as the Qt parent of a feature it owns (the feature then lives as long as the
    controller); None for a host that is no QObject (a test's fake)."""
    return host if isinstance(host, QObject) else None
