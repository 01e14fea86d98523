"""Post-editing in the window (issue 28): the editable translation pane, sentence-level
incremental translation that keeps the user's edits, the model's completion of a corrected
sentence (Tab / Esc), alternatives from a clicked word, and the translation memory.

The engine is ``desktop_mt.engine.testing.FakeModelTranslator``: the real engine around a "model" that
upper-cases its sentence, so every text the model is given is counted (``received``) and a
completion is the model's output after what was typed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette, QTextCursor

from desktop_mt.engine.testing import FakeModelTranslator
from desktop_mt.tm import TranslationMemory

from ..fakes import wait_emitted

TEXT = "Hello world. How are you? Fine."
OUT = "HELLO WORLD.HOW ARE YOU?FINE."  # English -> Chinese: no space between sentences


class Counting(FakeModelTranslator):
    """Also lists the texts given to translate (``translated``), completions left out."""

    def __init__(self) -> None:
        super().__init__(lambda s: s.upper())
        self.translated: list[str] = []

    def translate_stream(self, text, options=None, cancel=None, prefix=None, **how):
        if prefix is None:
            self.translated.append(text)
        return super().translate_stream(text, options, cancel, prefix, **how)

    def translate_each(self, texts, options=None, cancel=None, alone=0):
        self.translated.extend(texts)  # the sentences an edit touched, one look-ahead
        return super().translate_each(texts, options, cancel, alone)


@pytest.fixture
def ready(qtbot, make_controller):
    """A window whose engine upper-cases each sentence, with TEXT translated; a memory in RAM."""
    return make_ready(qtbot, make_controller)


def make_ready(qtbot, make_controller):
    """The ``ready`` fixture's window, controller and engine (other test files use it too)."""
    made: list[Counting] = []

    def factory(_config):
        made.append(Counting())
        return made[-1]

    window, controller = make_controller(factory=factory)
    controller.postedit.use_memory(TranslationMemory(":memory:"))
    window.show()
    window.set_source(TEXT)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(TEXT)
    assert window.target_text() == OUT
    made[-1].received.clear()
    made[-1].translated.clear()
    return window, controller, made[-1]


def _put_cursor(window, pos: int) -> None:
    window.target.setFocus()
    cursor = window.target.textCursor()
    cursor.setPosition(pos)
    window.target.setTextCursor(cursor)


def _type_over(qtbot, window, start: int, end: int, text: str) -> None:
    """Select ``start``-``end`` of the translation pane and type ``text`` over it, key by key."""
    window.target.setFocus()
    cursor = window.target.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    window.target.setTextCursor(cursor)
    qtbot.keyClick(window.target, Qt.Key.Key_Delete)
    qtbot.keyClicks(window.target, text)


def _retranslate(qtbot, window, controller, text: str) -> None:
    window.set_source(text)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(text)


def test_the_translation_pane_is_editable(ready):
    window, _controller, _fake = ready
    assert not window.target.isReadOnly()


def test_an_edited_sentence_is_kept_and_only_changed_sources_go_to_the_model(qtbot, ready):
    window, controller, fake = ready
    start = OUT.index("HOW")
    _type_over(qtbot, window, start, start + len("HOW ARE YOU?"), "how do you do?")
    pair = controller.alignment.view.pair_at("target", start + 1)
    assert pair.edited and pair.translation == "how do you do?" and pair.machine == "HOW ARE YOU?"
    _retranslate(qtbot, window, controller, "Hello world. How are you? Fine, thanks.")
    assert window.target_text() == "HELLO WORLD.how do you do?FINE, THANKS."
    assert fake.translated == ["Fine, thanks."]  # the two unchanged sentences never reached the model
    # The edited sentence's own source changes: it is translated again.
    _retranslate(qtbot, window, controller, "Hello world. How old are you? Fine, thanks.")
    assert window.target_text() == "HELLO WORLD.HOW OLD ARE YOU?FINE, THANKS."
    assert fake.translated[-1] == "How old are you?"


def test_typing_twenty_sentences_sends_each_sentence_to_the_model_once(qtbot, make_controller):
    made: list[Counting] = []

    def factory(_config):
        made.append(Counting())
        return made[-1]

    window, controller = make_controller(factory=factory)
    controller.postedit.use_memory(TranslationMemory(":memory:"))
    sentences = [f"This is sentence number {n} of the text." for n in range(1, 21)]
    for count in range(1, 21):  # the source grows sentence by sentence, translated each time
        _retranslate(qtbot, window, controller, " ".join(sentences[:count]))
    figures = controller.postedit.figures
    assert made[-1].translated == sentences  # each sentence once, in order (the first is the whole text)
    assert (figures.sentences, figures.to_model, figures.saved) == (210, 20, 190)
    assert window.target_text() == "".join(s.upper() for s in sentences)


