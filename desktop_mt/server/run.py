"""Running the server: ``desktop-mt serve`` (:func:`serve_from_args`) and an in-process
:class:`ServerThread` (tests, an embedding app).

One worker loads the model before it binds (model errors surface before anything listens);
``--workers N`` starts N uvicorn worker processes, each loading its own copy of the model.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
import threading
import time

import uvicorn

from .app import create_app
from .config import ServerConfig, ServeConfigError, check_safe, config_from_args

CONFIG_ENV = "DESKTOP_MT_SERVE_CONFIG"  # the config handed to worker processes
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def serve_from_args(args: argparse.Namespace) -> int:
    """``desktop-mt serve``: check the settings, load the model, serve until interrupted."""
    try:
        config = config_from_args(args)
        check_safe(config)
    except ServeConfigError as exc:
        print(f"desktop-mt serve: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return serve(config)


def serve(config: ServerConfig) -> int:
    """Serve ``config`` in this process (and its workers) until interrupted."""
    from ..errors import DesktopMTError

    _configure_logging()
    check_safe(config)
    options = dict(host=config.host, port=config.port, access_log=False, log_config=None,
                   timeout_graceful_shutdown=5)
    try:
        if config.workers == 1:
            uvicorn.run(create_app(config), **options)
        else:
            from ..engine.model_format import bundled_model_dir, inspect_model_dir

            inspect_model_dir(config.model or bundled_model_dir())  # fail here, not N times
            os.environ[CONFIG_ENV] = config.to_json()
            uvicorn.run("desktop_mt.server.run:app_from_environment", factory=True,
                        workers=config.workers, **options)
    except DesktopMTError as exc:
        print(f"desktop-mt serve: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def app_from_environment():
    """The app of one ``--workers`` process (uvicorn's factory; config from the parent)."""
    _configure_logging()
    return create_app(ServerConfig.from_json(os.environ[CONFIG_ENV]))


def _configure_logging() -> None:
    """Our lines and uvicorn's on stderr; no access log (it could carry query strings)."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


class ServerThread:
    """Serve an app on a thread, on a loopback port chosen by the OS (``port``).

    ``start()`` returns once the server accepts connections; ``stop()`` shuts it down.
    """

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self.host, self.port = host, self._socket.getsockname()[1]
        config = uvicorn.Config(app, access_log=False, log_config=None, log_level="warning",
                                timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run,
                                        kwargs={"sockets": [self._socket]},
                                        name="desktop-mt-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 30.0) -> "ServerThread":
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:  # uvicorn offers no event for this
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server on {self.url} did not start")
            time.sleep(0.02)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout)
        self._socket.close()
