"""The Models dialog, the download worker and the demo-model line of the window."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from desktop_mt.base.errors import DesktopMTError, DownloadCancelled
from desktop_mt.engine.model_format import bundled_model_dir
from desktop_mt.gui.dialogs.models_dialog import ModelsDialog, merge_rows
from desktop_mt.gui.features.models import CatalogItem, InstalledItem
from desktop_mt.gui.workers.downloads import format_bytes, progress_text
from desktop_mt.models import DownloadProgress

MB = 1_000_000
REAL = "opus-mt-en-zh"
REAL_ZH_EN = "opus-mt-zh-en"
DEMO = "tatoeba-en-zh-small"


class FakeBackend:
    """A scripted ModelsBackend. A download reports a quarter of the bytes, then waits
    until the test releases it (or cancels it), then reports the rest and 'installs' a
    folder under ``root``. ``fail_with`` makes it raise after the first report instead."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.total = 80 * MB
        self.release = threading.Event()
        self.fail_with: Exception | None = None
        self.calls: list[tuple[str, str]] = []
        self.thread_ids: list[int] = []
        self.removed: list[str] = []
        self.mirror = ""
        self.active: dict[str, str] = {"en-zh": "", "zh-en": ""}
        demo = InstalledItem(
            DEMO,
            str(bundled_model_dir()),
            "en→zh",
            ("int8", "fp32"),
            50 * MB,
            demo=True,
            removable=False,
            direction="en-zh",
        )
        self._installed = {DEMO: demo}

    def catalog(self):
        sizes = {"int8": 80 * MB, "fp32": 310 * MB}
        return [
            CatalogItem(REAL, "en→zh", "CC-BY 4.0", "Helsinki-NLP opus-mt-en-zh (OPUS-MT)", sizes, direction="en-zh"),
            CatalogItem(
                REAL_ZH_EN, "zh→en", "CC-BY 4.0", "Helsinki-NLP opus-mt-zh-en (OPUS-MT)", sizes, direction="zh-en"
            ),
        ]

    def installed(self):
        return list(self._installed.values())

    def endpoint(self):
        return self.mirror or "https://hub.example"

    def endpoint_setting(self):
        return self.mirror

    def set_endpoint_setting(self, url):
        if url and not url.startswith("https://"):
            raise DesktopMTError(f"endpoint {url!r} must start with https://")
        self.mirror = url

    def direction_of(self, path):
        return next((i.direction for i in self._installed.values() if i.path == path), "en-zh")

    def set_active(self, name_or_path):
        self.active[self.direction_of(name_or_path) if name_or_path else "en-zh"] = name_or_path

    def active_folders(self):
        return {d: (None if v and not Path(v).is_dir() else v) for d, v in self.active.items()}

    def download(self, name, variant, progress, cancel):
        self.calls.append((name, variant))
        self.thread_ids.append(threading.get_ident())
        progress(DownloadProgress("listing"))
        progress(DownloadProgress("downloading", self.total // 4, self.total, "onnx/encoder.onnx", 4 * MB))
        if self.fail_with is not None:
            raise self.fail_with
        while not self.release.is_set():
            if cancel.wait(0.005):
                raise DownloadCancelled(f"download of {name} cancelled")
        progress(DownloadProgress("installing", self.total, self.total))
        folder = self.root / name
        folder.mkdir(parents=True)
        direction = "zh-en" if name == REAL_ZH_EN else "en-zh"
        self._installed[name] = InstalledItem(
            name, str(folder), direction.replace("-", "→"), (variant,), self.total, direction=direction
        )
        return folder

    def remove(self, name):
        if not self._installed[name].removable:
            raise DesktopMTError(f"{name} is bundled with the app and cannot be removed.")
        self.removed.append(name)
        del self._installed[name]


@pytest.fixture
def backend(tmp_path):
    return FakeBackend(tmp_path / "models")


@pytest.fixture
def dialog(qtbot, backend):
    made = ModelsDialog(backend)
    qtbot.addWidget(made)
    yield made
    made.backend.release.set()
    assert made.shutdown()


def start_and_wait_progress(qtbot, dialog, name=REAL, variant="int8"):
    """Start a download and wait for its first byte report."""
    dialog.select(name)
    dialog.variant_combo.setCurrentIndex(dialog.variant_combo.findData(variant))
    with qtbot.waitSignal(
        dialog.progressShown, timeout=10_000, check_params_cb=lambda report: report.phase == "downloading"
    ):
        assert dialog.start_download()


# ---- pure helpers -----------------------------------------------------------------------------


def en_zh_label(window) -> str:
    """The status bar's English->Chinese model and variant ("name · variant"), whether the label
    names that direction's model alone or both directions' ("EN→ZH a · ZH→EN b · variant")."""
    text = window.model_label.text()
    if not text.startswith("EN→ZH "):
        return text
    name = text.removeprefix("EN→ZH ").split(" · ")[0]
    return f"{name} · {text.rsplit(' · ', 1)[-1]}"


def test_progress_text_and_sizes():
    assert format_bytes(999) == "999 B" and format_bytes(81_234_567) == "81.2 MB"
    assert format_bytes(3_100_000_000) == "3.10 GB"
    assert progress_text(20 * MB, 80 * MB, 4 * MB) == "20.0 MB of 80.0 MB · 4.0 MB/s · 15 s left"
    assert progress_text(20 * MB, 0, 0.0) == "20.0 MB"


def test_merge_rows_puts_catalog_first_and_keeps_local_models(backend):
    extra = InstalledItem("my-export", "/m/my-export", "en→zh", ("fp32",), MB)
    rows = merge_rows(backend.catalog(), [*backend.installed(), extra])
    assert [(r.name, r.catalog is not None, r.installed is not None) for r in rows] == [
        (REAL, True, False),
        (REAL_ZH_EN, True, False),
        (DEMO, False, True),
        ("my-export", False, True),
    ]


# ---- dialog states ----------------------------------------------------------------------------
def test_models_are_grouped_by_direction(dialog):
    assert [dialog.table.topLevelItem(i).text(0) for i in range(dialog.table.topLevelItemCount())] == [
        "English → Chinese",
        "Chinese → English",
    ]
    assert dialog.group_of(REAL) == dialog.group_of(DEMO) == "en-zh" and dialog.group_of(REAL_ZH_EN) == "zh-en"


def test_the_active_model_is_chosen_per_direction(qtbot, dialog, backend):
    for name in (REAL, REAL_ZH_EN):
        start_and_wait_progress(qtbot, dialog, name=name)
        with qtbot.waitSignal(dialog.downloadEnded, timeout=10_000):
            backend.release.set()
        backend.release.clear()
    dialog.select(REAL_ZH_EN)
    assert dialog.use_button.text() == "Use for Chinese → English" and dialog.use_button.isEnabled()
    backend.set_active(str(backend.root / REAL_ZH_EN))  # what ModelsHub.activate records
    dialog.refresh()
    assert dialog.status_text(REAL_ZH_EN) == "Active (int8)"
    assert dialog.status_text(DEMO) == "Active (int8, fp32)"  # English->Chinese is still the demo
    assert dialog.status_text(REAL) == "Installed (int8)"
    dialog.select(REAL)
    assert dialog.use_button.text() == "Use for English → Chinese"
    backend.set_active(str(backend.root / REAL))
    dialog.refresh()
    assert dialog.status_text(REAL) == "Active (int8)" and dialog.status_text(DEMO) == "Installed (int8, fp32)"
    assert dialog.status_text(REAL_ZH_EN) == "Active (int8)"


def test_idle_dialog_lists_catalog_and_installed(dialog):
    assert dialog.state() == "idle"
    assert dialog.status_text(REAL) == "Not installed"
    assert dialog.status_text(DEMO) == "Active (int8, fp32)"
    dialog.select(REAL)
    assert dialog.download_button.isEnabled() and not dialog.use_button.isEnabled()
    assert [dialog.variant_combo.itemData(i) for i in range(dialog.variant_combo.count())] == ["int8", "fp32"]
    item = dialog.table.currentItem()
    assert item.text(2) == "int8 ~80 MB, fp32 ~310 MB" and item.text(3) == "CC-BY 4.0"
    dialog.select(DEMO)
    assert not dialog.download_button.isEnabled() and not dialog.remove_button.isEnabled()
    assert "demo" in dialog.details.text()


def test_download_shows_progress_and_speed_then_installs(qtbot, dialog, backend):
    start_and_wait_progress(qtbot, dialog, variant="fp32")
    assert dialog.state() == "downloading"
    assert dialog.status_text(REAL) == "Downloading…"
    assert dialog.progress_bar.isVisibleTo(dialog) and dialog.cancel_button.isEnabled()
    assert dialog.progress_bar.value() == 250
    assert dialog.progress_label.text() == "20.0 MB of 80.0 MB · 4.0 MB/s · 15 s left"
    assert not dialog.download_button.isEnabled()
    assert backend.thread_ids[0] != threading.get_ident()  # off the UI thread
    with qtbot.waitSignal(dialog.downloadEnded, timeout=10_000) as ended:
        backend.release.set()
    assert ended.args == ["installed"] and dialog.state() == "installed"
    assert backend.calls == [(REAL, "fp32")]
    assert dialog.status_text(REAL) == "Installed (fp32)"
    assert not dialog.progress_bar.isVisibleTo(dialog)
    dialog.select(REAL)
    assert dialog.use_button.isEnabled() and dialog.remove_button.isEnabled()


def test_cancel_stops_the_download_and_returns_to_not_installed(qtbot, dialog, backend):
    start_and_wait_progress(qtbot, dialog)
    with qtbot.waitSignal(dialog.downloadEnded, timeout=10_000) as ended:
        dialog.cancel_button.click()
        assert dialog.state() == "cancelling" and dialog.progress_label.text() == "Cancelling…"
        assert not dialog.cancel_button.isEnabled()
    assert ended.args == ["cancelled"] and dialog.state() == "cancelled"
    assert "cancelled; nothing was installed" in dialog.message.text()
    assert dialog.status_text(REAL) == "Not installed"
    assert not dialog.runner.running and not dialog.progress_bar.isVisibleTo(dialog)
    dialog.select(REAL)
    assert dialog.download_button.isEnabled()  # can start again
    start_and_wait_progress(qtbot, dialog)
    with qtbot.waitSignal(dialog.downloadEnded, timeout=10_000) as ended:
        backend.release.set()
    assert ended.args == ["installed"] and len(backend.calls) == 2


def test_failure_shows_the_backend_message(qtbot, dialog, backend):
    backend.fail_with = OSError("Cannot reach https://hub.example: set a download mirror")
    dialog.select(REAL)
    with qtbot.waitSignal(dialog.downloadEnded, timeout=10_000) as ended:
        dialog.start_download()
    assert ended.args == ["failed"] and dialog.state() == "failed"
    assert "Cannot reach https://hub.example" in dialog.message.text()
    assert dialog.message.property("error") is True and dialog.message.isVisibleTo(dialog)
    assert dialog.status_text(REAL) == "Not installed" and dialog.download_button.isEnabled()


def test_a_stalled_download_is_worded_for_the_dialog(qtbot, dialog, backend):
    from desktop_mt.models import DownloadStalledError

    backend.fail_with = DownloadStalledError("stalled (--endpoint, HF_ENDPOINT)", "https://slow.example", 60.0, 16384)
    dialog.select(REAL)
    with qtbot.waitSignal(dialog.downloadEnded, timeout=10_000) as ended:
        dialog.start_download()
    text = dialog.message.text()
    assert ended.args == ["failed"] and "https://slow.example sent less than 16 KiB in 60 s" in text
    assert "press Download to continue" in text and "“Download from”" in text
    assert "--endpoint" not in text and "HF_ENDPOINT" not in text  # the dialog's own words


def test_unexpected_exception_becomes_a_message_not_a_crash(qtbot, dialog, backend):
    backend.fail_with = KeyError("siblings")
    dialog.select(REAL)
    with qtbot.waitSignal(dialog.downloadEnded, timeout=10_000):
        dialog.start_download()
    assert "KeyError" in dialog.message.text() and "log file" in dialog.message.text()


def test_use_this_model_asks_for_the_installed_folder(qtbot, dialog, backend):
    start_and_wait_progress(qtbot, dialog)
    with qtbot.waitSignal(dialog.downloadEnded, timeout=10_000):
        backend.release.set()
    dialog.select(REAL)
    with qtbot.waitSignal(dialog.activateRequested, timeout=10_000) as asked:
        dialog.use_button.click()
    assert asked.args == [str(backend.root / REAL), "int8"]
    dialog.set_active_path(asked.args[0])
    assert dialog.status_text(REAL) == "Active (int8)" and dialog.status_text(DEMO) == "Installed (int8, fp32)"
    assert not dialog.use_button.isEnabled() and not dialog.remove_button.isEnabled()  # in use


def test_remove_deletes_and_relists(qtbot, dialog, backend):
    start_and_wait_progress(qtbot, dialog)
    with qtbot.waitSignal(dialog.downloadEnded, timeout=10_000):
        backend.release.set()
    with qtbot.waitSignal(dialog.modelsChanged, timeout=10_000):
        assert dialog.remove(REAL)
    assert backend.removed == [REAL] and dialog.status_text(REAL) == "Not installed"
    assert not dialog.remove(DEMO)
    assert "cannot be removed" in dialog.message.text()


def test_closing_the_dialog_keeps_the_download_running(qtbot, dialog, backend):
    dialog.show()
    start_and_wait_progress(qtbot, dialog)
    dialog.close()
    assert dialog.runner.running and dialog.state() == "downloading"
    with qtbot.waitSignal(dialog.downloadEnded, timeout=10_000):
        backend.release.set()
    assert dialog.status_text(REAL) == "Installed (int8)"


def test_mirror_field_saves_valid_urls_and_explains_bad_ones(dialog, backend):
    assert dialog.mirror_combo.currentText() == ""
    assert "https://hub.example" in dialog.mirror_combo.lineEdit().placeholderText()
    dialog.mirror_combo.setCurrentText("https://hf-mirror.com")
    assert dialog.save_mirror() and backend.mirror == "https://hf-mirror.com"
    dialog.mirror_combo.setCurrentText("ftp://nope")
    assert not dialog.save_mirror()
    assert backend.mirror == "https://hf-mirror.com" and "must start with https://" in dialog.message.text()


# ---- the dialog in the app: demo notice, status bar, switching models ---------------------------
def bundled_aware_factory(fail_paths=(), **kwargs):
    """Fake engines whose model_info.path is the folder asked for (the bundled one for None);
    a folder in ``fail_paths`` fails to load as a missing model does."""
    from desktop_mt.base.errors import ModelNotFoundError

    from ..fakes import FakeTranslator

    def factory(config):
        if config.model_dir in fail_paths:
            raise ModelNotFoundError(f"{config.model_dir} is not a model folder")
        fake = FakeTranslator(config, **kwargs)
        folder = config.model_dir or str(bundled_model_dir())
        fake.model_info.path = folder
        fake.model_info.name = Path(folder).name
        return fake

    return factory


@pytest.fixture
def app_with_fake_models(qtbot, make_controller, backend):
    window, controller = make_controller(factory=bundled_aware_factory())
    controller.models_hub.backend = backend
    return window, controller


def test_demo_notice_shows_for_the_bundled_model_and_opens_the_dialog(qtbot, app_with_fake_models):
    window, controller = app_with_fake_models
    assert window.demo_notice.isVisibleTo(window)
    assert "Demo model" in window.demo_notice.label.text()
    assert en_zh_label(window) == f"{DEMO} · int8"  # the status bar names the model
    with qtbot.waitSignal(window.modelsRequested, timeout=10_000):
        window.demo_notice.button.click()
    dialog = controller.models_hub.dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.status_text(DEMO).startswith("Active")
    window.models_action.trigger()  # the menu reopens the same dialog
    assert controller.models_hub.dialog is dialog


def test_use_this_model_switches_the_app_and_hides_the_demo_notice(qtbot, app_with_fake_models, backend, tmp_path):
    window, controller = app_with_fake_models
    dialog = controller.models_hub.open()
    start_and_wait_progress(qtbot, dialog)
    with qtbot.waitSignal(dialog.downloadEnded, timeout=10_000):
        backend.release.set()
    dialog.select(REAL)
    with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):
        dialog.use_button.click()
    folder = str(backend.root / REAL)
    assert controller.settings.model_path == folder and backend.active["en-zh"] == folder
    assert en_zh_label(window) == f"{REAL} · int8"
    assert not window.demo_notice.isVisibleTo(window)
    assert dialog.status_text(REAL) == "Active (int8)"
    from desktop_mt.gui.settings import load_settings

    assert load_settings(tmp_path / "s.json").settings.model_path == folder  # saved
    dialog.select(DEMO)  # and back to the demo: the bundled model is model_path ""
    with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):
        dialog.use_button.click()
    assert controller.settings.model_path == "" and backend.active["en-zh"] == ""
    assert window.demo_notice.isVisibleTo(window)


