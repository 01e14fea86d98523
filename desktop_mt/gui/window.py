"""The main window. Passive: it emits intent signals and exposes setters; the controller
decides what happens. Nothing here knows about the engine or threads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QByteArray, QEvent, QMimeData, QObject, QRect, QSize, Qt, Signal, SignalInstance
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QGuiApplication,
    QIcon,
    QKeySequence,
    QShortcut,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from . import fonts
from .direction_bar import SWAP_SHORTCUT, DirectionBar
from .file_jobs import OutputAnswer, ResumeAnswer
from .focus import TabFocus
from .look import FitLabel, WindowLook
from .models_dialog import DemoModelNotice
from .pasting import PasteEdit
from .ports import Status, StrEnum
from .postedit import SuggestionBar
from .postedit_pane import PostEditPane
from .progress import without_mark

STATES = tuple(Status)  # the status bar's states (the stylesheet matches their values)
CLIPBOARD_SHORTCUT = "Ctrl+Shift+V"  # in-app "translate clipboard" (works on Wayland too)
FILE_FILTER = (
    "Documents (*.txt *.srt *.docx);;Images: read and translate the text "
    "(*.png *.jpg *.jpeg *.webp *.bmp *.gif *.tif *.tiff);;All files (*)"
)
DEFAULT_FONT_SIZE = 13  # source pane; the translation pane is one point larger
FONT_SIZES = (8, 40)  # View > Larger/Smaller stay within these
MIN_WIDTH = 480  # the window must stay usable this narrow (small screens)
SCREEN_SHARE = 0.9  # at most this much of the screen when the window opens
SHORTCUTS = (
    ("Ctrl+Enter", "Translate the source text"),
    ("Esc", "Stop the translation"),
    (CLIPBOARD_SHORTCUT, "Translate the clipboard"),
    ("Ctrl+O", "Translate a file"),
    (
        "Ctrl+Z / Ctrl+Shift+Z",
        "Undo / redo in the source text (also after Clear, a clipboard "
        "translation or joined lines: the text as pasted)",
    ),
    ("Tab / Shift+Tab", "Move between the source, the translation and the toolbar"),
    ("Ctrl+Shift+C", "Copy the translation"),
    (SWAP_SHORTCUT, "Swap: the translation becomes the source, the direction flips"),
    ("Ctrl+Shift+Backspace", "Clear both panes (Ctrl+Z brings the text back)"),
    ("Ctrl++ / Ctrl+- / Ctrl+0", "Larger / smaller / default text size"),
    ("Ctrl+H", "History of translations (search as you type)"),
    ("Ctrl+Shift+A", "Alternatives for the sentence under the cursor (Ctrl+Z in the translation undoes)"),
    ("Click a word", "In the translation: alternatives for the sentence from that word on"),
    ("Tab / Esc", "In the translation, while a completion is offered: accept / dismiss it"),
    ("Ctrl+Shift+Enter", "Approve the translation: its sentence pairs go into the translation memory"),
    ("Ctrl+Q", "Quit (closing the window keeps the app in the tray)"),
)


AnswerT = TypeVar("AnswerT", bound=StrEnum)  # a question's answers (file_jobs.OutputAnswer, ...)


def dropped_file(mime: QMimeData) -> str | None:
    """The first local file path in a drag's data, or None (text drags, remote URLs)."""
    if not mime.hasUrls():
        return None
    for url in mime.urls():
        if url.isLocalFile() and url.toLocalFile():
            return url.toLocalFile()
    return None


