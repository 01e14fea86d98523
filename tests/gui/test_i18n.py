"""The interface in Simplified Chinese: which language the locale and the Settings pick, the
.ts catalog (complete, placeholders kept, in step with the code), the compiled .qm, and the
real app started under LANG=zh_CN.UTF-8 showing Chinese menus and Qt's own Chinese buttons."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QTranslator
from PySide6.QtWidgets import QDialogButtonBox

from desktop_mt.app.settings import load_settings, save_settings
from desktop_mt.gui import i18n
from desktop_mt.gui.settings import Settings
from desktop_mt.gui.settings_dialog import SettingsDialog

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "desktop_mt" / "resources" / "i18n" / "desktop_mt_zh_CN.ts"
PLACEHOLDER = re.compile(r"\{\w*\}|%n|%L?\d")


def messages(ts: Path) -> list[tuple[str, str, ET.Element]]:
    """(context, source, translation element) of every message of a .ts."""
    root = ET.parse(ts).getroot()
    return [
        (ctx.findtext("name") or "", m.findtext("source") or "", m.find("translation"))  # type: ignore[misc]
        for ctx in root.iter("context")
        for m in ctx.iter("message")
    ]


def forms(translation: ET.Element) -> list[str]:
    """The translated text(s): one, or one per plural form."""
    plural = translation.findall("numerusform")
    return [f.text or "" for f in plural] if plural else [translation.text or ""]


@pytest.fixture
def chinese(qapp):
    """The app's translators installed as a zh_CN start would; removed after the test."""
    installed = i18n.install(qapp, "zh_CN")
    yield installed
    i18n.uninstall(qapp, installed)


@pytest.mark.parametrize(
    ("choice", "ui_languages", "expected"),
    [
        ("system", ["zh-CN"], "zh_CN"),
        ("system", ["zh-SG"], "zh_CN"),
        ("system", ["zh-TW"], "zh_CN"),  # no Traditional interface yet: Simplified
        ("system", ["zh-Hant-HK", "zh-HK"], "zh_CN"),
        ("system", ["zh_CN.UTF-8"], "zh_CN"),
        ("system", ["en-US", "zh-CN"], "en"),  # the user's first preference decides
        ("system", ["fr-FR", "zh-CN"], "zh_CN"),  # no French: the next one that we have
        ("system", ["fr-FR", "de-DE"], "en"),
        ("system", [], "en"),
        ("en", ["zh-CN"], "en"),  # the Settings' choice beats the locale
        ("zh_CN", ["en-US"], "zh_CN"),
        ("klingon", ["zh-CN"], "zh_CN"),  # not a choice: as "system"
    ],
)
def test_the_interface_language_follows_the_choice_then_the_locale(choice, ui_languages, expected):
    assert i18n.interface_language(choice, ui_languages) == expected


def test_every_entry_is_translated_with_its_placeholders():
    entries = messages(TS)
    assert len(entries) > 50
    problems = []
    for context, source, translation in entries:
        if translation.get("type") in ("unfinished", "obsolete", "vanished"):
            problems.append(f"{context}: {source!r} is {translation.get('type')}")
            continue
        for text in forms(translation):
            if not text.strip():
                problems.append(f"{context}: {source!r} has an empty translation")
            wanted = sorted(set(PLACEHOLDER.findall(source)))
            if sorted(set(PLACEHOLDER.findall(text))) != wanted:
                problems.append(f"{context}: {source!r} -> {text!r} does not keep {wanted}")
            if ("&" in source.replace("&&", "")) != ("&" in text.replace("&&", "")):
                problems.append(f"{context}: {source!r} -> {text!r}: the accelerator is lost or added")
    assert problems == []


def test_the_catalog_has_every_string_the_code_marks(tmp_path):
    """lupdate over the GUI now finds no string the committed .ts lacks (run
    ``python -m desktop_mt.gui.i18n update`` and translate the new entries)."""
    fresh = tmp_path / TS.name
    fresh.write_bytes(TS.read_bytes())
    sources = [str(p.relative_to(ROOT)) for p in i18n.gui_sources()]
    tool = Path(i18n.lrelease() or "").with_name("lupdate")
    subprocess.run(
        [str(tool), "-silent", "-no-obsolete", "-locations", "none", *sources, "-ts", str(fresh)],
        cwd=ROOT,
        check=True,
    )
    untranslated = [(c, s) for c, s, t in messages(fresh) if t.get("type") == "unfinished"]
    assert untranslated == []