def test_shutdown_cancels_a_running_download(qtbot, app_with_fake_models, backend):
    window, controller = app_with_fake_models
    dialog = controller.models_hub.open()
    start_and_wait_progress(qtbot, dialog)
    controller.shutdown()
    assert not dialog.runner.download_thread.isRunning()
    assert REAL not in [i.name for i in backend.installed()]


# ---- the app's backend on the real model manager -----------------------------------------------
def test_store_backend_lists_catalog_bundled_demo_and_mirror(app_home):
    from desktop_mt.gui.features.models import StoreBackend, is_bundled

    backend = StoreBackend()
    real = next(c for c in backend.catalog() if c.name == REAL)
    assert real.languages == "en→zh" and set(real.sizes) == {"int8", "fp32"}
    # int8 downloads the fp32 files and is built at install (catalog, issue 32): no bigger a download
    assert real.sizes["int8"] <= real.sizes["fp32"] and "Marian" in real.description
    assert real.title and "Tiedemann" in real.credits  # the attribution CC-BY asks for
    demo = backend.installed()[0]
    assert demo.demo and not demo.removable and is_bundled(demo.path) and demo.size > 10 * MB
    backend.set_endpoint_setting("https://hf-mirror.com/")
    assert backend.endpoint_setting() == "https://hf-mirror.com" == backend.endpoint()
    with pytest.raises(DesktopMTError, match="http"):
        backend.set_endpoint_setting("hf-mirror.com")


