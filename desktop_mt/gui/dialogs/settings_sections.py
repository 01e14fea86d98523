"""Sections of the settings dialog, each building its rows into the dialog's form and
reading its values back: :class:`ModelSection` (which model, added model folders, precision),
:class:`LocalApiSection` (the HTTP server the app can run for other programs) and
:class:`ShortcutSection` (the global shortcuts). The dialog
(:class:`~desktop_mt.gui.dialogs.settings_dialog.SettingsDialog`) keeps their widgets under its own
names and builds the other rows itself."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_mt.app import settings as app_settings
from desktop_mt.engine.direction import DIRECTIONS, EN_ZH, Direction
from desktop_mt.engine.model_format import Variant, check_variant
from desktop_mt.models import install

from .. import paths
from ..features import models, shortcuts
from ..i18n import QT_TRANSLATE_NOOP, translate
from ..messages import direction_title
from ..settings import VARIANTS, Settings
from ..window import theme
from . import folder_adding
from .folder_adding import FolderAdder

__all__ = [
    "LocalApiSection",
    "ModelSection",
    "ShortcutSection",
    "spin",
]


_logger = logging.getLogger(__name__)
# The precision choice in a translator's words; the data of each entry stays the variant name.
_VARIANT_LABELS = {
    "int8": QT_TRANSLATE_NOOP("SettingsSections", "faster (int8)"),
    "fp32": QT_TRANSLATE_NOOP("SettingsSections", "exact (fp32)"),
}


def spin(lo: int, hi: int, value: int, special: str = "", suffix: str = "") -> QSpinBox:
    """A spin box from ``lo`` to ``hi``; ``special`` is shown instead of the minimum (0 = auto)."""
    box = QSpinBox()
    box.setRange(lo, hi)
    box.setSpecialValueText(special)
    box.setSuffix(suffix)
    box.setValue(value)
    return box


class _WheelGuard(QObject):
    """The mouse wheel over the Settings page scrolls it and never changes a choice it passes
    over (it switched "Chinese script" to Traditional HK while scrolling): a combo box or spin
    box of ``dialog`` takes the wheel only once it has the keyboard focus (a click, Tab); until
    then its wheel goes to the scroll area around it. One filter on the application (removed
    with ``dialog``), so the dialog's boxes built after it are guarded too."""

    def __init__(self, dialog: QWidget) -> None:
        super().__init__(dialog)
        self.dialog = dialog
        app = QCoreApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            event.type() != QEvent.Type.Wheel
            or not isinstance(obj, (QComboBox, QAbstractSpinBox))
            or obj.hasFocus()
            or obj.window() is not self.dialog
        ):
            return False
        area = _scroll_area_of(obj)
        if area is not None:
            QCoreApplication.sendEvent(area.viewport(), event)
        return True


def _scroll_area_of(widget: QWidget) -> QAbstractScrollArea | None:
    """The nearest scroll area ``widget`` is inside (a combo box's own list is not one)."""
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractScrollArea):
        parent = parent.parentWidget()
    return parent


