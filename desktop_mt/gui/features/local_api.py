"""Settings > Local API: the HTTP server of ``desktop-mt serve`` inside the app.

Pot, Easydict, Bob and browser extensions can call a LibreTranslate, DeepL, DeepLX or
OpenAI-compatible endpoint. With the setting on, the app serves
:func:`desktop_mt.server.app.create_app` on ``127.0.0.1:PORT`` (never another address, so no
key is needed to keep it private; an optional key keeps other local programs out).

:class:`LocalApiFeature` runs it:

- The port is bound and listening on the UI thread, so a port in use is reported at once and
  a client that connects while the model loads waits instead of being refused. The model loads
  and uvicorn runs on a background thread (``_ServerRun``).
- The server has its own Translator for the model the window uses (``loaded_config``: after a
  fallback to the bundled model too); a session of the window's worker could be closed by a
  model change while a request still uses it. It restarts when that model, the port or the key
  changes (``Events.model_loaded``; Apply: ``Events.settings_applied``), stops when the
  setting is turned off and when the app quits (``close``, from the controller's shutdown).
- What goes wrong (the ``server`` extra is not installed, the port is taken, the model does not
  load) is a banner naming the fix and a line in the status bar; the setting stays on, and Apply
  tries again. The status bar says "Local API on http://127.0.0.1:PORT" while it runs.
"""

from __future__ import annotations

import dataclasses
import errno
import logging
import socket
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel

from desktop_mt.engine.model_format import check_variant
from desktop_mt.server.config import ServerConfig

from ..dialogs.settings_dialog import SettingsDialog
from ..i18n import translate
from ..ports import EngineConfig, StrEnum
from ..window import theme
from ..workers.translation import default_translator_factory

if TYPE_CHECKING:
    import uvicorn
    from fastapi import FastAPI

    from desktop_mt.engine.model_format import ModelInfo

    from ..services import Services
    from ..settings import Settings
    from .engine_loading import EngineLoading

__all__ = [
    "ApiState",
    "LocalApiFeature",
    "listen",
]


_logger = logging.getLogger(__name__)

_HOST = "127.0.0.1"  # the app's server is for this computer only
_INSTALL_HINT = "pip install 'desktop-mt[server]'"
_DRAIN_S = 2.0  # on quit, running requests get this long to finish (waiting ones get 503 at once)
_STOP_TIMEOUT_S = 8.0  # the drain, the last answers (3 s at most) and the service's threads stopping
_ATTACHED = "localApiAttached"  # a dynamic property marking the Settings dialogs we listen to


class ApiState(StrEnum):
    """The Local API server's state (``LocalApiFeature.state``; compares equal to its value,
    which ``stateChanged`` carries)."""

    OFF = "off"
    STARTING = "starting"  # the port listens; the model loads
    RUNNING = "running"
    FAILED = "failed"  # the banner says why; Apply tries again


@dataclasses.dataclass(frozen=True)
class _Launch:
    """What a server is started with; any change restarts it."""

    port: int
    api_key: str
    engine: EngineConfig

    @property
    def url(self) -> str:
        return f"http://{_HOST}:{self.port}"


def _missing_server_extra() -> str | None:
    """None when FastAPI and uvicorn import, else the message naming the fix.

    Imported here, on the UI thread, as the engine's loading does for the engine: a first import
    of a C extension on a worker thread while the main thread collects garbage crashed."""
    try:
        import uvicorn  # noqa: F401

        import desktop_mt.server.app  # noqa: F401
    except ImportError as exc:
        missing = exc.name or translate("LocalApi", "a server package")
        return translate(
            "LocalApi",
            "The Local API needs the optional server packages ({package} is not installed): {command}, "
            "then restart desktop-mt.",
        ).format(package=missing, command=_INSTALL_HINT)
    return None