# ---- settings of issue 12: model's own decoding by default, Chinese script ---------------------
@pytest.mark.parametrize(
    "saved,beams",
    [
        ({"beams": 1}, 0),  # version 1 saved greedy as its default: now the model's
        ({"beams": 3}, 3),  # a real choice is kept
        ({"beams": 1, "settings_version": 2}, 1),  # greedy chosen after the change is kept
    ],
)
def test_settings_beams_migrate_from_version_1(tmp_path, saved, beams):
    import json

    from desktop_mt.gui.settings import SETTINGS_VERSION, load_settings, save_settings

    path = tmp_path / "settings.json"
    path.write_text(json.dumps(saved))
    loaded = load_settings(path)
    assert loaded.settings.beams == beams and loaded.warnings == []
    save_settings(loaded.settings, path)
    assert json.loads(path.read_text())["settings_version"] == SETTINGS_VERSION
    assert load_settings(path).settings.beams == beams  # stable after saving


def test_controller_uses_the_models_generation_config_unless_chosen(qtbot, make_controller):
    from desktop_mt.gui.settings import Settings

    window, controller = make_controller()
    assert Settings().beams == 0 and controller.generation_options().beams is None
    controller.apply_settings(Settings(beams=1))
    assert controller.generation_options().beams == 1


