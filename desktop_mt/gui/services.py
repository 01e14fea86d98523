"""What every window feature gets: the narrow face of the window's application.

A feature (View > Bilingual, drafts, the popup, OCR, the Local API...) is built with one
:class:`Services` and the other features it works with, named explicitly in its constructor;
it never sees the controller. :class:`Services` holds

* the passive window (:class:`~desktop_mt.gui.ports.WindowPort`) and the interactive worker
  (:class:`~desktop_mt.gui.ports.WorkerPort`),
* the Qt-free :class:`~desktop_mt.app.session.Session`: the current request and the topics a
  feature follows (``started``, ``shown``, ``completed``...),
* the settings in force (replaced on Apply: read :attr:`Services.settings` each time) and
  :meth:`Services.save`,
* :class:`Events`, the app's other Qt-free topics (the status bar's state, file jobs, the loaded
  model, applied settings),
* the window's few verbs a feature may call: :meth:`translate`, :meth:`show_entry`, and the
  options of a request (:meth:`generation_options`, :meth:`window_options`),
* the features' Qt parent (:attr:`Services.owner`: they live as long as it).

The verbs are bound once by the controller (:meth:`Services.bind`), since the request flow
and the direction control are built on these services themselves
(:func:`~desktop_mt.gui.compose.compose` builds every part). A test builds a :class:`Services`
on a fake window and worker and gets the same code paths as the app
(``tests/gui/test_services.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from desktop_mt.app.session import Session, Topic
from desktop_mt.engine.direction import AUTO, Target
from desktop_mt.engine.options import GenerationOptions

from . import settings as settings_mod
from .i18n import translate

if TYPE_CHECKING:
    from desktop_mt.engine.model_format import ModelInfo

    from .ports import HotkeyLayer, Status, WindowPort, WorkerPort
    from .settings import Settings

__all__ = ["Events", "FileJobStart", "Services"]


@dataclasses.dataclass(frozen=True)
class FileJobStart:
    """A file job started: its source and output (absolute paths)."""

    src: str
    dst: str


class Events:
    """The window application's events besides the session's, as Qt-free topics."""

    def __init__(self) -> None:
        self.state: Topic[Status] = Topic()  # the status bar's state changed (the request flow)
        self.file_started: Topic[FileJobStart] = Topic()  # a file job started
        self.file_ended: Topic[str] = Topic()  # a file job ended: a file_jobs.JobOutcome value
        self.model_loaded: Topic[ModelInfo] = Topic()  # the primary model loaded (after a fallback too)
        self.settings_applied: Topic[Settings] = Topic()  # new settings are in force (Apply)


class Services:
    """See the module docstring."""

    def __init__(
        self,
        window: WindowPort,
        session: Session,
        worker: WorkerPort,
        settings: Settings,
        *,
        settings_path: Path | None = None,
        hotkey: HotkeyLayer | None = None,
        events: Events | None = None,
        owner: QObject | None = None,
    ) -> None:
        self.window = window
        self.owner = owner  # the features' Qt parent: they live as long as it (None: a test's)
        self.session = session
        self.worker = worker
        self.settings = settings  # replaced on Apply (read it each time)
        self.settings_path = settings_path
        self.hotkey = hotkey  # the app's global hotkey layer (None: none, e.g. unit tests)
        self.events = events if events is not None else Events()
        self._translate: Callable[[str], int | None] | None = None
        self._show_entry: Callable[[str, str], None] | None = None
        self._options: Callable[[], GenerationOptions] = GenerationOptions
        self._target: Callable[[], Target] = lambda: AUTO

    def bind(
        self,
        *,
        translate: Callable[[str], int | None],
        show_entry: Callable[[str, str], None],
        options: Callable[[], GenerationOptions],
        target: Callable[[], Target],
    ) -> None:
        """The verbs, once their owners exist: the request flow's translate and show_entry, the
        options of a request (settings and glossary) and the window's direction (a Target)."""
        self._translate, self._show_entry = translate, show_entry
        self._options, self._target = options, target

    def translate(self, text: str) -> int | None:
        """Translate ``text`` in the window, superseding what runs; its request id (None: nothing
        to translate)."""
        if self._translate is None:
            raise RuntimeError("Services.translate before the request flow was bound")
        return self._translate(text)

    def show_entry(self, source: str, translation: str) -> None:
        """Put a kept translation (History > Open, the popup's "open in window") into the panes."""
        if self._show_entry is None:
            raise RuntimeError("Services.show_entry before the request flow was bound")
        self._show_entry(source, translation)

    def generation_options(self) -> GenerationOptions:
        """Options for a request whose target is Auto (each sentence into the other language):
        the hotkey's popup, file jobs and alternatives use these."""
        return self._options()

    def window_options(self) -> GenerationOptions:
        """:meth:`generation_options` with the window's direction as the target."""
        return dataclasses.replace(self._options(), target=self._target())

    def save(self) -> None:
        """Write the settings (with the current window layout) to disk; a failure is a warning."""
        geometry, splitter = self.window.save_layout()
        self.settings.window_geometry, self.settings.splitter_state = geometry, splitter
        try:
            settings_mod.save_settings(self.settings, self.settings_path)
        except OSError as exc:
            self.window.show_warning(translate("Controller", "Could not save settings: {error}").format(error=exc))