def listen(port: int) -> socket.socket:
    """A socket listening on ``HOST:port`` (raises OSError, e.g. EADDRINUSE)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if sys.platform != "win32":
            # Rebinding right after a stop must not wait for TIME_WAIT; on Windows the option
            # would let two servers share the port, so it is left off there.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((_HOST, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def _port_message(port: int, exc: OSError) -> str:
    """What to tell the user when ``port`` cannot be used."""
    if exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", None)):
        return translate(
            "LocalApi",
            "Local API: port {port} is in use (by another program, or another desktop-mt): "
            "choose another port in Settings > Local API port.",
        ).format(port=port)
    if exc.errno in (errno.EACCES, errno.EPERM):
        return translate(
            "LocalApi",
            "Local API: this system does not allow listening on port {port}: choose a port above 1023 "
            "in Settings > Local API port.",
        ).format(port=port)
    return translate("LocalApi", "Local API: cannot listen on port {port} ({why}): choose another port.").format(
        port=port, why=exc.strerror or exc
    )


class _ServerRun:
    """One server: its listening socket, and a thread that loads the model, then runs uvicorn.

    ``report(run, error)`` is called from the thread once: error None when the server serves,
    else the message. Not a QObject: :class:`LocalApiFeature` turns the call into a signal."""

    def __init__(
        self,
        launch: _Launch,
        sock: socket.socket,
        factory: Callable[[EngineConfig], Any],
        report: Callable[[_ServerRun, str | None], None],
        memory: Any = None,
    ) -> None:
        self.launch, self._socket, self._factory, self._report = launch, sock, factory, report
        self.memory = memory  # the app's translation memory (``tm.TranslationMemory``), as serve --tm
        self._lock = threading.Lock()
        self._stopping = False
        self._server: uvicorn.Server | None = None  # once the model is loaded
        self._thread = threading.Thread(target=self._run, name="desktop-mt-local-api", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = _STOP_TIMEOUT_S) -> None:
        """Stop serving and free the port. A model still loading is not waited for: the
        thread sees ``_stopping`` afterwards and releases it."""
        with self._lock:
            self._stopping = True
            server = self._server
        if server is not None:
            server.should_exit = True  # uvicorn checks it every 0.1 s, then shuts down
            self._thread.join(timeout)
            if self._thread.is_alive():
                _logger.warning("the local API server did not stop within %.0f s", timeout)
        self._socket.close()

    def _run(self) -> None:
        try:
            translator = self._factory(self.launch.engine)
        except Exception as exc:  # noqa: BLE001 - DesktopMTError mostly; reported, not raised
            _logger.warning("local API: the model did not load (%s)", type(exc).__name__)
            self._report(
                self, translate("LocalApi", "Local API: the model could not be loaded: {error}").format(error=exc)
            )
            return
        try:
            server, app = self._make_server(translator)
        except Exception as exc:  # noqa: BLE001 - reported in the window, never a crash
            translator.close()
            _logger.warning("local API: the server could not be built (%s)", type(exc).__name__)
            self._report(
                self, translate("LocalApi", "Local API: the server could not start: {error}").format(error=exc)
            )
            return
        with self._lock:
            if self._stopping:  # turned off while the model loaded: nobody wants it now
                app.state.service.close()
                return
            self._server = server
        try:
            server.run(sockets=[self._socket])  # its lifespan's end closes the service and model
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - uvicorn exits on a failed startup
            _logger.warning("local API: the server stopped (%s)", type(exc).__name__)
            with self._lock:
                if not self._stopping:
                    self._report(
                        self,
                        translate("LocalApi", "Local API: the server stopped unexpectedly: {error}").format(error=exc),
                    )

    def _make_server(self, translator: Any) -> tuple[uvicorn.Server, FastAPI]:
        """The uvicorn server of the app for ``translator`` (reports once it serves), and the app."""
        import uvicorn

        from desktop_mt.server.app import create_app
        from desktop_mt.server.connections import uvicorn_options

        engine = self.launch.engine
        # Pot's web view (a Tauri origin) may call the app's server: Pot streams OpenAI
        # answers with fetch(). No web page has such an origin.
        config = ServerConfig(
            host=_HOST,
            port=self.launch.port,
            api_key=self.launch.api_key or None,
            model=engine.model_dir,
            variant=check_variant(engine.variant),
            threads=engine.intra_op_threads,
            cors_origins=("pot",),
            drain_s=_DRAIN_S,
        )
        run = self

        class Server(uvicorn.Server):
            async def startup(self, sockets: list[socket.socket] | None = None) -> None:
                await super().startup(sockets=sockets)
                if self.started:  # uvicorn has no event for this; it accepts from now on
                    run._report(run, None)

        # The server's connection limits and timeouts; no access log (it could carry query
        # strings); uvicorn's own lines as warnings only.
        # Approved beats edited, as the window's file jobs (tm.apply.memory_factory): an
        # unapproved edit is never an answer unreviewed.
        app = create_app(config, translator, memory=self.memory, confirmed_only=True)
        server = Server(uvicorn.Config(app, log_level="warning", **uvicorn_options(config)))
        return server, app


@dataclasses.dataclass(frozen=True)
class _Report:
    """What a server thread reports once: its run, and the error (None: it serves)."""

    run: _ServerRun
    error: str | None


class LocalApiFeature(QObject):
    """The window's side of the Local API setting (see the module docstring). ``memory``: the
    window's translation memory (``tm.TranslationMemory``, None when it cannot be opened), read
    when a server starts."""

    stateChanged = Signal(str)  # an ApiState's value
    statusChanged = Signal(str, str)  # the line to show, its tone (theme; "" = normal)
    _reported = Signal(_Report)  # from a server thread

    def __init__(self, services: Services, engine: EngineLoading, memory: Callable[[], Any] | None = None) -> None:
        super().__init__(services.owner)
        self.services, self.engine, self._memory = services, engine, memory
        self.window = services.window
        self.translator_factory: Callable[[EngineConfig], Any] = default_translator_factory
        self.state = ApiState.OFF
        self.status = translate("LocalApi", "Off.")
        self._launch: _Launch | None = None  # what runs, starts, or last failed
        self._run: _ServerRun | None = None
        self._warned: set[str] = set()  # banner lines of ours, taken off once it runs or is off
        self.label = QLabel("", self.window.window())
        self.label.hide()
        self.window.statusBar().addPermanentWidget(self.label, 0)
        self._reported.connect(self._on_reported, Qt.ConnectionType.QueuedConnection)
        events = services.events
        self._unsubscribe = [
            events.model_loaded.subscribe(self._on_model_loaded),
            events.settings_applied.subscribe(self._on_applied),
        ]
        # The dialog is made after the signal (by the app); attach once the event loop runs.
        self.window.settingsRequested.connect(lambda: QTimer.singleShot(0, self.attach_dialogs))

    @property
    def url(self) -> str | None:
        """The server's address while it serves, else None."""
        return self._launch.url if self.state is ApiState.RUNNING and self._launch else None

    # ---- what is wanted -----------------------------------------------------------------
    def wanted(self) -> _Launch | None:
        """What the settings and the window's model ask for (None: the setting is off)."""
        s = self.services.settings
        if not s.local_api:
            return None
        engine = self.engine.loaded_config or self.engine.engine_config()
        return _Launch(s.local_api_port, s.local_api_key, engine)

    def sync(self, retry: bool = False) -> None:
        """Start, restart or stop the server to match :meth:`wanted`. A launch that failed
        is tried again only when ``retry`` (Apply), not on every model load."""
        wanted = self.wanted()
        if wanted == self._launch and (self.state is not ApiState.FAILED or not retry):
            return
        self._stop_run()
        self._launch = wanted
        if wanted is None:
            self._set_state(ApiState.OFF, translate("LocalApi", "Off."))
        else:
            self._start(wanted)

    def _on_model_loaded(self, _info: ModelInfo) -> None:
        self.sync()

    # ---- the Settings dialog ------------------------------------------------------------
    def attach_dialogs(self) -> None:
        """Listen to the window's Settings dialogs not yet attached (see :meth:`attach`)."""
        for dialog in self.window.window().findChildren(SettingsDialog):
            if not dialog.property(_ATTACHED):
                self.attach(dialog)

    def attach(self, dialog: SettingsDialog) -> None:
        """Show the state in ``dialog`` (its Apply reaches :meth:`_on_applied` as
        ``Events.settings_applied``, once the new settings are in force)."""
        dialog.setProperty(_ATTACHED, True)
        dialog.set_local_api_status(self.status, self._tone())
        self.statusChanged.connect(dialog.set_local_api_status)

    def _on_applied(self, _settings: Settings) -> None:
        self.sync(retry=True)

    # ---- running ------------------------------------------------------------------------
    def _start(self, launch: _Launch) -> None:
        problem = _missing_server_extra()
        if problem is not None:
            self._fail(problem, "no server extra")
            return
        if self.translator_factory is default_translator_factory:
            import desktop_mt.engine.runtime  # noqa: F401 - on this thread first (see above)
        try:
            sock = listen(launch.port)
        except OSError as exc:
            self._fail(_port_message(launch.port, exc), f"port {launch.port} unavailable")
            return
        # The app's own memory: exact matches are answered from it, as with serve --tm.
        memory = self._memory() if self._memory is not None else None
        self._run = _ServerRun(
            launch, sock, self.translator_factory, lambda run, error: self._reported.emit(_Report(run, error)), memory
        )
        self._set_state(
            ApiState.STARTING,
            translate("LocalApi", "Local API starting on {url} (loading the model)…").format(url=launch.url),
        )
        self._run.start()

    def _on_reported(self, report: _Report) -> None:
        run, error = report.run, report.error
        if run is not self._run:  # a server stopped since: its news is stale
            return
        if error is not None:
            self._stop_run()
            self._fail(error, "model or server")
            return
        _logger.info("local API serving on port %d", run.launch.port)
        self._set_state(ApiState.RUNNING, translate("LocalApi", "Local API on {url}").format(url=run.launch.url))

    def _fail(self, message: str, reason: str) -> None:
        _logger.warning("local API not started: %s", reason)
        self.window.show_warning(message)
        self._warned.add(message)
        self._set_state(ApiState.FAILED, message)

    def _stop_run(self) -> None:
        run, self._run = self._run, None
        if run is not None:
            run.stop()
            _logger.info("local API on port %d stopped", run.launch.port)

    def _set_state(self, state: ApiState, status: str) -> None:
        if state in (ApiState.RUNNING, ApiState.OFF):  # the cause of earlier warnings is gone
            for message in self._warned:
                self.window.clear_warning(message)
            self._warned.clear()
        self.state, self.status = state, status
        self.label.setText(translate("LocalApi", "Local API: not running") if state is ApiState.FAILED else status)
        self.label.setToolTip(status)
        self.label.setVisible(state is not ApiState.OFF)
        theme.set_tone(self.label, self._tone())
        self.statusChanged.emit(status, self._tone() or "")
        self.stateChanged.emit(state.value)

    def _tone(self) -> str | None:
        return {ApiState.FAILED: "warning", ApiState.OFF: "quiet", ApiState.STARTING: "quiet"}.get(self.state)

    def close(self) -> None:
        """Stop the server (app shutdown); the setting is left as it is."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._stop_run()
        self._launch = None
        self.state = ApiState.OFF
