"""Adding a model folder from the Settings dialog as a catalog download is installed: a Marian
in Optimum's or transformers.js's layout is copied (hard links where possible) into the models
folder with a manifest of hashes, then rebuilt in the fast layout (``models.install_folder``:
the decoder-step layout with per-row int8, from the fp32 weights, with onnx and numpy only).

The conversion takes about a minute for a full-size model, so it runs off the UI thread. It is
a plain daemon thread, not a QThread: the conversion cannot be interrupted, and a QThread still
running when its owner is destroyed (the dialog closed, the app quitting) aborts the process,
whereas a daemon thread simply ends with the app (``engine.native`` lets a call into ONNX Runtime
or SentencePiece in flight finish first). Quitting during an add asks first (``quitting``). What a
quit leaves is a hidden staging folder in the models folder, never a half-built model where the
app looks for models; the next add removes it once it is a day old.

An add outlives the dialog that started it: the Settings dialog is only hidden when closed, so
its result then lands unseen; the log has every outcome, and the next Settings dialog says how
the last unseen one ended (:func:`keep_unseen`, :func:`take_unseen`). One add runs at a time in
the app (:func:`adds_running`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from desktop_mt.base.errors import DesktopMTError
from desktop_mt.models.install import install_folder

from ..i18n import translate
from ..logsetup import log_exception
from ..messages import failure

__all__ = [
    "FolderAdder",
    "adds_running",
    "keep_unseen",
    "take_unseen",
]


_logger = logging.getLogger(__name__)

_Installer = Callable[[Path, Path], Path]  # (folder, target) -> the folder to use

_RUNNING: dict[threading.Thread, str] = {}  # every add in the process: one outlives its dialog
_RUNNING_LOCK = threading.Lock()


def adds_running() -> list[str]:
    """The names of the folders being added now (the quit question names them)."""
    with _RUNNING_LOCK:
        return sorted(name for thread, name in _RUNNING.items() if thread.is_alive())


_UNSEEN: list[tuple[str, str]] = []  # (what the row says, its tone): an add that ended unseen


def keep_unseen(text: str, tone: str) -> None:
    """Keep how an add ended while its dialog was closed, for the next dialog to say."""
    with _RUNNING_LOCK:
        _UNSEEN[:] = [(text, tone)]


def take_unseen() -> tuple[str, str] | None:
    """How the last add that ended unseen ended (once; None when there is none)."""
    with _RUNNING_LOCK:
        return _UNSEEN.pop() if _UNSEEN else None


class FolderAdder(QObject):
    """Runs one install at a time; each :meth:`start` ends with ``added`` or ``failed``
    (delivered on the UI thread, unless this object is deleted by then: then only logged)."""

    added = Signal(str, str)  # the folder chosen, the installed model's folder
    failed = Signal(str, str)  # the folder chosen, what went wrong in the user's words

    def __init__(self, parent: QObject | None = None, installer: _Installer = install_folder) -> None:
        super().__init__(parent)
        self._installer = installer
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """True while an install runs."""
        return self._thread is not None and self._thread.is_alive()

    def start(self, folder: Path, target: Path) -> bool:
        """Install ``folder`` as ``target``; False (and nothing happens) while one runs."""
        if self.running:
            return False
        self._thread = threading.Thread(
            target=self._run, args=(Path(folder), Path(target)), name="model-folder-add", daemon=True
        )
        with _RUNNING_LOCK:
            _RUNNING[self._thread] = Path(folder).name
        self._thread.start()
        return True

    def _run(self, folder: Path, target: Path) -> None:
        try:
            ok, text = self._install(folder, target)
        finally:
            with _RUNNING_LOCK:
                _RUNNING.pop(threading.current_thread(), None)
        try:
            (self.added if ok else self.failed).emit(str(folder), text)
        except RuntimeError:  # the dialog that owned this object was closed meanwhile
            _logger.info("model folder %s: %s (its dialog had closed)", "added" if ok else "not added", text)

    def _install(self, folder: Path, target: Path) -> tuple[bool, str]:
        """(True, the installed folder) or (False, what went wrong in the user's words)."""
        try:
            return True, str(self._installer(folder, target))
        except (DesktopMTError, OSError) as exc:  # a refused graph, a full disk, a vanished folder
            return False, translate("FolderAdding", "Could not add {folder}: {error}").format(
                folder=folder.name, error=exc
            )
        except Exception as exc:  # noqa: BLE001 - a bug: the app stays up and the log has it
            log_exception("adding a model folder", exc)
            return False, failure(translate("FolderAdding", "Could not add {folder}").format(folder=folder.name), exc)