def test_settings_dialog_edits_beams_default_and_script(qtbot):
    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog
    from desktop_mt.gui.settings import Settings

    dialog = SettingsDialog(Settings(script="traditional-tw"), True, "")
    qtbot.addWidget(dialog)
    assert dialog.quality_combo.currentData() == 0 and dialog.quality_combo.currentText().startswith("better")
    assert dialog.script_combo.currentData() == "traditional-tw"
    dialog.script_combo.setCurrentIndex(dialog.script_combo.findData("traditional-hk"))
    dialog.quality_combo.setCurrentIndex(dialog.quality_combo.findData(1))  # faster
    with qtbot.waitSignal(dialog.applied, timeout=10_000) as applied:
        dialog.apply()
    assert (applied.args[0].script, applied.args[0].beams) == ("traditional-hk", 1)


# ---- end to end: the real downloader against a local fake Hub, then the real engine --------------
class GatedStoreBackend:
    """The app's StoreBackend, except that a download can be held at its first byte report
    until the test lets it go: the Cancel click then lands mid-download, deterministically."""

    def __init__(self) -> None:
        from desktop_mt.gui.features.models import StoreBackend

        self._store = StoreBackend()
        self.hold = threading.Event()  # set: hold the next download at its first bytes
        self.go_on = threading.Event()

    def __getattr__(self, name):
        return getattr(self._store, name)

    def download(self, name, variant, progress, cancel):
        def held_progress(report):
            progress(report)
            if self.hold.is_set() and report.phase == "downloading":
                self.hold.clear()
                assert self.go_on.wait(30)

        return self._store.download(name, variant, held_progress, cancel)