class WarningBanner(QFrame):
    """A dismissible strip at the top of the window for non-fatal warnings."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("warningBanner")
        self.label = QLabel(self)
        self.label.setObjectName("warningText")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton(self)
        close.setText("✕")
        close.setToolTip("Dismiss")
        close.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def add(self, text: str) -> None:
        """Show ``text`` (appended under any warning already shown, once: the same warning
        again, e.g. after a second Apply, is not repeated)."""
        lines = self.lines()
        if text not in lines:
            lines.append(text)
        self.label.setText("\n".join(lines))
        self.show()

    def remove(self, text: str) -> None:
        """Take ``text`` off (its cause is gone); the banner hides when nothing is left."""
        lines = [line for line in self.lines() if line != text]
        self.label.setText("\n".join(lines))
        self.setVisible(bool(lines))

    def lines(self) -> list[str]:
        """The warnings shown now (none once dismissed)."""
        current = "" if self.isHidden() else self.label.text()  # isHidden: works before show()
        return current.split("\n") if current else []


class FileJobPanel(QFrame):
    """A strip for the running file job: name, progress bar, segments/s and Cancel."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fileJob")
        self.label = QLabel(self)
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 0)  # busy until the first progress report gives a total
        self.rate_label = QLabel("", self)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop the file job (nothing is saved)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        layout.addWidget(self.label)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.rate_label)
        layout.addWidget(self.cancel_button)
        self.hide()

    def start(self, name: str) -> None:
        """Show the panel for a new job on the file ``name``."""
        self.label.setText(f"Translating {name}")
        self.bar.setRange(0, 0)
        self.rate_label.setText("")
        self.cancel_button.setEnabled(True)
        self.show()

    def set_progress(self, done: int, total: int, rate: float) -> None:
        """Segments done of total and segments per second."""
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(min(done, max(total, 1)) if total else 1)
        self.rate_label.setText(f"{done}/{total} segments · {rate:.1f} seg/s")


