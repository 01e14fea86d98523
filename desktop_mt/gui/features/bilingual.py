"""View > Bilingual (issue 19): each source paragraph followed by its translation, in the
window (shown and copied that way) and in file jobs (``bilingual=True`` for txt, docx, srt).

The translation streams in as usual; when it has finished (or was stopped) the translation
pane is rebuilt with the source lines interleaved. The engine keeps the line structure (one
output line per input line), so line ``i`` of the translation belongs to line ``i`` of the
source. Toggling the option re-renders the translation on screen at once (a stopped one keeps
its "stopped here" line). A kept translation put into the panes (undo's memory, History > Open,
the popup's Open in main window, the draft restored at start) goes through :meth:`BilingualView.show_kept`
the same way; the draft saves the plain translation (:meth:`BilingualView.plain`).
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from desktop_mt.app.session import Ended, Request

from ..services import Services
from ..window.progress import has_mark, mark_stopped

__all__ = [
    "BilingualView",
    "interleave",
]


def interleave(source: str, translation: str) -> str:
    """Each non-blank source line followed by its translation line, the pairs separated by a
    blank line. A stopped translation has fewer lines: the rest of the source follows alone.
    When the two do not line up (more translated lines than source lines), the source comes
    first and the translation after it."""
    src = source.strip("\n").split("\n")
    tgt = translation.strip("\n").split("\n") if translation.strip() else []
    if len(tgt) > len(src):
        return f"{source.strip()}\n\n{translation.strip()}"
    blocks = []
    for i, line in enumerate(src):
        if not line.strip():
            continue
        done = tgt[i] if i < len(tgt) else ""
        blocks.append(f"{line}\n{done}" if done.strip() else line)
    return "\n\n".join(blocks)


class BilingualView(QObject):
    """View > Bilingual: the toggle (remembered in the settings) and the pane it renders."""

    def __init__(self, services: Services) -> None:
        super().__init__(services.owner)
        self.services = services
        self.session = services.session  # the request that runs
        self.window = window = services.window
        self._source = ""  # the source text of the request that runs / ran last
        self._plain: str | None = None  # its translation as the engine wrote it (after it ended)
        self._shown = ""  # what this view last put in the pane
        window.bilingual_action.setChecked(services.settings.bilingual)
        window.bilingualToggled.connect(self.set_bilingual)
        self.session.started.subscribe(self._on_started)
        self.session.shown.subscribe(self._on_shown)

    @property
    def on(self) -> bool:
        """Whether translations are shown (and saved by file jobs) bilingually."""
        return bool(self.services.settings.bilingual)

    def set_bilingual(self, on: bool) -> None:
        """View > Bilingual: remember it and show the translation on screen that way."""
        self.services.settings.bilingual = bool(on)
        self.window.bilingual_action.setChecked(bool(on))
        self.services.save()
        # Only the pane this view rendered (not one Clear or History replaced since).
        if self._plain is not None and self.session.current is None and self.window.target_text() == self._shown:
            self._show()

    def show_kept(self, source: str, translation: str) -> None:
        """Put ``translation`` of ``source``, kept from earlier (undo's memory), into the pane as
        this view shows a finished one: paired when Bilingual is on."""
        self._source, self._plain = source, translation
        self._show()

    def plain(self, shown: str) -> str:
        """The translation as the engine wrote it when ``shown`` (the pane's text) is what this
        view put there paired, else ``shown`` itself: the draft keeps the plain translation."""
        if self._plain is not None and self.on and shown == self._shown:
            return self._plain
        return shown

    def _on_started(self, request: Request) -> None:
        self._source, self._plain = request.text, None  # a new request: the pane streams plain text

    def _on_shown(self, _ended: Ended) -> None:
        self._plain = self._shown = self.window.target_text()
        if self.on:
            self._show()

    def _show(self) -> None:
        text = interleave(self._source, self._plain or "") if self.on else (self._plain or "")
        if text != self.window.target_text():
            stopped = has_mark(self.window.target.toPlainText())  # a stopped run's line stays
            self.window.clear_target()
            self.window.append_target(text)
            if stopped:
                mark_stopped(self.window.target)
        self._shown = self.window.target_text()
