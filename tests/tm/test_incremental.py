"""Sentence-level incremental translation: only sentences whose source changed are translated
again, and the user's edited sentences are kept."""

from __future__ import annotations

from desktop_mt.tm.incremental import Sentence, plan_update, simulate_typing, split_text


def test_split_text_gives_the_text_back():
    text = "Hello there. How are you?\n\n  Fine, thanks.  \nOK"
    parts = split_text(text)
    assert [s for s, _ in parts] == ["Hello there.", "How are you?", "Fine, thanks.", "OK"]
    assert "".join(s + g for s, g in parts) == text.lstrip()


def test_only_changed_sentences_go_to_the_model_and_edits_are_kept():
    shown = [
        Sentence("I like tea.", "我喜欢茶。", edited=True),
        Sentence("It is hot.", "天气很热。"),
        Sentence("See you.", "再见。"),
    ]
    plan = plan_update(shown, "I like tea. It is cold. See you.")
    assert [(p.source, p.translation, p.edited) for p in plan] == [
        ("I like tea.", "我喜欢茶。", True),
        ("It is cold.", None, False),
        ("See you.", "再见。", False),
    ]
    assert [p.source for p in plan if p.needs_model] == ["It is cold."]


def test_a_changed_source_drops_the_users_edit():
    plan = plan_update([Sentence("I like tea.", "我很喜欢茶。", edited=True)], "I like coffee.")
    assert plan[0].needs_model and not plan[0].edited


def test_moved_and_repeated_sentences():
    shown = [Sentence("A one.", "一。"), Sentence("B two.", "二。")]
    plan = plan_update(shown, "B two. A one. A one.")
    assert [p.translation for p in plan] == ["二。", "一。", None]  # each old sentence serves once


def test_typing_a_long_text_saves_most_model_calls():
    text = " ".join(f"This is sentence number {i}, which the user types slowly." for i in range(20))
    figures = simulate_typing(text)
    assert figures.requests >= 40  # a pause at each comma and each full stop
    assert figures.whole > 5 * figures.incremental and figures.saved > 0.8
    assert figures.incremental >= figures.requests  # the sentence being typed is new at every request


def test_the_memory_fills_sentences_and_suggests_for_the_rest():
    from desktop_mt.tm import TranslationMemory
    from desktop_mt.tm.incremental import KEPT, MEMORY, MODEL

    memory = TranslationMemory(":memory:")
    memory.add("Close the door.", "关门。", "en-zh", origin="approved")
    memory.add("Please open the window now.", "请现在打开窗户。", "en-zh")
    memory.add("我很好。", "I am fine.", "zh-en", origin="imported")
    shown = [Sentence("Hello.", "你好！", edited=True)]
    plan = plan_update(shown, "Hello. Close the door. Please open the windows now. 我很好。 Something else.", memory)
    assert [(p.origin, p.translation) for p in plan] == [
        (KEPT, "你好！"),
        (MEMORY, "关门。"),
        (MODEL, None),
        (MEMORY, "I am fine."),
        (MODEL, None),
    ]
    assert plan[2].suggestion is not None and plan[2].suggestion.entry.target == "请现在打开窗户。"
    assert plan[2].suggestion.score >= 75 and plan[4].suggestion is None
    only_english = plan_update([], "我很好。", memory, target="zh")  # already Chinese: not looked up
    assert only_english[0].origin == MODEL and only_english[0].suggestion is None


def test_an_unapproved_edits_exact_match_is_only_offered():
    """An exact match that is an edit never approved goes to the model with the match offered
    (a stray keystroke never comes back as the translation); an approved one is used as it is."""
    from desktop_mt.tm import TranslationMemory
    from desktop_mt.tm.incremental import MEMORY, MODEL

    memory = TranslationMemory(":memory:")
    memory.add("Close the door.", "关门", "en-zh")  # edited, never approved
    [planned] = plan_update([], "Close the door.", memory)
    assert planned.origin == MODEL and planned.translation is None
    assert planned.suggestion is not None and planned.suggestion.exact and planned.suggestion.entry.target == "关门"
    memory.add("Close the door.", "关门。", "en-zh", origin="approved")
    [planned] = plan_update([], "Close the door.", memory)
    assert (planned.origin, planned.translation) == (MEMORY, "关门。")