@pytest.fixture
def fake_hub(tiny_marian_dir, tmp_path, monkeypatch):
    """tests/models' fake Hub serving the tiny Marian as catalog model 'tiny', set as the mirror."""

    import huggingface_hub.constants as hf_constants

    from desktop_mt.app.settings import set_endpoint_setting
    from tests.models.conftest import tiny_hub, write_catalog

    hub = tiny_hub(tiny_marian_dir)
    catalog = write_catalog(tmp_path / "catalog.json")
    monkeypatch.setenv("DESKTOP_MT_CATALOG", str(catalog))
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)  # tests/conftest.py turns it on
    set_endpoint_setting(hub.url)
    yield hub
    hub.stop()


def test_real_download_cancel_install_and_switch(qtbot, make_controller, fake_hub, app_home):
    from desktop_mt.app.settings import get_active
    from desktop_mt.gui.features.models import available_models
    from desktop_mt.gui.workers.translation import default_translator_factory
    from desktop_mt.models import list_installed, models_dir

    window, controller = make_controller(factory=default_translator_factory)
    assert window.demo_notice.isVisibleTo(window) and en_zh_label(window) == f"{DEMO} · int8"
    backend = GatedStoreBackend()
    controller.models_hub.backend = backend
    window.demo_notice.button.click()
    dialog = controller.models_hub.dialog
    assert dialog.status_text("tiny") == "Not installed" and dialog.status_text(DEMO).startswith("Active")

    backend.hold.set()  # Cancel while the first file is coming in
    start_and_wait_progress(qtbot, dialog, name="tiny")
    with qtbot.waitSignal(dialog.downloadEnded, timeout=30_000) as ended:
        dialog.cancel_button.click()
        backend.go_on.set()
    assert ended.args == ["cancelled"] and dialog.status_text("tiny") == "Not installed"
    assert not (models_dir() / "tiny").exists() and "tiny" not in [m.name for m in list_installed()]
    assert [c.path for c in available_models([])] == [""]  # Settings offers no half model either

    dialog.select("tiny")  # again: resumes from the staging folder and installs
    with qtbot.waitSignal(dialog.downloadEnded, timeout=60_000) as ended:
        dialog.start_download()
    assert ended.args == ["installed"], dialog.message.text()
    assert dialog.status_text("tiny") == "Installed (int8)"
    assert str(models_dir() / "tiny") in [c.path for c in available_models([])]

    dialog.select("tiny")
    with qtbot.waitSignal(controller.modelLoaded, timeout=30_000):
        dialog.use_button.click()
    folder = str(models_dir() / "tiny")
    assert controller.settings.model_path == folder and get_active() == "tiny"  # by name for the CLI
    assert en_zh_label(window) == "tiny · int8" and not window.demo_notice.isVisibleTo(window)
    with qtbot.waitSignal(controller.requestFinished, timeout=30_000):
        controller.translate("I love you.")
    assert window.target_text().strip()  # the downloaded model translates in the app


