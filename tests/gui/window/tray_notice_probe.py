"""Run under a real X session with a tray host (tests/gui/window/test_tray_notice_x11.py): the tray's
notice under a dark palette and the app's stylesheet; prints the notice's colours as JSON."""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QIcon, QPalette, QPixmap
from PySide6.QtWidgets import QApplication, QLabel

from desktop_mt.gui.window import fonts
from desktop_mt.gui.window.tray import Tray, notice_windows

DARK = {
    QPalette.ColorRole.Window: "#2b2b2b",
    QPalette.ColorRole.WindowText: "#eeeeee",
    QPalette.ColorRole.Base: "#1e1e1e",
    QPalette.ColorRole.Text: "#eeeeee",
    QPalette.ColorRole.ToolTipBase: "#333333",
    QPalette.ColorRole.ToolTipText: "#eeeeee",
}


def main() -> None:
    app = QApplication(sys.argv)
    palette = QPalette()
    for role, colour in DARK.items():
        palette.setColor(role, QColor(colour))
    app.setPalette(palette)  # a dark GTK theme's palette
    app.setStyleSheet(fonts.stylesheet())  # as app.py does
    pixmap = QPixmap(16, 16)
    pixmap.fill(QColor("#2f6fb3"))
    tray = Tray(QIcon(pixmap))
    tray.show()
    report: dict[str, object] = {"available": tray.available}

    def notify_when_shown() -> None:
        if not tray.icon.isVisible():
            return  # the tray host has not taken the icon yet: asked again by the timer
        timer.stop()
        tray.notify("desktop-mt is still running", "The hotkey and this tray icon keep working.")
        balloons = notice_windows()
        if balloons:
            balloon = balloons[0]
            report["background"] = balloon.palette().color(QPalette.ColorRole.Window).name()
            report["labels"] = [
                label.palette().color(QPalette.ColorRole.WindowText).name()
                for label in balloon.findChildren(QLabel)
                if label.text()
            ]
        print(json.dumps(report), flush=True)
        app.quit()

    timer = QTimer()
    timer.timeout.connect(notify_when_shown)
    timer.start(100)
    app.exec()


if __name__ == "__main__":
    main()
