"""A fake ``org.freedesktop.portal.Desktop`` for tests (run on a private session bus):
``Screenshot`` answers, as the real portal does, with a ``Response`` signal on the request path
made from the caller's name and ``handle_token``: ``uri`` = the image given on the command line,
or response 1 (cancelled) when that is ``--cancel``. Prints "ready" once it is on the bus."""

from __future__ import annotations

import subprocess
import sys

from PySide6.QtCore import ClassInfo, QCoreApplication, QObject, QTimer, Slot
from PySide6.QtDBus import QDBusConnection, QDBusMessage


@ClassInfo({"D-Bus Interface": "org.freedesktop.portal.Screenshot"})
class Portal(QObject):
    def __init__(self, image: str) -> None:
        super().__init__()
        self.image = image

    @Slot(str, "QVariantMap", QDBusMessage, result=str)
    def Screenshot(self, _parent: str, options: dict, message: QDBusMessage) -> str:  # noqa: N802 - D-Bus name
        sender = message.service().lstrip(":").replace(".", "_")
        path = f"/org/freedesktop/portal/desktop/request/{sender}/{options['handle_token']}"
        code, results = (
            ("uint32 1", "@a{sv} {}")
            if self.image == "--cancel"
            else ("uint32 0", f"{{'uri': <'file://{self.image}'>}}")
        )
        # after the reply: the caller connects to the request path before it calls
        QTimer.singleShot(
            50,
            lambda: subprocess.run(
                [
                    "gdbus",
                    "emit",
                    "--session",
                    "--object-path",
                    path,
                    "--signal",
                    "org.freedesktop.portal.Request.Response",
                    code,
                    results,
                ],
                check=True,
            ),
        )
        return path


def main() -> None:
    app = QCoreApplication(sys.argv)
    bus = QDBusConnection.sessionBus()
    portal = Portal(sys.argv[1])
    assert bus.registerObject("/org/freedesktop/portal/desktop", portal, QDBusConnection.RegisterOption.ExportAllSlots)
    assert bus.registerService("org.freedesktop.portal.Desktop")
    print("ready", flush=True)
    app.exec()


if __name__ == "__main__":
    main()