def test_traditional_script_setting_reaches_the_engine(qtbot, make_controller):
    from desktop_mt.gui.settings import Settings
    from desktop_mt.gui.workers.translation import default_translator_factory

    window, controller = make_controller(Settings(beams=1), factory=default_translator_factory)
    with qtbot.waitSignal(controller.requestFinished, timeout=30_000):
        controller.translate("I love you.")
    assert "爱" in window.target_text()  # the bundled model writes Simplified
    controller.apply_settings(Settings(beams=1, script="traditional-tw"))
    assert controller.generation_options().script == "traditional-tw"
    with qtbot.waitSignal(controller.requestFinished, timeout=30_000):
        controller.translate("I love you.")
    assert "愛" in window.target_text() and "爱" not in window.target_text()


@pytest.fixture
def make_app_controller(qtbot):
    """A controller as the app builds it: its settings read from, and saved to, the one
    settings store (``desktop_mt.app.settings``) that the command line's model choice is in."""
    from desktop_mt.gui.controller import Controller
    from desktop_mt.gui.settings import load_settings, settings_path
    from desktop_mt.gui.window.main import MainWindow

    made = []

    def make(factory):
        window = MainWindow()
        qtbot.addWidget(window)
        controller = Controller(
            window, load_settings().settings, settings_path=settings_path(), translator_factory=factory, hotkey=None
        )
        made.append(controller)
        with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):
            controller.start()
        return window, controller

    yield make
    for controller in made:
        controller.shutdown()