def test_typing_in_a_sentence_offers_the_models_completion_and_tab_accepts_it(qtbot, ready):
    window, controller, fake = ready
    feature = controller.postedit
    end = OUT.index("WORLD.") + len("WORLD.")
    cut = OUT.index("W", OUT.index(" "))  # after "HELLO "
    _type_over(qtbot, window, cut, end, "")
    with qtbot.waitSignal(feature.completionFinished, timeout=10_000):
        qtbot.keyClicks(window.target, "W")
    assert window.target.completion_shown() == "ORLD."
    assert fake.received[-1] == "Hello world."
    assert window.target.hint.isVisible()
    # Drawn distinctly, in the palette's placeholder-text colour (never a fixed colour).
    placeholder = window.target.palette().color(QPalette.ColorRole.PlaceholderText)
    assert window.target.hint.colors()[0] == placeholder
    assert placeholder.name(QColor.NameFormat.HexArgb) in window.target.hint.styleSheet()
    qtbot.keyClick(window.target, Qt.Key.Key_Tab)
    assert window.target_text() == OUT
    assert window.target.hasFocus()  # Tab accepted the completion instead of moving the focus
    assert not window.target.hint.isVisible()


def test_esc_dismisses_the_completion_and_does_not_stop_anything(qtbot, ready):
    window, controller, _fake = ready
    feature = controller.postedit
    cut = OUT.index("W", OUT.index(" "))
    _type_over(qtbot, window, cut, OUT.index("WORLD.") + len("WORLD."), "")
    with qtbot.waitSignal(feature.completionFinished, timeout=10_000):
        qtbot.keyClicks(window.target, "W")
    stops = []
    window.stopRequested.connect(lambda: stops.append(1))
    qtbot.keyClick(window.target, Qt.Key.Key_Escape)
    assert window.target.completion_shown() == "" and stops == []
    assert window.target_text() == "HELLO WHOW ARE YOU?FINE."


def test_confirming_the_sentence_drops_its_completion(qtbot, ready):
    """Ctrl+Shift+Enter confirms the sentence typed in and moves on: its completion goes with
    it (seen in the real window: the hint stayed beside the confirmed sentence)."""
    window, controller, _fake = ready
    feature = controller.postedit
    cut = OUT.index("W", OUT.index(" "))
    _type_over(qtbot, window, cut, OUT.index("WORLD.") + len("WORLD."), "")
    with qtbot.waitSignal(feature.completionFinished, timeout=10_000):
        qtbot.keyClicks(window.target, "W")
    assert window.target.completion_shown() == "ORLD."
    feature.confirmation.confirm_action.trigger()
    assert window.target.completion_shown() == ""
    assert feature.completion.pending is None


def test_a_new_keystroke_cancels_the_completion_asked_before(qtbot, ready):
    window, controller, _fake = ready
    feature = controller.postedit
    _put_cursor(window, OUT.index("WORLD"))
    first = feature.request_completion()
    pending = feature.completion.pending[1]
    second = feature.request_completion()
    assert second == first + 1 and pending.is_set()  # the old request's flag stops its decoding


