"""The main window's chrome: its widgets, actions, toolbar, status bar and shortcuts, built
once (:class:`WindowChrome`, a part :class:`~desktop_mt.gui.window.main.MainWindow` owns beside its
menus, ``window_menus.WindowMenus``, and its file-job face, ``window_files.WindowFiles``), with
the window's constants, the warning banner and the file-job strip."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QMimeData, QObject, Qt
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QKeySequence,
    QShortcut,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_mt.batch import DOCUMENT_SUFFIXES

from ..dialogs.models_dialog import DemoModelNotice
from ..features.pasting import PasteEdit
from ..features.postedit import SuggestionBar
from ..i18n import QT_TRANSLATE_NOOP, translate
from ..ports import Status, StrEnum
from .direction_bar import SWAP_SHORTCUT, DirectionBar
from .look import FitLabel
from .postedit_pane import PostEditPane
from .shell import WindowShell

__all__ = [
    "AnswerT",
    "CLIPBOARD_SHORTCUT",
    "DEFAULT_FONT_SIZE",
    "FILE_FILTER",
    "FONT_SIZES",
    "FileJobPanel",
    "MIN_WIDTH",
    "REDO_SHORTCUT",
    "SCREEN_SHARE",
    "SHORTCUTS",
    "STATES",
    "WarningBanner",
    "WindowChrome",
    "dropped_file",
    "file_filter",
]


STATES = tuple(Status)  # the status bar's states (the stylesheet matches their values)
CLIPBOARD_SHORTCUT = "Ctrl+Shift+V"  # in-app "translate clipboard" (works on Wayland too)
REDO_SHORTCUT = "Ctrl+Y"  # redo besides the platform's own (Ctrl+Shift+Z here): Windows and DeepL users expect it
FILE_FILTER = (  # English; file_filter() is what the dialog shows
    f"Documents ({' '.join('*' + suffix for suffix in DOCUMENT_SUFFIXES)});;Images: read and translate the text "
    "(*.png *.jpg *.jpeg *.webp *.bmp *.gif *.tif *.tiff);;All files (*)"
)


def file_filter() -> str:
    """The Open file dialog's filter in the interface language."""
    documents = " ".join("*" + suffix for suffix in DOCUMENT_SUFFIXES)
    return translate(
        "WindowChrome",
        "Documents ({documents});;Images: read and translate the text "
        "(*.png *.jpg *.jpeg *.webp *.bmp *.gif *.tif *.tiff);;All files (*)",
    ).format(documents=documents)