def test_app_and_command_line_share_the_active_model(qtbot, make_app_controller, tiny_marian_dir, app_home):
    import shutil

    from desktop_mt.app.settings import get_active, set_active
    from desktop_mt.gui.settings import Settings
    from desktop_mt.models import models_dir

    folder = models_dir() / "tiny-local"
    shutil.copytree(tiny_marian_dir, folder)
    set_active("tiny-local")  # `desktop-mt models use tiny-local` before the app starts
    window, controller = make_app_controller(bundled_aware_factory())
    assert controller.settings.model_path == str(folder)  # one store: nothing to adopt
    assert en_zh_label(window) == "tiny-local · int8" and not window.demo_notice.isVisibleTo(window)

    with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):  # Settings dialog: back to bundled
        controller.apply_settings(dataclasses.replace(controller.settings, model_path=""))
    assert get_active() == "" and window.demo_notice.isVisibleTo(window)
    with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):  # and to the folder again
        controller.apply_settings(dataclasses.replace(controller.settings, model_path=str(folder)))
    assert get_active() == "tiny-local"  # recorded by name, as `desktop-mt models list` shows it
    assert Settings().model_path == ""


def test_a_choice_on_the_command_line_while_the_app_runs_survives_its_quit(
    qtbot, make_app_controller, tiny_marian_dir, app_home
):
    from desktop_mt.app.settings import get_active, set_active

    window, controller = make_app_controller(bundled_aware_factory())
    set_active(str(tiny_marian_dir))  # `desktop-mt models use DIR` while the app runs
    controller.shutdown()  # saves the window's settings
    assert get_active() == str(tiny_marian_dir)


