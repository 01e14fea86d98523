"""The passive window's own behaviour (no engine)."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication

from desktop_mt.gui.window import fonts
from desktop_mt.gui.window.main import MainWindow


def make(qtbot) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    return window


def test_copy_result_puts_translation_on_clipboard(qtbot):
    window = make(qtbot)
    window.append_target("你好，")
    window.append_target("世界。")
    window.copy_button.click()
    assert QGuiApplication.clipboard().text() == "你好，世界。"


def test_set_source_does_not_count_as_user_edit(qtbot):
    window = make(qtbot)
    edits: list[str] = []
    window.sourceEdited.connect(edits.append)
    window.set_source("programmatic")
    assert edits == []
    qtbot.keyClicks(window.source, "a")
    assert len(edits) == 1 and "programmatic" in edits[0] and len(edits[0]) == 13


def test_clear_button_emits_intent_and_clear_all_empties(qtbot):
    window = make(qtbot)
    window.set_source("src")
    window.append_target("tgt")
    with qtbot.waitSignal(window.clearRequested, timeout=10_000):
        window.clear_button.click()
    window.clear_all()
    assert window.source_text() == "" and window.target_text() == ""


def test_stream_follows_end_only_when_view_is_at_the_end(qtbot):
    window = make(qtbot)
    window.resize(400, 200)
    window.show()
    qtbot.waitExposed(window)
    for i in range(200):
        window.append_target(f"第{i}行\n")
    bar = window.target.verticalScrollBar()
    assert bar.value() == bar.maximum() > 0  # followed the stream
    bar.setValue(0)  # the user scrolls up to read
    window.append_target("更多\n")
    assert bar.value() == 0


def test_status_bar_shows_stats_and_state(qtbot):
    window = make(qtbot)
    window.set_stats(0.0421, 118.6, 250)
    assert window.stats_label.text() == "first token 42 ms · 119 tok/s · 250 tokens"
    window.set_stats(None, 0.0, 0)
    assert window.stats_label.text().startswith("first token –")
    window.set_state("loading", "bundled model (int8)")
    assert window.state() == "loading" and "bundled model" in window.state_label.text()


def test_editor_fonts_list_cjk_fallbacks(qtbot):
    window = make(qtbot)
    families = window.target.font().families()
    assert "Noto Sans CJK SC" in families and "Microsoft YaHei" in families and "PingFang SC" in families
    assert families.index("Noto Sans") < families.index("Noto Sans CJK SC")  # Latin first


def test_warning_banner_accumulates_and_dismisses(qtbot):
    window = make(qtbot)
    window.show_warning("first")
    window.show_warning("second")
    assert window.banner.label.text() == "first\nsecond" and window.banner.isVisibleTo(window)
    window.banner.hide()
    window.show_warning("third")
    assert window.banner.label.text() == "third"


def test_stylesheet_is_found():
    assert "QPlainTextEdit" in fonts.stylesheet()


def test_status_messages_have_the_bar_and_the_stats_come_back(qtbot):
    """A temporary status message (already Chinese, copied, a file job's summary) once had no
    room: the stats label took it. While a message shows, the labels give it the bar; after
    it, the stats are readable in full (they were once squeezed to one letter)."""
    window = make(qtbot)
    window.resize(900, 600)
    window.show()
    qtbot.waitExposed(window)
    window.set_stats(0.035, 120.5, 42)
    bar = window.statusBar()
    message = "The text is already Chinese: it was copied as it is."
    bar.showMessage(message, 10_000)
    assert bar.currentMessage() == message
    labels = (window.model_label, window.state_label, window.job_label, window.stats_label)
    qtbot.waitUntil(lambda: not any(label.isVisible() for label in labels), timeout=10_000)
    bar.clearMessage()
    qtbot.waitUntil(window.stats_label.isVisible, timeout=10_000)
    bar.layout().activate()  # the relayout the labels asked for, now
    label = window.stats_label
    assert label.width() >= label.fontMetrics().horizontalAdvance(label.text())


def test_translate_file_dialog_opens_in_home_then_in_the_last_folder_chosen(
    qtbot, tmp_path, monkeypatch, fresh_folders
):
    from PySide6.QtWidgets import QFileDialog

    from desktop_mt.gui.dialogs import tm_dialog

    window = make(qtbot)
    home = fresh_folders
    chosen = tmp_path / "docs" / "notes.txt"
    chosen.parent.mkdir()
    asked: list[str] = []
    answers = [str(chosen), ""]

    def open_name(_parent, _title, start, _filter):
        asked.append(start)
        return answers.pop(0), _filter

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(open_name))
    with qtbot.waitSignal(window.translateFileRequested, timeout=10_000) as blocker:
        window.choose_file()
    assert blocker.args == [str(chosen)] and asked == [str(home)]
    window.choose_file()  # cancelled: nothing is asked for, the folder stays
    assert asked[1] == str(chosen.parent) and tm_dialog.start_folder() == chosen.parent
