"""The user's translation memory in the window (issue 28): opened when first needed, shared by
post-editing (its edits and confirmations), the file jobs and the Local API, and announced when
an entry changes (:attr:`UserMemory.changed`: the sentences' statuses are read again, the next
plan checks the memory). A memory that cannot be opened is None, and the status bar says why.
"""

from __future__ import annotations

import logging
import sqlite3

from PySide6.QtCore import QObject, Signal

from desktop_mt.tm import TranslationMemory

from ..i18n import QT_TRANSLATE_NOOP, translate
from ..ports import WindowPort

__all__ = ["NO_MEMORY", "UserMemory"]

_logger = logging.getLogger("desktop_mt.gui.features.postedit")  # the log lines kept their old source

NO_MEMORY = QT_TRANSLATE_NOOP("PostEdit", "The translation memory is not available: {why}")


class UserMemory(QObject):
    """See the module docstring; ``window``: where it says that the memory is not available."""

    changed = Signal()  # an entry was written, edited, approved or deleted

    def __init__(self, window: WindowPort, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window
        self._memory: TranslationMemory | None = None
        self.error = ""  # why it cannot be opened ("" until a try failed)

    @property
    def memory(self) -> TranslationMemory | None:
        """The translation memory (opened when first needed), or None when it cannot be opened."""
        if self._memory is None and not self.error:
            try:
                self._memory = TranslationMemory()
            except (ImportError, OSError, sqlite3.Error) as exc:
                self.error = f"{type(exc).__name__}: {exc}"
                _logger.warning("translation memory not available (%s)", type(exc).__name__)
        return self._memory

    def use(self, memory: TranslationMemory) -> None:
        """Use ``memory`` (tests give one in ``:memory:``)."""
        self._memory, self.error = memory, ""

    def say_unavailable(self) -> None:
        """Say in the status bar that the memory cannot be opened, and why."""
        self.window.statusBar().showMessage(translate("PostEdit", NO_MEMORY).format(why=self.error), 8000)

    def close(self) -> None:
        """Close the memory (quitting); it is opened again if asked for."""
        if self._memory is not None:
            self._memory.close()
            self._memory = None
