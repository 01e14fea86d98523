"""The first-start page: while only the bundled demo models are installed, a panel at the top of
the main window says what the demo models are for and offers the real models of both directions
in one step (issue 48).

It is a page in the window, not a dialog: the panes under it work as before, "Not now" puts it
away (remembered in the settings, ``first_start_dismissed``), and the Models dialog's "First
start…" button brings it back. What it shows of each model comes from the catalog (title, size
of the int8 variant, licence), where the download comes from (the Hub, ``HF_ENDPOINT`` or the
mirror chosen in the app; the same "Download from" field as the Models dialog, with the mirror
users in mainland China need), the progress of each model and of the file coming in, Pause /
Resume / Cancel, and what to do without internet.

The download itself is the Models dialog's: one :class:`~desktop_mt.gui.dialogs.model_downloads.DownloadArea`
(its download thread, its mirror field, its wording of failures) on the same backend, the models
fetched one after the other. Pause is a cancel that keeps what arrived (the downloader keeps the
staged files and continues a half-fetched file with a Range request), Resume starts the same
model again. When both are installed they become the active models of their directions, as
"Use this model" would make them, and the page goes away.

``DESKTOP_MT_FIRST_START=off`` in the environment keeps the page from showing at start (an
administrator who installs the models for everyone; the X11 tests, which drive the window by
where its panes are); the Models dialog still opens it.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_mt.app.settings import DIRECTIONS
from desktop_mt.models.installed import MIRROR_HINT

from .. import paths
from ..dialogs.model_downloads import DownloadArea
from ..dialogs.models_dialog import ModelsHub
from ..i18n import translate
from ..messages import direction_title
from ..window import theme
from ..workers.downloads import Progress, format_bytes
from .models import CatalogItem

if TYPE_CHECKING:
    from ..services import Services

__all__ = [
    "FirstStart",
    "FirstStartPage",
]


_logger = logging.getLogger(__name__)

_VARIANT = "int8"  # what the page downloads: the variant the app runs by default
FIRST_START_ENV, OFF = "DESKTOP_MT_FIRST_START", ("off", "0", "no", "false")  # not at start


@dataclasses.dataclass
class _ModelRow:
    """One model the page offers, with its widgets."""

    item: CatalogItem
    bar: QProgressBar
    status: QLabel
    installed: str | None = None  # the folder, once installed


class FirstStartPage(QScrollArea):
    """The panel (widgets only; :class:`FirstStart` runs it). It scrolls: where the window is too
    short or narrow for all of it (480 px), nothing is cut and the panes keep their room."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("firstStartPage")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # labels wrap instead
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)  # the panes grow
        self.body = QWidget(self)
        self.title = QLabel(translate("FirstStart", "Welcome to desktop-mt"), self.body)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.title.setFont(font)
        self.close_button = QToolButton(self.body)
        self.close_button.setText("✕")
        self.close_button.setToolTip(
            translate("FirstStart", "Not now (File > Models… > “First start…” brings this back)")
        )
        self.intro = self._label(
            translate(
                "FirstStart",
                "The app comes with two small demo models, one for each direction. They show that "
                "translation runs on this computer, offline, but they learned only short everyday "
                "sentences: real text (articles, manuals, mail) comes out as nonsense. For real work, "
                "get the real models, one step for both directions:",
            )
        )
        self.models = QGridLayout()
        self.models.setColumnStretch(1, 1)
        self.source = self._label("")
        self.mirror_hint = self._label(
            translate(
                "FirstStart",
                "In mainland China the Hub is often blocked or slow: choose the mirror {mirror} "
                "(or set HF_ENDPOINT) in “Download from”.",
            ).format(mirror=MIRROR_HINT)
        )
        self.file_label = self._label("")
        self.file_label.setObjectName("firstStartFile")
        self.message = self._label("")
        self.message.setObjectName("firstStartMessage")
        self.message.hide()
        self.download_button = QPushButton(self.body)
        self.pause_button = QPushButton(translate("FirstStart", "Pause"), self.body)
        self.pause_button.setToolTip(translate("FirstStart", "Stop for now; what arrived is kept"))
        self.resume_button = QPushButton(translate("FirstStart", "Resume"), self.body)
        self.resume_button.setToolTip(translate("FirstStart", "Continue where the download stopped"))
        self.not_now_button = QPushButton(translate("FirstStart", "Not now"), self.body)
        self.offline = self._label("")
        self.offline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def _label(self, text: str) -> QLabel:
        label = QLabel(text, self.body)
        label.setWordWrap(True)  # a narrow window (480 px) wraps instead of cutting
        return label

    def lay_out(self, mirror: QWidget, progress: QHBoxLayout) -> None:
        """Place the widgets, with the download area's mirror field and progress row."""
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        where = QHBoxLayout()
        where.addWidget(QLabel(translate("FirstStart", "Download from:"), self.body))
        where.addWidget(mirror, 1)
        buttons = QHBoxLayout()
        for button in (self.download_button, self.pause_button, self.resume_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.not_now_button)
        layout = QVBoxLayout(self.body)
        layout.addLayout(top)
        layout.addWidget(self.intro)
        layout.addLayout(self.models)
        layout.addWidget(self.source)
        layout.addLayout(where)
        layout.addWidget(self.mirror_hint)
        layout.addLayout(buttons)
        layout.addLayout(progress)
        layout.addWidget(self.file_label)
        layout.addWidget(self.message)
        layout.addWidget(self.offline)
        self.setWidget(self.body)

    def sizeHint(self) -> QSize:
        """All of the page, at its width, where there is room (a scroll area's own hint is a
        fixed guess); the panes under it take the rest."""
        margins = self.contentsMargins()
        extra = QSize(margins.left() + margins.right(), margins.top() + margins.bottom())
        hint = self.body.sizeHint()
        layout = self.body.layout()
        width = self.viewport().width() if self.isVisible() else hint.width()
        height = layout.heightForWidth(width) if layout is not None and layout.hasHeightForWidth() else -1
        return QSize(hint.width(), height if height > 0 else hint.height()) + extra

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A new width wraps the text anew: ask for the height that now holds it."""
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()


class FirstStart(QObject):
    """Shows the page when it is due and runs its downloads (see the module docstring).
    ``state()`` is idle / downloading / paused / installed."""

    shownChanged = Signal(bool)
    finished = Signal()  # both models installed and made active

    def __init__(self, services: Services, hub: ModelsHub) -> None:
        super().__init__(hub)
        self.hub, self.services, self.window = hub, services, services.window.window()
        self._page: FirstStartPage | None = None
        self._area: DownloadArea | None = None
        self.rows: dict[str, _ModelRow] = {}  # by model name, in direction order
        self._current: str | None = None  # the model downloading now
        self._pausing = False
        self._state = "idle"
        hub.firstStartRequested.connect(self.show_page)

    # ---- when it shows ------------------------------------------------------------------
    def due(self) -> bool:
        """Whether the page is due at start: not put away before, and every installed model
        is a bundled demo (a real model installed, in either direction, and it is not)."""
        if self.services.settings.first_start_dismissed or os.environ.get(FIRST_START_ENV, "").lower() in OFF:
            return False
        try:
            return all(item.demo for item in self.hub.backend.installed())
        except Exception as exc:  # noqa: BLE001 - an unreadable models folder: no page, the app starts
            _logger.warning("first start: installed models unreadable: %s", type(exc).__name__)
            return False

    def show_if_due(self) -> bool:
        """At start (after the window shows): the page, when :meth:`due`."""
        if not self.due():
            return False
        self.show_page()
        return True

    def show_page(self) -> FirstStartPage:
        """Show the page (built on first use); from the Models dialog also when put away (the
        dialog steps aside for it: a download running there goes on)."""
        page = self.page
        self._refresh_rows()
        page.show()
        if self.hub.dialog is not None and self.hub.dialog.isVisible():
            self.hub.dialog.hide()
            self.window.raise_()
            self.window.activateWindow()
        self.shownChanged.emit(True)
        return page

    def dismiss(self) -> None:
        """The "Not now" button: hide the page and remember it (a running download goes on)."""
        if self._page is not None:
            self._page.hide()
        self.services.settings.first_start_dismissed = True
        self.services.save()
        self.shownChanged.emit(False)

    def is_shown(self) -> bool:
        """Whether the page is on screen (in the window)."""
        return self._page is not None and self._page.isVisibleTo(self.window)

    def state(self) -> str:
        """idle / downloading / paused / installed."""
        return self._state

    # ---- the page -----------------------------------------------------------------------
    @property
    def page(self) -> FirstStartPage:
        """The page widget, built and placed into the window on first use."""
        if self._page is None:
            self._page, self._area = self._build()
            self._show_source()
        return self._page

    @property
    def area(self) -> DownloadArea:
        """The download area the page runs (built with the page)."""
        if self._area is None:
            self.page  # noqa: B018 - builds the page and its area
        assert self._area is not None
        return self._area

    def _build(self) -> tuple[FirstStartPage, DownloadArea]:
        page = FirstStartPage(self.window)
        area = DownloadArea(self.hub.backend, page, lambda _name: "")
        area.progressShown.connect(self._on_progress)
        area.ended.connect(self._on_ended)
        area.messageRequested.connect(self._show_message)
        area.mirror_combo.currentTextChanged.connect(lambda _text: self._show_source())
        page.lay_out(area.mirror_combo, area.progress_row())
        page.close_button.clicked.connect(self.dismiss)
        page.not_now_button.clicked.connect(self.dismiss)
        page.download_button.clicked.connect(self.download)
        page.pause_button.clicked.connect(self.pause)
        page.resume_button.clicked.connect(self.resume)
        self._place(page)
        self._fill_models(page)
        page.hide()
        return page, area

    def _place(self, page: FirstStartPage) -> None:
        """Into the window's column: under the demo-model line, above the panes."""
        central = self.services.window.centralWidget()
        layout = central.layout() if central is not None else None
        if not isinstance(layout, QBoxLayout):  # a window without the usual column: on top
            _logger.warning("first start: no column layout in the window; the page is a separate panel")
            return
        notice = central.findChild(QWidget, "demoModelNotice") if central is not None else None
        index = layout.indexOf(notice) + 1 if notice is not None else 0
        layout.insertWidget(max(index, 0), page)

    def _fill_models(self, page: FirstStartPage) -> None:
        try:
            catalog = self.hub.backend.catalog()
        except Exception as exc:  # noqa: BLE001 - said on the page
            self._show_message(
                translate("FirstStart", "Cannot read the model catalog: {error}").format(error=exc), True
            )
            catalog = []
        for line, direction in enumerate(DIRECTIONS):
            item = next((c for c in catalog if c.direction == direction), None)
            if item is None:
                continue
            size = item.sizes.get(_VARIANT) or next(iter(item.sizes.values()), 0)
            text = translate("FirstStart", "{direction}: {title}, {size}, licence {licence}").format(
                direction=direction_title(direction),
                title=item.title or item.name,
                size=format_bytes(size),
                licence=item.licence,
            )
            label = QLabel(text, page.body)
            label.setWordWrap(True)
            label.setToolTip(" ".join(p for p in (item.name, item.description, item.credits) if p))
            bar = QProgressBar(page.body)
            bar.setRange(0, 1000)
            bar.setTextVisible(False)
            bar.setMaximumWidth(160)
            status = QLabel(page.body)
            page.models.addWidget(label, line, 0, 1, 2)
            page.models.addWidget(bar, line, 2)
            page.models.addWidget(status, line, 3)
            self.rows[item.name] = _ModelRow(item, bar, status)
        total = sum(r.item.sizes.get(_VARIANT, 0) for r in self.rows.values())
        page.download_button.setText(
            translate("FirstStart", "Download both ({size})").format(size=format_bytes(total))
            if len(self.rows) > 1
            else translate("FirstStart", "Download ({size})").format(size=format_bytes(total))
        )
        page.offline.setText(
            translate(
                "FirstStart",
                "No internet here? On a computer that has it, run “desktop-mt models download {names}” "
                "(or download them in the app), copy the model folders from its models folder to this "
                "computer and add each with “desktop-mt models add FOLDER” or Settings… > “Add model folder…”; "
                "or copy them straight into {folder}.",
            ).format(names=" / ".join(self.rows), folder=paths.user_models_dir())
        )

    def _show_source(self) -> None:
        if self._page is None or self._area is None:
            return
        self._page.source.setText(
            translate("FirstStart", "Source: the Hugging Face Hub, from {endpoint}.").format(
                endpoint=self._area.endpoint()
            )
        )

    def _refresh_rows(self) -> None:
        """Which offered models are installed already (a download in the Models dialog, a copy)."""
        try:
            installed = {i.name: i.path for i in self.hub.backend.installed() if not i.demo}
        except Exception:  # noqa: BLE001 - shown as not installed; the download says more
            installed = {}
        for name, row in self.rows.items():
            if name in installed:
                row.installed = installed[name]
        self._update()

    # ---- the downloads ------------------------------------------------------------------
    def pending(self) -> list[str]:
        """The offered models not installed yet, in direction order."""
        return [name for name, row in self.rows.items() if row.installed is None]

    def download(self) -> bool:
        """Download every offered model not installed yet, one after the other."""
        self._pausing = False
        self.page.message.hide()
        return self._next()

    def pause(self) -> None:
        """Stop the running download and keep what arrived; :meth:`resume` continues it."""
        if self._state == "downloading":
            self._pausing = True
            self.area.cancel()

    def resume(self) -> bool:
        """Continue after :meth:`pause` (the half-fetched file continues where it stopped)."""
        return self.download()

    def cancel(self) -> None:
        """Stop the running download (the Cancel button of the progress row)."""
        self._pausing = False
        self.area.cancel()

    def _next(self) -> bool:
        pending = self.pending()
        if not pending:
            self._all_installed()
            return False
        if not self.area.start(pending[0], _VARIANT):  # the area is busy (a click during a cancel)
            return False
        self._current = pending[0]
        self._set_state("downloading")
        return True

    def _on_progress(self, report: Progress) -> None:
        row = self.rows.get(self._current or "")
        if row is None or self._page is None:
            return
        if report.total > 0:
            row.bar.setValue(min(1000, report.done * 1000 // report.total))
        row.status.setText(self._phase_word(report.phase))
        if report.file:
            self._page.file_label.setText(
                translate("FirstStart", "{model}: {file}").format(
                    model=row.item.name, file=Path(report.file).as_posix()
                )
            )
            self._page.file_label.show()

    @staticmethod
    def _phase_word(phase: str) -> str:
        words = {
            "listing": translate("FirstStart", "Starting…"),
            "downloading": translate("FirstStart", "Downloading…"),
            "verifying": translate("FirstStart", "Checking…"),
            "installing": translate("FirstStart", "Installing…"),
            "done": translate("FirstStart", "Installed"),
        }
        return words.get(phase, phase)

    def _on_ended(self, state: str, message: str, error: bool) -> None:
        name, self._current = self._current, None
        row = self.rows.get(name or "")
        if state == "installed" and row is not None:
            row.installed = self._installed_path(row.item.name)
            row.bar.setValue(1000)
            self._next()
            return
        if state == "cancelled" and self._pausing:
            self._pausing = False
            self._set_state("paused")
            return
        self._set_state("idle")
        if state == "failed":
            self._show_message(message, True)
        elif state == "cancelled":
            self._show_message(
                translate(
                    "FirstStart", "Cancelled; nothing was installed. Download again to continue where it stopped."
                ),
                False,
            )

    def _installed_path(self, name: str) -> str:
        try:
            return next(i.path for i in self.hub.backend.installed() if i.name == name)
        except Exception:  # noqa: BLE001 - installed, but the list unreadable or without it: by name
            return name

    def _all_installed(self) -> None:
        """Both models are in: make them the active models of their directions (English->Chinese
        last: it is the window's ``model_path``), hide the page."""
        rows = sorted(self.rows.values(), key=lambda r: r.item.direction != "zh-en")
        try:
            for row in rows[:-1]:
                self.hub.backend.set_active(row.installed or row.item.name)
        except Exception as exc:  # noqa: BLE001 - said on the page; the models stay installed
            self._show_message(translate("FirstStart", "Could not use the models: {error}").format(error=exc), True)
            return
        if rows:
            last = rows[-1]
            self.hub.activate(last.installed or last.item.name, _VARIANT)
        self._set_state("installed")
        if self._page is not None:
            self._page.hide()
        self.shownChanged.emit(False)
        self.finished.emit()

    def shutdown(self) -> bool:
        """Cancel a running download and stop its thread (the app quits)."""
        return self._area.shutdown() if self._area is not None else True

    # ---- what the page shows -------------------------------------------------------------
    def _set_state(self, state: str) -> None:
        self._state = state
        self._update()

    def _update(self) -> None:
        if self._page is None:
            return
        page, busy = self._page, self._state == "downloading"
        pending = self.pending()
        page.download_button.setVisible(self._state != "paused")
        page.download_button.setEnabled(not busy and bool(pending))
        page.pause_button.setVisible(busy)
        page.resume_button.setVisible(self._state == "paused")
        for name, row in self.rows.items():
            if row.installed is not None:
                row.status.setText(translate("FirstStart", "Installed"))
                row.bar.setValue(1000)
            elif self._state == "paused" and name == pending[0]:
                row.status.setText(translate("FirstStart", "Paused"))
            elif not busy or name != self._current:
                row.status.setText(
                    translate("FirstStart", "Waiting") if busy else translate("FirstStart", "Not installed")
                )
        if not busy:
            page.file_label.setText("")
            page.file_label.hide()  # no empty line under the buttons

    def _show_message(self, text: str, error: bool) -> None:
        page = self.page
        page.message.setText(text)
        theme.set_tone(page.message, "error" if error else None)
        page.message.show()
