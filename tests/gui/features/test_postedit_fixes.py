"""Post-editing as a user found it under Xvfb (issue 28): a click places the cursor and the next
key reaches the pane (alternatives from a click come in a list that never takes the keyboard),
a fuzzy suggestion stays with its unchanged sentence, alternatives start at a clean boundary,
the status bar speaks of the latest translation, list markers are not sentences, a paste is
translated at once, and the completion hint stays on one line."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from desktop_mt.gui.features.alternatives import AlternativesPopup, clean_start, piece_starts
from desktop_mt.tm.incremental import plan_update, split_text

from ..fakes import wait_emitted
from .test_postedit import OUT, _cursor_at, _put_cursor, _retranslate, _type_over, make_ready


@pytest.fixture
def ready(qtbot, make_controller):
    """The window of ``test_postedit``: each sentence upper-cased, its TEXT translated."""
    return make_ready(qtbot, make_controller)


def _click_word(qtbot, window, controller, pos: int):
    """A plain click at ``pos`` of the translation pane; the alternatives it brings."""
    rect = window.target.cursorRect(_cursor_at(window, pos))
    with qtbot.waitSignal(controller.alternatives.popupShown, timeout=10_000) as shown:
        qtbot.mouseClick(window.target.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    return shown.args[0]


# ---- 1: a click places the cursor; the next key goes to the pane ------------------------------
def test_a_key_after_a_click_reaches_the_pane_and_the_alternatives_never_take_the_keyboard(qtbot, ready):
    window, controller, _fake = ready
    with qtbot.waitActive(window):
        window.activateWindow()
    popup = _click_word(qtbot, window, controller, OUT.index("WORLD") + 2)
    assert isinstance(popup, AlternativesPopup) and popup.isVisible()
    assert QApplication.activePopupWidget() is None  # no menu grabbing the keyboard
    assert window.target.hasFocus()
    pos = window.target.textCursor().position()
    # Through the window, as the X server delivers keys (a popup menu would take them).
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_Delete)
    assert window.target_text() == OUT[:pos] + OUT[pos + 1 :]
    assert not popup.isVisible()  # typing on took the list away
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_X)
    assert window.target_text()[pos] == "x"


def test_a_click_list_entry_chooses_it_and_esc_only_dismisses(qtbot, ready):
    window, controller, fake = ready
    start = OUT.index("WORLD")
    _type_over(qtbot, window, start, start + len("WORLD."), "EARTH.")
    popup = _click_word(qtbot, window, controller, start + 2)
    choices = [a for a in popup.actions() if a.data()]
    assert [a.data() for a in choices] == ["WORLD."]  # the model's words after "HELLO ", from the word's start
    assert fake.received[-1] == "Hello world."
    choices[0].trigger()
    assert window.target_text() == OUT and not popup.isVisible()
    popup = _click_word(qtbot, window, controller, start + 2)
    stops = []
    window.stopRequested.connect(lambda: stops.append(1))
    QTest.keyClick(window.target, Qt.Key.Key_Escape)
    assert not popup.isVisible() and stops == [] and window.target_text() == OUT


def test_alternatives_from_here_on_request_are_a_keyboard_menu(qtbot, ready):
    window, controller, _fake = ready
    _put_cursor(window, OUT.index("WORLD") + 2)
    feature = controller.alternatives
    with qtbot.waitSignal(feature.menuShown, timeout=10_000) as shown:
        feature.from_here_action.trigger()
    menu = shown.args[0]
    assert isinstance(menu, QMenu) and [a.data() for a in menu.actions() if a.data()] == ["WORLD."]
    assert feature.from_here_action.shortcut().toString() == "Alt+Down"
    menu.close()


# ---- 2: a fuzzy suggestion stays while its source is unchanged ---------------------------------
def test_a_fuzzy_suggestion_stays_when_its_sentence_is_carried_over(qtbot, ready):
    window, controller, _fake = ready
    controller.postedit.memory.add("How are you today?", "你今天好吗？", "en-zh")
    _retranslate(qtbot, window, controller, "Hello there. How are you today, friend?")
    pair = controller.alignment.view.alignment.pairs[1]
    assert pair.suggestion is not None  # offered on the first translation of the text
    _retranslate(qtbot, window, controller, "Hello there. How are you today, friend? Bye.")
    pair = controller.alignment.view.alignment.pairs[1]
    assert pair.origin == "kept" and pair.suggestion is not None and pair.suggestion.score >= 75
    _put_cursor(window, pair.tgt[0] + 1)
    assert window.suggestion_bar.isVisible() and "你今天好吗？" in window.suggestion_bar.label.text()


# ---- 3: alternatives start at a clean boundary --------------------------------------------------
def test_a_click_inside_an_english_word_starts_at_the_word():
    sentence = "We walked to the library."
    assert clean_start(sentence, sentence.index("library") + 3) == sentence.index("library")
    assert clean_start(sentence, sentence.index(" to")) == sentence.index("to")  # the space: the next word
    assert clean_start("我用Python写", 4) == 2  # an ASCII word inside Chinese: whole


def test_chinese_alternatives_start_at_a_model_token_never_inside_one():
    from desktop_mt.engine.model_format import bundled_model_dir, inspect_model_dir
    from desktop_mt.engine.prefix import target_pieces
    from desktop_mt.engine.tokenizer import SentencePieceTokenizer

    try:
        tokenizer = SentencePieceTokenizer(inspect_model_dir(bundled_model_dir()))
    except Exception as exc:  # noqa: BLE001 - no bundled model in this checkout
        pytest.skip(f"no bundled model: {exc}")
    sentence = "我们决定步行去老图书馆，你今天好吗？"
    pieces, _ids = target_pieces(tokenizer, sentence)
    starts = piece_starts(sentence, pieces)
    assert starts is not None and 0 in starts
    for index in range(len(sentence)):
        start = clean_start(sentence, index, starts)
        assert start <= index and start in starts  # a token's first character
    word = next(p for p in pieces if len(p.lstrip("▁")) > 1)
    inside = sentence.index(word.lstrip("▁")) + 1
    assert clean_start(sentence, inside, starts) == inside - 1
    assert clean_start(sentence, inside) == inside  # without the tokenizer: the character


def test_a_character_outside_the_bmp_is_never_split(qtbot, ready):
    window, controller, _fake = ready
    text = "𠀀𠀁好。"
    pair = controller.alignment.view.alignment.pairs[0]
    # UTF-16 position 1 is inside the first character's surrogate pair: snapped to a character.
    assert controller.alternatives._clean_start(pair, text, 1) in (0, 2)


# ---- 4 and 5: the status bar ------------------------------------------------------------------
def test_the_status_bar_speaks_of_the_latest_translation(qtbot, ready):
    window, controller, _fake = ready
    controller.postedit.memory.add("See you soon.", "回头见。", "en-zh", origin="approved")
    _retranslate(qtbot, window, controller, "Good day. See you soon.")
    assert "translation memory" in window.statusBar().currentMessage()
    _retranslate(qtbot, window, controller, "Something else entirely.")
    assert "translation memory" not in window.statusBar().currentMessage()


def test_list_markers_are_not_sentences():
    text = "1. Open the box. Take the key.\n2) Close the door.\n- Leave."
    items = split_text(text)
    assert "".join(s + g for s, g in items) == text
    planned = plan_update([], text)
    assert [p.source for p in planned if p.needs_model] == [
        "Open the box.",
        "Take the key.",
        "Close the door.",
        "Leave.",
    ]
    assert planned[0].source == "1." and planned[0].translation == "1."  # kept as it is, never translated


def test_a_list_is_counted_by_its_sentences_in_the_window(qtbot, ready):
    window, controller, fake = ready
    before = controller.postedit.figures.sentences
    _retranslate(qtbot, window, controller, "Hello world.\n2. How are you?\n3) Fine.")
    assert controller.postedit.figures.sentences - before == 3
    assert "2." not in fake.translated and "3)" not in fake.translated
    assert window.target_text() == "HELLO WORLD.\n2. HOW ARE YOU?\n3) FINE."


# ---- 6: a paste is translated at once ------------------------------------------------------------
def test_a_paste_is_translated_at_once_with_translate_as_you_type_off(qtbot, ready):
    window, controller, _fake = ready
    # Off explicitly (on is the default since issue 45: the pause translates a paste then).
    controller.apply_settings(dataclasses.replace(controller.settings, translate_as_you_type=False))
    assert not controller.settings.translate_as_you_type
    window.set_source("")
    window.source.setFocus()
    data = QMimeData()
    data.setText("Good morning.")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.source.insertFromMimeData(data)
    assert window.target_text() == "GOOD MORNING."


# ---- 7: the completion hint stays on one line ----------------------------------------------------
def test_a_long_completion_is_one_line_cut_with_an_ellipsis(qtbot, ready):
    window, _controller, _fake = ready
    window.resize(700, 400)
    _put_cursor(window, 3)
    long = " ".join(["a very long completion"] * 30)
    window.target.show_completion(long)
    hint = window.target.hint
    assert hint.isVisible() and "…" in hint.text() and "\n" not in hint.text()
    assert hint.height() <= 2 * hint.fontMetrics().height()
    assert hint.geometry().right() <= window.target.viewport().width()
    assert long in hint.toolTip()


# ---- 9: per-event work in proportion to the change, not the document ---------------------------
def test_a_completion_request_reads_its_sentence_not_the_whole_pane(qtbot, ready, monkeypatch):
    window, controller, _fake = ready
    _put_cursor(window, OUT.index("WORLD") + 2)
    whole = []
    plain = window.target.toPlainText
    monkeypatch.setattr(window.target, "toPlainText", lambda: whole.append(1) or plain())
    assert controller.postedit.request_completion() is not None
    assert whole == []  # only the sentence's text is read (postedit_pane.document_slice)


def test_the_machine_text_is_one_pass_over_the_text(qtbot, ready, monkeypatch):
    from desktop_mt.gui.features import alignment, postedit

    window, controller, _fake = ready
    start = OUT.index("HOW")
    _type_over(qtbot, window, start, start + len("HOW ARE YOU?"), "how do you do?")
    calls = []
    real = alignment.index_of16

    def counting(text, pos):
        calls.append(pos)
        return real(text, pos)

    monkeypatch.setattr(alignment, "index_of16", counting)
    monkeypatch.setattr(postedit, "index_of16", counting, raising=False)
    assert controller.postedit.machine_text() == OUT
    assert calls == []  # not a scan of the text per sentence (quadratic on a long text)
    assert postedit.index16_table("a𠀀b")(3) == real("a𠀀b", 3) == 2


@pytest.mark.parametrize("back", [1, 8])  # little or much of the sentence left after the cursor
def test_the_inline_hint_never_covers_the_next_sentence(qtbot, ready, back):
    from PySide6.QtCore import QRect

    window, _controller, _fake = ready
    window.resize(900, 400)
    end = OUT.index("HOW")  # "HELLO WORLD." ends here, "HOW ARE YOU?FINE." follows on the line
    _put_cursor(window, end - back)
    window.target.show_completion("ORLD and a long tail " * 5, end)
    hint, pane = window.target.hint, window.target
    start, stop = pane.cursorRect(_cursor_at(window, end)), pane.cursorRect(_cursor_at(window, len(OUT)))
    following = QRect(start.left(), start.top(), stop.left() - start.left(), start.height())
    assert hint.isVisible() and "…" in hint.text() and hint.height() <= 2 * hint.fontMetrics().height()
    assert not hint.geometry().intersects(following)
    assert hint.geometry().right() <= window.target.viewport().width()


def test_a_message_about_an_edited_sentence_goes_with_a_new_translation(qtbot, ready):
    window, controller, _fake = ready
    start = OUT.index("HOW")
    _type_over(qtbot, window, start, start + len("HOW ARE YOU?"), "how do you do?")
    _put_cursor(window, start + 2)
    controller.alignment.view.refresh()
    assert "Your translation" in window.statusBar().currentMessage()
    _retranslate(qtbot, window, controller, "Where is the station?")
    assert "Your translation" not in window.statusBar().currentMessage()


def test_clear_takes_the_message_about_an_edited_sentence_away_at_once(qtbot, ready):
    """The note speaks of a sentence Clear empties: it goes with it, not 6 s later."""
    window, controller, _fake = ready
    start = OUT.index("HOW")
    _type_over(qtbot, window, start, start + len("HOW ARE YOU?"), "how do you do?")
    _put_cursor(window, start + 2)
    controller.alignment.view.refresh()
    assert "Your translation" in window.statusBar().currentMessage()
    window.clear_action.trigger()
    assert window.target_text() == "" and window.statusBar().currentMessage() == ""


def test_no_list_when_the_cursor_moved_on_before_the_alternatives_came(qtbot, ready):
    window, controller, _fake = ready
    alternatives = controller.alternatives
    shown = []
    alternatives.popupShown.connect(shown.append)
    pos = OUT.index("WORLD") + 2
    _put_cursor(window, pos)
    with wait_emitted(qtbot, controller.worker.alternativesReady, timeout=10_000):
        alternatives.request_from(pos, "click")
        _put_cursor(window, pos + 3)  # an arrow key, say, before the answer is handled
    assert shown == []
