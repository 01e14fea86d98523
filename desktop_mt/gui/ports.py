r"""The few structural Protocols the window's parts meet on, and the words that cross them.

A window feature is built as ``Feature(services, <the features it uses>)``: the window's
:class:`~desktop_mt.gui.services.Services` (window, worker, session, settings, events, the
window's verbs) and its collaborators named and typed by their classes. What is left here is
what a class cannot stand for:

* the main window (:class:`WindowPort`), the interactive worker (:class:`WorkerPort`), the tray
  (:class:`TrayPort`) and the global hotkey layer (:class:`HotkeyLayer`): each has a fake in the
  tests, and the real ones live in modules that import the features;
* a collaborator whose class would make an import circle: post-editing for the request flow
  (:class:`PostEditPort`: post-editing needs the engine's loading, which needs the request flow).

They are structural: :class:`~desktop_mt.gui.window.main.MainWindow`,
:class:`~desktop_mt.gui.workers.translation.TranslationWorker` and the rest satisfy them as
they are (no base class, no registration), which ``tests/gui/test_ports.py`` has mypy check.

Attributes are read-only properties here (a Protocol's plain attribute would be invariant and
settable); signals are :class:`~PySide6.QtCore.SignalInstance` properties, which a ``Signal``
class attribute satisfies. The window's own :class:`~PySide6.QtWidgets.QWidget` (a parent for
a feature's widgets and actions, a dialog's owner) is ``window()``: Qt's top-level widget, which
for the main window is the window itself.

The words that cross these seams are enums: :class:`Status` (the status bar's state) here, the
dialogs' answers and the features' states beside the features (``file_jobs.OutputAnswer``,
``local_api.ApiState``...). They are :class:`StrEnum`\ s, so code that compares with the old
strings, or keys a dictionary by them, keeps working.

At run time the module imports no Qt (the Protocols' annotations are for type checkers).
"""

from __future__ import annotations

import dataclasses
import enum
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from desktop_mt.engine.model_format import Variant

from .i18n import translate

if TYPE_CHECKING:  # annotations only: importing this module loads no Qt widgets
    from PySide6.QtCore import SignalInstance
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QPlainTextEdit, QStatusBar, QToolBar, QWidget

    from desktop_mt.engine.options import GenerationOptions
    from desktop_mt.engine.protocols import TranslatorFace

    from .features.tm_matches import MatchPanel
    from .window.postedit_pane import PostEditPane

__all__ = [
    "EngineConfig",
    "HotkeyLayer",
    "PostEditPort",
    "Status",
    "StrEnum",
    "TrayPort",
    "WindowPort",
    "WorkerPort",
]


# ---- words --------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class EngineConfig:
    """What a Translator is built from. ``model_dir`` None is the bundled model."""

    model_dir: str | None = None
    variant: Variant = "int8"
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


# ---- the parts a class cannot stand for (a test fakes them) -------------------------------------
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

    # post-editing's completion and the Alternatives command (their own request ids)
    @property
    def translator(self) -> TranslatorFace | None: ...  # the one loaded now (its tokenizer: word starts)

    def complete(
        self, req_id: int, sentence: str, prefix: str, options: GenerationOptions, cancel: threading.Event
    ) -> None: ...

    def alternatives(
        self, req_id: int, sentence: str, n: int, options: GenerationOptions, cancel: threading.Event
    ) -> None: ...

    def alternatives_from(
        self, req_id: int, sentence: str, prefix: str, n: int, options: GenerationOptions, cancel: threading.Event
    ) -> None: ...

    @property
    def completionDelta(self) -> SignalInstance: ...  # (int, str): id, more of the completion

    @property
    def completionDone(self) -> SignalInstance: ...  # (int, str): id, "" or why it failed

    @property
    def alternativesReady(self) -> SignalInstance: ...  # (int, list[Alternative] | str)


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
    def target(self) -> PostEditPane: ...  # the editable translation pane

    @property
    def suggestion_bar(self) -> MatchPanel: ...  # the memory's matches under the panes

    @property
    def toolbar(self) -> QToolBar: ...

    @property
    def clipboard_action(self) -> QAction: ...

    @property
    def bilingual_action(self) -> QAction: ...

    def addAction(self, action: QAction) -> None: ...  # a window-wide shortcut

    def add_postedit_actions(self, actions: list[QAction]) -> None: ...  # the Edit menu's post-editing part

    @property
    def join_lines_action(self) -> QAction: ...  # Edit > Join lines on paste

    # ---- intents (signals) -----------------------------------------------------------------
    @property
    def sourceEdited(self) -> SignalInstance: ...  # (str): a user edit

    @property
    def stopRequested(self) -> SignalInstance: ...

    @property
    def clearRequested(self) -> SignalInstance: ...  # Clear: both panes are emptied

    @property
    def bilingualToggled(self) -> SignalInstance: ...  # (bool)

    @property
    def swapRequested(self) -> SignalInstance: ...  # the translation becomes the source

    @property
    def historyRequested(self) -> SignalInstance: ...  # View > History

    @property
    def joinLinesToggled(self) -> SignalInstance: ...  # (bool): Edit > Join lines on paste

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


# ---- collaborators whose class would make an import circle ------------------------------------
class PostEditPort(Protocol):
    """Post-editing as the request flow starts a request (:class:`~desktop_mt.gui.features.postedit.PostEditFeature`:
    it imports the engine's loading, which imports the request flow): the user's edits kept, the
    sentences to translate again."""

    def before_new_text(self) -> None: ...

    def plan(self, text: str) -> object | None: ...  # an IncrementalPlan, None: the whole text
