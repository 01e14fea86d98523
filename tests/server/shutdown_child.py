"""The server process of test_shutdown.py: ``desktop-mt serve``'s own code (:func:`.run.serve`:
its signals, its uvicorn settings, its exit status) over the fake translator, whose engine
calls and stream steps are held until the parent writes a line to this process's stdin.

It prints ``entered`` on stdout once an engine call is held; the listening line goes to
stderr as ``desktop-mt serve`` writes it.

    python -m tests.server.shutdown_child DRAIN_S
"""

from __future__ import annotations

import sys
import threading

from desktop_mt.server import app as app_module
from desktop_mt.server import run
from desktop_mt.server.config import ServerConfig

from .fakes import FakeTranslator


def main() -> int:
    hold = threading.Event()
    engine = FakeTranslator(hold=hold)

    def release() -> None:
        sys.stdin.readline()
        hold.set()

    def report_entered() -> None:
        engine.entered.wait()
        print("entered", flush=True)

    threading.Thread(target=release, daemon=True).start()
    threading.Thread(target=report_entered, daemon=True).start()
    # serve() builds its app with create_app(config), which loads the configured model: this
    # process serves the fake instead (the rest of serve() runs as it is).
    run.create_app = lambda config: app_module.create_app(config, engine)  # type: ignore[assignment]
    return run.serve(ServerConfig(port=0, drain_s=float(sys.argv[1]), max_streams=4))


if __name__ == "__main__":
    sys.exit(main())
