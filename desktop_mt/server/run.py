"""Running the server: ``desktop-mt serve`` (:func:`serve_from_args`) and an in-process
:class:`ServerThread` (tests, an embedding app).

The port is bound first (a port in use is reported in a second, not after the model has
loaded), then the model is loaded, then uvicorn serves the bound sockets. ``localhost``
listens on both loopback families, ``127.0.0.1`` and ``::1``, since clients may resolve it
to either. ``--workers N`` starts N uvicorn worker processes on the same sockets, each
loading its own copy of the model.

Exit codes (as the CLI's): 0 stopped normally (Ctrl+C or SIGTERM, after the graceful shutdown
of :meth:`.service.TranslationService.drain`), 1 the model failed to load, 2 a usage problem:
unsafe settings, or a host/port that cannot be used (the message names the flag to change).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from types import FrameType

import uvicorn
from fastapi import FastAPI
from uvicorn.supervisors import Multiprocess

from ..app.factory import model_folders
from ..app.i18n import _
from ..base.errors import DesktopMTError
from .app import create_app
from .config import CONFIG_ENV, ServeConfigError, ServerConfig, check_safe, config_from_args
from .connections import uvicorn_options

__all__ = [
    "EXIT_OK",
    "EXIT_FAILED",
    "EXIT_USAGE",
    "serve_from_args",
    "serve",
    "bind_sockets",
    "app_from_environment",
    "ServerThread",
]

_logger = logging.getLogger("desktop_mt.server")
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def serve_from_args(args: argparse.Namespace) -> int:
    """``desktop-mt serve``: check the settings, load the model, serve until interrupted."""
    try:
        config = config_from_args(args)
        check_safe(config)
    except ServeConfigError as exc:
        print(_("desktop-mt serve: error: {message}").format(message=exc), file=sys.stderr)
        return EXIT_USAGE
    return serve(config)


def serve(config: ServerConfig) -> int:
    """Serve ``config`` in this process (and its workers) until interrupted."""
    _configure_logging()
    check_safe(config)
    try:
        sockets = bind_sockets(config.host, config.port)
    except OSError as exc:
        message = _port_problem(config.host, config.port, exc)
        print(_("desktop-mt serve: error: {message}").format(message=message), file=sys.stderr)
        return EXIT_USAGE
    try:
        with _terminate_as_interrupt():
            _serve(config, sockets)
    except DesktopMTError as exc:
        print(_("desktop-mt serve: error: {message}").format(message=exc), file=sys.stderr)
        return EXIT_FAILED
    except (KeyboardInterrupt, _Terminated):  # Ctrl+C / SIGTERM before or after uvicorn's own stop
        pass
    finally:
        for sock in sockets:
            sock.close()
    return EXIT_OK


class _Terminated(BaseException):
    """SIGTERM, raised where the process was (as Ctrl+C raises KeyboardInterrupt)."""


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM raises :class:`_Terminated` while the server starts and after it has stopped.

    uvicorn handles SIGTERM while it serves (the graceful shutdown) and then raises the
    signal again for the handler that was there before it: with the default action the
    process died with status 143 after a clean shutdown. Where signals cannot be handled
    (not the main thread) nothing changes."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTERM"):
        yield
        return

    def terminated(_signum: int, _frame: FrameType | None) -> None:
        raise _Terminated()

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _serve(config: ServerConfig, sockets: list[socket.socket]) -> None:
    if config.workers == 1:
        app = create_app(config)  # loads the model; the port is already ours
        server = uvicorn.Server(uvicorn.Config(app, **uvicorn_options(config)))
        _logger.info("listening on %s (Ctrl+C to stop)", " and ".join(map(_url, sockets)))
        server.run(sockets=sockets)
    else:
        model_folders(list(config.model_choices) or None)  # fail here, not N times
        os.environ[CONFIG_ENV] = config.to_json()
        _logger.info(
            "listening on %s with %d workers (Ctrl+C to stop)", " and ".join(map(_url, sockets)), config.workers
        )
        Multiprocess(
            uvicorn.Config(
                "desktop_mt.server.run:app_from_environment",
                factory=True,
                workers=config.workers,
                **uvicorn_options(config, workers=True),
            ),
            sockets=sockets,
        ).run()


def _url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def bind_sockets(host: str, port: int) -> list[socket.socket]:
    """Listening sockets for ``host``: ``localhost`` gives ``127.0.0.1`` and ``::1`` (the
    second only where the system has IPv6 loopback), on the same port (port 0: the one the
    OS chose for the first). Raises OSError (EADDRINUSE...)."""
    names = ["127.0.0.1", "::1"] if host.strip("[]").lower() == "localhost" else [host.strip("[]")]
    sockets: list[socket.socket] = []
    try:
        for name in names:
            try:
                sockets.append(_listen(name, port))
            except OSError as exc:
                if not sockets or exc.errno not in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
                    raise
                continue  # no IPv6 loopback here: IPv4 alone
            port = sockets[0].getsockname()[1]
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def _listen(host: str, port: int) -> socket.socket:
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if sys.platform != "win32":  # on Windows the option lets two servers share a port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((host, port))
        sock.listen(2048)
        sock.set_inheritable(True)  # --workers: the worker processes serve it
    except OSError:
        sock.close()
        raise
    return sock


def _port_problem(host: str, port: int, exc: OSError) -> str:
    """The message for a host/port that cannot be used, naming the flag to change."""
    if exc.errno == errno.EADDRINUSE:
        return f"port {port} is in use on {host} (another server, or another desktop-mt): choose another with --port"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"this system does not allow listening on port {port}: choose --port above 1023"
    return f"cannot listen on {host} port {port} ({exc.strerror or exc}): check --host and --port"


def app_from_environment() -> FastAPI:
    """The app of one ``--workers`` process (uvicorn's factory; config from the parent). The
    process is the server's own: its sessions share one thread pool, as the command's do."""
    from ..engine.runtime import share_thread_pool  # onnxruntime: the app loads a model anyway

    _configure_logging()
    config = ServerConfig.from_json(os.environ[CONFIG_ENV])
    share_thread_pool(config.threads)
    return create_app(config)


def _configure_logging() -> None:
    """Our lines and uvicorn's on stderr; no access log (it could carry query strings)."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


class ServerThread:
    """Serve an app on a thread, on a loopback port chosen by the OS (``port``).

    ``start()`` returns once the server accepts connections; ``stop()`` shuts it down.
    """

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> None:
        self._sockets = bind_sockets(host, port)
        self.host = self._sockets[0].getsockname()[0]
        self.port = self._sockets[0].getsockname()[1]
        config: ServerConfig = app.state.service.config  # an app of create_app
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", **uvicorn_options(config)))
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": self._sockets}, name="desktop-mt-server", daemon=True
        )

    @property
    def url(self) -> str:
        return _url(self._sockets[0])

    def start(self, timeout: float = 30.0) -> ServerThread:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:  # uvicorn offers no event for this
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server on {self.url} did not start")
            time.sleep(0.02)
        return self

    def stop(self, timeout: float | None = None) -> None:
        """Shut down gracefully (``drain_s``, see :meth:`.service.TranslationService.drain`)
        and wait for the thread (``timeout`` None: the drain time, the answers' margin and 5 s)."""
        self._server.should_exit = True
        self._thread.join(timeout if timeout is not None else (self._server.config.timeout_graceful_shutdown or 0) + 5)
        for sock in self._sockets:
            sock.close()
