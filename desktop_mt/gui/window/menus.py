"""The main window's menu bar: File (with Recent files and Models), Edit (undo, join lines on
paste, swap, post-editing's entries), View (text size, Bilingual, History) and Help, on the
actions :class:`~desktop_mt.gui.window.chrome.WindowChrome` made. :class:`WindowMenus` is a part
the main window owns (``MainWindow.menus``), built after its chrome."""

from __future__ import annotations

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtGui import QAction, QKeySequence

from ..i18n import translate
from .chrome import DEFAULT_FONT_SIZE, REDO_SHORTCUT, SHORTCUTS, WindowChrome
from .shell import WindowShell

__all__ = [
    "WindowMenus",
]


class WindowMenus:
    """The menus of the main window; see the module docstring."""

    def __init__(self, window: WindowShell, chrome: WindowChrome) -> None:
        self.shell = window
        self.window = window.qt_window()
        self.chrome = chrome
        self.global_shortcuts: tuple[tuple[str, str], ...] = ()  # (keys, what) of the global shortcuts on
        self._build_file_menu()
        self._build_edit_menu()
        self._build_view_menu()
        self._build_help_menu()

    def _build_file_menu(self) -> None:
        window, chrome = self.window, self.chrome
        menu = window.menuBar().addMenu(translate("WindowMenus", "&File"))
        menu.addAction(chrome.file_action)
        self.recent_menu = menu.addMenu(translate("WindowMenus", "Recent files"))
        menu.addAction(chrome.clipboard_action)
        menu.addSeparator()
        self.models_action = chrome.action(
            translate("WindowMenus", "Models…"),
            translate("WindowMenus", "Download, remove and choose translation models"),
            self.shell.modelsRequested.emit,
        )
        menu.addAction(self.models_action)
        menu.addAction(chrome.settings_action)
        menu.addSeparator()
        menu.addAction(chrome.quit_action)

    def add_postedit_actions(self, actions: list[QAction]) -> None:
        """Post-editing's entries (Confirm sentence, Confirm all…, Translation memory…) in the Edit menu."""
        self.edit_menu.addSeparator()
        for action in actions:
            self.edit_menu.addAction(action)
            self.window.addAction(action)  # its shortcut works wherever the focus is in the window

    def _build_edit_menu(self) -> None:
        window, chrome = self.window, self.chrome
        source = chrome.source
        menu = self.edit_menu = window.menuBar().addMenu(translate("WindowMenus", "&Edit"))
        self.undo_action = chrome.action(
            translate("WindowMenus", "Undo"),
            translate("WindowMenus", "Undo in the source text"),
            source.undo,
            QKeySequence.StandardKey.Undo,
        )
        self.redo_action = chrome.action(
            translate("WindowMenus", "Redo"),
            translate("WindowMenus", "Redo in the source text"),
            source.redo,
            QKeySequence.StandardKey.Redo,
        )
        redo_keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)  # Ctrl+Y among them on Windows
        if QKeySequence(REDO_SHORTCUT) not in redo_keys:
            redo_keys.append(QKeySequence(REDO_SHORTCUT))
        self.redo_action.setShortcuts(redo_keys)
        self.redo_action.setToolTip(
            translate("WindowMenus", "Redo in the source text ({keys})").format(keys=REDO_SHORTCUT)
        )
        # The editor handles Ctrl+Z itself while focused; the menu entries are for the mouse.
        for action in (self.undo_action, self.redo_action):
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        source.undoAvailable.connect(self.undo_action.setEnabled)
        source.redoAvailable.connect(self.redo_action.setEnabled)
        self.undo_action.setEnabled(False)
        self.redo_action.setEnabled(False)
        self.select_all_action = chrome.action(
            translate("WindowMenus", "Select all"),
            translate("WindowMenus", "Select the whole source text"),
            self._select_all,
        )
        self.join_lines_action = self._toggle(
            translate("WindowMenus", "Join lines on paste"),
            translate(
                "WindowMenus",
                "Join the line breaks of text copied from PDFs when it is pasted "
                "(Ctrl+Z brings back the text as pasted)",
            ),
            self.shell.joinLinesToggled,
        )
        entry: QAction | None
        for entry in (
            self.undo_action,
            self.redo_action,
            None,
            chrome.copy_action,
            self.select_all_action,
            None,
            chrome.clear_action,
            None,
            self.join_lines_action,
            None,
            chrome.swap_action,
        ):
            menu.addSeparator() if entry is None else menu.addAction(entry)

    def _select_all(self) -> None:
        self.chrome.source.setFocus()
        self.chrome.source.selectAll()

    def _toggle(self, text: str, tip: str, signal: SignalInstance) -> QAction:
        """A checkable menu entry whose user clicks emit ``signal(checked)``."""
        action = QAction(text, self.window)
        action.setToolTip(tip)
        action.setCheckable(True)
        action.triggered.connect(lambda _checked=False: signal.emit(action.isChecked()))
        return action

    def _build_view_menu(self) -> None:
        window, chrome = self.window, self.chrome
        menu = window.menuBar().addMenu(translate("WindowMenus", "&View"))
        self.larger_action = chrome.action(
            translate("WindowMenus", "Larger text"),
            translate("WindowMenus", "Larger text (Ctrl++)"),
            lambda: self.shell.set_font_size(self.shell.font_size + 1, emit=True),
            QKeySequence.StandardKey.ZoomIn,
        )
        self.smaller_action = chrome.action(
            translate("WindowMenus", "Smaller text"),
            translate("WindowMenus", "Smaller text (Ctrl+-)"),
            lambda: self.shell.set_font_size(self.shell.font_size - 1, emit=True),
            QKeySequence.StandardKey.ZoomOut,
        )
        self.reset_font_action = chrome.action(
            translate("WindowMenus", "Default text size"),
            translate("WindowMenus", "Default text size (Ctrl+0)"),
            lambda: self.shell.set_font_size(DEFAULT_FONT_SIZE, emit=True),
            "Ctrl+0",
        )
        for action in (self.larger_action, self.smaller_action, self.reset_font_action):
            menu.addAction(action)
        self.bilingual_action = self._toggle(
            translate("WindowMenus", "Bilingual"),
            translate(
                "WindowMenus",
                "Show, copy and save translations bilingually: each source paragraph followed by its translation",
            ),
            self.shell.bilingualToggled,
        )
        menu.addSeparator()
        menu.addAction(self.bilingual_action)
        menu.addSeparator()
        self.history_action = chrome.action(
            translate("WindowMenus", "History…"),
            translate("WindowMenus", "Past translations: search, open, copy (Ctrl+H)"),
            self.shell.historyRequested.emit,
            "Ctrl+H",
        )
        menu.addAction(self.history_action)

    def set_global_shortcuts(self, rows: list[tuple[str, str]]) -> None:
        """The global shortcuts Help > Keyboard shortcuts lists (the controller's, from the
        settings: they can be changed, so the list is not fixed)."""
        self.global_shortcuts = tuple(rows)

    def shortcut_rows(self) -> tuple[tuple[str, str], ...]:
        """Help > Keyboard shortcuts: the window's own, then the global ones that are on."""
        own = tuple((translate("WindowChrome", keys), translate("WindowChrome", what)) for keys, what in SHORTCUTS)
        return (*own, *self.global_shortcuts)

    def _build_help_menu(self) -> None:
        window, chrome = self.window, self.chrome
        menu = window.menuBar().addMenu(translate("WindowMenus", "&Help"))
        self.shortcuts_action = chrome.action(
            translate("WindowMenus", "Keyboard shortcuts"),
            translate("WindowMenus", "Keyboard shortcuts"),
            self.shell.show_shortcuts,
            QKeySequence.StandardKey.HelpContents,
        )
        self.about_action = chrome.action(
            translate("WindowMenus", "About desktop-mt"),
            translate("WindowMenus", "Model, licences and version"),
            self.shell.show_about,
        )
        menu.addAction(self.shortcuts_action)
        menu.addAction(self.about_action)
