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
from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog
from desktop_mt.gui.settings import Settings

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
    i18n.update_ts({"zh_CN": fresh}, quiet=True)
    untranslated = [(c, s) for c, s, t in messages(fresh) if t.get("type") == "unfinished"]
    assert untranslated == []
    assert fresh.read_text(encoding="utf-8") == TS.read_text(encoding="utf-8")  # committed as update writes it


def test_the_committed_qm_is_compiled_from_the_committed_ts(tmp_path):
    """The .qm the wheel and the bundle ship is the .ts's (run ``python -m desktop_mt.gui.i18n
    compile`` after editing the .ts), byte for byte what lrelease makes of it."""
    qm = TS.with_suffix(".qm")
    assert i18n.source_file(qm).read_text(encoding="utf-8").strip() == i18n.ts_digest(TS)
    again = tmp_path / "again.qm"
    i18n.compile_ts(TS, again)
    assert again.read_bytes() == qm.read_bytes()
    assert i18n.qm_path("zh_CN") == qm
    translator = QTranslator()
    assert translator.load(str(qm))
    assert translator.translate("WindowMenus", "&File") == "文件(&F)"


@pytest.fixture
def catalog_copy(tmp_path, monkeypatch):
    """The package's i18n folder copied, so a test can edit its .ts."""
    folder = tmp_path / "i18n"
    folder.mkdir()
    for name in (TS.name, TS.with_suffix(".qm").name, TS.with_suffix(".qm").name + ".source"):
        (folder / name).write_bytes((TS.parent / name).read_bytes())
    monkeypatch.setattr(i18n, "i18n_dir", lambda: folder)
    return folder / TS.name


def test_an_edited_ts_is_compiled_into_the_cache_once(app_home, catalog_copy):
    catalog_copy.write_text(
        catalog_copy.read_text(encoding="utf-8").replace(
            "<translation>文件(&amp;F)</translation>", "<translation>档案(&amp;F)</translation>"
        ),
        encoding="utf-8",
    )
    qm = i18n.qm_path("zh_CN")
    assert qm is not None and qm.is_relative_to(app_home)  # the shipped .qm is not the .ts's now
    translator = QTranslator()
    assert translator.load(str(qm)) and translator.translate("WindowMenus", "&File") == "档案(&F)"
    assert i18n.qm_path("zh_CN") == qm  # the same .ts: not compiled again


