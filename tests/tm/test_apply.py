"""A batch translator with a memory: exact matches never reach the model (counted with the
engine's fake model, desktop_mt.engine.testing.FakeModelTranslator)."""

from __future__ import annotations

import pytest

from desktop_mt.engine.testing import FakeModelTranslator
from desktop_mt.tm import TranslationMemory
from desktop_mt.tm.apply import MemoryTranslator


@pytest.fixture
def fake(tiny_marian_dir):
    return FakeModelTranslator(lambda s: "M" + s, tiny_marian_dir)


def test_exact_matches_are_used_and_never_sent_to_the_model(fake):
    memory = TranslationMemory(":memory:")
    memory.add("The file was saved.", "文件已保存。", "en-zh")
    memory.add("Press Enter.", "按回车键。", "en-zh")
    translator = MemoryTranslator(fake, memory)
    out = translator.translate_batch(["The file was saved.", "Press Enter. Then wait.", "Nothing known here."])
    assert out[0] == "文件已保存。"
    assert out[1].startswith("按回车键。") and "Then wait" in out[1]
    assert fake.received == ["Then wait.", "Nothing known here."]
    assert (translator.counts.from_memory, translator.counts.to_model) == (2, 2)


def test_a_line_without_a_match_is_translated_as_without_a_memory(fake):
    memory = TranslationMemory(":memory:")
    line = "First sentence here. Second one."
    plain = fake.translate_batch([line])
    fake.received.clear()
    assert MemoryTranslator(fake, memory).translate_batch([line]) == plain
    assert sorted(fake.received) == ["First sentence here.", "Second one."]  # the engine's own sentences


def test_all_lines_from_memory_make_no_model_call_and_report_progress(fake):
    memory = TranslationMemory(":memory:")
    memory.add("Yes.", "是。", "en-zh")
    seen = []
    out = MemoryTranslator(fake, memory).translate_batch(["Yes.", "Yes."], progress=lambda d, t: seen.append((d, t)))
    assert out == ["是。", "是。"] and fake.received == [] and seen[-1] == (2, 2)


def test_the_wrapper_looks_like_its_translator(fake):
    translator = MemoryTranslator(fake, TranslationMemory(":memory:"))
    assert translator.options == fake.options and translator.model_info is fake.model_info
    assert translator.batch_size == fake.batch_size and translator.directions == fake.directions
    assert translator.model_infos == fake.model_infos and translator.missing == fake.missing
    assert fake.memory_identity == "" and translator.memory_identity.startswith("0 entries")


def test_a_journal_made_with_another_memory_is_not_resumed(fake):
    from desktop_mt.batch import job_key

    data = b"The file was saved.\n"
    one, other = TranslationMemory(":memory:"), TranslationMemory(":memory:")
    one.add("The file was saved.", "文件已保存。", "en-zh")
    other.add("The file was saved.", "文件已经保存。", "en-zh")
    plain = job_key(data, "txt", None, fake, None)
    with_one = job_key(data, "txt", None, MemoryTranslator(fake, one), None)
    assert with_one != plain != job_key(data, "txt", None, MemoryTranslator(fake, other), None)
    assert with_one == job_key(data, "txt", None, MemoryTranslator(fake, one), None)


def test_a_memory_translation_without_a_glossary_term_is_counted(fake):
    from desktop_mt.engine.glossary import Glossary, Term
    from desktop_mt.engine.options import GenerationOptions

    memory = TranslationMemory(":memory:")
    memory.add("Read the manual.", "读说明书。", "en-zh", origin="approved")
    memory.add("The manual is short.", "手册很短。", "en-zh", origin="approved")
    translator = MemoryTranslator(fake, memory)
    options = GenerationOptions(glossary=Glossary((Term("manual", "手册"),)))
    out = translator.translate_batch(["Read the manual.", "The manual is short."], options)
    assert out == ["读说明书。", "手册很短。"]  # the memory's, as approved
    assert translator.counts.terms_missing == 1
    assert "1 of the memory's sentence(s) lack a glossary term" in str(translator.counts)
