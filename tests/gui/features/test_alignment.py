"""Sentence alignment: the mapping from SegmentDone events (no widgets) and the highlight of
the counterpart in the other pane, while streaming too."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette

from desktop_mt.engine.events import Finished, SegmentDone, TextDelta, TranslationStats
from desktop_mt.gui.features.alignment import Alignment, SegmentSpan, SegmentTracker, utf16_len
from desktop_mt.gui.window.look import highlight_color

from ..sentence_fake import sentence_factory

TEXT = "Hello world. How are you?\n\nFine."


# ---- the mapping ---------------------------------------------------------------------------
def _spans(events):
    tracker = SegmentTracker()
    return [s for s in (tracker.feed(e) for e in events) if s is not None]


def test_tracker_counts_each_segments_deltas_in_utf16():
    events = [
        TextDelta("你好", 0),
        TextDelta("😀。", 0),
        SegmentDone(0, "Hi 😀.", "你好😀。", 3),
        TextDelta("\n\n", -1),
        TextDelta("好", 1),
        SegmentDone(1, "Fine.", "好", 1),
        Finished(TranslationStats(2, 4, 0.1, 0.01)),
    ]
    first, second = _spans(events)
    assert (first.start, first.end) == (0, 5)  # 😀 is two UTF-16 units, as QTextDocument counts
    assert (second.start, second.end) == (7, 8)
    assert second.source == "Fine." and second.translation == "好"
    assert utf16_len("😀") == 2


def test_spaces_at_a_segments_edges_are_not_in_its_range():
    first, second = _spans(
        [
            TextDelta("你好。 ", 0),
            SegmentDone(0, "Hi.", "你好。", 1),
            TextDelta(" 好", 1),
            SegmentDone(1, "Fine.", "好", 1),
        ]
    )
    assert (first.start, first.end) == (0, 3)
    assert (second.start, second.end) == (5, 6)


def test_empty_segment_has_an_empty_range():
    [span] = _spans([TextDelta("x", -1), SegmentDone(0, "…", "", 0)])
    assert (span.start, span.end) == (1, 1)


def test_a_sentence_cut_by_protected_spans_is_one_span():
    """ "I go to https://x.io 😀 every day." reaches the GUI as two engine segments around the
    URL, the last naming the sentence; the tracker makes one sentence of them, the URL's output
    included, and the alignment finds the whole sentence (so Alternatives gets it, not the fragment "I go to")."""
    events = [
        TextDelta("我去", 0),
        SegmentDone(0, "I go to", "我去", 2, continues=True),
        TextDelta(" ", -1),
        TextDelta("https://x.io", -1),
        TextDelta(" ", -1),
        TextDelta("😀每天。", 1),
        SegmentDone(1, "😀 every day.", "😀每天。", 3, sentence="I go to https://x.io 😀 every day."),
        TextDelta(" ", -1),
        TextDelta("好。", 2),
        SegmentDone(2, "Fine.", "好。", 1),
    ]
    whole, fine = _spans(events)
    assert whole.translation == "我去 https://x.io 😀每天。"
    assert (whole.start, whole.end) == (0, utf16_len(whole.translation))
    assert whole.source == "I go to https://x.io 😀 every day." and whole.segment == 0
    assert (fine.start, fine.translation) == (whole.end + 1, "好。")
    text = "Well. I go to https://x.io 😀 every day. Fine."
    a = Alignment(text)
    a.add(SegmentSpan(9, "Well.", "嗯。", 0, 2))
    pair = a.add(whole)
    assert pair.source == "I go to https://x.io 😀 every day."
    assert pair.src == (6, 6 + utf16_len(pair.source))
    assert a.add(fine).src == (pair.src[1] + 1, pair.src[1] + 6)


def test_alignment_finds_sentences_in_order_and_answers_both_sides():
    text = "Go. Go. Stop."
    a = Alignment(text)
    for i, (sentence, start, end) in enumerate((("Go.", 0, 4), ("Go.", 5, 9), ("Stop.", 10, 14))):
        a.add(SegmentSpan(i, sentence, "x", start, end))
    assert [p.src for p in a.pairs] == [(0, 3), (4, 7), (8, 13)]
    assert a.at_source(5).segment == 1
    assert a.at_source(3).segment == 0  # just after the full stop: still that sentence
    assert a.at_source(4).segment == 1  # a range starting here wins
    assert a.at_target(9).segment == 1 and a.at_target(4).segment == 0
    assert a.at_target(100) is None


def test_whitespace_normalised_sentence_is_found_loosely_and_unicode_offsets():
    text = "😀 A line\nbroken  here. Next."
    a = Alignment(text)
    a.add(SegmentSpan(0, "😀 A line broken here.", "t", 0, 1))
    a.add(SegmentSpan(1, "Next.", "u", 2, 3))
    a.add(SegmentSpan(2, "Not in the text.", "v", 4, 5))
    assert a.pairs[0].src == (0, 23)  # 22 characters, the emoji counting two
    assert a.pairs[1].src == (24, 29)
    assert a.pairs[2].src is None


def test_source_edits_move_later_sentences_and_unalign_the_edited_one():
    a = Alignment("One. Two. Three.")
    for i, s in enumerate(("One.", "Two.", "Three.")):
        a.add(SegmentSpan(i, s, s, i * 10, i * 10 + 4))
    a.source_edited(5, 0, 3)  # typed 3 characters before "Two."
    assert [p.src for p in a.pairs] == [(0, 4), (8, 12), (13, 19)]
    a.source_edited(9, 1, 0)  # deleted inside "Two."
    assert [p.src for p in a.pairs] == [(0, 4), None, (12, 18)]


def test_replace_translation_moves_the_later_pairs():
    a = Alignment("A. B. C.")
    for i, s in enumerate(("A.", "B.", "C.")):
        a.add(SegmentSpan(i, s, "xx", i * 3, i * 3 + 2))
    old = a.replace_translation(a.pairs[1], "yyyy")
    assert old == (3, 5)
    assert [p.tgt for p in a.pairs] == [(0, 2), (3, 7), (8, 10)]
    assert a.pairs[1].translation == "yyyy"


# ---- the panes -----------------------------------------------------------------------------
def _selection(editor):
    sels = editor.extraSelections()
    if not sels:
        return None
    c = sels[0].cursor
    return editor.toPlainText()[c.selectionStart() : c.selectionEnd()]


def _active(qtbot, window):
    window.show()
    with qtbot.waitActive(window):
        window.activateWindow()


def _put_cursor(editor, pos):
    editor.setFocus()
    cursor = editor.textCursor()
    cursor.setPosition(pos)
    editor.setTextCursor(cursor)


def _chinese_pairs() -> tuple[Alignment, str]:
    """Three Chinese sentences with no space between them (as the engine writes Chinese)."""
    out = "你好。你好吗？很好。"
    alignment = Alignment("Hi. How are you? Fine.")
    for n, (src, tgt) in enumerate((("Hi.", "你好。"), ("How are you?", "你好吗？"), ("Fine.", "很好。"))):
        start = out.index(tgt)
        alignment.add(SegmentSpan(n, src, tgt, start, start + len(tgt)))
    return alignment, out


def test_a_target_edit_belongs_to_its_sentence_and_moves_the_later_ones():
    alignment, out = _chinese_pairs()
    first, second, third = alignment.pairs
    # Typing "们" after "你" inside the second sentence (position 4).
    text = out[:4] + "们" + out[4:]
    changed = alignment.target_edited(4, 0, 1, text)
    assert changed == [second] and second.edited and not first.edited and not third.edited
    assert second.translation == "你们好吗？" and second.machine == "你好吗？"
    assert text[third.tgt[0] : third.tgt[1]] == "很好。"


def test_where_chinese_sentences_meet_a_deletion_takes_the_sentence_it_starts_at():
    alignment, out = _chinese_pairs()
    first, second, third = alignment.pairs
    # Select the whole second sentence and delete it, then type its replacement at the same
    # place: the characters go to the (emptied) second sentence, not the end of the first.
    start, end = second.tgt
    text = out[:start] + out[end:]
    assert alignment.target_edited(start, end - start, 0, text) == [second]
    assert second.tgt == (start, start) and first.translation == "你好。"
    text = text[:start] + "还好吗？" + text[start:]
    alignment.target_edited(start, 0, 4, text)
    assert (first.translation, second.translation, third.translation) == ("你好。", "还好吗？", "很好。")
    assert second.edited and not first.edited


def test_a_deletion_across_two_sentences_shortens_both():
    alignment, out = _chinese_pairs()
    first, second, third = alignment.pairs
    # Delete from the middle of the first sentence to the middle of the second: "好。你好".
    pos, removed = 1, 4
    text = out[:pos] + out[pos + removed :]
    alignment.target_edited(pos, removed, 0, text)
    assert first.translation == "你" and second.translation == "吗？" and third.translation == "很好。"
    assert first.edited and second.edited and not third.edited


def test_cursor_in_either_pane_highlights_the_counterpart(qtbot, make_controller):
    window, controller = make_controller(factory=sentence_factory())
    _active(qtbot, window)
    window.set_source(TEXT)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(TEXT)
    assert window.target_text() == "<Hello><world.> <How><are><you?> <Fine.>"
    view = controller.alignment.view
    _put_cursor(window.source, TEXT.index("are"))
    assert _selection(window.source) == "How are you?"
    assert _selection(window.target) == "<How><are><you?>"
    _put_cursor(window.target, window.target_text().index("<Fine"))
    assert _selection(window.source) == "Fine."
    assert _selection(window.target) == "<Fine.>"
    assert view.pair.segment == 2
    selection = window.target.extraSelections()[0]
    fmt = selection.format
    color = fmt.background().color()
    palette = window.target.palette()
    expected = highlight_color(palette, palette.color(QPalette.ColorRole.Base))
    assert color == expected and 0 < color.alpha() < 255  # the palette's highlight, text readable through


def test_hover_highlights_and_leaving_returns_to_the_cursor(qtbot, make_controller):
    window, controller = make_controller(factory=sentence_factory())
    _active(qtbot, window)
    window.set_source(TEXT)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(TEXT)
    _put_cursor(window.source, 0)
    target = window.target
    cursor = target.textCursor()
    cursor.setPosition(window.target_text().index("<are>"))
    point = target.cursorRect(cursor).center()
    qtbot.mouseMove(target.viewport(), point)
    qtbot.waitUntil(lambda: _selection(window.source) == "How are you?", timeout=10_000)
    controller.alignment.view.hover(None, 0)  # the pointer left the panes
    assert _selection(window.source) == "Hello world."


def test_highlight_works_while_streaming(qtbot, make_controller):
    gate = threading.Event()
    window, controller = make_controller(factory=sentence_factory(gate=gate))
    _active(qtbot, window)
    window.set_source(TEXT)
    _put_cursor(window.source, 1)
    view = controller.alignment.view
    with qtbot.waitSignal(view.highlighted, timeout=10_000, check_params_cb=lambda p: p is not None):
        controller.translate(TEXT)
    assert controller.current is not None  # still streaming: the rest waits for the gate
    assert _selection(window.target) == "<Hello><world.>"
    _put_cursor(window.source, TEXT.index("Fine"))
    assert _selection(window.target) is None  # not translated yet
    with qtbot.waitSignal(view.highlighted, timeout=10_000, check_params_cb=lambda p: p is not None and p.segment == 2):
        gate.set()
    assert _selection(window.target) == "<Fine.>"
    qtbot.waitUntil(lambda: controller.current is None, timeout=10_000)


def test_editing_a_sentence_unaligns_it_and_a_new_translation_resets(qtbot, make_controller):
    window, controller = make_controller(factory=sentence_factory())
    _active(qtbot, window)
    window.set_source(TEXT)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(TEXT)
    _put_cursor(window.source, 2)
    window.source.insertPlainText("X")  # "HeXllo world."
    assert _selection(window.target) is None
    _put_cursor(window.source, window.source_text().index("Fine"))
    assert _selection(window.target) == "<Fine.>"  # moved with the edit
    controller.clear()
    assert controller.alignment.view.alignment is None
    assert window.source.extraSelections() == [] and window.target.extraSelections() == []


def _long_translation(qtbot, make_controller):
    """120 one-line sentences translated in a small window, the translation scrolled to the top."""
    text = "\n".join(f"Sentence number {i}." for i in range(120))
    window, controller = make_controller(factory=sentence_factory())
    window.resize(700, 400)
    _active(qtbot, window)
    window.set_source(text)
    with qtbot.waitSignal(controller.requestFinished, timeout=20_000):
        controller.translate(text)
    window.target.verticalScrollBar().setValue(0)
    return text, window, controller


def _in_view(editor, pos) -> bool:
    probe = editor.textCursor()
    probe.setPosition(pos)
    return editor.viewport().rect().contains(editor.cursorRect(probe).center())


def test_the_counterpart_is_scrolled_into_view(qtbot, make_controller):
    """With a long text the counterpart of the sentence under the cursor may be off screen in
    the other pane: that pane scrolls to it (its own cursor stays put)."""
    text, window, controller = _long_translation(qtbot, make_controller)
    target_cursor = window.target.textCursor().position()
    _put_cursor(window.source, text.index("Sentence number 110."))
    assert _selection(window.target) == "<Sentence><number><110.>"
    assert _in_view(window.target, controller.alignment.view.pair.tgt[0])
    assert window.target.textCursor().position() == target_cursor


def test_a_click_under_the_pointer_scrolls_the_other_pane_too(qtbot, make_controller):
    """A click puts the pointer over the sentence it highlights (hover and cursor agree), which
    once skipped the scroll: clicking a sentence must bring its counterpart into view."""
    text, window, controller = _long_translation(qtbot, make_controller)
    source = window.source
    _put_cursor(source, 0)
    source.verticalScrollBar().setValue(source.verticalScrollBar().maximum())  # the wheel
    probe = source.textCursor()
    probe.setPosition(text.index("Sentence number 110.") + 3)
    point = source.cursorRect(probe).center()
    assert source.viewport().rect().contains(point)
    qtbot.mouseMove(source.viewport(), point)  # the pointer is over it: hover highlights it
    qtbot.mouseClick(source.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert source.textCursor().position() > text.index("Sentence number 110.")
    assert _selection(window.target) == "<Sentence><number><110.>"
    assert _in_view(window.target, controller.alignment.view.pair.tgt[0])
