"""Loading the engine for the window: which model the settings ask for, asking the worker for
it (the worker builds it in its thread), what the window shows while and after it loads, and
falling back to the bundled model when the chosen one cannot be loaded. The controller's
collaborator (:class:`EngineLoading`, on its port ``ports.EngineHost``); the controller keeps
``engine_config``, ``reload_engine``, ``loaded_config`` and ``model_info``.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop_mt import __version__

from .models import is_bundled
from .ports import EngineConfig, EngineHost, LoadingWorker, Status, qt_parent

log = logging.getLogger("desktop_mt.gui.controller")  # the log lines kept their old source


def about_text(info: Any, variant: str) -> str:
    """Help > About: version, code licence, the loaded model and where its licence is."""
    path = Path(str(getattr(info, "path", "") or ""))
    notes = [p.name for p in (path / "README.md", path / "LICENSE", path / "LICENSE.txt") if p.is_file()]
    where = (
        f"its licence and data sources are in {', '.join(notes)} in {path}"
        if notes
        else f"its folder ({path}) has no model card; check the licence where you got it"
    )
    demo = (
        "\nThis is the bundled demo model: trained on short everyday sentences (Tatoeba pairs, "
        "CC-BY 2.0 FR) only, it is not for real text. File > Models… downloads a real model.\n"
        if is_bundled(str(path))
        else ""
    )
    return (
        f"desktop-mt {__version__}: offline English ⇄ Chinese translation on this machine.\n"
        "Code: MIT licence. Nothing is sent over the network.\n\n"
        f"Model: {getattr(info, 'name', None) or 'unknown'} ({variant})\n{demo}"
        f"The model is not part of the code licence: {where}."
    )


class EngineLoading(QObject):
    """The controller's engine loads (see the module docstring)."""

    _loadRequested = Signal(object)  # EngineConfig, queued into the worker's thread

    def __init__(self, host: EngineHost, worker: LoadingWorker, real_engine: bool) -> None:
        super().__init__(qt_parent(host))
        self.host = host
        self.loaded_config: EngineConfig | None = None  # what the engine runs (after a fallback too)
        self._requested_configs: list[EngineConfig] = []  # loads in flight, in worker order
        self.model_info: Any = None
        self._loaded_key: tuple[object, ...] | None = None
        self._real_engine = real_engine
        self._loadRequested.connect(worker.load)
        worker.loadStarted.connect(self.on_load_started)
        worker.loaded.connect(self.on_loaded)
        worker.loadFailed.connect(self.on_load_failed)

    def engine_config(self) -> EngineConfig:
        """What the worker should build from the current settings."""
        s = self.host.settings
        model = self.host.model_override or s.model_path or None
        return EngineConfig(model, s.variant, s.intra_op_threads, s.inter_op_threads)

    def on_load_started(self, description: str) -> None:
        self.host.requests.set_state(Status.LOADING, description)

    def on_loaded(self, info: Any, variant: str) -> None:
        if self._requested_configs:
            self.loaded_config = self._requested_configs.pop(0)
        self.model_info = info
        name = getattr(info, "name", None) or "model"
        self.host.window.set_model(f"{name} · {variant}")
        self.host.window.about_text = about_text(info, variant)
        log.info("model loaded: %s (%s)", getattr(info, "name", None), variant)
        self.host.requests.set_state(Status.TRANSLATING if self.host.requests.current else Status.IDLE)
        self.host.modelLoaded.emit(info)

    def on_load_failed(self, message: str) -> None:
        failed = self._requested_configs.pop(0) if self._requested_configs else None
        if failed is not None and failed.model_dir and not self._requested_configs:
            self._fall_back_to_bundled(failed, message)
            return
        self._loaded_key = None  # let the next Apply retry even with the same settings
        self.host.requests.set_state(Status.ERROR, "model not loaded")
        if self.model_info is None:
            self.host.window.set_model("No model")
        self.host.window.show_error("Could not load the model", message)

    def reload_engine(self) -> None:
        """Ask the worker for a new Translator if model/variant/threads changed."""
        config = self.engine_config()
        key = dataclasses.astuple(config)
        if key == self._loaded_key:
            return
        self._loaded_key = key
        self.host.requests.cancel_current()  # a model change interrupts the running job
        self.host.window.set_busy(False)
        self.host.requests.set_state(Status.LOADING, config.describe())
        self._request_load(config)

    def _request_load(self, config: EngineConfig) -> None:
        self._requested_configs.append(config)
        self.preload_engine()
        self._loadRequested.emit(config)

    def preload_engine(self) -> None:
        """Import the engine (and with it onnxruntime) here on the main thread before a
        worker does. A first import of ORT's extension in a worker thread while the main
        thread's garbage collector ran crashed the app (segfault, seen in the GUI tests);
        after this the workers' imports are dictionary lookups. Fakes need no engine."""
        if self._real_engine:
            import desktop_mt.engine.runtime  # noqa: F401

    def _fall_back_to_bundled(self, failed: EngineConfig, message: str) -> None:
        """The chosen model is missing or broken: say so in the banner and load the
        bundled model, so the app keeps translating. The setting is kept (the folder may
        come back, e.g. a network drive); Apply in the settings retries it."""
        self._loaded_key = None
        self.host.window.show_warning(
            f"Could not load the chosen model {failed.describe()}: {message.splitlines()[0]} "
            "Using the bundled model instead; choose another model in Settings."
        )
        self._request_load(dataclasses.replace(failed, model_dir=None))