class ModelSection:
    """Models: one row per direction (English -> Chinese, Chinese -> English), each offering
    the models of that direction (the bundled demo of it, the models folder, folders added
    here), "Add model folder…" (checked before it is offered, then chosen in its direction's
    row), and the precision the chosen models have. ``settings`` is the dialog's copy: an
    added folder in our layout goes into its ``extra_model_dirs``; one in a downloaded layout
    is installed into the models folder (``FolderAdder``) and listed from there. The English
    -> Chinese choice is the window's ``model_path``; the other direction's is saved as its
    active model by :meth:`save_other_directions` (``app.settings.set_active``, as the Models
    dialog does)."""

    def __init__(self, settings: Settings, form: QFormLayout, owner: QWidget) -> None:
        self.settings = settings
        self.owner = owner  # the folder dialog's parent
        self.wheel_guard = _WheelGuard(owner)  # the wheel scrolls the page, never changes a choice
        self.choices: dict[str, list[models.ModelChoice]] = {d: [] for d in DIRECTIONS}
        self.model_combos = {d: QComboBox() for d in DIRECTIONS}
        self.model_combo = self.model_combos[EN_ZH]  # the window's model (``model_path``)
        self._initial: dict[Direction, str] = {}  # each direction's model when the dialog opened
        for combo in self.model_combos.values():
            combo.currentIndexChanged.connect(lambda _i: self._on_model_changed())
        self.add_model_button = QPushButton(translate("SettingsSections", "Add model folder…"))
        self.add_model_button.clicked.connect(self._browse_model_folder)
        self.adder = FolderAdder(owner)  # a folder in a downloaded layout: installed and converted
        self.adder.added.connect(self._on_folder_added)
        self.adder.failed.connect(self._on_folder_failed)
        for way in DIRECTIONS:
            row = QHBoxLayout()
            row.addWidget(self.model_combos[way], 1)
            if way == EN_ZH:
                row.addWidget(self.add_model_button)
            form.addRow(
                translate("SettingsSections", "{direction}:").format(direction=direction_title(way)),
                row,
            )
        self.model_error = QLabel("")
        self.model_error.setWordWrap(True)
        theme.set_tone(self.model_error, "error")
        self.model_error.hide()
        form.addRow("", self.model_error)
        # An add started from an earlier Settings dialog: this one gets no word of its end.
        running, unseen = folder_adding.adds_running(), folder_adding.take_unseen()
        if running:
            self._say(self._still_adding(running), "quiet")
        elif unseen is not None:  # it ended while no Settings dialog was open
            self._say(*unseen)
        hint = QLabel(
            translate(
                "SettingsSections", "Models placed in {folder} are listed too (File > Models… downloads more)."
            ).format(folder=paths.user_models_dir())
        )
        hint.setWordWrap(True)
        form.addRow("", hint)
        self.variant_combo = QComboBox()
        self.variant_combo.setToolTip(
            translate(
                "SettingsSections",
                "Faster (int8): compressed weights, about twice as fast on most CPUs, output very close "
                "to exact. Exact (fp32): the model's full-precision weights, slower, twice the memory.",
            )
        )
        form.addRow(translate("SettingsSections", "Model precision:"), self.variant_combo)

    def reload(self, select: str) -> None:
        """List the models again, each in its direction's row, and select ``select`` ("" =
        bundled) in its direction's row; the other row keeps its choice (at first: the active
        model of its direction). A configured model that vanished is still shown (loading it
        then explains the problem)."""
        first = not self._initial
        selected = self._active_folders() if first else {way: self.model_for(way) for way in DIRECTIONS}
        way_of_select = app_settings.folder_direction(select)
        selected[way_of_select if way_of_select in selected else EN_ZH] = select
        if first:
            self._initial = dict(selected)
        self.choices = _direction_choices(self.settings.extra_model_dirs)
        for way, combo in self.model_combos.items():
            combo.blockSignals(True)
            combo.clear()
            for choice in self.choices[way]:
                combo.addItem(choice.label, choice.path)
            paths_ = [c.path for c in self.choices[way]]
            wanted = selected.get(way, "")
            if wanted not in paths_:
                combo.addItem(
                    translate("SettingsSections", "{name} (not found)").format(name=Path(wanted).name), wanted
                )
                self.choices[way].append(models.ModelChoice(wanted, wanted))
                paths_.append(wanted)
            combo.setCurrentIndex(paths_.index(wanted))
            combo.blockSignals(False)
        self._on_model_changed()

    def _active_folders(self) -> dict[Direction, str]:
        """Each direction's model as the dialog opens: the window's for English -> Chinese (set
        by :meth:`reload`), the saved active model for the others ("" = bundled)."""
        try:
            active = app_settings.active_models()
        except Exception as exc:  # noqa: BLE001 - a broken file: the bundled models are offered
            _logger.warning("active models unreadable: %s", type(exc).__name__)
            active = {}
        return {way: app_settings.model_folder(active.get(way, "")) for way in DIRECTIONS}

    def _on_model_changed(self) -> None:
        chosen = [
            self.choices[way][combo.currentIndex()]
            for way, combo in self.model_combos.items()
            if 0 <= combo.currentIndex() < len(self.choices[way])
        ]
        offered = [v for v in VARIANTS if all(v in c.variants for c in chosen)] or list(VARIANTS)
        wanted = self.variant_combo.currentData() or self.settings.variant
        self.variant_combo.clear()
        for variant in offered:
            self.variant_combo.addItem(translate("SettingsSections", _VARIANT_LABELS.get(variant, variant)), variant)
        i = self.variant_combo.findData(wanted)
        self.variant_combo.setCurrentIndex(max(i, 0))

    def _browse_model_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self.owner, translate("SettingsSections", "Choose an exported model folder")
        )
        if folder:
            self.add_model_folder(folder)

    def add_model_folder(self, folder: str) -> bool:
        """Validate ``folder`` and select it in its direction's row; on failure show the
        engine's message. A Marian in a downloaded layout (Optimum, transformers.js) is
        installed into the models folder and converted to the fast layout first, as a catalog
        download is (in the background; the row selects it when it is ready)."""
        try:
            # A Marian checkpoint (config.json + model.safetensors) has no ONNX files to inspect yet.
            convert = install.needs_install(Path(folder))
            if not convert:
                models.inspect(folder)
        except Exception as exc:  # noqa: BLE001 - ModelNotFoundError/ModelFormatError mostly
            self._say(
                translate("SettingsSections", "Cannot use {folder}: {error}").format(folder=folder, error=exc), "error"
            )
            return False
        if convert:
            return self._install(Path(folder))
        self.model_error.hide()
        folder = str(Path(folder))
        if folder not in self.settings.extra_model_dirs:
            self.settings.extra_model_dirs.append(folder)
        self.reload(select=folder)
        return True

    def _install(self, folder: Path) -> bool:
        """Start installing ``folder`` (see :meth:`add_model_folder`); one made from it earlier
        is selected instead."""
        root = paths.user_models_dir()
        earlier = install.added_before(folder, root)
        if earlier is not None:
            self.reload(select=str(earlier))
            refused = install.conversion_refused(earlier)
            if refused:
                self._say(
                    translate(
                        "SettingsSections",
                        "{folder} was added before, as {model} (selected), kept in its downloaded "
                        "layout (slower): the fast layout could not be built ({why}).",
                    ).format(folder=folder.name, model=earlier.name, why=refused),
                    "warning",
                )
            else:
                self._say(
                    translate("SettingsSections", "{folder} was added before, as {model}: selected it.").format(
                        folder=folder.name, model=earlier.name
                    ),
                    "quiet",
                )
            return True
        # One add at a time in the whole app: an add started from an earlier Settings dialog
        # outlives it, and a second add of the same folder would get the same target.
        running = folder_adding.adds_running()
        if running or not self.adder.start(folder, install.free_target(root, folder.name)):
            self._say(self._still_adding(running), "warning")
            return False
        self.add_model_button.setEnabled(False)
        self._say(
            translate(
                "SettingsSections",
                "Adding {folder}: building its fast int8 layout from the fp32 weights (about a minute "
                "for a full-size model) into {root}. It is selected here when ready; if you close this "
                "dialog meanwhile, it is listed the next time you open Settings.",
            ).format(folder=folder.name, root=root),
            "quiet",
        )
        return True

    @staticmethod
    def _still_adding(running: list[str]) -> str:
        """What the row says while another add runs (``running``: its folder names, if known)."""
        what = ", ".join(running) or translate("SettingsSections", "The previous model folder")
        return translate(
            "SettingsSections",
            "{what} is still being added. Add another folder when it is done; open Settings again "
            "then to choose the model it makes (or to see why it could not be added).",
        ).format(what=what)

    def _on_folder_added(self, folder: str, installed: str) -> None:
        self.add_model_button.setEnabled(True)
        self.model_error.hide()
        used_in_place = installed == folder  # the converter did not apply after all
        if used_in_place and folder not in self.settings.extra_model_dirs:
            self.settings.extra_model_dirs.append(folder)
        self.reload(select=installed)
        refused = None if used_in_place else install.conversion_refused(Path(installed))
        if refused:
            _logger.warning("model folder %s added as %s without conversion: %s", folder, installed, refused)
            self._say(
                translate(
                    "SettingsSections",
                    "Added {folder}, kept in its downloaded layout (slower): the fast layout "
                    "could not be built ({why}).",
                ).format(folder=Path(folder).name, why=refused),
                "warning",
            )
        else:
            _logger.info("model folder %s added as %s", folder, installed)
        if not self.owner.isVisible():  # the dialog was closed meanwhile: the next one says it
            slow = translate("SettingsSections", " (kept in its downloaded layout: slower)") if refused else ""
            folder_adding.keep_unseen(
                translate(
                    "SettingsSections",
                    "{folder} was added as the model {model}{slow}: choose it in its direction's row.",
                ).format(folder=Path(folder).name, model=Path(installed).name, slow=slow),
                "warning" if refused else "quiet",
            )

    def _on_folder_failed(self, folder: str, message: str) -> None:
        self.add_model_button.setEnabled(True)
        _logger.warning("model folder %s not added: %s", folder, message)
        self._say(message, "error")
        if not self.owner.isVisible():  # the dialog was closed meanwhile: the next one says it
            folder_adding.keep_unseen(message, "error")

    def _say(self, text: str, tone: str) -> None:
        self.model_error.setText(text)
        theme.set_tone(self.model_error, tone)
        self.model_error.show()

    def model_for(self, way: Direction) -> str:
        """The model chosen for direction ``way`` ("" = bundled)."""
        return str(self.model_combos[way].currentData() or "")

    def model_path(self) -> str:
        """The chosen English -> Chinese model's folder ("" = bundled): the window's model."""
        return self.model_for(EN_ZH)

    def save_other_directions(self) -> bool:
        """Make the choice of each direction but English -> Chinese (which goes with the window's
        settings) its active model, where it changed; False (and the row says why) when the
        model cannot be used for it."""
        for way in DIRECTIONS:
            chosen = self.model_for(way)
            if way == EN_ZH or chosen == self._initial.get(way, ""):
                continue
            try:
                app_settings.set_active(chosen, way)
            except Exception as exc:  # noqa: BLE001 - DesktopMTError/OSError: said in the dialog
                self._say(
                    translate("SettingsSections", "Cannot use {name} for {direction}: {error}").format(
                        name=Path(chosen).name, direction=direction_title(way), error=exc
                    ),
                    "error",
                )
                return False
            self._initial[way] = chosen
        return True

    def variant(self) -> Variant:
        """The chosen precision."""
        return check_variant(str(self.variant_combo.currentData() or VARIANTS[0]))