def test_a_bundle_without_lrelease_or_ts_loads_the_shipped_qm(app_home, catalog_copy, monkeypatch):
    qm = catalog_copy.with_suffix(".qm")
    catalog_copy.write_text(catalog_copy.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # stale
    monkeypatch.setattr(i18n, "lrelease", lambda: None)
    assert i18n.qm_path("zh_CN") == qm  # stale beats English when nothing can compile
    catalog_copy.unlink()
    assert i18n.qm_path("zh_CN") == qm


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
    window.direction_bar.set_detected("Chinese → English")  # describe()'s words: the title
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
import desktop_mt.gui.workers.translation as worker_mod
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
    from desktop_mt.gui.dialogs.model_table import use_label
    from desktop_mt.gui.dialogs.tm_search import direction_label

    assert use_label(None) == "使用此模型"
    assert direction_label("en-zh") == "英文 → 中文"


def test_the_memory_words_stay_english_without_a_translator():
    from desktop_mt.gui.dialogs.tm_search import direction_label

    assert direction_label("zh-en") == "Chinese → English"


# ---- plurals -------------------------------------------------------------------------------
def test_every_counted_string_is_a_plural_entry():
    """A ``%n`` string is a numerus entry (lupdate's Python parser would make it a plain one:
    ``i18n.update_ts`` puts it back), so Qt picks the form by the count."""
    root = ET.parse(TS).getroot()
    counted = [(c.findtext("name"), m) for c in root.iter("context") for m in c.iter("message")]
    counted = [(c, m) for c, m in counted if "%n" in (m.findtext("source") or "")]
    assert len(counted) >= 10
    for context, message in counted:
        assert message.get("numerus") == "yes", (context, message.findtext("source"))
        assert [f.text for f in message.find("translation").iter("numerusform")], message.findtext("source")


def test_every_count_is_a_plain_name_that_lupdate_reads():
    """lupdate's Python parser skips a ``translate(ctx, text, None, n)`` whose count is not a
    plain name (``self.total``, ``len(x)``): the string never reaches the catalog and stays
    English in the Chinese window (seen: "就绪: all 2 sentences translated")."""
    import ast

    skipped = []
    for path in i18n.gui_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or len(node.args) < 4:
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name == "translate" and not isinstance(node.args[3], ast.Name):
                skipped.append(f"{path.name}:{node.lineno}")
    assert skipped == []


def test_the_all_done_count_is_chinese(chinese):
    assert i18n.translate("Progress", "all %n sentence(s) translated", None, 2) == "已翻译全部 2 个句子"


def test_english_counts_read_as_english_without_a_catalog():
    assert i18n.translate("PostEdit", "%n sentence(s) kept", None, 1) == "1 sentence kept"
    assert i18n.translate("PostEdit", "%n sentence(s) kept", None, 3) == "3 sentences kept"
    assert i18n.translate("Progress", "{done} of %n sentence(s)", None, 1).format(done=0) == "0 of 1 sentence"


def test_counts_take_the_chinese_plural_form(chinese):
    from desktop_mt.gui.features.postedit import planned_summary

    assert i18n.translate("PostEdit", "%n sentence(s) kept", None, 3) == "保留了 3 个句子"
    assert planned_summary(2, 1, 4) == "保留了 2 个句子，1 个来自翻译记忆库（带下划线），4 个由模型翻译"


# ---- words of the Qt-free layers, at the GUI's edge ------------------------------------------
def test_a_job_summary_is_worded_from_its_counts(chinese):
    from desktop_mt.batch import JobSummary
    from desktop_mt.gui.messages import job_summary

    summary = JobSummary(Path("a.txt"), Path("a.zh.txt"), 120, 3, "already Chinese", (), 2)
    assert job_summary(summary) == "120 个句段，3 个保持原样（already Chinese），2 个重复（只翻译一次）"


def test_a_job_summary_reads_as_the_batch_words_it_in_english():
    from desktop_mt.batch import JobSummary
    from desktop_mt.gui.messages import job_summary

    summary = JobSummary(Path("a.txt"), Path("b.txt"), 120, 3, "already Chinese", ("2 entries left",), 2)
    assert job_summary(summary) == str(summary)
    assert job_summary(JobSummary(Path("a.txt"), Path("b.txt"), 1, 1)) == "1 segment, 1 kept as they were"


@pytest.mark.parametrize("code", [28, 13, 30, 2, 20, 21, 5])  # ENOSPC EACCES EROFS ENOENT ENOTDIR EISDIR EIO
def test_an_output_error_is_worded_from_its_fields(tmp_path, code, qapp):
    """In English the GUI's wording is the batch's own (same fields, same words); in Chinese
    it names the same file."""
    from desktop_mt.batch.errors import BatchOutputError
    from desktop_mt.gui.messages import error_text

    out = tmp_path / "out" / "a.zh.txt"
    exc = BatchOutputError(OSError(code, os.strerror(code)), out, journal=tmp_path / "j.jsonl", kept=3, total=9)
    assert error_text(exc) == str(exc)
    installed = i18n.install(qapp, "zh_CN")
    try:
        said = error_text(exc)
    finally:
        i18n.uninstall(qapp, installed)
    assert str(out) in said and "无法写入输出文件" in said and "3/9" in said


# ---- shortcut states: the colour by kind, not by words ---------------------------------------
def test_a_shortcut_state_keeps_its_kind_in_chinese(qtbot, chinese):
    from desktop_mt.gui.features import shortcuts
    from desktop_mt.gui.window import theme

    unavailable = shortcuts.state(None, "Ctrl+Alt+E")
    assert unavailable.kind is shortcuts.ShortcutKind.UNAVAILABLE and unavailable.startswith("不可用")
    dialog = SettingsDialog(Settings(), True, "")
    qtbot.addWidget(dialog)
    dialog.set_shortcut_states({"selection_hotkey": unavailable, "show_hotkey": shortcuts.state(None, "")})
    label = dialog.shortcuts.states["selection_hotkey"]
    assert label.text().startswith("不可用")
    warning = theme.tone_color(dialog.palette(), "warning")
    assert label.palette().color(label.foregroundRole()) == warning


# ---- every visible string of each window, dialog and menu ---------------------------------
CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")
ENGLISH = re.compile(r"\b[A-Za-z][a-z]{2,}\b[ ,;:]+\b[a-z]{2,}\b")  # two words of English prose
# Not translated on purpose: product and model names, file names, the language's own name.
KEEP = re.compile(r"^(desktop-mt|English|OK|int8|fp32|Pot, Easydict, Bob.*|tatoeba-.*|opus-mt-.*|Noto Sans.*|CC-BY.*)$")


def shown_texts(root) -> list[tuple[str, str]]:
    """(where, text) of every string a person can see in ``root``'s window: titles, labels,
    buttons, tooltips, placeholders, combo items, tab and header texts, actions and menus."""
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import (
        QAbstractButton,
        QComboBox,
        QGroupBox,
        QLabel,
        QLineEdit,
        QMenu,
        QPlainTextEdit,
        QTableWidget,
        QTabWidget,
        QWidget,
    )

    found: list[tuple[str, str]] = [("title", root.windowTitle())]
    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        name = f"{type(w).__name__}:{w.objectName()}"
        found.append((name + " tooltip", w.toolTip()))
        if isinstance(w, QLabel):
            found.append((name, re.sub(r"<[^>]+>", " ", w.text())))
        elif isinstance(w, QAbstractButton):
            found.append((name, w.text()))
        elif isinstance(w, (QLineEdit, QPlainTextEdit)):
            found.append((name + " placeholder", w.placeholderText()))
        elif isinstance(w, QGroupBox):
            found.append((name, w.title()))
        elif isinstance(w, QComboBox):
            found += [(name + " item", w.itemText(i)) for i in range(w.count())]
        elif isinstance(w, QTabWidget):
            found += [(name + " tab", w.tabText(i)) for i in range(w.count())]
        elif isinstance(w, QTableWidget):
            headers = [w.horizontalHeaderItem(i) for i in range(w.columnCount())]
            found += [(name + " header", h.text()) for h in headers if h is not None]
        elif isinstance(w, QMenu):
            found.append((name + " title", w.title()))
    for action in {a for w in widgets for a in w.actions()} | set(root.findChildren(QAction)):
        found += [("action", action.text()), ("action tooltip", action.toolTip())]
    return [(where, text) for where, text in found if text and text.strip()]


def english_left(root, allowed=()) -> list[tuple[str, str]]:
    """The strings of ``root`` that still read as English prose (no Chinese in them)."""
    lines = [
        (where, line.strip())
        for where, text in shown_texts(root)
        for line in re.split(r"\n|<br>|</tr>", text)  # each line of a long text on its own
        if line.strip()
    ]
    return [
        (where, line)
        for where, line in lines
        if not CJK.search(line) and ENGLISH.search(line) and not KEEP.match(line) and line not in allowed
    ]


def test_the_walk_finds_english_where_no_catalog_is_loaded(qtbot):
    """The check below is not vacuous: the same dialog in English has prose everywhere."""
    dialog = SettingsDialog(Settings(), True, "")
    qtbot.addWidget(dialog)
    left = english_left(dialog)
    assert len(left) > 20 and ("QCheckBox:", "Global shortcuts (from any application)") in left


def test_the_main_window_menus_and_tray_are_chinese(qtbot, make_controller, chinese):
    from desktop_mt.gui.window.tray import Tray

    window, _controller = make_controller()
    window.show()
    qtbot.waitExposed(window)
    assert english_left(window) == []
    tray = Tray(window.windowIcon(), window)
    assert english_left(tray.menu) == []
    assert [a.text() for a in tray.menu.actions() if a.text()] == ["翻译剪贴板", "显示/隐藏窗口", "退出"]
    page = _controller.first_start.page  # the first-start page (built on first use)
    assert english_left(page, allowed={"Hugging Face Hub"}) == []
    from desktop_mt.gui.window import chrome as window_chrome

    assert window_chrome.REDO_SHORTCUT in window_chrome.SHORTCUTS[4][0]  # the redo row names the real key
    for box in (window.show_about(), window.show_shortcuts()):  # Help > About, Help > Keyboard shortcuts
        assert english_left(box) == []
        box.close()


def test_the_settings_dialog_is_chinese(qtbot, chinese):
    dialog = SettingsDialog(Settings(local_api=True), True, "")
    qtbot.addWidget(dialog)
    dialog.show()
    assert english_left(dialog) == []


def test_the_models_dialog_is_chinese(qtbot, tmp_path, chinese):
    from desktop_mt.gui.dialogs.models_dialog import ModelsDialog
    from tests.gui.dialogs.test_models_dialog import FakeBackend

    dialog = ModelsDialog(FakeBackend(tmp_path / "models"))
    qtbot.addWidget(dialog)
    dialog.show()
    try:
        # the catalog's own words (licence, source) are data, not interface
        assert english_left(dialog, allowed={"Helsinki-NLP opus-mt-en-zh (OPUS-MT)"}) == []
    finally:
        dialog.backend.release.set()
        assert dialog.shutdown()


def test_the_memory_and_history_dialogs_are_chinese(qtbot, tmp_path, chinese):
    from desktop_mt.app.history import History
    from desktop_mt.gui.dialogs.history_dialog import HistoryDialog
    from desktop_mt.gui.dialogs.tm_dialog import TMDialog
    from desktop_mt.tm import TranslationMemory

    memory = TranslationMemory(":memory:")
    memory.add("Good morning.", "早上好。", direction="en-zh", origin="approved")
    tm = TMDialog(memory)
    qtbot.addWidget(tm)
    tm.show()
    assert english_left(tm, allowed={"Good morning."}) == []
    history = HistoryDialog(History(tmp_path / "history.sqlite"))
    qtbot.addWidget(history)
    history.show()
    assert english_left(history) == []


def test_the_status_messages_of_the_window_are_chinese(qtbot, make_controller, chinese):
    """Messages said in the status bar and the banner come out translated too."""
    window, controller = make_controller()
    controller.alternatives.request()  # no translated sentence under the cursor
    assert window.statusBar().currentMessage() == "请将光标置于已翻译的句子中以查看其备选译文。"
    controller.postedit.confirmation.confirm_current()
    assert window.statusBar().currentMessage() == "请将光标置于已翻译的句子中以确认它。"
    assert controller.quit_guard.running() == ""


# ---- layouts: nothing clipped in either language, at 480 px and at 2x ----------------------
CLIPPED = r"""
import json, sys
from pathlib import Path
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QScrollArea
from desktop_mt.gui import i18n
app = QApplication([])
i18n.install(app, sys.argv[1])
from desktop_mt.gui.window.look import FitLabel
from desktop_mt.gui.dialogs.models_dialog import ModelsDialog
from desktop_mt.gui.settings import Settings
from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog
from desktop_mt.gui.dialogs.tm_dialog import TMDialog
from desktop_mt.gui.window.main import MainWindow
from desktop_mt.tm import TranslationMemory
from tests.gui.dialogs.test_models_dialog import FakeBackend

window = MainWindow()
window.resize(480, 600)
backend = FakeBackend(Path(sys.argv[2]))
shown = {"window": window, "settings": SettingsDialog(Settings(local_api=True), True, ""),
         "models": ModelsDialog(backend), "memory": TMDialog(TranslationMemory(":memory:"))}
for w in shown.values():
    w.show()
app.processEvents()


def clipped(root):
    # a label or button narrower than its text needs (FitLabel elides on purpose); a
    # word-wrapped label lower than its lines; widgets inside a scroll area count as laid out
    # at the width they get
    out = []
    for w in root.findChildren(QLabel) + root.findChildren(QAbstractButton):
        if not w.isVisibleTo(root) or isinstance(w, FitLabel) or not getattr(w, "text", lambda: "")():
            continue
        area = next((a for a in root.findChildren(QScrollArea) if a.widget() and a.widget().isAncestorOf(w)), None)
        if area is not None:  # a row wider than the scroll area's view is cut at its right edge
            right = w.mapTo(area.widget(), w.rect().topRight()).x()
            if right > area.viewport().width() + 1:
                out.append([type(w).__name__, w.text()[:60], "beyond the view", right, area.viewport().width()])
                continue
        if isinstance(w, QLabel) and w.wordWrap():
            if w.heightForWidth(w.width()) > w.height() + 1:
                out.append([type(w).__name__, w.text()[:60], w.width(), w.height(), w.heightForWidth(w.width())])
        elif w.sizeHint().width() > w.width() + 1:
            out.append([type(w).__name__, w.text()[:60], w.width(), w.sizeHint().width()])
    return out


print("RESULT " + json.dumps({name: clipped(w) for name, w in shown.items()} | {"width": window.width()}))
backend.release.set()
shown["models"].shutdown()
"""


@pytest.mark.parametrize("scale", ["1", "2"])
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_no_label_or_button_is_clipped(tmp_path, language, scale):
    """The main window at 480 px, Settings, Models and the memory, in English and Chinese at
    1x and 2x (QT_SCALE_FACTOR on a 1600x1000 offscreen screen): every label and button is as
    wide as its text needs (word-wrapped ones as high)."""
    config = tmp_path / "screen.json"
    screen = {"name": "s", "x": 0, "y": 0, "width": 1600, "height": 1000, "logicalDpi": 96, "logicalBaseDpi": 96}
    config.write_text(json.dumps({"screens": [{**screen, "dpr": 1}]}))
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    env.update(
        QT_QPA_PLATFORM=f"offscreen:configfile={config}",
        QT_SCALE_FACTOR=scale,
        DESKTOP_MT_HOME=str(tmp_path / "home"),
        PYTHONPATH=str(ROOT),
    )
    proc = subprocess.run(
        [sys.executable, "-c", CLIPPED, language, str(tmp_path / "models")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, f"rc={proc.returncode}\n{proc.stderr[-3000:]}"
    got = json.loads(lines[-1][len("RESULT ") :])
    assert got.pop("width") == 480
    assert got == {"window": [], "settings": [], "models": [], "memory": []}


def test_the_shortcut_layers_words_are_translated_at_the_edge(chinese):
    """gui/hotkeys is Qt-free: its sentences and refusals are worded again by messages.py,
    from templates that must stay the layer's own (checked here against its real output)."""
    from desktop_mt.gui import messages
    from desktop_mt.gui.platform.hotkeys import hub
    from desktop_mt.gui.platform.hotkeys.base import ShortcutTaken
    from desktop_mt.gui.platform.hotkeys.chord import parse_chord

    assert [english for english, marked in messages.HOTKEY_SENTENCES if english != marked] == []
    _backend, reason = hub.open_backend({}, "linux")  # no DISPLAY: the layer's own reason
    assert (
        messages.hotkey_reason(reason)
        == "全局快捷键不可用：没有 X 显示（未设置 DISPLAY）。请改用程序内快捷键 Ctrl+Shift+V 或托盘图标的“翻译剪贴板”。"
    )
    taken = str(ShortcutTaken(parse_chord("Ctrl+Alt+E")))
    assert messages.hotkey_error(taken) == "Ctrl+Alt+E 已被其他程序占用。请在设置中另选快捷键。"
    refusals = []
    for wrong in ("Ctrl+", "Hyper+E", "Ctrl+Nope", "Shift+E"):
        with pytest.raises(ValueError) as raised:
            parse_chord(wrong)
        refusals.append(messages.hotkey_error(str(raised.value)))
    assert all(CJK.search(r) for r in refusals), refusals
    assert messages.hotkey_error("X error 42") == "X error 42"  # unknown: as the layer said it


def test_the_stop_mark_is_shown_in_chinese_and_read_in_either_language(chinese):
    from desktop_mt.gui.window import progress

    assert progress.stop_mark() == "\n— 已在此处停止 —"
    assert progress.without_mark("好。" + progress.stop_mark()) == "好。"
    assert progress.has_mark("好。" + progress.STOP_MARK)  # a draft saved under the English interface
    assert progress.without_mark("好。" + progress.STOP_MARK) == "好。"


def test_a_missing_direction_is_said_in_chinese_with_the_model_to_get(chinese):
    from desktop_mt.engine.direction import DirectionUnavailableError
    from desktop_mt.gui.messages import error_text, sentence

    said = sentence(error_text(DirectionUnavailableError("zh-en", model="opus-mt-zh-en")))
    assert said.startswith("没有可用的中文 → 英文模型") and "opus-mt-zh-en" in said and said.endswith("。")
    detailed = DirectionUnavailableError("zh-en", "the folder is gone", model="opus-mt-zh-en")
    assert error_text(detailed) == str(detailed)  # a detail this wording would lose: the engine's words


def test_a_banner_sentence_ends_as_its_language_does():
    from desktop_mt.gui.messages import sentence

    assert sentence("no model here") == "No model here."
    assert sentence("没有模型") == "没有模型。"
    assert sentence("Done.") == "Done."


def test_the_model_label_names_directions_in_chinese(chinese):
    from desktop_mt.engine.model_format import bundled_model_dir, inspect_model_dir
    from desktop_mt.gui.features.engine_loading import label_shorter, label_text
    from desktop_mt.gui.workers.translation import LoadedModels

    models = LoadedModels({"en-zh": inspect_model_dir(bundled_model_dir("en-zh"))}, "int8", {"zh-en": "opus-mt-zh-en"})
    assert label_text(models, "zh-en") == "中→英：无模型"
    assert "英→中 模型 · 中→英：无" in label_shorter(models, None)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_status_bar_joins_state_and_detail_as_its_language_does(qtbot, qapp, language):
    """English writes "stopped: detail"; Chinese the full-width colon with no space after it
    ("已停止：…"), not the ASCII colon the window once put between them."""
    from desktop_mt.gui.ports import Status
    from desktop_mt.gui.window.main import MainWindow

    installed = i18n.install(qapp, language)
    try:
        window = MainWindow()
        qtbot.addWidget(window)
        window.set_state(Status.IDLE, "3/3")
        idle = window.state_label.text()
        window.set_state(Status.STOPPED, "2/8")
        stopped, shorter = window.state_label.text(), window.state_label.shorter
    finally:
        i18n.uninstall(qapp, installed)
    expected = {"en": ("idle: 3/3", "stopped: 2/8", "stopped"), "zh_CN": ("就绪：3/3", "已停止：2/8", "已停止")}
    assert (idle, stopped, *shorter) == expected[language]  # the state alone where the detail does not fit
