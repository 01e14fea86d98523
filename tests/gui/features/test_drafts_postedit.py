"""A crash does not take the user's edits from them (issue 28): the draft keeps which sentences
of the translation are the user's, with their source sentence, and a restart restores them, so a
new translation after the restart keeps the edit (only changed sources go to the model)."""

from __future__ import annotations

import json

from desktop_mt.gui.features import drafts
from desktop_mt.gui.features.alignment import Pair
from desktop_mt.tm import TranslationMemory

from .test_postedit import OUT, TEXT, Counting, _type_over, make_ready


def saved() -> dict:
    path = drafts.draft_path()
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_an_edit_saved_in_the_draft_is_still_the_users_after_a_crash(qtbot, make_controller):
    window, controller, _fake = make_ready(qtbot, make_controller)
    start = OUT.index("HOW")
    _type_over(qtbot, window, start, start + len("HOW ARE YOU?"), "how do you do?")
    edited = OUT.replace("HOW ARE YOU?", "how do you do?")
    # The autosave (no quit: the process is killed after it, so nothing more is written).
    qtbot.waitUntil(lambda: any(r.get("edited") for r in saved().get("sentences", [])), timeout=10_000)
    assert saved()["translation"] == edited

    made: list[Counting] = []

    def factory(_config):
        made.append(Counting())
        return made[-1]

    again, second = make_controller(factory=factory)  # the restart: the draft comes back
    second.postedit.use_memory(TranslationMemory(":memory:"))
    assert again.target_text() == edited
    view = second.alignment.view
    assert view.alignment is not None
    [mine] = [p for p in view.alignment.pairs if p.edited]
    assert (mine.source, mine.translation, mine.machine) == ("How are you?", "how do you do?", "HOW ARE YOU?")
    text = TEXT.replace("Fine.", "Fine, thanks.")  # a different source sentence changes
    again.set_source(text)
    with qtbot.waitSignal(second.requestFinished, timeout=10_000):
        second.translate(text)
    assert again.target_text() == "HELLO WORLD.how do you do?FINE, THANKS."
    assert "How are you?" not in made[-1].translated  # the user's sentence never went to the model


def test_a_sentence_record_that_no_longer_matches_its_pane_is_left_out():
    draft = drafts.Draft(
        "Hi. Bye.",
        "嗨。再见。",
        sentences=[
            {"source": "Hi.", "translation": "嗨。", "machine": "你好。", "edited": True, "src": [0, 3], "tgt": [0, 2]},
            {"source": "Bye.", "translation": "拜拜。", "edited": True, "src": [4, 8], "tgt": [2, 5]},  # not the pane's
            {"source": "", "translation": "x", "tgt": [0, 1]},
            "not a record",
        ],
    )
    parsed = drafts.parse_draft(draft.to_json())
    [pair] = drafts.restored_pairs(parsed)
    assert pair == Pair(0, "Hi.", "嗨。", (0, 3), (0, 2), "model", True, "你好。")


def test_an_edit_after_a_restart_reaches_the_history_with_the_restored_source(qtbot, make_controller):
    window, controller, _fake = make_ready(qtbot, make_controller)
    start = OUT.index("HOW")
    _type_over(qtbot, window, start, start + len("HOW ARE YOU?"), "how do you do?")
    controller.postedit._history_timer.stop()  # killed before the history followed the edit
    qtbot.waitUntil(lambda: any(r.get("edited") for r in saved().get("sentences", [])), timeout=10_000)
    again, second = make_controller()
    second.postedit.use_memory(TranslationMemory(":memory:"))
    assert second.postedit.machine_text() == OUT  # the machine's text of the edited sentence is back
    second.postedit.sync_history()
    history = second.history.history()
    assert history is not None
    edited = OUT.replace("HOW ARE YOU?", "how do you do?")
    assert [(e.source, e.machine_text) for e in history.search() if e.translation == edited] == [(TEXT, OUT)]


def test_translate_after_a_restart_sends_only_the_changed_sentences(qtbot, make_controller):
    """Issue 46, defect 7: a restored draft made with the same settings and model keeps its
    sentences; before, Translate after a restart sent every sentence to the model again."""
    window, controller, _fake = make_ready(qtbot, make_controller)
    controller.drafts.close()  # a clean quit writes the draft
    assert saved()["made_with"]
    made: list[Counting] = []

    def factory(_config):
        made.append(Counting())
        return made[-1]

    again, second = make_controller(factory=factory)
    second.postedit.use_memory(TranslationMemory(":memory:"))
    assert again.target_text() == OUT
    text = TEXT + " See you."
    again.set_source(text)
    with qtbot.waitSignal(second.requestFinished, timeout=10_000):
        second.translate(text)
    assert again.target_text() == OUT + "SEE YOU."
    assert made[-1].translated == ["See you."]


def test_a_restored_draft_made_with_other_settings_is_translated_again(qtbot, make_controller):
    window, controller, _fake = make_ready(qtbot, make_controller)
    controller.drafts.close()
    made: list[Counting] = []

    def factory(_config):
        made.append(Counting())
        return made[-1]

    again, second = make_controller(factory=factory)
    second.postedit.use_memory(TranslationMemory(":memory:"))
    second.settings.beams = 2  # other settings than the draft's translation was made with
    with qtbot.waitSignal(second.requestFinished, timeout=10_000):
        second.translate(TEXT)
    assert made[-1].translated == [TEXT]  # nothing kept: the model has the whole text again
