"""Alternatives: the worker's n-best for the sentence under the cursor, a menu, and one
undoable replacement in the translation pane."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from ..fakes import wait_emitted
from ..sentence_fake import sentence_factory

TEXT = "Hello world. How are you? Fine."
OUT = "<Hello><world.> <How><are><you?> <Fine.>"


def _ready(qtbot, make_controller, **kwargs):
    made = []
    window, controller = make_controller(factory=sentence_factory(made, **kwargs))
    window.show()
    with qtbot.waitActive(window):
        window.activateWindow()
    window.set_source(TEXT)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(TEXT)
    return window, controller, made[-1]


def _cursor(editor, pos):
    editor.setFocus()
    cursor = editor.textCursor()
    cursor.setPosition(pos)
    editor.setTextCursor(cursor)


def test_menu_lists_alternatives_and_choosing_one_is_one_undo_step(qtbot, make_controller):
    window, controller, fake = _ready(qtbot, make_controller)
    feature = controller.alternatives
    _cursor(window.target, OUT.index("<are>"))
    with qtbot.waitSignal(feature.menuShown, timeout=10_000) as shown:
        qtbot.keyClick(
            window.target, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
        )
    sentence, n, thread = fake.alternative_calls[-1]
    assert (sentence, n) == ("How are you?", 3)
    assert thread != threading.get_ident()  # on the worker's thread
    menu = shown.args[0]
    choices = [a for a in menu.actions() if a.data()]
    assert [a.data() for a in choices] == ["<How><are><you?>", "<How><are><you?>#1", "<How><are><you?>#2"]
    assert [a.isChecked() for a in choices] == [True, False, False]
    choices[2].trigger()
    assert window.target_text() == "<Hello><world.> <How><are><you?>#2 <Fine.>"
    # The alignment follows: the last sentence moved, and still highlights its source.
    _cursor(window.target, window.target_text().index("<Fine"))
    assert controller.alignment.view.pair.src == (TEXT.index("Fine"), len(TEXT))
    # Ctrl+Z in the translation pane undoes the replacement (one step), Ctrl+Shift+Z redoes it.
    qtbot.keyClick(window.target, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.target_text() == OUT
    qtbot.keyClick(window.target, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.target_text() == "<Hello><world.> <How><are><you?>#2 <Fine.>"
    window.target.undo()
    assert window.target_text() == OUT
    assert window.source_text() == TEXT  # the source is not touched


def test_from_the_source_pane_and_the_context_menu(qtbot, make_controller):
    window, controller, fake = _ready(qtbot, make_controller)
    feature = controller.alternatives
    _cursor(window.source, TEXT.index("Fine"))
    with qtbot.waitSignal(feature.menuShown, timeout=10_000):
        feature.action.trigger()
    assert fake.alternative_calls[-1][0] == "Fine."
    feature.menu.close()
    target = window.target
    cursor = target.textCursor()
    cursor.setPosition(OUT.index("<world"))
    point = target.cursorRect(cursor).center()
    target.customContextMenuRequested.emit(point)
    context = feature.menu
    [here] = [a for a in context.actions() if a.text().startswith("Alternatives from here")]
    [entry] = [a for a in context.actions() if a.text().startswith("Alternatives…")]
    assert entry.isEnabled() and here.isEnabled()
    with qtbot.waitSignal(feature.menuShown, timeout=10_000) as shown:
        entry.trigger()
    assert fake.alternative_calls[-1][0] == "Hello world."
    [second] = [a for a in shown.args[0].actions() if a.data() == "<Hello><world.>#1"]
    second.trigger()
    assert window.target_text() == "<Hello><world.>#1 <How><are><you?> <Fine.>"
    context.close()


def test_nothing_under_the_cursor_asks_nothing(qtbot, make_controller):
    window, controller, fake = _ready(qtbot, make_controller)
    controller.clear()
    assert controller.alternatives.request() is None
    assert fake.alternative_calls == []


def test_a_new_translation_cancels_the_request_and_empties_the_undo_history(qtbot, make_controller):
    window, controller, fake = _ready(qtbot, make_controller)
    feature = controller.alternatives
    _cursor(window.target, 1)
    with qtbot.waitSignal(feature.menuShown, timeout=10_000) as shown:
        feature.request()
    [alt] = [a for a in shown.args[0].actions() if a.data() == "<Hello><world.>#1"]
    alt.trigger()
    assert window.target.document().isUndoAvailable()
    fake.alternatives_block = threading.Event()
    fake.alternatives_started.clear()
    shown_menus = []
    feature.menuShown.connect(shown_menus.append)
    feature.request()
    assert fake.alternatives_started.wait(10)
    with (
        wait_emitted(qtbot, controller.worker.alternativesReady, timeout=10_000) as ready,
        qtbot.waitSignal(controller.requestFinished, timeout=10_000),
    ):
        controller.translate("Again.")  # sets the pending request's cancel flag
    assert ready.args[1] == []  # the worker stopped the search
    assert not window.target.document().isUndoAvailable()
    assert shown_menus == []
    assert window.target_text() == "<Again.>"


def test_engine_error_is_shown_not_raised(qtbot, make_controller):
    window, controller, fake = _ready(qtbot, make_controller)

    def boom(*_a, **_k):
        raise RuntimeError("no beams today")

    fake.alternatives = boom
    _cursor(window.target, 1)
    with qtbot.waitSignal(controller.alternatives.failed, timeout=10_000) as failed:
        controller.alternatives.request()
    assert "no beams today" in failed.args[0]
    assert window.target_text() == OUT


def _bundled_translation(qtbot, make_controller, text: str):
    """The window on the real engine and bundled model, ``text`` translated."""
    from desktop_mt.gui.settings import Settings
    from desktop_mt.gui.workers.translation import default_translator_factory

    from ..test_real_engine import _bundled_dir

    found = _bundled_dir()
    if found is None:
        pytest.skip("no bundled model")
    window, controller = make_controller(
        Settings(model_path=str(found), intra_op_threads=1), factory=default_translator_factory
    )
    window.set_source(text)
    with qtbot.waitSignal(controller.requestFinished, timeout=120_000):
        controller.translate(text)
    return window, controller


def test_bundled_model_alignment_and_alternatives(qtbot, make_controller):
    """The real engine: every sentence is aligned with its source, and a chosen alternative
    (the engine's n-best, the first one being the translation shown) replaces its sentence."""
    text = "Where is the train station? I am late.\n\nThe weather is nice today."
    window, controller = _bundled_translation(qtbot, make_controller, text)
    pairs = controller.alignment.view.alignment.pairs
    assert [p.source for p in pairs] == ["Where is the train station?", "I am late.", "The weather is nice today."]
    shown = window.target_text()
    for pair in pairs:
        assert text[pair.src[0] : pair.src[1]] == pair.source
        assert shown[pair.tgt[0] : pair.tgt[1]] == pair.translation
    feature = controller.alternatives
    with qtbot.waitSignal(feature.menuShown, timeout=120_000) as got:
        feature.request(pairs[0])
    choices = [a for a in got.args[0].actions() if a.data()]
    assert 1 <= len(choices) <= 3
    assert choices[0].data() == pairs[0].translation and choices[0].isChecked()
    if len(choices) > 1:
        other, end = choices[1].data(), pairs[0].tgt[1]
        choices[1].trigger()
        assert window.target_text() == other + shown[end:]  # the first sentence starts at 0
        assert window.target_text().endswith(pairs[2].translation)
        window.target.undo()
        assert window.target_text() == shown
    got.args[0].close()


def test_a_sentence_with_a_url_is_one_pair_and_its_alternatives_keep_the_url(qtbot, make_controller):
    """The real engine cuts a sentence at a protected span (here a URL); the GUI aligns the
    whole sentence and offers alternatives of the whole sentence, URL included, and choosing
    one puts no full stop in the middle of it."""
    text = "I go to https://example.com every day. The sale ends on 12/25/2024. Then I sleep."
    window, controller = _bundled_translation(qtbot, make_controller, text)
    pairs = controller.alignment.view.alignment.pairs
    assert [p.source for p in pairs] == [
        "I go to https://example.com every day.",
        "The sale ends on 12/25/2024.",
        "Then I sleep.",
    ]
    shown = window.target_text()
    assert "https://example.com" in shown[pairs[0].tgt[0] : pairs[0].tgt[1]]
    # A sentence that ends in a span: the span and its full stop are in its range, and the
    # next sentence is not joined to it.
    assert shown[pairs[1].tgt[0] : pairs[1].tgt[1]].endswith("12/25/2024。")
    assert text[pairs[1].src[0] : pairs[1].src[1]] == "The sale ends on 12/25/2024."
    feature = controller.alternatives
    with qtbot.waitSignal(feature.menuShown, timeout=120_000) as got:
        feature.request(pairs[0])
    choices = [a.data() for a in got.args[0].actions() if a.data()]
    assert choices and choices[0] == pairs[0].translation
    for choice in choices:
        assert "https://example.com" in choice and "。" not in choice.split("https://example.com")[0]
    got.args[0].close()


def test_the_history_entry_keeps_the_chosen_alternative(qtbot, make_controller):
    """The history once kept the first translation after an alternative was chosen; it keeps
    what the pane shows, and an undo puts the entry back."""
    window, controller, fake = _ready(qtbot, make_controller)
    history = controller.history.history()
    [entry] = history.search()
    assert entry.translation == OUT
    feature = controller.alternatives
    _cursor(window.target, OUT.index("<are>"))
    with qtbot.waitSignal(feature.menuShown, timeout=10_000) as shown:
        feature.request(controller.alignment.view.pair_at_cursor())
    [a for a in shown.args[0].actions() if a.data()][1].trigger()
    assert history.get(entry.id).translation == window.target_text() == "<Hello><world.> <How><are><you?>#1 <Fine.>"
    with qtbot.waitSignal(controller.history.entryEdited, timeout=10_000):
        window.target.undo()  # an undo in the pane is the user's edit: the history follows it
    assert history.get(entry.id).translation == OUT
    assert history.count() == 1