DEFAULT_FONT_SIZE = 13  # source pane; the translation pane is one point larger
FONT_SIZES = (8, 40)  # View > Larger/Smaller stay within these
MIN_WIDTH = 480  # the window must stay usable this narrow (small screens)
SCREEN_SHARE = 0.9  # at most this much of the screen when the window opens
SHORTCUTS = (
    ("Ctrl+Enter", QT_TRANSLATE_NOOP("WindowChrome", "Translate the source text")),
    ("Esc", QT_TRANSLATE_NOOP("WindowChrome", "Stop the translation")),
    (CLIPBOARD_SHORTCUT, QT_TRANSLATE_NOOP("WindowChrome", "Translate the clipboard")),
    ("Ctrl+O", QT_TRANSLATE_NOOP("WindowChrome", "Translate a file")),
    (
        QT_TRANSLATE_NOOP("WindowChrome", "Ctrl+Z / Ctrl+Shift+Z or Ctrl+Y"),  # Ctrl+Y: REDO_SHORTCUT
        QT_TRANSLATE_NOOP(
            "WindowChrome",
            "Undo / redo in the source text (also after Clear, a clipboard "
            "translation or joined lines: the text as pasted)",
        ),
    ),
    ("Tab / Shift+Tab", QT_TRANSLATE_NOOP("WindowChrome", "Move between the source, the translation and the toolbar")),
    ("Ctrl+Shift+C", QT_TRANSLATE_NOOP("WindowChrome", "Copy the translation")),
    (SWAP_SHORTCUT, QT_TRANSLATE_NOOP("WindowChrome", "Swap: the translation becomes the source, the direction flips")),
    ("Ctrl+Shift+Backspace", QT_TRANSLATE_NOOP("WindowChrome", "Clear both panes (Ctrl+Z brings the text back)")),
    ("Ctrl++ / Ctrl+- / Ctrl+0", QT_TRANSLATE_NOOP("WindowChrome", "Larger / smaller / default text size")),
    ("Ctrl+H", QT_TRANSLATE_NOOP("WindowChrome", "History of translations (search as you type)")),
    (
        "Ctrl+Shift+A",
        QT_TRANSLATE_NOOP(
            "WindowChrome", "Alternatives for the sentence under the cursor (Ctrl+Z in the translation undoes)"
        ),
    ),
    (
        QT_TRANSLATE_NOOP("WindowChrome", "Click a word"),
        QT_TRANSLATE_NOOP(
            "WindowChrome",
            "In the translation: the cursor goes there; alternatives from that word on are offered beside it "
            "(typing dismisses them)",
        ),
    ),
    (
        "Alt+Down",
        QT_TRANSLATE_NOOP(
            "WindowChrome", "In the translation: alternatives from the word at the cursor, as a keyboard menu"
        ),
    ),
    (
        "Tab / Esc",
        QT_TRANSLATE_NOOP("WindowChrome", "In the translation, while a completion is offered: accept / dismiss it"),
    ),
    (
        "Ctrl+1 / Ctrl+2 / Ctrl+3",
        QT_TRANSLATE_NOOP(
            "WindowChrome",
            "Put the translation memory's match 1, 2 or 3 (the panel under the panes) in place of the sentence's; "
            "Tab from the translation reaches their Use buttons",
        ),
    ),
    (
        "Ctrl+Shift+Enter",
        QT_TRANSLATE_NOOP(
            "WindowChrome",
            "Confirm the sentence at the cursor: it goes into the translation memory as approved; the cursor "
            "moves to the next sentence (Edit > Confirm all sentences… asks first and can be undone)",
        ),
    ),
    ("Ctrl+Q", QT_TRANSLATE_NOOP("WindowChrome", "Quit (closing the window keeps the app in the tray)")),
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
        close.setToolTip(translate("WindowChrome", "Dismiss"))
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
        self.cancel_button = QPushButton(translate("WindowChrome", "Cancel"), self)
        self.cancel_button.setToolTip(translate("WindowChrome", "Stop the file job (nothing is saved)"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        layout.addWidget(self.label)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.rate_label)
        layout.addWidget(self.cancel_button)
        self.hide()

    def start(self, name: str) -> None:
        """Show the panel for a new job on the file ``name``."""
        self.label.setText(translate("WindowChrome", "Translating {name}").format(name=name))
        self.bar.setRange(0, 0)
        self.rate_label.setText("")
        self.cancel_button.setEnabled(True)
        self.show()

    def set_progress(self, done: int, total: int, rate: float) -> None:
        """Segments done of total and segments per second."""
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(min(done, max(total, 1)) if total else 1)
        self.rate_label.setText(
            translate("WindowChrome", "{done}/{total} segments · {rate} seg/s").format(
                done=done, total=total, rate=f"{rate:.1f}"
            )
        )


class _ToolbarOverflow(QObject):
    """The toolbar's » (Qt's extension button, shown when the window is too narrow for every
    button) as a menu of what does not fit: the hidden buttons' actions, and the direction
    control's entries and Swap when it is hidden itself. Qt's own » lays the hidden buttons out
    in a second row over the panes instead, which some platforms never show (a user test under
    Xvfb: a click showed nothing); a menu works everywhere and from the keyboard."""

    def __init__(self, toolbar: QToolBar, direction_bar: DirectionBar, swap_action: QAction) -> None:
        super().__init__(toolbar)
        self.toolbar = toolbar
        self.direction_bar = direction_bar
        self.swap_action = swap_action
        self.menu = QMenu(toolbar)
        self.menu.setObjectName("toolbarOverflow")
        self.menu.aboutToShow.connect(self.fill)
        self.button = toolbar.findChild(QToolButton, "qt_toolbar_ext_button")
        if isinstance(self.button, QToolButton):
            self.button.clicked.disconnect()  # Qt's in-place expansion (see the class docstring)
            self.button.setCheckable(False)
            self.button.setToolTip(translate("WindowChrome", "More: the commands that do not fit"))
            self.button.clicked.connect(self.show_menu)

    def show_menu(self) -> None:
        """Pop the menu up under the » (its entries: :meth:`fill`)."""
        if self.button is not None:
            self.menu.popup(self.button.mapToGlobal(self.button.rect().bottomLeft()))

    def hidden_actions(self) -> list[QAction]:
        """The toolbar's actions whose buttons (or widgets) do not fit now, in toolbar order."""
        hidden = []
        for action in self.toolbar.actions():
            widget = self.toolbar.widgetForAction(action)
            if widget is not None and widget.isHidden() and action.isVisible():
                hidden.append(action)
        return hidden

    def fill(self) -> None:
        """The menu's entries: what the toolbar hides now (separators kept, collapsed by QMenu)."""
        self.menu.clear()
        for action in self.hidden_actions():
            if action.isSeparator():
                self.menu.addSeparator()
            elif self.toolbar.widgetForAction(action) is self.direction_bar:
                self._add_directions()
            else:
                self.menu.addAction(action)  # the shared action: its state and shortcut follow

    def _add_directions(self) -> None:
        combo = self.direction_bar.combo
        sub = self.menu.addMenu(translate("WindowChrome", "Direction"))
        group = QActionGroup(sub)
        for index in range(combo.count()):
            entry = sub.addAction(combo.itemText(index))
            entry.setCheckable(True)
            entry.setChecked(index == combo.currentIndex())
            group.addAction(entry)
            value = str(combo.itemData(index))
            entry.triggered.connect(lambda _checked=False, v=value: self.direction_bar.targetChosen.emit(v))
        sub.addSeparator()
        sub.addAction(self.swap_action)


class WindowChrome:
    """The main window's widgets, actions, toolbar, status bar and shortcuts, built once on the
    window (a part it owns: ``MainWindow.chrome``); the actions say what the user wants by the
    window's intent signals or call its behaviour (``emit_translate``, ``copy_result``...)."""

    def __init__(self, window: WindowShell) -> None:
        self.shell = window
        self.window = window.qt_window()
        self._build_editors()
        self._build_actions()
        self._build_layout()
        self._build_status_bar()
        self._build_shortcuts()

    # ---- construction -------------------------------------------------------------------
    def _build_editors(self) -> None:
        window = self.window
        self.source = PasteEdit(window)  # pastes can be joined (Edit > Join lines on paste)
        self.source.setObjectName("source")
        self.source.setPlaceholderText(
            translate(
                "WindowChrome",
                "Type or paste English or Chinese text (输入英文或中文). Ctrl+Enter translates, Esc stops.",
            )
        )
        self.source.textChanged.connect(self.shell.on_source_changed)
        self.target = PostEditPane(window)  # editable: post-editing (issue 28)
        self.target.setObjectName("target")
        self.target.setPlaceholderText(
            translate("WindowChrome", "The translation appears here as it is written · 译文会在这里逐字出现。")
        )
        self.splitter = QSplitter(Qt.Orientation.Horizontal, window)
        self.splitter.addWidget(self.source)
        self.splitter.addWidget(self.target)
        self.splitter.setChildrenCollapsible(False)

    def action(
        self, text: str, tip: str, slot: Callable[[], object], shortcut: str | QKeySequence.StandardKey = ""
    ) -> QAction:
        """A window action (owned by the window) that calls ``slot`` when triggered."""
        action = QAction(text, self.window)
        action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        return action

    def _build_actions(self) -> None:
        # One QAction per command, shared by the toolbar and the menus.
        action = self.action
        self.translate_action = action(
            translate("WindowChrome", "Translate"),
            translate("WindowChrome", "Translate (Ctrl+Enter)"),
            self.shell.emit_translate,
        )
        self.stop_action = action(
            translate("WindowChrome", "Stop"), translate("WindowChrome", "Stop (Esc)"), self.shell.stopRequested.emit
        )
        self.copy_action = action(
            translate("WindowChrome", "Copy translation"),
            translate("WindowChrome", "Copy the translation (Ctrl+Shift+C)"),
            self.shell.copy_result,
            "Ctrl+Shift+C",
        )
        self.clear_action = action(
            translate("WindowChrome", "Clear"),
            translate("WindowChrome", "Clear both panes (Ctrl+Z brings the text back)"),
            self.shell.clearRequested.emit,
            "Ctrl+Shift+Backspace",
        )
        self.clipboard_action = action(
            translate("WindowChrome", "Translate clipboard"),
            translate("WindowChrome", "Translate the clipboard ({keys})").format(keys=CLIPBOARD_SHORTCUT),
            self.shell.clipboardTranslateRequested.emit,
        )
        self.settings_action = action(
            translate("WindowChrome", "Settings…"),
            translate("WindowChrome", "Settings"),
            self.shell.settingsRequested.emit,
        )
        self.file_action = action(
            translate("WindowChrome", "Translate file…"),
            translate(
                "WindowChrome",
                "Translate a document: text, subtitles, Word, PowerPoint, Excel, PDF, XLIFF, PO,"
                " Markdown or HTML (or drop one on the window)",
            ),
            self.shell.choose_file,
            "Ctrl+O",
        )
        self.quit_action = action(
            translate("WindowChrome", "Quit"),
            translate("WindowChrome", "Quit desktop-mt (Ctrl+Q)"),
            self.shell.quit,
            "Ctrl+Q",
        )
        self.swap_action = action(
            translate("WindowChrome", "Swap languages"),
            translate("WindowChrome", "The translation becomes the source and the direction flips ({keys})").format(
                keys=SWAP_SHORTCUT
            ),
            self.shell.swapRequested.emit,
            SWAP_SHORTCUT,
        )

    def _build_layout(self) -> None:
        window = self.window
        self.banner = WarningBanner(window)
        # A toolbar, not a button row: when the window is narrow the buttons that do not fit
        # move into its extension menu (») instead of forcing the window wider.
        self.toolbar = QToolBar(translate("WindowChrome", "Main toolbar"), window)
        self.toolbar.setObjectName("mainToolbar")
        self.toolbar.setMovable(False)
        self.toolbar.setFloatable(False)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.direction_bar = DirectionBar(window)  # Auto / English -> Chinese / Chinese -> English, swap
        self.direction_bar.swapRequested.connect(self.shell.swapRequested.emit)
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
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)
        self.overflow = _ToolbarOverflow(self.toolbar, self.direction_bar, self.swap_action)  # the » menu
        button = self.toolbar.widgetForAction
        self.translate_button, self.stop_button = button(self.translate_action), button(self.stop_action)
        self.copy_button, self.clear_button = button(self.copy_action), button(self.clear_action)
        self.clipboard_button = button(self.clipboard_action)
        self.settings_button, self.file_button = button(self.settings_action), button(self.file_action)
        self.file_job = FileJobPanel(window)
        self.file_job.cancel_button.clicked.connect(self.shell.fileCancelRequested.emit)
        central = QWidget(window)
        layout = QVBoxLayout(central)
        layout.addWidget(self.banner)
        self.demo_notice = DemoModelNotice(window)
        self.demo_notice.button.clicked.connect(self.shell.modelsRequested.emit)
        layout.addWidget(self.demo_notice)
        layout.addWidget(self.file_job)
        layout.addWidget(self.splitter, 1)
        self.suggestion_bar = SuggestionBar(window)  # the memory's fuzzy match for the sentence at the cursor
        layout.addWidget(self.suggestion_bar)
        window.setCentralWidget(central)

    def _build_status_bar(self) -> None:
        # FitLabels: at 480 px they show a shorter form (the full text is their tooltip).
        window = self.window
        self.model_label = FitLabel(translate("WindowChrome", "No model"), window)
        self.state_label = FitLabel("", window)
        self.job_label = FitLabel("", window)
        self.stats_label = FitLabel("", window)
        bar = window.statusBar()
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
        window = self.window
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), window).activated.connect(self.shell.emit_translate)
        QShortcut(QKeySequence("Esc"), window).activated.connect(self.shell.stopRequested.emit)
        QShortcut(QKeySequence(CLIPBOARD_SHORTCUT), window).activated.connect(
            self.shell.clipboardTranslateRequested.emit
        )
        # Ctrl+Y redoes in either pane (the editors know only the platform's redo keys); the
        # pane's own redo, so a swap's redo brings its direction back as Ctrl+Shift+Z does.
        for pane in (self.source, self.target):
            redo = QShortcut(QKeySequence(REDO_SHORTCUT), pane)
            redo.setContext(Qt.ShortcutContext.WidgetShortcut)
            redo.activated.connect(pane.redo)
