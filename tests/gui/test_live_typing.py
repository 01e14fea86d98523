"""Translate as you type (live translation, on by default): typing in a long text sends only the
sentence being typed to the model, a keystroke cancels the running translation at once and the
next run covers the new text, and a user's saved "off" stays off."""

from __future__ import annotations

import json
import threading

from PySide6.QtGui import QTextCursor

from desktop_mt.app.settings import SETTINGS_VERSION, Settings, load_settings, save_settings

from .fakes import wait_emitted
from .sentence_fake import SentenceFake, fake_sentence, sentence_factory, sentences

LONG = (
    "The river rose in the night. Farmers moved their animals to the hills. "
    "The school stayed closed for a week. Volunteers brought food and blankets. "
    "By Sunday the water had gone down."
)


def _translated(text: str, sep: str = " ") -> str:
    """The pane after translating ``text``: the fake's sentences, joined by the engine with
    spaces, by the sentence-level plan as Chinese text is (no space between sentences)."""
    return sep.join(fake_sentence(s) for s in sentences(text))


def _live(make_controller, **kwargs):
    made: list[SentenceFake] = []
    window, controller = make_controller(Settings(translate_as_you_type=True), factory=sentence_factory(made, **kwargs))
    return window, controller, made[-1]


def _cursor_after(window, anchor: str) -> None:
    """Put the source pane's cursor right after ``anchor`` (where the user clicks to type)."""
    cursor = window.source.textCursor()
    cursor.setPosition(window.source_text().index(anchor) + len(anchor))
    window.source.setTextCursor(cursor)


def test_the_default_is_on():
    assert Settings().translate_as_you_type is True


def test_typing_in_the_middle_translates_only_the_sentence_being_typed(qtbot, make_controller):
    window, controller, fake = _live(make_controller)
    window.set_source(LONG)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(LONG)
    assert window.target_text() == _translated(LONG)
    before = len(fake.calls)

    _cursor_after(window, "The school stayed closed")
    qtbot.keyClicks(window.source, " again")
    edited = LONG.replace("stayed closed", "stayed closed again")
    assert window.source_text() == edited
    qtbot.waitUntil(
        lambda: window.target_text() == _translated(edited, "") and controller.current is None, timeout=10_000
    )

    asked = [c["text"] for c in fake.calls[before:]]
    # Only the typed sentence went to the model: once per pause (one, unless the machine was so
    # slow that a pause fell between two keys), the last time as it reads now.
    assert asked and asked[-1] == "The school stayed closed again for a week."
    assert all(t.startswith("The school stayed closed") and t.endswith("for a week.") for t in asked)


def test_a_keystroke_cancels_the_running_translation_and_the_next_run_covers_the_new_text(qtbot, make_controller):
    gate = threading.Event()  # the fake waits here after each sentence: the run is still going
    window, controller, fake = _live(make_controller, gate=gate)
    window.set_source(LONG)
    with wait_emitted(qtbot, controller.worker.segmentDone, timeout=10_000):  # the first sentence
        controller.translate(LONG)
    running = controller.current
    assert running is not None and not running.cancel.is_set()

    window.source.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(window.source, " Roads opened.")
    assert running.cancel.is_set()  # at the keystroke, not after the pause
    gate.set()
    edited = LONG + " Roads opened."
    qtbot.waitUntil(
        lambda: window.target_text() == _translated(edited, "") and controller.current is None, timeout=10_000
    )
    assert controller.requests.current is None
    # The cancelled run translated the first sentence; the next run kept it and sent the rest.
    assert fake.calls[0]["text"] == LONG
    assert "The river rose in the night." not in [c["text"] for c in fake.calls[1:]]
    assert fake.calls[-1]["text"].endswith("Roads opened.")


def test_a_saved_off_stays_off_and_a_file_without_the_key_gets_on(tmp_path, qtbot, make_controller):
    path = tmp_path / "settings.json"
    save_settings(Settings(translate_as_you_type=False), path)
    restored = load_settings(path).settings
    assert restored.translate_as_you_type is False
    path.write_text(json.dumps({"settings_version": SETTINGS_VERSION, "beams": 2}), encoding="utf-8")
    assert load_settings(path).settings.translate_as_you_type is True

    window, controller = make_controller(restored)
    qtbot.keyClicks(window.source, "Hello there.")
    assert not controller.requests.debounce.isActive() and controller.current is None


def test_with_live_on_a_paste_is_translated_at_once_and_once(qtbot, make_controller):
    from PySide6.QtCore import QMimeData

    window, controller, fake = _live(make_controller)
    window.source.setFocus()
    data = QMimeData()
    data.setText("Good morning. See you soon.")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.source.insertFromMimeData(data)
        # at once: the request runs before any pause could pass, and no pause is left pending
        assert controller.current is not None and not controller.requests.debounce.isActive()
    assert [c["text"] for c in fake.calls] == ["Good morning. See you soon."]
    assert window.target_text() == _translated("Good morning. See you soon.")