def test_a_click_on_a_word_offers_alternatives_from_that_word(qtbot, ready):
    window, controller, fake = ready
    start = OUT.index("WORLD")
    _type_over(qtbot, window, start, start + len("WORLD."), "EARTH.")
    alternatives = controller.alternatives
    rect = window.target.cursorRect(_cursor_at(window, start + 2))
    with qtbot.waitSignal(alternatives.popupShown, timeout=10_000) as shown:
        qtbot.mouseClick(window.target.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    popup = shown.args[0]
    choices = [a for a in popup.actions() if a.data()]
    assert [a.data() for a in choices] == ["WORLD."]  # the model's words after "HELLO "
    assert fake.received[-1] == "Hello world."
    choices[0].trigger()
    assert window.target_text() == OUT


def _cursor_at(window, pos: int) -> QTextCursor:
    cursor = QTextCursor(window.target.document())
    cursor.setPosition(pos)
    return cursor


def test_edits_go_into_the_memory_and_an_exact_match_is_never_sent_to_the_model(qtbot, ready):
    window, controller, fake = ready
    memory = controller.postedit.memory
    start = OUT.index("HOW")
    _type_over(qtbot, window, start, start + len("HOW ARE YOU?"), "how do you do?")
    _retranslate(qtbot, window, controller, "Good morning.")  # the text moves on: the edit is kept
    match = memory.exact("How are you?", "en-zh")
    assert match is not None and match.entry.target == "how do you do?"
    assert match.entry.machine == "HOW ARE YOU?"
    fake.translated.clear()
    # An edit never approved is offered (100 %), not used as it is: the model translates the sentence.
    _retranslate(qtbot, window, controller, "How are you? See you.")
    assert window.target_text() == "HOW ARE YOU?SEE YOU." and controller.alignment.view.memory_pairs() == []
    _put_cursor(window, 2)
    bar = window.suggestion_bar
    assert bar.isVisible() and "not approved 100%" in bar.label.text() and "how do you do?" in bar.label.text()
    bar.use_button.click()
    assert controller.postedit.approve() == 2  # approved: now the memory's translation for the sentence
    fake.translated.clear()
    _retranslate(qtbot, window, controller, "Good morning.")
    _retranslate(qtbot, window, controller, "How are you? See you.")
    assert window.target_text() == "how do you do?SEE YOU."
    assert fake.translated == ["Good morning."]  # the memory's sentences never reached the model
    remembered = controller.alignment.view.memory_pairs()[0]
    assert remembered.translation == "how do you do?" and remembered.origin == "memory"
    assert "translation memory" in window.statusBar().currentMessage()


def test_a_fuzzy_match_is_offered_as_a_suggestion(qtbot, ready):
    window, controller, _fake = ready
    controller.postedit.memory.add("How are you today?", "你今天好吗？", "en-zh")
    _retranslate(qtbot, window, controller, "Hello world. How are you today, friend?")
    pair = controller.alignment.view.alignment.pairs[1]
    assert pair.suggestion is not None and pair.suggestion.score >= 75
    _put_cursor(window, pair.tgt[0] + 1)
    bar = window.suggestion_bar
    assert bar.isVisible() and "你今天好吗？" in bar.label.text()
    bar.use_button.click()
    assert window.target_text().endswith("你今天好吗？")


def test_approve_keeps_every_pair_and_the_memory_dialog_opens(qtbot, ready):
    window, controller, _fake = ready
    feature = controller.postedit
    assert feature.approve() == 3
    assert feature.memory.count("en-zh") == 3
    dialog = feature.open_memory()
    assert dialog is not None and dialog.isVisible()
    dialog.close()


def test_the_history_keeps_the_final_text_and_the_machines(qtbot, ready):
    window, controller, _fake = ready
    start = OUT.index("HOW")
    _type_over(qtbot, window, start, start + len("HOW ARE YOU?"), "how do you do?")
    with qtbot.waitSignal(controller.history.entryEdited, timeout=10_000) as edited:
        pass
    entry = controller.history.history().get(edited.args[0])
    assert entry.translation == "HELLO WORLD.how do you do?FINE."
    assert entry.machine == OUT


def test_typing_while_the_words_alternatives_are_shown_goes_to_the_pane(qtbot, ready):
    window, controller, _fake = ready
    start = OUT.index("WORLD")
    rect = window.target.cursorRect(_cursor_at(window, start + 2))
    with qtbot.waitSignal(controller.alternatives.popupShown, timeout=10_000) as shown:
        qtbot.mouseClick(window.target.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    popup = shown.args[0]
    cursor = window.target.cursorForPosition(rect.center()).position()
    qtbot.keyClick(window.target, Qt.Key.Key_X)  # the user types on: the list goes, the key goes in
    assert not popup.isVisible()
    text = window.target_text()
    assert text[cursor] == "x" and text.replace("x", "", 1) == OUT


def test_no_menu_when_the_user_typed_on_before_the_alternatives_came(qtbot, ready):
    window, controller, _fake = ready
    alternatives = controller.alternatives
    shown = []
    alternatives.menuShown.connect(shown.append)
    alternatives.popupShown.connect(shown.append)
    pos = OUT.index("WORLD") + 2
    with wait_emitted(qtbot, controller.worker.alternativesReady, timeout=10_000):
        alternatives.request_from(pos)
        with window.target.user_edit():  # typed before the answer is handled
            _cursor_at(window, pos).insertText("x")
    assert shown == []
