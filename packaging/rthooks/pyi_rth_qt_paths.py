"""PyInstaller run-time hook: tell Qt where the bundled plugins are, without importing Qt.

It replaces PyInstaller's own ``pyi_rth_pyside6`` (removed from the build in the spec), which
imports ``PySide6.QtCore`` at every start: that loads Qt (and ICU) into ``desktop-mt
self-test`` and ``translate``, which never use it, costing start-up time. What that hook
did and this one keeps: ``QT_PLUGIN_PATH`` (and the QML path, harmless) pointing into the
bundle. What it also did and is not needed here: registering an embedded ``qt.conf`` — the
PyPI PySide6 wheels register their own when ``PySide6.QtCore`` is first imported, and the
bundle keeps the wheel's layout (``PySide6/Qt/...``), so Qt finds its prefix the same way.
"""


def _qt_paths() -> None:
    import os
    import sys

    base = sys._MEIPASS
    qt = os.path.join(base, "PySide6") if sys.platform.startswith("win") else os.path.join(base, "PySide6", "Qt")
    os.environ["QT_PLUGIN_PATH"] = os.path.join(qt, "plugins")
    os.environ["QML2_IMPORT_PATH"] = os.path.join(qt, "qml")
    if sys.platform.startswith("win"):
        os.environ["PATH"] = base + os.pathsep + os.environ.get("PATH", "")


_qt_paths()
del _qt_paths