def _direction_choices(extra_dirs: list[str]) -> dict[str, list[models.ModelChoice]]:
    """The models each direction's row offers: its bundled demo first (the Models dialog's
    list, ``StoreBackend.installed``), then the models folder and the added folders of that
    direction (``models.available_models``). A folder whose direction cannot be read now is
    offered for English -> Chinese, the one row there used to be (loading it says why)."""
    out: dict[str, list[models.ModelChoice]] = {way: [] for way in DIRECTIONS}
    listed = models.available_models(extra_dirs)
    bundled = next((c for c in listed if not c.path), models.ModelChoice("", translate("Models", "Bundled model")))
    try:
        demos = {item.direction: item for item in models.StoreBackend().installed() if item.demo}
    except Exception as exc:  # noqa: BLE001 - a broken models folder still lists the bundled model
        _logger.warning("models unreadable: %s", type(exc).__name__)
        demos = {}
    for way in DIRECTIONS:
        demo = demos.get(way)
        if way == EN_ZH:
            out[way].append(bundled)
        elif demo is not None:
            label = translate("Models", "Bundled: {model}").format(model=f"{demo.name} ({demo.languages})")
            out[way].append(models.ModelChoice("", label, demo.variants))
        else:
            out[way].append(
                models.ModelChoice("", translate("SettingsSections", "None bundled (File > Models… downloads one)"))
            )
    for choice in listed:
        if choice.path:
            way = app_settings.folder_direction(choice.path) or EN_ZH
            out[way if way in out else EN_ZH].append(choice)
    return out


