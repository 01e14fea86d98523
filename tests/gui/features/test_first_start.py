"""The first-start page (issue 48): shown only while the bundled demo models are all there is,
put away for good with "Not now", back from the Models dialog; it downloads the real models of
both directions from the local stand-in Hub with the app's own downloader, shows the file coming
in, pauses and resumes (the half-fetched file continues with a Range request), cancels, and makes
the models active when both are in."""

from __future__ import annotations

import json

import pytest

from desktop_mt.gui.features.models import InstalledItem
from desktop_mt.gui.settings import Settings, load_settings

from ..dialogs.test_models_dialog import FakeBackend

EN_ZH, ZH_EN = "tiny", "tiny-zh-en"
HELD = "onnx/decoder_model_quantized.onnx"  # the file a test holds half-way


@pytest.fixture
def stand_in_hub(tiny_marian_dir, tmp_path, monkeypatch, app_home):
    """tests/models' fake Hub serving the tiny Marian as both catalog models (English->Chinese
    'tiny' and Chinese->English 'tiny-zh-en': the same random weights, the pair from the catalog),
    set as the app's mirror; 1 KiB download chunks, so a held file is kept half-fetched."""
    import huggingface_hub.constants as hf_constants

    from desktop_mt.app.settings import set_endpoint_setting
    from tests.models.conftest import catalog_entry, tiny_hub

    hub = tiny_hub(tiny_marian_dir)
    zh_en = dict(catalog_entry(ZH_EN), source_lang="zh", target_lang="en", title="Tiny test Marian zh-en")
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps({"models": [catalog_entry(EN_ZH), zh_en]}), encoding="utf-8")
    monkeypatch.setenv("DESKTOP_MT_CATALOG", str(catalog))
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)  # tests/conftest.py turns it on
    monkeypatch.setattr(hf_constants, "DOWNLOAD_CHUNK_SIZE", 1024)
    set_endpoint_setting(hub.url)
    yield hub
    hub.stop()


@pytest.fixture
def shown(make_controller, stand_in_hub):
    """The window on the bundled demo models with the page shown; the catalog has only the tiny
    models (real opus-mt entries are replaced: the shipped catalog is not offered here)."""
    window, controller = make_controller()
    controller.models_hub.backend.catalog = lambda: [  # type: ignore[method-assign]
        c for c in type(controller.models_hub.backend)().catalog() if c.name in (EN_ZH, ZH_EN)
    ]
    assert controller.first_start.show_if_due()
    return window, controller, controller.first_start


def test_shown_only_while_the_demo_models_are_all_there_is(qtbot, make_controller, tmp_path):
    window, controller = make_controller()
    first = controller.first_start
    assert first.due() and not first.is_shown()  # only main() shows it: other windows stay as they were
    assert first.show_if_due() and first.is_shown()
    page = first.page
    layout = window.centralWidget().layout()
    assert layout.indexOf(page) == layout.indexOf(window.demo_notice) + 1  # above the panes
    assert "demo models" in page.intro.text() and "offline" in page.intro.text()

    backend = FakeBackend(tmp_path / "models")  # a real model installed, in one direction: no page
    assert first.hub.backend is not backend and all(item.demo for item in backend.installed())
    backend._installed["opus-mt-en-zh"] = InstalledItem(
        "opus-mt-en-zh", str(tmp_path / "m"), "en→zh", ("int8",), 1, direction="en-zh"
    )
    controller.models_hub.backend = backend
    assert not first.due()


def test_an_administrator_can_keep_it_from_showing_at_start(make_controller, monkeypatch):
    window, controller = make_controller()
    monkeypatch.setenv("DESKTOP_MT_FIRST_START", "off")
    assert not controller.first_start.show_if_due() and not controller.first_start.is_shown()
    controller.first_start.show_page()  # the Models dialog's button still opens it
    assert controller.first_start.is_shown()


def test_the_page_offers_both_directions_with_size_licence_source_and_offline_help(shown, stand_in_hub):
    window, controller, first = shown
    page = first.page
    assert list(first.rows) == [EN_ZH, ZH_EN]
    texts = [row_label.text() for row_label in page.findChildren(type(page.intro)) if "licence" in row_label.text()]
    assert any(t.startswith("English → Chinese: Tiny test Marian") and "CC-BY-4.0" in t for t in texts), texts
    assert any(t.startswith("Chinese → English: Tiny test Marian zh-en") for t in texts), texts
    assert page.download_button.text().startswith("Download both (")
    assert stand_in_hub.url in page.source.text()  # where it comes from: the mirror chosen in the app
    assert "https://hf-mirror.com" in page.mirror_hint.text() and "HF_ENDPOINT" in page.mirror_hint.text()
    assert "desktop-mt models add FOLDER" in page.offline.text() and "tiny / tiny-zh-en" in page.offline.text()
    assert first.area.mirror_combo.currentText() == stand_in_hub.url


def test_not_now_is_remembered_and_the_models_dialog_brings_the_page_back(qtbot, make_controller, tmp_path):
    window, controller = make_controller()
    first = controller.first_start
    assert first.show_if_due()
    first.page.not_now_button.click()
    assert not first.is_shown() and controller.settings.first_start_dismissed
    saved = load_settings(tmp_path / "s.json").settings
    assert saved.first_start_dismissed
    again_window, again = make_controller(settings=saved)
    assert not again.first_start.due() and not again.first_start.show_if_due()  # the next start: no page

    dialog = again.models_hub.open()
    with qtbot.waitSignal(again.first_start.shownChanged, timeout=10_000):
        dialog.first_start_button.click()
    assert again.first_start.is_shown()  # from the Models dialog, put away or not
    assert not dialog.isVisible()  # the dialog steps aside for the page


