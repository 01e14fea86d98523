"""Two sections of the settings dialog, each building its rows into the dialog's form and
reading its values back: :class:`ModelSection` (which model, added model folders, precision)
and :class:`LocalApiSection` (the HTTP server the app can run for other programs). The dialog
(:class:`~desktop_mt.gui.settings_dialog.SettingsDialog`) keeps their widgets under its own
names and builds the other rows itself."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from . import models, paths, theme
from .settings import VARIANTS, Settings

# The precision choice in a translator's words; the data of each entry stays the variant name.
VARIANT_LABELS = {"int8": "faster (int8)", "fp32": "exact (fp32)"}


def spin(lo: int, hi: int, value: int, special: str = "", suffix: str = "") -> QSpinBox:
    """A spin box from ``lo`` to ``hi``; ``special`` is shown instead of the minimum (0 = auto)."""
    box = QSpinBox()
    box.setRange(lo, hi)
    box.setSpecialValueText(special)
    box.setSuffix(suffix)
    box.setValue(value)
    return box


class ModelSection:
    """Model: the models on offer (bundled, the models folder, folders added here), "Add model
    folder…" (checked before it is offered), and the precision the chosen model has.
    ``settings`` is the dialog's copy: an added folder goes into its ``extra_model_dirs``."""

    def __init__(self, settings: Settings, form: QFormLayout, owner: QWidget) -> None:
        self.settings = settings
        self.owner = owner  # the folder dialog's parent
        self.choices: list[models.ModelChoice] = []
        self.model_combo = QComboBox()
        self.model_combo.currentIndexChanged.connect(self._on_model_changed)
        self.add_model_button = QPushButton("Add model folder…")
        self.add_model_button.clicked.connect(self._browse_model_folder)
        row = QHBoxLayout()
        row.addWidget(self.model_combo, 1)
        row.addWidget(self.add_model_button)
        form.addRow("Model:", row)
        self.model_error = QLabel("")
        self.model_error.setWordWrap(True)
        theme.set_tone(self.model_error, "error")
        self.model_error.hide()
        form.addRow("", self.model_error)
        hint = QLabel(f"Models placed in {paths.user_models_dir()} are listed too.")
        hint.setWordWrap(True)
        form.addRow("", hint)
        self.variant_combo = QComboBox()
        self.variant_combo.setToolTip(
            "Faster (int8): compressed weights, about twice as fast on most CPUs, output very close "
            "to exact. Exact (fp32): the model's full-precision weights, slower, twice the memory."
        )
        form.addRow("Model precision:", self.variant_combo)

    def reload(self, select: str) -> None:
        """List the models again and select the one in ``select`` ("" = bundled); a configured
        model that vanished is still shown (loading it then explains the problem)."""
        self.choices = models.available_models(self.settings.extra_model_dirs)
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        for choice in self.choices:
            self.model_combo.addItem(choice.label, choice.path)
        paths_ = [c.path for c in self.choices]
        if select not in paths_:
            self.model_combo.addItem(f"{Path(select).name} (not found)", select)
            self.choices.append(models.ModelChoice(select, select))
            paths_.append(select)
        self.model_combo.setCurrentIndex(paths_.index(select))
        self.model_combo.blockSignals(False)
        self._on_model_changed(self.model_combo.currentIndex())

    def _on_model_changed(self, index: int) -> None:
        variants = self.choices[index].variants if 0 <= index < len(self.choices) else VARIANTS
        wanted = self.variant_combo.currentData() or self.settings.variant
        self.variant_combo.clear()
        for variant in [v for v in VARIANTS if v in variants] or list(VARIANTS):
            self.variant_combo.addItem(VARIANT_LABELS.get(variant, variant), variant)
        i = self.variant_combo.findData(wanted)
        self.variant_combo.setCurrentIndex(max(i, 0))

    def _browse_model_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.owner, "Choose an exported model folder")
        if folder:
            self.add_model_folder(folder)

    def add_model_folder(self, folder: str) -> bool:
        """Validate ``folder`` and select it; on failure show the engine's message."""
        try:
            models.inspect(folder)
        except Exception as exc:  # noqa: BLE001 - ModelNotFoundError/ModelFormatError mostly
            self.model_error.setText(f"Cannot use {folder}: {exc}")
            self.model_error.show()
            return False
        self.model_error.hide()
        folder = str(Path(folder))
        if folder not in self.settings.extra_model_dirs:
            self.settings.extra_model_dirs.append(folder)
        self.reload(select=folder)
        return True

    def model_path(self) -> str:
        """The chosen model's folder ("" = bundled)."""
        return str(self.model_combo.currentData() or "")

    def variant(self) -> str:
        """The chosen precision."""
        return str(self.variant_combo.currentData() or "int8")


class LocalApiSection:
    """The Local API: the app serves its model over HTTP on this computer only (on/off, port,
    key, and a state line that ``desktop_mt.gui.local_api`` fills in while the dialog is open)."""

    def __init__(self, settings: Settings, form: QFormLayout) -> None:
        self.check = QCheckBox("Local API (for Pot, Easydict, Bob, browser extensions...)")
        self.check.setToolTip(
            "Serve this model to other programs on this computer: "
            "LibreTranslate, DeepL, DeepLX and OpenAI-compatible "
            "requests on http://127.0.0.1 (never the network). "
            "Uses a second copy of the model in memory."
        )
        self.check.setChecked(settings.local_api)
        form.addRow("", self.check)
        self.port_spin = spin(1, 65535, settings.local_api_port)
        self.port_spin.setGroupSeparatorShown(False)  # 5000, not 5,000
        form.addRow("Local API port:", self.port_spin)
        self.key_edit = QLineEdit(settings.local_api_key)
        self.key_edit.setPlaceholderText("optional: programs must then send this key")
        self.key_edit.setClearButtonEnabled(True)
        form.addRow("Local API key:", self.key_edit)
        self.status = QLabel("Off." if not settings.local_api else "")
        self.status.setWordWrap(True)
        theme.set_tone(self.status, "quiet")
        form.addRow("", self.status)
        self.check.toggled.connect(self._enable_rows)
        self._enable_rows(settings.local_api)

    def _enable_rows(self, on: bool) -> None:
        # Port and key only mean something while the server is wanted.
        self.port_spin.setEnabled(on)
        self.key_edit.setEnabled(on)

    def set_status(self, text: str, tone: str | None = "quiet") -> None:
        """Show the Local API's state ("Local API on http://127.0.0.1:5000", or why not)."""
        self.status.setText(text)
        theme.set_tone(self.status, tone)
