r"""What each window feature needs from the rest of the GUI, as small structural Protocols.

The features (View > Bilingual, drafts, the resume offer, the quit question, undo's stale
guard, sentence progress, the popup, OCR, the Local API, translate-and-replace) used to take
the whole controller (``Any``) and reach into it. Each now takes the Protocol below that names
exactly what it uses: the controller's settings, its request signals, the interactive worker,
the window's panes and messages. They are structural: :class:`~desktop_mt.gui.controller.Controller`
and :class:`~desktop_mt.gui.window.main.MainWindow` satisfy them as they are (no base class, no
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

    from desktop_mt.app.session import Request, Session
    from desktop_mt.engine.options import GenerationOptions

    from .settings import Settings

__all__ = [
    "BilingualHost",
    "WindowPort",
    "OcrPort",
    "PopupPort",
    "DirectionPort",
    "DraftsHost",
    "EngineConfig",
    "EngineHost",
    "EngineSource",
    "FileJobsHost",
    "HotkeyHost",
    "HotkeyLayer",
    "InputPort",
    "JobRecord",
    "JobResumeHost",
    "WorkerPort",
    "LocalApiHost",
    "ModelsHubHost",
    "OcrHost",
    "PopupHost",
    "PostEditPort",
    "ProgressHost",
    "qt_parent",
    "QuitHost",
    "ReplaceHost",
    "RequestControl",
    "RequestHost",
    "ResultsHost",
    "RunningFileJob",
    "SettingsPort",
    "StaleHost",
    "Status",
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


class RunningFileJob(Protocol):
    """The file job that runs (only its source path is read)."""

    @property
    def src(self) -> str: ...


class WorkerPort(Protocol):
    """The interactive worker (:class:`~desktop_mt.gui.workers.translation.TranslationWorker`): its slots
    (connect a queued signal to them; they run in the worker's thread) and what it reports,
    each request's output tagged with the request id."""

    def translate(self, req_id: int, text: str, options: GenerationOptions, cancel: threading.Event) -> None: ...

    def load(self, config: EngineConfig) -> None: ...

    @property
    def delta(self) -> SignalInstance: ...  # (int, str): request id, streamed text

    @property
    def finished(self) -> SignalInstance: ...  # (int, TranslationStats | None)

    @property
    def failed(self) -> SignalInstance: ...  # (int, str): request id, message

    @property
    def unavailable(self) -> SignalInstance: ...  # (int, str): no model for the direction

    @property
    def segmentDone(self) -> SignalInstance: ...  # (int, SegmentSpan): a sentence finished

    @property
    def loadStarted(self) -> SignalInstance: ...  # (str): what loads

    @property
    def loaded(self) -> SignalInstance: ...  # (LoadedModels): each direction's model, the variant

    @property
    def loadFailed(self) -> SignalInstance: ...  # (str): why


class WindowPort(Protocol):
    """The main window as the features see it (:class:`~desktop_mt.gui.window.main.MainWindow`, a
    passive window): its panes, its messages and status bar, what it asks, and the intent
    signals by which it says what the user wants. One port for the one window: a feature uses
    the part of it it needs (a test may hand it a fake with only that part)."""

    about_text: str  # Help > About's text (the engine's loading fills it in)
    may_quit: Callable[[], bool]  # the window asks it before quitting; the quit guard sets it

    # ---- its own QWidget, its panes and its widgets ----------------------------------------
    def window(self) -> QWidget: ...  # the window's own QWidget (parent, dialog owner)

    def statusBar(self) -> QStatusBar: ...

    def centralWidget(self) -> QWidget | None: ...

    def isVisible(self) -> bool: ...

    def isMinimized(self) -> bool: ...

    @property
    def source(self) -> QPlainTextEdit: ...

    @property
    def target(self) -> QPlainTextEdit: ...

    @property
    def toolbar(self) -> QToolBar: ...

    @property
    def clipboard_action(self) -> QAction: ...

    @property
    def bilingual_action(self) -> QAction: ...

    # ---- intents (signals) -----------------------------------------------------------------
    @property
    def sourceEdited(self) -> SignalInstance: ...  # (str): a user edit

    @property
    def stopRequested(self) -> SignalInstance: ...

    @property
    def bilingualToggled(self) -> SignalInstance: ...  # (bool)

    @property
    def settingsRequested(self) -> SignalInstance: ...

    @property
    def modelsRequested(self) -> SignalInstance: ...  # File > Models…, the demo notice's button

    @property
    def directionShown(self) -> SignalInstance: ...  # (str): the direction control shows this Target

    # ---- the panes -------------------------------------------------------------------------
    def source_text(self) -> str: ...

    def target_text(self) -> str: ...

    def set_source(self, text: str) -> None: ...

    def clear_target(self) -> None: ...

    def append_target(self, text: str) -> None: ...

    def clear_all(self) -> None: ...

    # ---- status, figures and messages ------------------------------------------------------
    def set_busy(self, busy: bool) -> None: ...

    def set_state(self, state: Status | str, detail: str = "") -> None: ...

    def state(self) -> str: ...

    def set_stats(self, first_token_s: float | None, tokens_per_s: float, tokens: int) -> None: ...

    def clear_stats(self) -> None: ...

    def set_model(self, text: str, tooltip: str = "", shorter: list[str] | None = None) -> None: ...

    def set_demo_notice(self, shown: bool) -> None: ...

    def show_warning(self, text: str) -> None: ...

    def clear_warning(self, text: str) -> None: ...

    def show_error(self, title: str, message: str) -> object: ...

    def bring_forward(self) -> None: ...

    # ---- the file jobs' face ---------------------------------------------------------------
    def ask_output_exists(self, path: str, keep_both_name: str) -> str: ...  # a file_jobs.OutputAnswer

    def ask_resume(self, name: str, kept: int, total: int) -> str: ...  # a file_jobs.ResumeAnswer

    def show_file_job(self, name: str) -> None: ...

    def set_file_progress(self, done: int, total: int, rate: float) -> None: ...

    def set_file_job_text(self, text: str) -> None: ...

    def end_file_job(self, message: str) -> None: ...

    def set_job_status(self, text: str) -> None: ...

    def set_recent_files(self, files: list[str]) -> None: ...

    def save_layout(self) -> tuple[str, str]: ...  # geometry and splitter state (the settings file)


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


class PopupPort(Protocol):
    """The hotkey's popup (:class:`~desktop_mt.gui.window.popup.PopupFeature`)."""

    def show_for(self, text: str, pointer: QPoint) -> int | None: ...

    def show_for_clipboard(self) -> int | None: ...


class OcrPort(Protocol):
    """Reading text from pictures (:class:`~desktop_mt.gui.features.ocr.OcrFeature`)."""

    def read_file(self, path: str) -> None: ...  # a dropped or chosen picture

    def read_clipboard_image(self) -> bool: ...  # an image on the clipboard: read it (OCR)


# ---- Tab focus (focus.py) and the window's look (look.py) -----------------------------------
# ---- View > Bilingual (bilingual.py) ------------------------------------------------------
class BilingualHost(SettingsPort, Protocol):
    @property
    def window(self) -> WindowPort: ...

    @property
    def session(self) -> Session: ...  # the running request (its current)

    @property
    def requestStarted(self) -> SignalInstance: ...  # (int, str): id, source text

    @property
    def requestFinished(self) -> SignalInstance: ...  # (int): id, after its end was shown


# ---- drafts (drafts.py) -------------------------------------------------------------------
class DraftsHost(Protocol):
    @property
    def window(self) -> WindowPort: ...

    @property
    def fileJobStarted(self) -> SignalInstance: ...  # (str, str): source, output

    @property
    def fileJobEnded(self) -> SignalInstance: ...  # (str): outcome


# ---- the interrupted job's offer (job_resume.py) ------------------------------------------
class JobResumeHost(Protocol):
    @property
    def window(self) -> WindowPort: ...

    @property
    def drafts(self) -> JobRecord: ...

    def translate_file(self, path: str, dst: Path | None = None, resume: bool | None = None) -> bool: ...


# ---- the quit question (quitting.py) ------------------------------------------------------
class QuitHost(Protocol):
    @property
    def window(self) -> WindowPort: ...

    @property
    def session(self) -> Session: ...  # the running request (its current)

    @property
    def file_job(self) -> RunningFileJob | None: ...

    @property
    def file_progress(self) -> tuple[int, int] | None: ...


# ---- undo's stale translation guard (stale.py) --------------------------------------------
class StaleHost(Protocol):
    @property
    def window(self) -> WindowPort: ...

    @property
    def translationCompleted(self) -> SignalInstance: ...  # (str, str)

    def translate(self, text: str) -> int | None: ...


# ---- sentence progress and the stop mark (progress.py) ------------------------------------
class ProgressHost(Protocol):
    @property
    def window(self) -> WindowPort: ...

    @property
    def worker(self) -> WorkerPort: ...

    @property
    def session(self) -> Session: ...  # the running request (its current)

    @property
    def requestStarted(self) -> SignalInstance: ...

    @property
    def requestFinished(self) -> SignalInstance: ...

    @property
    def stateChanged(self) -> SignalInstance: ...  # (str)


# ---- the hotkey's popup (popup.py) ---------------------------------------------------------
class JoiningPort(Protocol):
    @property
    def joining(self) -> bool: ...  # Edit > Join lines on paste


class PopupHost(Protocol):
    @property
    def window(self) -> WindowPort: ...

    @property
    def worker(self) -> WorkerPort: ...

    @property
    def input(self) -> JoiningPort: ...

    @property
    def translationCompleted(self) -> SignalInstance: ...

    def read_clipboard(self, selection: bool = False) -> str: ...

    def generation_options(self) -> GenerationOptions: ...

    def show_entry(self, source: str, translation: str) -> None: ...

    def translate(self, text: str) -> int | None: ...


# ---- OCR (ocr_feature.py) -------------------------------------------------------------------
class OcrHost(Protocol):
    @property
    def window(self) -> WindowPort: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def hotkey(self) -> object | None: ...  # the app's hotkey layer (None: none, e.g. unit tests)

    @property
    def popup(self) -> PopupPort: ...

    def translate(self, text: str) -> int | None: ...


# ---- Settings > Local API (local_api.py) -----------------------------------------------------
class LocalApiHost(Protocol):
    @property
    def window(self) -> WindowPort: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def loaded_config(self) -> EngineConfig | None: ...  # what the window's engine runs

    @property
    def modelLoaded(self) -> SignalInstance: ...  # (ModelInfo)

    def engine_config(self) -> EngineConfig: ...


# ---- translate and replace (replace.py) ------------------------------------------------------
class ReplaceHost(Protocol):
    @property
    def settings(self) -> Settings: ...

    @property
    def worker(self) -> WorkerPort: ...

    def generation_options(self) -> GenerationOptions: ...


# ---- the controller's own collaborators -----------------------------------------------------
# Each takes its host (the controller) through one of these, so none imports the controller.
class RequestControl(Protocol):
    """The window's interactive request (:class:`~desktop_mt.gui.requests.RequestFlow`): the
    one that runs, stopping it, and the status bar's state."""

    @property
    def current(self) -> Request | None: ...

    def cancel_current(self) -> None: ...

    def set_state(self, state: Status, detail: str = "") -> None: ...


class PostEditPort(Protocol):
    """Post-editing as a request starts: the user's edits kept, the sentences to retranslate."""

    def before_new_text(self) -> None: ...

    def plan(self, text: str) -> object | None: ...  # an IncrementalPlan, None: the whole text


class InputPort(Protocol):
    """What the input handling decides about a text (:class:`~desktop_mt.gui.features.pasting.InputHandling`)."""

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
    def window(self) -> WindowPort: ...

    @property
    def postedit(self) -> PostEditPort: ...

    @property
    def input(self) -> InputPort: ...

    @property
    def direction(self) -> DirectionPort: ...

    @property
    def stateChanged(self) -> SignalInstance: ...  # (str)


class EngineHost(SettingsPort, Protocol):
    """What :class:`~desktop_mt.gui.features.engine_loading.EngineLoading` uses of the controller."""

    @property
    def window(self) -> WindowPort: ...

    @property
    def model_override(self) -> str | None: ...  # --model for this run

    @property
    def requests(self) -> RequestControl: ...

    @property
    def modelLoaded(self) -> SignalInstance: ...  # (ModelInfo)


class EngineSource(Protocol):
    """The window's engine as a file job starts (:class:`~desktop_mt.gui.features.engine_loading.EngineLoading`)."""

    @property
    def loaded_config(self) -> EngineConfig | None: ...

    def engine_config(self) -> EngineConfig: ...

    def preload_engine(self) -> None: ...


class FileJobsHost(SettingsPort, Protocol):
    """What :class:`~desktop_mt.gui.features.file_queue.FileJobs` uses of the controller."""

    @property
    def window(self) -> WindowPort: ...

    @property
    def engine(self) -> EngineSource: ...

    @property
    def ocr(self) -> OcrPort: ...

    @property
    def fileJobStarted(self) -> SignalInstance: ...  # (str, str): source, output

    @property
    def fileJobEnded(self) -> SignalInstance: ...  # (str): a file_jobs.JobOutcome

    def generation_options(self) -> GenerationOptions: ...


class HotkeyLayer(Protocol):
    """The global hotkey (:class:`~desktop_mt.gui.platform.hotkey.GlobalHotkey`)."""

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


class HotkeyHost(SettingsPort, Protocol):
    """What :class:`~desktop_mt.gui.features.hotkey_link.HotkeyLink` uses of the controller."""

    @property
    def window(self) -> WindowPort: ...

    @property
    def hotkey(self) -> HotkeyLayer | None: ...

    @property
    def popup(self) -> PopupPort: ...

    @property
    def direction(self) -> DirectionPort: ...

    @property
    def ocr(self) -> OcrPort: ...

    @property
    def input(self) -> InputPort: ...

    def translate(self, text: str) -> int | None: ...


# ---- the Models dialog's hub (models_dialog.py) ---------------------------------------------
class ModelsHubHost(SettingsPort, Protocol):
    """What :class:`~desktop_mt.gui.dialogs.models_dialog.ModelsHub` uses of the controller."""

    @property
    def window(self) -> WindowPort: ...

    @property
    def modelLoaded(self) -> SignalInstance: ...  # (ModelInfo)

    def apply_settings(self, new: Settings) -> None: ...


# ---- the request results (request_results.py) ------------------------------------------------
class ResultsHost(Protocol):
    """What :class:`~desktop_mt.gui.request_results.RequestResults` uses of the controller."""

    @property
    def window(self) -> WindowPort: ...

    @property
    def worker(self) -> WorkerPort: ...

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
