"""The settings dialog. It edits a copy of :class:`Settings` and emits ``applied`` with
the new values; the controller decides what to reload. The model rows and the Local API rows
are sections of their own (:mod:`~desktop_mt.gui.dialogs.settings_sections`)."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QLabel,
    QScrollArea,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from desktop_mt.engine.script import check_script

from ..features import shortcuts
from ..i18n import QT_TRANSLATE_NOOP, translate
from ..logsetup import log_file
from ..settings import LANGUAGES, SCRIPTS, Settings
from ..window import theme
from .glossary_editor import GlossaryEditor
from .settings_sections import LocalApiSection, ModelSection, ShortcutSection, spin

__all__ = [
    "SettingsDialog",
]


_SCRIPT_LABELS = {
    "simplified": QT_TRANSLATE_NOOP("SettingsDialog", "Simplified (简体)"),
    "traditional-tw": QT_TRANSLATE_NOOP("SettingsDialog", "Traditional, Taiwan (繁體)"),
    "traditional-hk": QT_TRANSLATE_NOOP("SettingsDialog", "Traditional, Hong Kong (繁體)"),
}
# Quality in a translator's words: (label, beams). 0 is the model's own setting (beam search).
_QUALITY_CHOICES = (
    (QT_TRANSLATE_NOOP("SettingsDialog", "faster (shows every word as it comes)"), 1),
    (QT_TRANSLATE_NOOP("SettingsDialog", "better (the model's default)"), 0),
)
_SCREEN_SHARE = 0.9  # the dialog opens at most this share of the screen's free area; it scrolls


def _hotkey_tone(status: str, available: bool) -> str | None:
    """The colour of the hotkey's state line: a warning when it cannot work here, an error
    when registering failed, normal when it is active or simply off."""
    if not available:
        return "warning"
    if isinstance(status, shortcuts.ShortcutState):  # its kind, whatever language its words are in
        return None if status.kind.tone == "quiet" else status.kind.tone
    return "error" if status.lower().startswith(("failed", "could not")) else None


class SettingsDialog(QDialog):
    """Model, variant, threads, decoding and hotkey settings."""

    applied = Signal(Settings)  # Settings

    def __init__(
        self, settings: Settings, hotkey_available: bool, hotkey_reason: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("SettingsDialog", "desktop-mt settings"))
        self._settings = dataclasses.replace(settings, extra_model_dirs=list(settings.extra_model_dirs))
        form = QFormLayout()
        self.models = ModelSection(self._settings, form, self)  # which model, its precision
        self.model_combo, self.variant_combo = self.models.model_combo, self.models.variant_combo
        self.add_model_button, self.model_error = self.models.add_model_button, self.models.model_error
        self._build_engine_rows(form)
        self._build_input_rows(form, hotkey_available, hotkey_reason)
        self.glossary_editor = GlossaryEditor(parent=self)  # saved by Apply/OK (glossary_editor.py)
        self.glossary_editor.setToolTip(
            translate(
                "SettingsDialog",
                "Each English term found in the text is translated as its Chinese term, and each Chinese term "
                "as its English one (also in file jobs)",
            )
        )
        form.addRow(translate("SettingsDialog", "Glossary:"), self.glossary_editor)
        self.glossary_saved = self.models_saved = True
        self.local_api_rows = LocalApiSection(self._settings, form)  # the app's HTTP server
        self.local_api_check, self.local_api_status = self.local_api_rows.check, self.local_api_rows.status
        self.local_api_port_spin, self.local_api_key_edit = self.local_api_rows.port_spin, self.local_api_rows.key_edit
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Apply
            | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._ok)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.Apply).clicked.connect(self.apply)
        self.buttons = buttons
        self.shortcuts.conflictsChanged.connect(self._refuse_while_conflicting)
        log_label = QLabel(
            translate("SettingsDialog", "Log file (never contains your text): {path}").format(path=log_file())
        )
        log_label.setWordWrap(True)
        theme.set_tone(log_label, "quiet")
        form.addRow(log_label)
        # The rows scroll; OK / Apply / Cancel stay in view below them, at any screen and scale.
        rows = QWidget()
        rows.setLayout(form)
        # Not ``self.scroll``: that would hide QWidget.scroll() (scroll the widget's contents).
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidget(rows)
        self._rows = rows
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll_area, 1)
        self._layout = layout
        layout.addWidget(buttons)
        self.models.reload(select=settings.model_path)
        self.fit_to_screen()

    def fit_to_screen(self) -> None:
        """Open at the size the rows want, but at most SCREEN_SHARE of the screen's free area
        (QT_SCALE_FACTOR=2 halves it), inside it; the rows scroll when they need more."""
        screen = (self.parentWidget() or self).screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return
        free = screen.availableGeometry()
        rows = self._rows.sizeHint()
        margins = self._layout.contentsMargins()
        chrome = self.buttons.sizeHint().height() + self._layout.spacing() + margins.top() + margins.bottom()
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        wanted = QSize(rows.width() + margins.left() + margins.right() + bar, rows.height() + chrome)
        limit = QSize(int(free.width() * _SCREEN_SHARE), int(free.height() * _SCREEN_SHARE))
        self.resize(wanted.boundedTo(limit))
        frame = self.frameGeometry()
        if not free.contains(frame):
            frame.moveCenter(free.center())
            self.move(frame.topLeft())

    # ---- rows ---------------------------------------------------------------------------
    def _build_engine_rows(self, form: QFormLayout) -> None:
        s = self._settings
        self.intra_spin = spin(
            0, 256, s.intra_op_threads, translate("SettingsDialog", "Use all processor cores (automatic)")
        )
        self.intra_spin.setPrefix(translate("SettingsDialog", "Use "))
        self.intra_spin.valueChanged.connect(self._word_cores)
        self._word_cores(s.intra_op_threads)
        self.max_length_spin = spin(
            0,
            4096,
            s.max_output_length,
            translate("SettingsDialog", "Model default"),
            translate("SettingsDialog", " tokens"),
        )
        self.quality_combo = QComboBox()
        for label, beams in _QUALITY_CHOICES:
            self.quality_combo.addItem(translate("SettingsDialog", label), beams)
        if self.quality_combo.findData(s.beams) < 0:  # a number set before (file, CLI habits)
            self.quality_combo.addItem(
                translate("SettingsDialog", "custom ({n} candidates per word)").format(n=s.beams), s.beams
            )
        self.quality_combo.setCurrentIndex(self.quality_combo.findData(s.beams))
        self.quality_combo.setToolTip(
            translate(
                "SettingsDialog",
                "Faster: one candidate per word; the translation appears word by "
                "word. Better: the model weighs several candidates (4 for the "
                "bundled model) and shows a sentence when it is sure of it.",
            )
        )
        self.script_combo = QComboBox()
        for script in SCRIPTS:
            self.script_combo.addItem(translate("SettingsDialog", _SCRIPT_LABELS[script]), script)
        self.script_combo.setCurrentIndex(max(self.script_combo.findData(s.script), 0))
        self.script_combo.setToolTip(
            translate(
                "SettingsDialog",
                "Traditional is converted from the Simplified output with OpenCC "
                "(phrase level: Taiwan or Hong Kong usage).",
            )
        )
        self.intra_spin.setToolTip(
            translate(
                "SettingsDialog",
                "How many processor cores one translation may use. Automatic "
                "uses all of them; fewer leaves room for other programs.",
            )
            + _threads_fixed_note()
        )
        self.max_length_spin.setToolTip(
            translate(
                "SettingsDialog",
                "Stop a sentence's translation after this many tokens "
                "(about one Chinese character each). Model default: "
                "3 x the source's length + 10.",
            )
        )
        form.addRow(translate("SettingsDialog", "Speed:"), self.intra_spin)
        form.addRow(translate("SettingsDialog", "Quality:"), self.quality_combo)
        form.addRow(translate("SettingsDialog", "Longest translation of a sentence:"), self.max_length_spin)
        form.addRow(translate("SettingsDialog", "Chinese script:"), self.script_combo)
        self._build_language_row(form)

    def _build_language_row(self, form: QFormLayout) -> None:
        """Settings > Interface language: System / English / 简体中文 (each language named in
        itself, as language pickers do), applied at the next start: the window's strings are
        translated as it is built, and a restart keeps the user's text (drafts)."""
        self.language_combo = QComboBox()
        names = {"system": translate("SettingsDialog", "System"), "en": "English", "zh_CN": "简体中文"}
        for language in LANGUAGES:
            self.language_combo.addItem(names[language], language)
        self.language_combo.setCurrentIndex(max(self.language_combo.findData(self._settings.language), 0))
        self.language_combo.setToolTip(
            translate("SettingsDialog", "System: Chinese for any Chinese system locale, else English")
        )
        note = QLabel(translate("SettingsDialog", "Takes effect the next time desktop-mt starts."))
        note.setWordWrap(True)
        form.addRow(translate("SettingsDialog", "Interface language:"), self.language_combo)
        form.addRow("", note)

    def _word_cores(self, n: int) -> None:
        self.intra_spin.setSuffix(
            translate("SettingsDialog", " processor core")
            if n == 1
            else translate("SettingsDialog", " processor cores")
        )

    def _build_input_rows(self, form: QFormLayout, available: bool, reason: str) -> None:
        s = self._settings
        self.as_you_type_check = QCheckBox(translate("SettingsDialog", "Translate as you type"))
        self.as_you_type_check.setChecked(s.translate_as_you_type)
        form.addRow("", self.as_you_type_check)
        # Global shortcuts, one editor per action (settings_sections.ShortcutSection).
        self.shortcuts = ShortcutSection(s, form, available, reason, self)
        self.hotkey_check, self.hotkey_edit = self.shortcuts.check, self.shortcuts.edits["hotkey"]
        self.hotkey_status, self.replace_edit = self.shortcuts.states["hotkey"], self.shortcuts.edits["replace_hotkey"]
        if available:
            self.set_hotkey_status(
                reason or translate("SettingsDialog", "Default: {keys}").format(keys=Settings().hotkey)
            )
        self.tray_check = QCheckBox(
            translate("SettingsDialog", "Closing the window keeps desktop-mt running in the tray")
        )
        self.tray_check.setToolTip(
            translate(
                "SettingsDialog",
                "The hotkey and the tray icon keep working; quit with Ctrl+Q or "
                "the tray menu. Only where the desktop shows tray icons.",
            )
        )
        self.tray_check.setChecked(s.close_to_tray)
        form.addRow("", self.tray_check)
        self.primary_check = QCheckBox(
            translate("SettingsDialog", "Use the PRIMARY selection (X11: the text you selected)")
        )
        self.primary_check.setChecked(s.use_primary_selection)
        self.primary_check.setEnabled(QGuiApplication.clipboard().supportsSelection())
        form.addRow("", self.primary_check)
        self.hotkey_opens_combo = QComboBox()
        self.hotkey_opens_combo.addItem(translate("SettingsDialog", "the main window"), "window")
        self.hotkey_opens_combo.addItem(translate("SettingsDialog", "a small popup at the mouse pointer"), "popup")
        self.hotkey_opens_combo.setCurrentIndex(max(self.hotkey_opens_combo.findData(s.hotkey_opens), 0))
        form.addRow(translate("SettingsDialog", "The hotkey shows the translation in:"), self.hotkey_opens_combo)
        self.history_check = QCheckBox(translate("SettingsDialog", "Keep a history of translations (View > History)"))
        self.history_check.setToolTip(
            translate(
                "SettingsDialog", "Finished translations are kept on this computer only; off: nothing new is written."
            )
        )
        self.history_check.setChecked(s.keep_history)
        form.addRow("", self.history_check)

    def set_local_api_status(self, text: str, tone: str | None = "quiet") -> None:
        """Show the Local API's state ("Local API on http://127.0.0.1:5000", or why not) in
        ``tone`` (a theme tone; None or "": the normal text colour)."""
        self.local_api_rows.set_status(text, tone or None)

    def add_model_folder(self, folder: str) -> bool:
        """Validate ``folder`` and select it; on failure show the engine's message."""
        return self.models.add_model_folder(folder)

    # ---- result -------------------------------------------------------------------------
    def current_settings(self) -> Settings:
        """The settings as the dialog shows them now."""
        keys = self.shortcuts.values()
        return dataclasses.replace(
            self._settings,
            model_path=self.models.model_path(),
            variant=self.models.variant(),
            intra_op_threads=self.intra_spin.value(),
            max_output_length=self.max_length_spin.value(),
            beams=int(self.quality_combo.currentData()),
            script=check_script(str(self.script_combo.currentData() or SCRIPTS[0])),
            language=str(self.language_combo.currentData() or LANGUAGES[0]),
            translate_as_you_type=self.as_you_type_check.isChecked(),
            hotkey_enabled=self.hotkey_check.isChecked(),
            hotkey=keys["hotkey"] or self._settings.hotkey,  # "Translate clipboard" is never off alone
            selection_hotkey=keys["selection_hotkey"],
            region_hotkey=keys["region_hotkey"],
            show_hotkey=keys["show_hotkey"],
            replace_hotkey=keys["replace_hotkey"],
            selection_copy=self.shortcuts.copy_check.isChecked(),
            use_primary_selection=self.primary_check.isChecked(),
            close_to_tray=self.tray_check.isChecked(),
            hotkey_opens=str(self.hotkey_opens_combo.currentData() or "window"),
            keep_history=self.history_check.isChecked(),
            extra_model_dirs=list(self._settings.extra_model_dirs),
            local_api=self.local_api_check.isChecked(),
            local_api_port=self.local_api_port_spin.value(),
            local_api_key=self.local_api_key_edit.text().strip(),
        )

    def apply(self) -> None:
        """Emit ``applied`` with the current values (the glossary table and the models of the
        directions other than the window's are saved first)."""
        self.models_saved = self.models.save_other_directions()
        self.glossary_saved = self.glossary_editor.save()
        self.applied.emit(self.current_settings())

    def _ok(self) -> None:
        self.apply()
        if self.glossary_saved and self.models_saved:  # else the dialog stays open, saying what is wrong
            self.accept()

    def set_hotkey_status(self, text: str) -> None:
        """Show the result of registering the clipboard shortcut (after Apply)."""
        self.hotkey_status.setText(text)
        self.hotkey_status.setVisible(bool(text))
        theme.set_tone(self.hotkey_status, _hotkey_tone(text, self.hotkey_check.isEnabled()))

    def set_shortcut_states(self, states: dict[str, str]) -> None:
        """Show each global shortcut's real state (field -> ``shortcuts.state`` text)."""
        self.shortcuts.set_states({field: text for field, text in states.items() if field != "hotkey"})
        if "hotkey" in states:
            self.set_hotkey_status(states["hotkey"])

    def _refuse_while_conflicting(self, conflicting: bool) -> None:
        """Two actions with the same keys: OK and Apply wait until one is changed."""
        for which in (QDialogButtonBox.StandardButton.Ok, QDialogButtonBox.StandardButton.Apply):
            self.buttons.button(which).setEnabled(not conflicting)


def _threads_fixed_note() -> str:
    """Where the window's sessions share one thread pool (``engine.runtime.share_thread_pool``:
    the ``desktop-mt`` command), its size was fixed at start: say when a change takes effect."""
    from ...engine.runtime import shared_thread_pool  # onnxruntime: loaded with the model already

    return (
        translate("SettingsDialog", " A change takes effect when desktop-mt starts again.")
        if shared_thread_pool() is not None
        else ""
    )
