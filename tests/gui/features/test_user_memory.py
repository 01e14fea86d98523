"""The user's translation memory in the window: one object that post-editing, its confirmations,
the file jobs and the Local API share (issue 42)."""

from __future__ import annotations

from desktop_mt.gui.features import user_memory
from desktop_mt.tm import TranslationMemory


def test_a_memory_that_cannot_be_opened_is_none_and_the_status_bar_says_why(qtbot, make_controller, monkeypatch):
    window, controller = make_controller()

    def refuse() -> TranslationMemory:
        raise OSError("disk full")

    monkeypatch.setattr(user_memory, "TranslationMemory", refuse)
    shared = controller.parts.memory
    assert shared.memory is None and shared.error == "OSError: disk full"
    assert controller.postedit.memory is None and controller.translation_memory is None
    assert controller.postedit.open_memory() is None  # Edit > Translation memory…: said, not raised
    assert "disk full" in window.statusBar().currentMessage()


def test_post_editing_its_confirmations_and_the_local_api_share_one_memory(qtbot, make_controller):
    _window, controller = make_controller()
    memory = TranslationMemory(":memory:")
    controller.postedit.use_memory(memory)
    assert controller.parts.memory.memory is memory
    assert controller.postedit.confirmation.user_memory is controller.parts.memory
    assert controller.local_api._memory is not None and controller.local_api._memory() is memory  # what it serves
