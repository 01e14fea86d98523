"""Issue 46: a file job's resume key holds a digest of the memory (and of the glossary) it was
translated with, so an interrupted job resumed after the memory changed starts over and says
why, instead of joining the journal's outputs to outputs of another memory."""

from __future__ import annotations

import pytest

from desktop_mt.base.errors import TranslationCancelled
from desktop_mt.batch import journal_path, translate_file
from desktop_mt.engine.glossary import Glossary, Term
from desktop_mt.engine.options import GenerationOptions
from desktop_mt.tm import APPROVED, TranslationMemory
from desktop_mt.tm.apply import MemoryTranslator, memory_factory

from ..batch.fake_translator import FakeTranslator

SENTENCES = [f"Sentence number {n} is here." for n in range(30)]
CHANGED = SENTENCES[25]  # translated in the part of the job after the interruption


def _job(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    return src, tmp_path / "out.txt"


def _interrupted(src, dst, memory: TranslationMemory) -> None:
    inner = FakeTranslator(cancel_after_calls=1)
    with pytest.raises(TranslationCancelled):
        translate_file(src, dst, MemoryTranslator(inner, memory, True), cancel=inner.cancel_event, chunk_size=8)
    assert journal_path(dst).exists()


def _resume(src, dst, memory: TranslationMemory, options: GenerationOptions | None = None) -> tuple[list[str], str]:
    reports = []
    translate_file(
        src, dst, MemoryTranslator(FakeTranslator(), memory, True), resume=True, chunk_size=8, options=options,
        on_resume=reports.append,
    )  # fmt: skip
    return dst.read_text(encoding="utf-8").splitlines(), str(reports[0])


def test_an_approved_pair_added_after_the_interruption_starts_the_job_over(tmp_path):
    src, dst = _job(tmp_path)
    memory = TranslationMemory(":memory:")
    _interrupted(src, dst, memory)
    memory.add(CHANGED, "记忆里的译文。", "en-zh", origin=APPROVED)
    lines, report = _resume(src, dst, memory)
    assert report.startswith("not resuming") and "the translation memory changed" in report
    assert "0 entries" in report and "1 entries" in report
    assert lines[25] == "记忆里的译文。" and len(lines) == len(SENTENCES)


def test_an_unapproved_edit_is_not_used_so_the_job_resumes(tmp_path):
    src, dst = _job(tmp_path)
    memory = TranslationMemory(":memory:")
    _interrupted(src, dst, memory)
    memory.add(CHANGED, "未审的编辑。", "en-zh")  # an edit: the window's file jobs never take it
    lines, report = _resume(src, dst, memory)
    assert report.startswith("resuming") and "8 of 30 segments recovered" in report
    assert "未审的编辑。" not in lines


def test_the_same_memory_resumes_and_a_glossary_change_starts_over(tmp_path):
    src, dst = _job(tmp_path)
    memory = TranslationMemory(":memory:")
    memory.add(SENTENCES[0], "第零句。", "en-zh", origin=APPROVED)
    _interrupted(src, dst, memory)
    lines, report = _resume(src, dst, memory)
    assert report.startswith("resuming") and lines[0] == "第零句。"
    _interrupted(src, dst, memory)
    glossary = GenerationOptions(glossary=Glossary((Term("number", "编号"),)))
    _lines, report = _resume(src, dst, memory, glossary)
    assert report.startswith("not resuming") and "glossary" in report


def test_the_window_builds_each_job_with_the_memory_as_it_is_then(tmp_path):
    memory = TranslationMemory(":memory:")
    build = memory_factory(lambda config: FakeTranslator(), lambda: memory)
    before = build(None).memory_identity
    memory.add(CHANGED, "记忆里的译文。", "en-zh", origin=APPROVED)
    assert build(None).memory_identity != before and "confirmed only" in before