class LocalApiSection:
    """The Local API: the app serves its model over HTTP on this computer only (on/off, port,
    key, and a state line that ``desktop_mt.gui.features.local_api`` fills in while the dialog is open)."""

    def __init__(self, settings: Settings, form: QFormLayout) -> None:
        self.check = QCheckBox(
            translate("SettingsSections", "Local API (for Pot, Easydict, Bob, browser extensions...)")
        )
        self.check.setToolTip(
            translate(
                "SettingsSections",
                "Serve this model to other programs on this computer: "
                "LibreTranslate, DeepL, DeepLX and OpenAI-compatible "
                "requests on http://127.0.0.1 (never the network). "
                "Uses a second copy of the model in memory.",
            )
        )
        self.check.setChecked(settings.local_api)
        form.addRow("", self.check)
        self.port_spin = spin(1, 65535, settings.local_api_port)
        self.port_spin.setGroupSeparatorShown(False)  # 5000, not 5,000
        form.addRow(translate("SettingsSections", "Local API port:"), self.port_spin)
        self.key_edit = QLineEdit(settings.local_api_key)
        self.key_edit.setPlaceholderText(translate("SettingsSections", "optional: programs must then send this key"))
        self.key_edit.setClearButtonEnabled(True)
        form.addRow(translate("SettingsSections", "Local API key:"), self.key_edit)
        self.status = QLabel(translate("SettingsSections", "Off.") if not settings.local_api else "")
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