def test_a_vanished_active_model_falls_back_to_the_bundled_one(qtbot, make_app_controller, tiny_marian_dir, app_home):
    import shutil

    from desktop_mt.app.settings import get_active, set_active
    from desktop_mt.models import models_dir

    folder = models_dir() / "gone"
    shutil.copytree(tiny_marian_dir, folder)
    set_active("gone")
    shutil.rmtree(folder)
    window, controller = make_app_controller(bundled_aware_factory(fail_paths=(str(folder),)))
    assert window.demo_notice.isVisibleTo(window)  # the app translates with the bundled model
    assert get_active() == "gone"  # the choice is kept (a network drive may come back); the banner says it


def test_unreachable_hub_names_the_endpoint_and_the_mirror(qtbot, app_home, monkeypatch):
    import socket

    import huggingface_hub.constants as hf_constants

    from desktop_mt.gui.features.models import StoreBackend

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    backend = StoreBackend()
    backend.set_endpoint_setting(closed)
    dialog = ModelsDialog(backend)
    qtbot.addWidget(dialog)
    try:
        dialog.select(REAL)
        with qtbot.waitSignal(dialog.downloadEnded, timeout=60_000) as ended:
            dialog.start_download()
    finally:
        assert dialog.shutdown()
    assert ended.args == ["failed"] and dialog.status_text(REAL) == "Not installed"
    text = dialog.message.text()
    assert f"could not reach {closed}" in text and "“Download from”" in text  # the dialog's own field
    for command_line in ("--endpoint", "HF_ENDPOINT", "Errno"):
        assert command_line not in text
    assert "mirror" in text and dialog.message.property("error") is True


def test_an_unresolvable_hub_name_is_worded_for_the_dialog(qtbot, app_home, monkeypatch):
    """A host name that does not resolve ("[Errno -2] Name or service not known" from the
    command line's view) reads as the dialog's words too."""
    import huggingface_hub.constants as hf_constants

    from desktop_mt.gui.features.models import StoreBackend

    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    backend = StoreBackend()
    backend.set_endpoint_setting("https://no-such-host.invalid")
    dialog = ModelsDialog(backend)
    qtbot.addWidget(dialog)
    try:
        dialog.select(REAL)
        with qtbot.waitSignal(dialog.downloadEnded, timeout=60_000):
            dialog.start_download()
    finally:
        assert dialog.shutdown()
    text = dialog.message.text()
    assert "could not reach https://no-such-host.invalid" in text and "“Download from”" in text
    assert "Errno" not in text and "HF_ENDPOINT" not in text and "--endpoint" not in text


def test_add_model_folder_still_switches_the_app(qtbot, make_app_controller, tiny_marian_dir):
    from desktop_mt.app.settings import get_active
    from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog

    window, controller = make_app_controller(bundled_aware_factory())
    dialog = SettingsDialog(controller.settings, True, "")
    qtbot.addWidget(dialog)
    dialog.applied.connect(controller.apply_settings)
    assert dialog.add_model_folder(str(tiny_marian_dir))
    with qtbot.waitSignal(controller.modelLoaded, timeout=10_000):
        dialog.apply()
    assert controller.settings.model_path == str(tiny_marian_dir)
    assert en_zh_label(window) == f"{tiny_marian_dir.name} · int8"
    assert not window.demo_notice.isVisibleTo(window) and get_active() == str(tiny_marian_dir)


def test_an_unset_active_model_does_not_replace_the_apps_choice(make_controller, tmp_path):
    from desktop_mt.gui.settings import Settings

    chosen = str(tmp_path / "chosen-model")  # the store has no active model yet
    window, controller = make_controller(Settings(model_path=chosen), factory=bundled_aware_factory())
    assert controller.settings.model_path == chosen
    assert en_zh_label(window) == "chosen-model · int8"