def test_a_settings_apply_does_not_undo_the_dismissal(make_controller):
    window, controller = make_controller()
    stale = Settings(**{**controller.settings.__dict__})  # the Settings dialog's copy, made before
    controller.first_start.show_if_due()
    controller.first_start.dismiss()
    controller.apply_settings(stale)
    assert controller.settings.first_start_dismissed


def test_downloading_both_directions_installs_them_and_makes_them_active(qtbot, shown, stand_in_hub):
    from desktop_mt.app.settings import active_models
    from desktop_mt.models import list_installed, models_dir

    window, controller, first = shown
    files_shown: set[str] = set()
    first.area.progressShown.connect(lambda _report: files_shown.add(first.page.file_label.text()))
    with qtbot.waitSignal(first.finished, timeout=120_000):
        first.page.download_button.click()
        assert first.state() == "downloading" and first.page.pause_button.isVisibleTo(first.page)
    assert sorted(m.name for m in list_installed()) == [EN_ZH, ZH_EN]
    assert active_models() == {"en-zh": EN_ZH, "zh-en": ZH_EN}  # what the CLI uses too
    assert controller.settings.model_path == str(models_dir() / EN_ZH)
    assert not first.is_shown() and first.state() == "installed"
    assert all(row.bar.value() == 1000 for row in first.rows.values())
    for model in (EN_ZH, ZH_EN):  # the file coming in, per model
        assert f"{model}: onnx/encoder_model_quantized.onnx" in files_shown, files_shown
    assert not first.due()  # real models now: no page at the next start


def hold_first_file(qtbot, first, hub):
    """Start, and wait until the held file is a quarter in, on disk (the hub sends 64 KiB of it,
    then waits; the downloader writes 1 KiB pieces through an 8 KiB buffer)."""
    from desktop_mt.models import models_dir

    hub.hold_after[HELD] = 65536
    first.page.download_button.click()
    assert hub.held.wait(60), "the download never reached the held file"
    part = models_dir() / ".downloads" / EN_ZH / (HELD + ".part")
    qtbot.waitUntil(lambda: part.is_file() and part.stat().st_size >= 32768, timeout=30_000)


def test_pause_keeps_what_arrived_and_resume_continues_the_file(qtbot, shown, stand_in_hub):
    from desktop_mt.models import list_installed

    window, controller, first = shown
    hold_first_file(qtbot, first, stand_in_hub)
    with qtbot.waitSignal(first.area.ended, timeout=60_000) as ended:
        first.page.pause_button.click()
        stand_in_hub.release.set()
    assert ended.args[0] == "cancelled" and first.state() == "paused"
    assert first.page.resume_button.isVisibleTo(first.page) and not first.page.download_button.isVisibleTo(first.page)
    assert first.rows[EN_ZH].status.text() == "Paused" and list_installed() == []
    before = len(stand_in_hub.gets(HELD))
    assert len(stand_in_hub.gets("onnx/encoder_model_quantized.onnx")) == 1

    stand_in_hub.hold_after.clear()
    with qtbot.waitSignal(first.finished, timeout=120_000):
        first.page.resume_button.click()
    resumed = stand_in_hub.gets(HELD)[before]  # the first request for it after Resume
    assert resumed is not None and int(resumed.removeprefix("bytes=").rstrip("-")) >= 32768  # continued
    # the files finished before the pause are not fetched again (once per model: the same repo)
    assert len(stand_in_hub.gets("onnx/encoder_model_quantized.onnx")) == 2
    assert sorted(m.name for m in list_installed()) == [EN_ZH, ZH_EN]


def test_cancel_installs_nothing_and_says_so(qtbot, shown, stand_in_hub):
    from desktop_mt.models import list_installed, models_dir

    window, controller, first = shown
    hold_first_file(qtbot, first, stand_in_hub)
    with qtbot.waitSignal(first.area.ended, timeout=60_000) as ended:
        first.area.cancel_button.click()
        stand_in_hub.release.set()
    assert ended.args[0] == "cancelled" and first.state() == "idle"
    assert "Cancelled; nothing was installed" in first.page.message.text()
    assert first.page.download_button.isEnabled() and not first.page.resume_button.isVisibleTo(first.page)
    assert list_installed() == [] and not (models_dir() / EN_ZH).exists()
    assert first.is_shown()  # the page stays: the user may try again
    assert controller.settings.model_path == ""


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_page_fits_a_480_px_window_in_both_languages(qtbot, qapp, make_controller, language):
    from PySide6.QtWidgets import QLabel

    from desktop_mt.gui import i18n

    translators = i18n.install(qapp, language)  # as main() does, before the window is built
    try:
        window, controller = make_controller()
        window.resize(480, 640)
        window.show()
        qtbot.waitExposed(window)
        first = controller.first_start
        assert first.show_if_due()
        page = first.page
        qtbot.waitUntil(lambda: page.body.width() > 0 and page.body.width() <= page.viewport().width(), timeout=10_000)
        assert page.body.minimumSizeHint().width() <= page.viewport().width()  # nothing cut sideways
        cut = [
            label.text()
            for label in page.body.findChildren(QLabel)
            if label.isVisibleTo(page) and label.wordWrap() and label.height() < label.heightForWidth(label.width())
        ]
        assert cut == []  # each wrapped text has the height it needs (the page scrolls when short)
        assert window.source.height() > 0 and window.target.height() > 0  # the panes keep room
        title = "欢迎使用 desktop-mt" if language == "zh_CN" else "Welcome to desktop-mt"
        assert page.title.text() == title
    finally:
        i18n.uninstall(qapp, translators)
