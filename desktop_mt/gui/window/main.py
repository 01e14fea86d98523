"""The main window. Passive: it emits intent signals and exposes setters; the controller
decides what happens. Nothing here knows about the engine or threads.

It is composed of parts it owns, each built once: its widgets, actions and status bar
(``chrome``: :class:`~desktop_mt.gui.window.chrome.WindowChrome`), its menu bar (``menus``:
:class:`~desktop_mt.gui.window.menus.WindowMenus`) and its file-job face (``file_actions``:
:class:`~desktop_mt.gui.window.files.WindowFiles`); the widgets keep their names on the window
(``window.source``, ``window.stop_action``...), which the features and the tests use."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QIcon,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMessageBox,
)

from ..dialogs.tm_dialog import remember_folder, start_folder
from ..features.file_jobs import OutputAnswer, ResumeAnswer
from ..i18n import QT_TRANSLATE_NOOP, translate
from ..ports import Status
from . import fonts
from .chrome import (  # noqa: F401 - the window's names, imported from here too
    CLIPBOARD_SHORTCUT,
    DEFAULT_FONT_SIZE,
    FILE_FILTER,
    FONT_SIZES,
    MIN_WIDTH,
    SCREEN_SHARE,
    SHORTCUTS,
    STATES,
    AnswerT,
    FileJobPanel,
    WarningBanner,
    WindowChrome,
    dropped_file,
    file_filter,
)
from .files import WindowFiles
from .focus import TabFocus
from .look import WindowLook
from .menus import WindowMenus
from .progress import without_mark

__all__ = [
    "MainWindow",
]


# The status words as shown (Status's values stay the stylesheet's keys); marked for lupdate.
_STATE_WORDS = (
    QT_TRANSLATE_NOOP("MainWindow", "loading"),
    QT_TRANSLATE_NOOP("MainWindow", "translating"),
    QT_TRANSLATE_NOOP("MainWindow", "idle"),
    QT_TRANSLATE_NOOP("MainWindow", "error"),
    QT_TRANSLATE_NOOP("MainWindow", "stopping"),
    QT_TRANSLATE_NOOP("MainWindow", "stopped"),
)


class MainWindow(QMainWindow):
    """Source editor | target view, a button row and a status bar: what the window does. Its
    parts (see the module docstring) build the widgets and menus; it says what the user wants
    by the intent signals below."""

    translateRequested = Signal(str)
    stopRequested = Signal()
    clearRequested = Signal()
    sourceEdited = Signal(str)  # user edits only (not set_source), for as-you-type
    clipboardTranslateRequested = Signal()
    swapRequested = Signal()  # the swap button / Ctrl+Shift+S (the translation becomes the source)
    settingsRequested = Signal()
    modelsRequested = Signal()  # the Models dialog (File menu, demo-model notice)
    translateFileRequested = Signal(str)  # a path chosen in the dialog, dropped or recent
    fileCancelRequested = Signal()
    fontSizeChanged = Signal(int)  # View > text size (the controller saves it)
    joinLinesToggled = Signal(bool)  # Edit > Join lines on paste (PDF line breaks)
    bilingualToggled = Signal(bool)  # View > Bilingual (source paragraph, then translation)
    historyRequested = Signal()  # View > History (Ctrl+H)
    quitRequested = Signal()  # File > Quit, Ctrl+Q (the tray's Quit goes the same way)
    hiddenToTray = Signal()  # the close button hid the window; the app keeps running
    closing = Signal()  # the window really closes (quit)
    directionShown = Signal(str)  # the direction control now shows this Target value (user or program)

    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle(translate("MainWindow", "desktop-mt — English ⇄ 中文"))
        self._setting_source = False
        self.close_to_tray = False  # set by the app when a tray shows and the setting is on
        self._quitting = False
        self.may_quit: Callable[[], bool] = lambda: True  # asks while work runs (quitting.QuitGuard sets it)
        self.about_text = "desktop-mt"  # the controller fills in model and licence details
        self.error_dialogs: list[QMessageBox] = []  # kept so tests (and GC) can see them
        self.info_dialogs: list[QMessageBox] = []  # About, Keyboard shortcuts
        self.font_size = DEFAULT_FONT_SIZE
        self.chrome = WindowChrome(self)
        self._take_chrome_names(self.chrome)
        self._apply_font_size()
        self.menus = WindowMenus(self, self.chrome)
        self._take_menu_names(self.menus)
        self.file_actions = WindowFiles(self, self.chrome, self.menus)
        combo = self.direction_bar.combo  # the model label names the model of the direction shown
        combo.currentIndexChanged.connect(lambda _i: self.directionShown.emit(str(combo.currentData())))
        self.tab_focus = TabFocus(self)  # Tab moves between the panes and the toolbar
        self.look = WindowLook(self)  # pane colours and the toolbar's » from the palette
        self.set_busy(False)
        self.setMinimumWidth(MIN_WIDTH)
        self.resize(960, 560)

    def _take_chrome_names(self, chrome: WindowChrome) -> None:
        """The chrome's widgets and actions under the window's names."""
        self.source, self.target, self.splitter = chrome.source, chrome.target, chrome.splitter
        self.translate_action, self.stop_action = chrome.translate_action, chrome.stop_action
        self.copy_action, self.clear_action = chrome.copy_action, chrome.clear_action
        self.clipboard_action, self.settings_action = chrome.clipboard_action, chrome.settings_action
        self.file_action, self.quit_action = chrome.file_action, chrome.quit_action
        self.swap_action = chrome.swap_action
        self.banner, self.toolbar, self.direction_bar = chrome.banner, chrome.toolbar, chrome.direction_bar
        self.overflow, self.file_job, self.demo_notice = chrome.overflow, chrome.file_job, chrome.demo_notice
        self.suggestion_bar = chrome.suggestion_bar
        self.translate_button, self.stop_button = chrome.translate_button, chrome.stop_button
        self.copy_button, self.clear_button = chrome.copy_button, chrome.clear_button
        self.clipboard_button, self.settings_button = chrome.clipboard_button, chrome.settings_button
        self.file_button = chrome.file_button
        self.model_label, self.state_label = chrome.model_label, chrome.state_label
        self.job_label, self.stats_label = chrome.job_label, chrome.stats_label

    def _take_menu_names(self, menus: WindowMenus) -> None:
        """The menus and their own actions under the window's names."""
        self.recent_menu, self.edit_menu, self.models_action = menus.recent_menu, menus.edit_menu, menus.models_action
        self.undo_action, self.redo_action = menus.undo_action, menus.redo_action
        self.select_all_action, self.join_lines_action = menus.select_all_action, menus.join_lines_action
        self.larger_action, self.smaller_action = menus.larger_action, menus.smaller_action
        self.reset_font_action, self.bilingual_action = menus.reset_font_action, menus.bilingual_action
        self.history_action, self.shortcuts_action = menus.history_action, menus.shortcuts_action
        self.about_action = menus.about_action

    def qt_window(self) -> QMainWindow:
        """The window itself, as its parts' Qt parent (``shell.WindowShell``)."""
        return self

    # ---- intents ------------------------------------------------------------------------
    def emit_translate(self) -> None:
        """Translate (the button, Ctrl+Enter): ``translateRequested`` with the source text."""
        self.translateRequested.emit(self.source_text())

    def on_source_changed(self) -> None:
        """The source pane changed: a user's edit (not :meth:`set_source`) is ``sourceEdited``."""
        if not self._setting_source:
            self.sourceEdited.emit(self.source_text())

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if not self.file_actions.accept_file_drag(event):
            super().dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        if not self.file_actions.take_file_drop(event):
            super().dropEvent(event)

    def choose_file(self) -> None:
        """Ask for a file to translate (the output goes next to it). The dialog opens where the
        TM dialog's do (``tm_dialog.start_folder``: the folder of the last file chosen this
        session, else the user's home; never the folder the app was started from)."""
        path, _filter = QFileDialog.getOpenFileName(
            self, translate("MainWindow", "Translate file"), str(start_folder()), file_filter()
        )
        remember_folder(path)
        if path:
            self.translateFileRequested.emit(path)

    def closeEvent(self, event: QCloseEvent) -> None:
        # The close button hides to the tray (the hotkey keeps working); Quit really closes.
        if self.close_to_tray and not self._quitting:
            event.ignore()
            self.hide()
            self.hiddenToTray.emit()
            return
        # The close button (a spontaneous close, from the window manager) asks while work
        # runs, as Quit does; a close by the program itself (shutdown, tests) does not.
        if not self._quitting and event.spontaneous() and not self.may_quit():
            event.ignore()
            return
        self.closing.emit()
        super().closeEvent(event)

    def quit(self) -> None:
        """Close for real, even when the close button would hide to the tray (asking first
        while work runs: ``may_quit``)."""
        if not self.may_quit():
            return
        self.quitRequested.emit()
        self._quitting = True
        self.close()

    # ---- setters ------------------------------------------------------------------------
    def source_text(self) -> str:
        """The text in the source editor."""
        return self.source.toPlainText()

    def target_text(self) -> str:
        """The translation shown so far (without the "stopped here" mark of a stopped one)."""
        return without_mark(self.target.toPlainText())

    def set_source(self, text: str) -> None:
        """Replace the source text without triggering translate-as-you-type, as one step
        the user can undo (Ctrl+Z brings back the draft the clipboard or Clear replaced).
        ``setPlainText`` would wipe the undo history, so the text is replaced through a
        cursor inside one edit block instead."""
        self._setting_source = True
        try:
            cursor = QTextCursor(self.source.document())
            cursor.beginEditBlock()
            cursor.select(QTextCursor.SelectionType.Document)
            cursor.insertText(text)
            cursor.endEditBlock()
        finally:
            self._setting_source = False

    def clear_target(self) -> None:
        """Empty the target view (a new request starts)."""
        self.target.clear()

    def append_target(self, text: str) -> None:
        """Append streamed text at the end, without moving a selection the user made.
        Follows the end only if the view was already there (reading further up stays put)."""
        bar = self.target.verticalScrollBar()
        follow = bar.value() >= bar.maximum() - 2
        self.target.insert_programmatically(text)  # not the user's edit, not in its undo history
        if follow:
            bar.setValue(bar.maximum())

    def clear_all(self) -> None:
        """Empty both panes (the source as one undoable step)."""
        self.set_source("")
        self.clear_target()

    def copy_result(self) -> None:
        """Put the translation on the clipboard."""
        QGuiApplication.clipboard().setText(self.target_text())
        self.statusBar().showMessage(translate("MainWindow", "Translation copied"), 2000)

    def set_busy(self, busy: bool) -> None:
        """Enable Stop only while a request runs."""
        self.stop_action.setEnabled(busy)

    def set_state(self, state: Status | str, detail: str = "") -> None:
        """Status bar state: loading / translating / idle / error / stopping / stopped."""
        word = Status(state).value
        shown = translate("MainWindow", word)
        # The joiner is the catalog's: Chinese puts a full-width colon with no space after it.
        joined = translate("MainWindow", "{state}: {detail}").format(state=shown, detail=detail)
        self.state_label.set_text(joined if detail else shown, [shown])
        self.state_label.setProperty("state", word)

    def state(self) -> str:
        """The state last set (for tests and the tray tooltip)."""
        return str(self.state_label.property("state") or "")

    def set_demo_notice(self, shown: bool) -> None:
        """Show the one-line notice that the bundled demo model is in use."""
        self.demo_notice.setVisible(shown)

    def set_model(self, text: str, tooltip: str = "", shorter: list[str] | None = None) -> None:
        """Status bar model + variant (``tooltip``: more about the models, else ``text``). Where
        it does not fit, it shows the first of ``shorter`` that does (by default: without its
        last part, the variant)."""
        self.model_label.set_text(text, [text.rsplit(" · ", 1)[0]] if shorter is None else shorter)
        if tooltip:
            self.model_label.setToolTip(tooltip)

    def set_stats(self, first_token_s: float | None, tokens_per_s: float, tokens: int) -> None:
        """Status bar figures of the last run."""
        ttft = f"{first_token_s * 1000:.0f} ms" if first_token_s is not None else "–"
        rate = f"{tokens_per_s:.0f} tok/s"
        self.stats_label.set_text(
            translate("MainWindow", "first token {ttft} · {rate} · {tokens} tokens").format(
                ttft=ttft, rate=rate, tokens=tokens
            ),
            [f"{ttft} · {rate}", rate],
        )

    def clear_stats(self) -> None:
        """No figures (after Clear: they described a translation that is gone)."""
        self.stats_label.set_text("")

    def set_job_status(self, text: str) -> None:
        """Status bar part for the file job running beside typing ("" when none runs)."""
        self.job_label.set_text(text)
        if text and self.statusBar().currentMessage():
            # A temporary message hides the bar's normal labels; showing this one now would
            # draw it over the message. Unmarked as hidden on purpose, the bar shows it again
            # when the message goes (QStatusBar's own rule).
            self.job_label.setAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide, False)
        else:
            self.job_label.setVisible(bool(text))

    # ---- the parts' faces (menus, file jobs) ----------------------------------------------
    def add_postedit_actions(self, actions: list[QAction]) -> None:
        """Post-editing's entries in the Edit menu (``WindowMenus.add_postedit_actions``)."""
        self.menus.add_postedit_actions(actions)

    def set_global_shortcuts(self, rows: list[tuple[str, str]]) -> None:
        """The global shortcuts Help > Keyboard shortcuts lists (``WindowMenus``)."""
        self.menus.set_global_shortcuts(rows)

    def shortcut_rows(self) -> tuple[tuple[str, str], ...]:
        """Help > Keyboard shortcuts' rows (``WindowMenus.shortcut_rows``)."""
        return self.menus.shortcut_rows()

    def show_file_job(self, name: str) -> None:
        """Show the job panel for ``name`` (``WindowFiles``)."""
        self.file_actions.show_file_job(name)

    def set_file_progress(self, done: int, total: int, rate: float) -> None:
        """Job progress: segments done/total and segments per second (``WindowFiles``)."""
        self.file_actions.set_file_progress(done, total, rate)

    def set_file_job_text(self, text: str) -> None:
        """Replace the job panel's label (``WindowFiles``)."""
        self.file_actions.set_file_job_text(text)

    def end_file_job(self, message: str) -> None:
        """Hide the job panel and show ``message`` in the status bar (``WindowFiles``)."""
        self.file_actions.end_file_job(message)

    def set_recent_files(self, files: list[str]) -> None:
        """The File > Recent files entries, newest first (``WindowFiles``)."""
        self.file_actions.set_recent_files(files)

    def recent_files(self) -> list[str]:
        """The paths the Recent files menu offers (``WindowFiles``)."""
        return self.file_actions.recent_files()

    def ask_output_exists(self, path: str, keep_both_name: str) -> OutputAnswer:
        """Overwrite, keep both or cancel an existing output (``WindowFiles``)."""
        return self.file_actions.ask_output_exists(path, keep_both_name)

    def ask_resume(self, name: str, kept: int, total: int) -> ResumeAnswer:
        """Resume, restart or cancel an interrupted job (``WindowFiles``)."""
        return self.file_actions.ask_resume(name, kept, total)

    # ---- view ---------------------------------------------------------------------------
    def set_font_size(self, size: int, emit: bool = False) -> None:
        """Text size of both panes in points (clamped); ``emit`` tells the controller."""
        size = max(FONT_SIZES[0], min(FONT_SIZES[1], int(size) or DEFAULT_FONT_SIZE))
        changed = size != self.font_size
        self.font_size = size
        self._apply_font_size()
        if emit and changed:
            self.fontSizeChanged.emit(size)

    def _apply_font_size(self) -> None:
        self.source.setFont(fonts.editor_font(self.font_size))
        self.target.setFont(fonts.editor_font(self.font_size + 1))

    def fit_to_screen(self) -> None:
        """Keep the window on the screen it opens on: at most SCREEN_SHARE of its free area
        (also with QT_SCALE_FACTOR=2, where the logical screen is half as big), moved
        inside it. Call after restoring a saved geometry, before show()."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return
        free = screen.availableGeometry()
        limit = QSize(int(free.width() * SCREEN_SHARE), int(free.height() * SCREEN_SHARE))
        size = self.size().boundedTo(limit).expandedTo(self.minimumSize()).boundedTo(free.size())
        self.resize(size)
        frame = QRect(self.pos(), size)
        if not free.contains(frame):
            frame.moveCenter(free.center())
            self.move(frame.topLeft())

    def show_about(self) -> QMessageBox:
        """Help > About: version, model and licences (``about_text``, set by the controller)."""
        return self._info(translate("MainWindow", "About desktop-mt"), self.about_text)

    def show_shortcuts(self) -> QMessageBox:
        """Help > Keyboard shortcuts."""
        rows = "".join(f"<tr><td><b>{k}</b></td><td>&nbsp;{what}</td></tr>" for k, what in self.shortcut_rows())
        return self._info(translate("MainWindow", "Keyboard shortcuts"), f"<table>{rows}</table>")

    def _info(self, title: str, text: str) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Information, title, text, QMessageBox.StandardButton.Ok, self)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.finished.connect(lambda _r, b=box: self.info_dialogs.remove(b) if b in self.info_dialogs else None)
        self.info_dialogs.append(box)
        box.show()
        return box

    def show_warning(self, text: str) -> None:
        """A visible, non-modal warning (settings recovery, hotkey problems)."""
        self.banner.add(text)

    def clear_warning(self, text: str) -> None:
        """Take a warning off the banner once its cause is gone."""
        self.banner.remove(text)

    def show_error(self, title: str, message: str) -> QMessageBox:
        """A non-modal error dialog; the window stays usable behind it."""
        box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, self)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.finished.connect(lambda _r, b=box: self._forget_dialog(b))
        self.error_dialogs.append(box)
        box.show()
        return box

    def _forget_dialog(self, box: QMessageBox) -> None:
        if box in self.error_dialogs:
            self.error_dialogs.remove(box)
        box.deleteLater()

    def bring_forward(self) -> None:
        """Show, un-minimise and raise the window (clipboard translate)."""
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.show()
        self.raise_()
        self.activateWindow()

    # ---- geometry -----------------------------------------------------------------------
    def save_layout(self) -> tuple[str, str]:
        """Geometry and splitter state as base64 strings (for the settings file)."""
        geo = self.saveGeometry().toBase64().toStdString()
        split = self.splitter.saveState().toBase64().toStdString()
        return geo, split

    def restore_layout(self, geometry: str, splitter: str) -> None:
        """Restore what :meth:`save_layout` returned; bad data is ignored."""
        if geometry:
            self.restoreGeometry(QByteArray.fromBase64(geometry.encode("ascii", "ignore")))
        if splitter:
            self.splitter.restoreState(QByteArray.fromBase64(splitter.encode("ascii", "ignore")))

    def set_icon(self, icon: QIcon) -> None:
        """Window icon."""
        self.setWindowIcon(icon)