class MainWindow(QMainWindow):
    """Source editor | target view, a button row and a status bar."""

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

    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("desktop-mt — English ⇄ 中文")
        self._setting_source = False
        self.close_to_tray = False  # set by the app when a tray shows and the setting is on
        self._quitting = False
        self.may_quit: Callable[[], bool] = lambda: True  # asks while work runs (quitting.QuitGuard sets it)
        self.about_text = "desktop-mt"  # the controller fills in model and licence details
        self.error_dialogs: list[QMessageBox] = []  # kept so tests (and GC) can see them
        self.info_dialogs: list[QMessageBox] = []  # About, Keyboard shortcuts
        self._build_editors()
        self._build_actions()
        self._build_layout()
        self._build_status_bar()
        self._build_shortcuts()
        self._build_menus()
        self._accept_file_drops()
        self.tab_focus = TabFocus(self)  # Tab moves between the panes and the toolbar
        self.look = WindowLook(self)  # pane colours and the toolbar's » from the palette
        self.set_busy(False)
        self.setMinimumWidth(MIN_WIDTH)
        self.resize(960, 560)

    # ---- construction -------------------------------------------------------------------
    def _build_editors(self) -> None:
        self.source = PasteEdit(self)  # pastes can be joined (Edit > Join lines on paste)
        self.source.setObjectName("source")
        self.source.setPlaceholderText(
            "Type or paste English or Chinese text (输入英文或中文). Ctrl+Enter translates, Esc stops."
        )
        self.source.textChanged.connect(self._on_source_changed)
        self.target = PostEditPane(self)  # editable: post-editing (issue 28)
        self.target.setObjectName("target")
        self.target.setPlaceholderText("The translation appears here as it is written · 译文会在这里逐字出现。")
        self.font_size = DEFAULT_FONT_SIZE
        self._apply_font_size()
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.source)
        self.splitter.addWidget(self.target)
        self.splitter.setChildrenCollapsible(False)

    def _action(
        self, text: str, tip: str, slot: Callable[[], object], shortcut: str | QKeySequence.StandardKey = ""
    ) -> QAction:
        action = QAction(text, self)
        action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        return action

    def _build_actions(self) -> None:
        # One QAction per command, shared by the toolbar and the menus.
        self.translate_action = self._action("Translate", "Translate (Ctrl+Enter)", self._emit_translate)
        self.stop_action = self._action("Stop", "Stop (Esc)", self.stopRequested.emit)
        self.copy_action = self._action(
            "Copy translation", "Copy the translation (Ctrl+Shift+C)", self.copy_result, "Ctrl+Shift+C"
        )
        self.clear_action = self._action(
            "Clear", "Clear both panes (Ctrl+Z brings the text back)", self.clearRequested.emit, "Ctrl+Shift+Backspace"
        )
        self.clipboard_action = self._action(
            "Translate clipboard",
            f"Translate the clipboard ({CLIPBOARD_SHORTCUT})",
            self.clipboardTranslateRequested.emit,
        )
        self.settings_action = self._action("Settings…", "Settings", self.settingsRequested.emit)
        self.file_action = self._action(
            "Translate file…",
            "Translate a .txt, .srt or .docx file (or drop one on the window)",
            self.choose_file,
            "Ctrl+O",
        )
        self.quit_action = self._action("Quit", "Quit desktop-mt (Ctrl+Q)", self.quit, "Ctrl+Q")
        self.swap_action = self._action(
            "Swap languages",
            f"The translation becomes the source and the direction flips ({SWAP_SHORTCUT})",
            self.swapRequested.emit,
            SWAP_SHORTCUT,
        )

    def _build_layout(self) -> None:
        self.banner = WarningBanner(self)
        # A toolbar, not a button row: when the window is narrow the buttons that do not fit
        # move into its extension menu (») instead of forcing the window wider.
        self.toolbar = QToolBar("Main", self)
        self.toolbar.setObjectName("mainToolbar")
        self.toolbar.setMovable(False)
        self.toolbar.setFloatable(False)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.direction_bar = DirectionBar(self)  # Auto / English -> Chinese / Chinese -> English, swap
        self.direction_bar.swapRequested.connect(self.swapRequested.emit)
        self.toolbar.addWidget(self.direction_bar)
        self.toolbar.addSeparator()
        for action in (
            self.translate_action,
            self.stop_action,
            self.copy_action,
            self.clear_action,
            None,
            self.file_action,
            self.clipboard_action,
            self.settings_action,
        ):
            self.toolbar.addSeparator() if action is None else self.toolbar.addAction(action)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)
        button = self.toolbar.widgetForAction
        self.translate_button, self.stop_button = button(self.translate_action), button(self.stop_action)
        self.copy_button, self.clear_button = button(self.copy_action), button(self.clear_action)
        self.clipboard_button = button(self.clipboard_action)
        self.settings_button, self.file_button = button(self.settings_action), button(self.file_action)
        self.file_job = FileJobPanel(self)
        self.file_job.cancel_button.clicked.connect(self.fileCancelRequested.emit)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.addWidget(self.banner)
        self.demo_notice = DemoModelNotice(self)
        self.demo_notice.button.clicked.connect(self.modelsRequested.emit)
        layout.addWidget(self.demo_notice)
        layout.addWidget(self.file_job)
        layout.addWidget(self.splitter, 1)
        self.suggestion_bar = SuggestionBar(self)  # the memory's fuzzy match for the sentence at the cursor
        layout.addWidget(self.suggestion_bar)
        self.setCentralWidget(central)

    def _build_status_bar(self) -> None:
        # FitLabels: at 480 px they show a shorter form (the full text is their tooltip).
        self.model_label = FitLabel("No model", self)
        self.state_label = FitLabel("", self)
        self.job_label = FitLabel("", self)
        self.stats_label = FitLabel("", self)
        bar = self.statusBar()
        for label in (self.model_label, self.state_label, self.job_label, self.stats_label):
            # Long texts are cut instead of making the window wider than a small screen.
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bar.addWidget(self.model_label, 2)
        bar.addWidget(self.state_label, 3)  # "stopped: 2 of 8 sentences translated"
        bar.addWidget(self.job_label, 3)
        # A normal widget, not a permanent one: a temporary message (showMessage) is drawn in
        # the space left of the permanent widgets, which a stretching permanent label took in
        # full (no message was ever seen), and a non-stretching one was squeezed to a letter.
        # As a normal widget it gives the message the whole bar while the message shows.
        bar.addWidget(self.stats_label, 3)
        self.job_label.hide()  # shown while a file job runs (its space goes to the others)

    def _build_shortcuts(self) -> None:
        # Window-wide shortcuts: Ctrl+Enter from inside the editor must translate, not
        # insert a newline, and Esc must stop wherever the focus is.
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self).activated.connect(self._emit_translate)
        QShortcut(QKeySequence("Esc"), self).activated.connect(self.stopRequested.emit)
        QShortcut(QKeySequence(CLIPBOARD_SHORTCUT), self).activated.connect(self.clipboardTranslateRequested.emit)

    def _build_menus(self) -> None:
        self._build_file_menu()
        self._build_edit_menu()
        self._build_view_menu()
        self._build_help_menu()

    def _build_file_menu(self) -> None:
        menu = self.menuBar().addMenu("&File")
        menu.addAction(self.file_action)
        self.recent_menu = menu.addMenu("Recent files")
        self.set_recent_files([])
        menu.addAction(self.clipboard_action)
        menu.addSeparator()
        self.models_action = self._action(
            "Models…", "Download, remove and choose translation models", self.modelsRequested.emit
        )
        menu.addAction(self.models_action)
        menu.addAction(self.settings_action)
        menu.addSeparator()
        menu.addAction(self.quit_action)

    def add_postedit_actions(self, actions: list[QAction]) -> None:
        """Post-editing's entries (Approve translation, Translation memory…) in the Edit menu."""
        self.edit_menu.addSeparator()
        for action in actions:
            self.edit_menu.addAction(action)
            self.addAction(action)  # its shortcut works wherever the focus is in the window

    def _build_edit_menu(self) -> None:
        menu = self.edit_menu = self.menuBar().addMenu("&Edit")
        self.undo_action = self._action(
            "Undo", "Undo in the source text", self.source.undo, QKeySequence.StandardKey.Undo
        )
        self.redo_action = self._action(
            "Redo", "Redo in the source text", self.source.redo, QKeySequence.StandardKey.Redo
        )
        # The editor handles Ctrl+Z itself while focused; the menu entries are for the mouse.
        for action in (self.undo_action, self.redo_action):
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.source.undoAvailable.connect(self.undo_action.setEnabled)
        self.source.redoAvailable.connect(self.redo_action.setEnabled)
        self.undo_action.setEnabled(False)
        self.redo_action.setEnabled(False)
        self.select_all_action = self._action("Select all", "Select the whole source text", self._select_all)
        self.join_lines_action = self._toggle(
            "Join lines on paste",
            "Join the line breaks of text copied from PDFs when it is pasted (Ctrl+Z brings back the text as pasted)",
            self.joinLinesToggled,
        )
        entry: QAction | None
        for entry in (
            self.undo_action,
            self.redo_action,
            None,
            self.copy_action,
            self.select_all_action,
            None,
            self.clear_action,
            None,
            self.join_lines_action,
            None,
            self.swap_action,
        ):
            menu.addSeparator() if entry is None else menu.addAction(entry)

    def _toggle(self, text: str, tip: str, signal: SignalInstance) -> QAction:
        """A checkable menu entry whose user clicks emit ``signal(checked)``."""
        action = QAction(text, self)
        action.setToolTip(tip)
        action.setCheckable(True)
        action.triggered.connect(lambda _checked=False: signal.emit(action.isChecked()))
        return action

    def _build_view_menu(self) -> None:
        menu = self.menuBar().addMenu("&View")
        self.larger_action = self._action(
            "Larger text",
            "Larger text (Ctrl++)",
            lambda: self.set_font_size(self.font_size + 1, emit=True),
            QKeySequence.StandardKey.ZoomIn,
        )
        self.smaller_action = self._action(
            "Smaller text",
            "Smaller text (Ctrl+-)",
            lambda: self.set_font_size(self.font_size - 1, emit=True),
            QKeySequence.StandardKey.ZoomOut,
        )
        self.reset_font_action = self._action(
            "Default text size",
            "Default text size (Ctrl+0)",
            lambda: self.set_font_size(DEFAULT_FONT_SIZE, emit=True),
            "Ctrl+0",
        )
        for action in (self.larger_action, self.smaller_action, self.reset_font_action):
            menu.addAction(action)
        self.bilingual_action = self._toggle(
            "Bilingual",
            "Show, copy and save translations bilingually: each source paragraph followed by its translation",
            self.bilingualToggled,
        )
        menu.addSeparator()
        menu.addAction(self.bilingual_action)
        menu.addSeparator()
        self.history_action = self._action(
            "History…", "Past translations: search, open, copy (Ctrl+H)", self.historyRequested.emit, "Ctrl+H"
        )
        menu.addAction(self.history_action)

    def _build_help_menu(self) -> None:
        menu = self.menuBar().addMenu("&Help")
        self.shortcuts_action = self._action(
            "Keyboard shortcuts", "Keyboard shortcuts", self.show_shortcuts, QKeySequence.StandardKey.HelpContents
        )
        self.about_action = self._action("About desktop-mt", "Model, licences and version", self.show_about)
        menu.addAction(self.shortcuts_action)
        menu.addAction(self.about_action)

    def _accept_file_drops(self) -> None:
        # The editors take drops themselves (text); file drops on them go to the job too.
        self.setAcceptDrops(True)
        for editor in (self.source, self.target):
            editor.viewport().installEventFilter(self)

    # ---- intents ------------------------------------------------------------------------
    def _emit_translate(self) -> None:
        self.translateRequested.emit(self.source_text())

    def _on_source_changed(self) -> None:
        if not self._setting_source:
            self.sourceEdited.emit(self.source_text())

    def choose_file(self) -> None:
        """Ask for a file to translate (the output goes next to it)."""
        path, _filter = QFileDialog.getOpenFileName(self, "Translate file", "", FILE_FILTER)
        if path:
            self.translateFileRequested.emit(path)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_file(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        if not self._take_file_drop(event):
            super().dropEvent(event)

    def _take_file_drop(self, event: QDropEvent) -> bool:
        path = dropped_file(event.mimeData())
        if not path:
            return False
        event.acceptProposedAction()
        self.translateFileRequested.emit(path)
        return True

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        kind = event.type()
        if isinstance(event, QDragMoveEvent) and dropped_file(event.mimeData()):  # DragEnter too
            event.acceptProposedAction()
            return True
        if kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
            return self._take_file_drop(event)
        return super().eventFilter(obj, event)

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

    def _select_all(self) -> None:
        self.source.setFocus()
        self.source.selectAll()

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
        self.statusBar().showMessage("Translation copied", 2000)

    def set_busy(self, busy: bool) -> None:
        """Enable Stop only while a request runs."""
        self.stop_action.setEnabled(busy)

    def set_state(self, state: Status | str, detail: str = "") -> None:
        """Status bar state: loading / translating / idle / error / stopping / stopped."""
        word = Status(state).value
        self.state_label.set_text(f"{word}: {detail}" if detail else word, [word])
        self.state_label.setProperty("state", word)

    def state(self) -> str:
        """The state last set (for tests and the tray tooltip)."""
        return str(self.state_label.property("state") or "")

    def set_demo_notice(self, shown: bool) -> None:
        """Show the one-line notice that the bundled demo model is in use."""
        self.demo_notice.setVisible(shown)

    def set_model(self, text: str) -> None:
        """Status bar model + variant."""
        self.model_label.set_text(text, [text.split(" · ")[0]])

    def set_stats(self, first_token_s: float | None, tokens_per_s: float, tokens: int) -> None:
        """Status bar figures of the last run."""
        ttft = f"{first_token_s * 1000:.0f} ms" if first_token_s is not None else "–"
        rate = f"{tokens_per_s:.0f} tok/s"
        self.stats_label.set_text(f"first token {ttft} · {rate} · {tokens} tokens", [f"{ttft} · {rate}", rate])

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

    def show_file_job(self, name: str) -> None:
        """Show the job panel for ``name``; no second job can start meanwhile."""
        self.file_job.start(name)
        self._set_file_entry_enabled(False)

    def set_file_progress(self, done: int, total: int, rate: float) -> None:
        """Job progress: segments done/total and segments per second."""
        self.file_job.set_progress(done, total, rate)

    def set_file_job_text(self, text: str) -> None:
        """Replace the job panel's label (e.g. "Cancelling…")."""
        self.file_job.label.setText(text)
        self.file_job.cancel_button.setEnabled(False)

    def end_file_job(self, message: str) -> None:
        """Hide the job panel and show ``message`` in the status bar."""
        self.file_job.hide()
        self._set_file_entry_enabled(True)
        self.statusBar().showMessage(message, 10_000)

    def _set_file_entry_enabled(self, enabled: bool) -> None:
        self.file_action.setEnabled(enabled)
        self.recent_menu.setEnabled(enabled)
        self.setAcceptDrops(enabled)

    def set_recent_files(self, files: list[str]) -> None:
        """The File > Recent files entries (newest first); choosing one translates it again."""
        self.recent_menu.clear()
        for path in files:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.setData(path)
            action.triggered.connect(lambda _c=False, p=path: self.translateFileRequested.emit(p))
        if not files:
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    def recent_files(self) -> list[str]:
        """The paths the Recent files menu offers."""
        return [a.data() for a in self.recent_menu.actions() if a.data()]

    def ask_output_exists(self, path: str, keep_both_name: str) -> OutputAnswer:
        """Ask what to do with an existing output: overwrite, keep (write ``keep_both_name``
        beside it) or cancel."""
        return self._ask(
            "The translation exists",
            f"{Path(path).name} already exists in {Path(path).parent}.\n\n"
            f"Replace it, or keep it and save the new translation as {keep_both_name}?",
            ("Keep both", OutputAnswer.KEEP),
            ("Replace", OutputAnswer.OVERWRITE),
            OutputAnswer.CANCEL,
        )

    def ask_resume(self, name: str, kept: int, total: int) -> ResumeAnswer:
        """An interrupted job of ``name`` left a journal: resume, restart or cancel."""
        return self._ask(
            "Continue the interrupted translation?",
            f"An earlier translation of {name} stopped with {kept} of {total} "
            "segments done. Continue from there, or start over?",
            ("Continue", ResumeAnswer.RESUME),
            ("Start over", ResumeAnswer.RESTART),
            ResumeAnswer.CANCEL,
        )

    def _ask(
        self, title: str, text: str, default: tuple[str, AnswerT], other: tuple[str, AnswerT], cancel: AnswerT
    ) -> AnswerT:
        """A modal question with two answers and Cancel; returns the chosen answer."""
        box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.NoButton, self)
        first = box.addButton(default[0], QMessageBox.ButtonRole.AcceptRole)
        second = box.addButton(other[0], QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(first)
        box.exec()
        clicked = box.clickedButton()
        return default[1] if clicked is first else other[1] if clicked is second else cancel

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
        return self._info("About desktop-mt", self.about_text)

    def show_shortcuts(self) -> QMessageBox:
        """Help > Keyboard shortcuts."""
        rows = "".join(f"<tr><td><b>{k}</b></td><td>&nbsp;{what}</td></tr>" for k, what in SHORTCUTS)
        return self._info("Keyboard shortcuts", f"<table>{rows}</table>")

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
