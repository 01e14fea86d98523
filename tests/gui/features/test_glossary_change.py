"""A change to the glossary or the memory re-translates at once only the sentences it touches
(issue 46, defect 2): removing a term from Settings puts the model's word back in the pane
without Ctrl+Enter, and the other sentences never reach the model again."""

from __future__ import annotations

import re

import pytest

from desktop_mt.engine.glossary import Glossary, Term
from desktop_mt.engine.testing import FakeModelTranslator
from desktop_mt.gui.dialogs.glossary_editor import glossary_path, save_glossary
from desktop_mt.tm import TranslationMemory

TEXT = "I go to Beijing. Train station is near. Hello there."


def _model(source: str) -> str:
    return re.sub(r"[^\x00-\x7f]", "", source).upper().strip()


@pytest.fixture
def shown(qtbot, make_controller, app_home):
    glossary_path().parent.mkdir(parents=True, exist_ok=True)
    save_glossary(Glossary((Term("Beijing", "北京"), Term("train station", "火车站"))))
    fakes: list[FakeModelTranslator] = []

    def factory(_config):
        fakes.append(FakeModelTranslator(_model))
        return fakes[-1]

    window, controller = make_controller(factory=factory)
    controller.postedit.use_memory(TranslationMemory(":memory:"))
    window.show()
    window.set_source(TEXT)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(TEXT)
    assert window.target_text() == "I GO TO北京。火车站IS NEAR.HELLO THERE."
    fakes[-1].received.clear()
    return window, controller, fakes[-1]


def _apply_settings(qtbot, controller) -> None:
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.apply_settings(controller.settings)


def test_removing_a_term_retranslates_only_its_sentence_at_once(qtbot, shown):
    window, controller, fake = shown
    save_glossary(Glossary((Term("train station", "火车站"),)))
    _apply_settings(qtbot, controller)
    assert window.target_text() == "I GO TO BEIJING.火车站IS NEAR.HELLO THERE."
    assert fake.received == ["I go to Beijing."]


def test_adding_a_term_retranslates_only_the_sentences_that_hold_it(qtbot, shown):
    window, controller, fake = shown
    save_glossary(Glossary((Term("Beijing", "北京"), Term("train station", "火车站"), Term("hello", "你好"))))
    _apply_settings(qtbot, controller)
    assert window.target_text() == "I GO TO北京。火车站IS NEAR.你好THERE."
    assert all("Beijing" not in text and "station" not in text for text in fake.received)


def test_settings_without_a_glossary_change_leave_the_text_alone(qtbot, shown):
    window, controller, fake = shown
    requests = []
    controller.requestStarted.connect(lambda req_id, _text: requests.append(req_id))
    controller.apply_settings(controller.settings)
    assert requests == [] and fake.received == []


def test_an_entry_edited_in_the_memory_dialog_replaces_its_sentence_at_once(qtbot, shown):
    window, controller, fake = shown
    memory = controller.postedit.memory
    memory.add("Hello there.", "你好。", "en-zh", origin="approved")
    dialog = controller.postedit.open_memory()
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        dialog.memoryChanged.emit()  # as its edit, delete and import do
    assert window.target_text() == "I GO TO北京。火车站IS NEAR.你好。"
    assert fake.received == []
    dialog.close()
