"""The main window. Passive: it emits intent signals and exposes setters; the controller
decides what happens. Nothing here knows about the engine or threads."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QMimeData, QObject, Qt, Signal
from PySide6.QtGui import (
    QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication, QIcon, QKeySequence,
    QShortcut, QTextCursor,
)
from PySide6.QtWidgets import (
    QFileDialog, QFrame, QHBoxLayout, QLabel, QMainWindow, QMessageBox, QPlainTextEdit,
    QProgressBar, QPushButton, QSplitter, QToolButton, QVBoxLayout, QWidget,
)

from . import fonts

STATES = ("loading", "translating", "idle", "error", "stopping")
CLIPBOARD_SHORTCUT = "Ctrl+Shift+V"  # in-app "translate clipboard" (works on Wayland too)
FILE_FILTER = "Documents (*.txt *.srt *.docx);;All files (*)"


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
        """Show ``text`` (appended under any warning already shown)."""
        current = "" if self.isHidden() else self.label.text()  # isHidden: works before show()
        self.label.setText(f"{current}\n{text}" if current else text)
        self.show()


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
    sourceEdited = Signal(str)          # user edits only (not set_source), for as-you-type
    clipboardTranslateRequested = Signal()
    settingsRequested = Signal()
    translateFileRequested = Signal(str)  # a path chosen in the dialog or dropped
    fileCancelRequested = Signal()
    closing = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("desktop-mt — English → 中文")
        self._setting_source = False
        self.error_dialogs: list[QMessageBox] = []  # kept so tests (and GC) can see them
        self._build_editors()
        self._build_buttons()
        self._build_layout()
        self._build_status_bar()
        self._build_shortcuts()
        self._build_file_menu()
        self._accept_file_drops()
        self.set_busy(False)
        self.resize(960, 560)

    # ---- construction -------------------------------------------------------------------
    def _build_editors(self) -> None:
        self.source = QPlainTextEdit(self)
        self.source.setObjectName("source")
        self.source.setPlaceholderText("Type or paste English text. Ctrl+Enter translates, Esc stops.")
        self.source.setFont(fonts.editor_font())
        self.source.textChanged.connect(self._on_source_changed)
        self.target = QPlainTextEdit(self)
        self.target.setObjectName("target")
        self.target.setReadOnly(True)
        self.target.setPlaceholderText("中文译文会在这里逐字出现。")
        self.target.setFont(fonts.editor_font(14))
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.source)
        self.splitter.addWidget(self.target)
        self.splitter.setChildrenCollapsible(False)

    def _button(self, text: str, tip: str, slot) -> QPushButton:
        button = QPushButton(text, self)
        button.setToolTip(tip)
        button.clicked.connect(slot)
        return button

    def _build_buttons(self) -> None:
        self.translate_button = self._button("Translate", "Translate (Ctrl+Enter)", self._emit_translate)
        self.stop_button = self._button("Stop", "Stop (Esc)", self.stopRequested.emit)
        self.copy_button = self._button("Copy result", "Copy the translation", self.copy_result)
        self.clear_button = self._button("Clear", "Clear both panes", self.clearRequested.emit)
        self.clipboard_button = self._button(
            "Translate clipboard", f"Translate the clipboard ({CLIPBOARD_SHORTCUT})",
            self.clipboardTranslateRequested.emit)
        self.settings_button = self._button("Settings…", "Settings", self.settingsRequested.emit)
        self.file_button = self._button(
            "Translate file…", "Translate a .txt, .srt or .docx file (or drop one on the window)",
            self.choose_file)

    def _build_layout(self) -> None:
        self.banner = WarningBanner(self)
        row = QHBoxLayout()
        for b in (self.translate_button, self.stop_button, self.copy_button, self.clear_button):
            row.addWidget(b)
        row.addStretch(1)
        row.addWidget(self.file_button)
        row.addWidget(self.clipboard_button)
        row.addWidget(self.settings_button)
        self.file_job = FileJobPanel(self)
        self.file_job.cancel_button.clicked.connect(self.fileCancelRequested.emit)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.addWidget(self.banner)
        layout.addLayout(row)
        layout.addWidget(self.file_job)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)

    def _build_status_bar(self) -> None:
        self.model_label = QLabel("No model", self)
        self.state_label = QLabel("", self)
        self.stats_label = QLabel("", self)
        bar = self.statusBar()
        bar.addWidget(self.model_label)
        bar.addWidget(self.state_label)
        bar.addPermanentWidget(self.stats_label)

    def _build_shortcuts(self) -> None:
        # Window-wide shortcuts: Ctrl+Enter from inside the editor must translate, not
        # insert a newline, and Esc must stop wherever the focus is.
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self, activated=self._emit_translate)
        QShortcut(QKeySequence("Esc"), self, activated=self.stopRequested.emit)
        QShortcut(QKeySequence(CLIPBOARD_SHORTCUT), self,
                  activated=self.clipboardTranslateRequested.emit)

    def _build_file_menu(self) -> None:
        menu = self.menuBar().addMenu("&File")
        self.file_action = QAction("Translate file…", self)
        self.file_action.setShortcut(QKeySequence("Ctrl+O"))
        self.file_action.triggered.connect(self.choose_file)
        menu.addAction(self.file_action)

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

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt override
        if dropped_file(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt override
        if not self._take_file_drop(event):
            super().dropEvent(event)

    def _take_file_drop(self, event: QDropEvent) -> bool:
        path = dropped_file(event.mimeData())
        if not path:
            return False
        event.acceptProposedAction()
        self.translateFileRequested.emit(path)
        return True

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and dropped_file(event.mimeData()):
            event.acceptProposedAction()
            return True
        if kind == QEvent.Type.Drop:
            return self._take_file_drop(event)
        return super().eventFilter(obj, event)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        self.closing.emit()
        super().closeEvent(event)

    # ---- setters ------------------------------------------------------------------------
    def source_text(self) -> str:
        """The text in the source editor."""
        return self.source.toPlainText()

    def target_text(self) -> str:
        """The translation shown so far."""
        return self.target.toPlainText()

    def set_source(self, text: str) -> None:
        """Replace the source text without triggering translate-as-you-type."""
        self._setting_source = True
        try:
            self.source.setPlainText(text)
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
        cursor = QTextCursor(self.target.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)
        if follow:
            bar.setValue(bar.maximum())

    def clear_all(self) -> None:
        """Empty both panes."""
        self.set_source("")
        self.clear_target()

    def copy_result(self) -> None:
        """Put the translation on the clipboard."""
        QGuiApplication.clipboard().setText(self.target_text())
        self.statusBar().showMessage("Translation copied", 2000)

    def set_busy(self, busy: bool) -> None:
        """Enable Stop only while a request runs."""
        self.stop_button.setEnabled(busy)

    def set_state(self, state: str, detail: str = "") -> None:
        """Status bar state: loading / translating / idle / error / stopping."""
        self.state_label.setText(f"{state}: {detail}" if detail else state)
        self.state_label.setProperty("state", state)

    def state(self) -> str:
        """The state last set (for tests and the tray tooltip)."""
        return str(self.state_label.property("state") or "")

    def set_model(self, text: str) -> None:
        """Status bar model + variant."""
        self.model_label.setText(text)

    def set_stats(self, first_token_s: float | None, tokens_per_s: float, tokens: int) -> None:
        """Status bar figures of the last run."""
        ttft = f"{first_token_s * 1000:.0f} ms" if first_token_s is not None else "–"
        self.stats_label.setText(f"first token {ttft} · {tokens_per_s:.0f} tok/s · {tokens} tokens")

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
        self.file_button.setEnabled(enabled)
        self.file_action.setEnabled(enabled)
        self.setAcceptDrops(enabled)

    def show_warning(self, text: str) -> None:
        """A visible, non-modal warning (settings recovery, hotkey problems)."""
        self.banner.add(text)

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
        geo = bytes(self.saveGeometry().toBase64()).decode("ascii")
        split = bytes(self.splitter.saveState().toBase64()).decode("ascii")
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
