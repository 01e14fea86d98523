"""TMX import and export for the Translation memory dialog (issue 28): run
:mod:`desktop_mt.tm.tmx` over the memory and turn each way it can fail into a
:class:`TMXFailure` the dialog shows (a title and a text naming the file, and the line for
broken XML).

:func:`import_into` is all or nothing: a file that cannot be read adds nothing. A unit that is
already in the memory is not added twice (:class:`ImportReport` counts it). :func:`export_from`
writes one direction to a TMX 1.4b file. Nothing here logs the user's text.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_mt.tm import TranslationMemory
from desktop_mt.tm.tmx import ImportReport, TMXError, export_tmx, import_tmx

from ..i18n import QT_TRANSLATE_NOOP, translate

# English, marked for the catalog; shown through translate("TMFiles", ...)
TMX_FILTER = QT_TRANSLATE_NOOP("TMFiles", "TMX files (*.tmx);;All files (*)")
NEEDS_TMX = QT_TRANSLATE_NOOP("TMFiles", "TMX needs translate-toolkit (the 'tm' extra)")
_IMPORT_FAILED = QT_TRANSLATE_NOOP("TMFiles", "Cannot import the TMX file")
_EXPORT_FAILED = QT_TRANSLATE_NOOP("TMFiles", "Cannot export the translation memory")


def _said(text: str) -> str:
    """One of this module's messages in the interface language."""
    return translate("TMFiles", text)


@dataclass(frozen=True)
class TMXFailure:
    """Why an import or export did nothing: a message box's title and text."""

    title: str
    text: str


def import_into(memory: TranslationMemory, path: Path, direction: str) -> ImportReport | TMXFailure:
    """Add the TMX file ``path``'s units to ``direction`` (a wait cursor meanwhile)."""
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        return import_tmx(memory, path, direction)
    except TMXError as exc:
        return TMXFailure(_said(_IMPORT_FAILED), str(exc))
    except (ValueError, sqlite3.Error) as exc:
        return TMXFailure(
            _said(_IMPORT_FAILED),
            translate("TMFiles", "{file}: {error}. Nothing was imported.").format(file=path, error=exc),
        )
    except ImportError as exc:
        return TMXFailure(_said(_IMPORT_FAILED), f"{_said(NEEDS_TMX)}: {exc}")
    finally:
        QApplication.restoreOverrideCursor()


def tmx_path(path: str | Path) -> Path:
    """``path``, with ``.tmx`` added when it has no suffix."""
    path = Path(path)
    return path if path.suffix else path.with_suffix(".tmx")


def export_from(memory: TranslationMemory, path: Path, direction: str) -> int | TMXFailure:
    """Write ``direction``'s entries to the TMX file ``path``; how many were written."""
    try:
        return export_tmx(memory, path, direction)
    except (OSError, sqlite3.Error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return TMXFailure(_said(_EXPORT_FAILED), f"{path}: {reason}")
    except ImportError as exc:
        return TMXFailure(_said(_EXPORT_FAILED), f"{_said(NEEDS_TMX)}: {exc}")


__all__ = ["NEEDS_TMX", "TMX_FILTER", "TMXFailure", "export_from", "import_into", "tmx_path"]