class ShortcutSection(QObject):
    """Global shortcuts: "Global shortcuts on" and, per action of :data:`shortcuts.ACTIONS`, a
    key-sequence editor (one chord; cleared = off, except "Translate clipboard") with its real
    state under it. Two actions with the same keys are refused while the dialog shows them
    (``conflicts`` says which; the dialog disables OK and Apply). ``available``/``reason``: whether
    this session can register shortcuts at all, and why not (the editors are then disabled)."""

    conflictsChanged = Signal(bool)

    def __init__(
        self, settings: Settings, form: QFormLayout, available: bool, reason: str, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.check = QCheckBox(translate("SettingsSections", "Global shortcuts (from any application)"))
        self.check.setChecked(settings.hotkey_enabled)
        self.check.setEnabled(available)
        form.addRow(self.check)
        self.edits: dict[str, QKeySequenceEdit] = {}
        self.states: dict[str, QLabel] = {}
        for action in shortcuts.ACTIONS:
            edit = QKeySequenceEdit(QKeySequence.fromString(getattr(settings, action.field)))
            edit.setMaximumSequenceLength(1)
            edit.setClearButtonEnabled(action.field != "hotkey")  # the clipboard one is always there
            edit.setToolTip(
                action.tooltip + ("" if action.field == "hotkey" else translate("SettingsSections", " Empty: off."))
            )
            edit.setEnabled(available)
            edit.keySequenceChanged.connect(self._check_conflicts)
            status = QLabel(reason if not available else "")
            status.setWordWrap(True)
            status.setVisible(bool(status.text()))
            theme.set_tone(status, None if available else "warning")
            box = QWidget()
            rows = QVBoxLayout(box)
            rows.setContentsMargins(0, 0, 0, 0)
            rows.addWidget(edit)
            rows.addWidget(status)
            form.addRow(translate("SettingsSections", "{action}:").format(action=action.label), box)
            self.edits[action.field], self.states[action.field] = edit, status
        # Where the platform keeps no PRIMARY selection, "Translate selection" can copy it.
        # A short label (the dialog must fit a small screen in either language); the how in its tooltip.
        self.copy_check = QCheckBox(
            translate("SettingsSections", "Translate selection copies the selected text for you")
        )
        self.copy_check.setToolTip(
            translate(
                "SettingsSections",
                "Presses Ctrl+C / Cmd+C in the application in front, then puts your clipboard back; "
                "off: Translate selection translates the clipboard.",
            )
        )
        self.copy_check.setChecked(settings.selection_copy)
        no_primary = not QGuiApplication.clipboard().supportsSelection()
        self.copy_check.setEnabled(available and no_primary)
        form.addRow(self.copy_check)
        if not no_primary:  # X11 reads the PRIMARY selection: nothing to choose
            self.copy_check.hide()
        self.conflict_label = QLabel()
        self.conflict_label.setWordWrap(True)
        theme.set_tone(self.conflict_label, "error")
        self.conflict_label.hide()
        form.addRow(self.conflict_label)
        self.conflicts: dict[str, str] = {}

    def values(self) -> dict[str, str]:
        """Field -> the shortcut's text as the editors show it ("" = off)."""
        return {
            field: edit.keySequence().toString(QKeySequence.SequenceFormat.PortableText)
            for field, edit in self.edits.items()
        }

    def _check_conflicts(self) -> None:
        self.conflicts = shortcuts.conflicts(self.values())
        self.conflict_label.setText("\n".join(dict.fromkeys(self.conflicts.values())))
        self.conflict_label.setVisible(bool(self.conflicts))
        self.conflictsChanged.emit(bool(self.conflicts))

    def set_states(self, states: dict[str, str]) -> None:
        """Show each shortcut's state (field -> text from ``shortcuts.state``); an error tone
        for one that is not active although it is set."""
        for field, text in states.items():
            label = self.states.get(field)
            if label is None:
                continue
            label.setText(text)
            label.setVisible(bool(text))
            theme.set_tone(label, shortcuts.tone_of(text))  # by its kind: the words are translated
