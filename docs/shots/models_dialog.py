"""Regenerate ``docs/models-dialog.png``: the Models dialog in the middle of a download.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python docs/shots/models_dialog.py [OUT.png]

The catalog and the installed models are the app's real ones (``StoreBackend``, with a
throw-away ``DESKTOP_MT_HOME``). The download itself is scripted: it reports one progress
step for opus-mt-en-zh's int8 variant (its catalog size, a plausible speed) and then waits,
because a picture of a download must not depend on reaching the Hub.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path

os.environ.setdefault("DESKTOP_MT_HOME", tempfile.mkdtemp(prefix="desktop-mt-shot-"))

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from desktop_mt.engine.model_format import bundled_model_dir
from desktop_mt.gui import qtcompat
from desktop_mt.gui.dialogs.models_dialog import ModelsDialog
from desktop_mt.gui.features.models import StoreBackend
from desktop_mt.gui.window import fonts
from desktop_mt.models import DownloadProgress, catalog_entry

ROOT = Path(__file__).resolve().parents[2]
NAME, VARIANT = "opus-mt-en-zh", "int8"


class ScriptedDownload(StoreBackend):
    """The real catalog and models folder; a download that stops at 40 % and waits."""

    def download(self, name, variant, progress, cancel):
        total = catalog_entry(name).approx_bytes(variant)
        progress(DownloadProgress("listing"))
        progress(
            DownloadProgress("downloading", int(total * 0.4), total, "onnx/decoder_model_merged_quantized.onnx", 6.3e6)
        )
        cancel.wait()
        raise RuntimeError("cancelled")


def main(out: Path) -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    qtcompat.install_none_refcount_guard()
    app.setStyleSheet(fonts.stylesheet())
    dialog = ModelsDialog(ScriptedDownload())
    dialog.set_active_path(str(bundled_model_dir()))
    dialog.select(NAME)
    dialog.variant_combo.setCurrentIndex(dialog.variant_combo.findData(VARIANT))
    done = threading.Event()

    def shoot(report) -> None:
        if report.phase != "downloading" or done.is_set():
            return
        done.set()
        QTimer.singleShot(300, lambda: (dialog.grab().save(str(out)), dialog.shutdown(), app.quit()))

    dialog.progressShown.connect(shoot)
    dialog.show()
    dialog.start_download()
    app.exec()
    print(out)
    return 0 if out.exists() else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "models-dialog.png"))