def test_a_checkout_compiles_the_catalog_into_the_cache_once(app_home):
    qm = i18n.qm_path("zh_CN")
    assert qm is not None and qm.is_relative_to(app_home)  # no .qm in the checkout: compiled
    translator = QTranslator()
    assert translator.load(str(qm))
    assert translator.translate("WindowMenus", "&File") == "文件(&F)"
    assert i18n.qm_path("zh_CN") == qm  # the same .ts: not compiled again


def test_english_installs_nothing(qapp):
    assert i18n.install(qapp, "en") == []
    assert QCoreApplication.translate("WindowMenus", "&File") == "&File"


def test_the_window_menus_speak_chinese_without_accelerator_clashes(qtbot, make_controller, chinese):
    assert len(chinese) == 2  # ours and Qt's qtbase_zh_CN
    window, _controller = make_controller()
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == ["文件(&F)", "编辑(&E)", "视图(&V)", "帮助(&H)"]
    for menu_action in window.menuBar().actions():
        keys = [
            m.group(1).lower()
            for a in menu_action.menu().actions()
            if (m := re.search(r"&([^&])", a.text().replace("&&", "")))
        ]
        assert len(keys) == len(set(keys)), (menu_action.text(), keys)
    bar_keys = [re.search(r"&([^&])", t).group(1).lower() for t in titles]  # type: ignore[union-attr]
    assert len(bar_keys) == len(set(bar_keys))
    assert window.translate_action.text() == "翻译"
    assert window.source.placeholderText().startswith("输入或粘贴")
    assert ("Ctrl+Enter", "翻译原文") in window.shortcut_rows()
    combo = window.direction_bar.combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["自动", "英文 → 中文", "中文 → 英文"]
    window.direction_bar.set_detected("Chinese -> English")
    assert combo.itemText(0) == "自动（中文 → 英文）"


def test_settings_offer_the_language_and_keep_the_choice(qtbot, chinese):
    dialog = SettingsDialog(Settings(), True, "")
    qtbot.addWidget(dialog)
    combo = dialog.language_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["跟随系统", "English", "简体中文"]
    assert combo.currentData() == "system"
    buttons = dialog.findChild(QDialogButtonBox)
    cancel = buttons.button(QDialogButtonBox.StandardButton.Cancel)
    assert cancel.text() == "取消"  # Qt's own catalog
    combo.setCurrentIndex(combo.findData("en"))
    chosen = dialog.current_settings()
    assert chosen.language == "en"
    save_settings(chosen)
    assert load_settings().settings.language == "en"


def test_an_unknown_language_in_the_file_falls_back_with_a_warning(app_home):
    save_settings(Settings(language="zh_CN"))
    path = app_home / "config" / "settings.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["language"] = "tlh"
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_settings()
    assert loaded.settings.language == "system"
    assert any("language" in w for w in loaded.warnings)


MAIN_SCRIPT = r"""
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from desktop_mt.gui import app as app_mod
import desktop_mt.gui.worker as worker_mod
from tests.gui.fakes import fake_factory
worker_mod.default_translator_factory = fake_factory()
app = QApplication([])
def check():
    wins = [w for w in QApplication.topLevelWidgets() if isinstance(w, app_mod.MainWindow) and w.isVisible()]
    if not wins:
        QTimer.singleShot(20, check)
        return
    menus = [a.text() for a in wins[0].menuBar().actions()]
    tray = [a.text() for a in wins[0].findChildren(app_mod.Tray)[0].menu.actions() if a.text()]
    print("RESULT " + json.dumps({"menus": menus, "tray": tray}), flush=True)
    wins[0].quit()
QTimer.singleShot(0, check)
QTimer.singleShot(60_000, QApplication.quit)  # never hang the test run
sys.exit(app_mod.main([]))
"""


@pytest.mark.parametrize(
    ("lang", "file_menu", "quit"), [("zh_CN.UTF-8", "文件(&F)", "退出"), ("en_US.UTF-8", "&File", "Quit")]
)
def test_the_app_started_under_a_locale_speaks_it(app_home, lang, file_menu, quit):
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT), LANG=lang, DESKTOP_MT_HOME=str(app_home))
    proc = subprocess.run(
        [sys.executable, "-c", MAIN_SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, f"no result; rc={proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}"
    shown = json.loads(lines[-1][len("RESULT ") :])
    assert shown["menus"][0] == file_menu
    assert shown["tray"][-1] == quit


def test_the_models_and_memory_words_follow_the_language(chinese):
    from desktop_mt.gui.model_table import use_label
    from desktop_mt.gui.tm_search import direction_label

    assert use_label(None) == "使用此模型"
    assert direction_label("en-zh") == "英文 → 中文"


def test_the_memory_words_stay_english_without_a_translator():
    from desktop_mt.gui.tm_search import direction_label

    assert direction_label("zh-en") == "Chinese → English"
