"""File jobs started from the window use the user's translation memory (issue 46, defect 6):
an approved (or imported) entry is the translation of its sentence in the file and never
reaches the model, as with ``translate --tm``; an unapproved edit is not used (approved beats
edited, docs/POSTEDIT.md)."""

from __future__ import annotations

from desktop_mt.engine.testing import FakeModelTranslator
from desktop_mt.tm import TranslationMemory


def test_a_file_job_takes_the_memorys_approved_sentences(qtbot, make_controller, tmp_path):
    made: list[FakeModelTranslator] = []

    def factory(_config):
        made.append(FakeModelTranslator(lambda s: s.upper()))
        return made[-1]

    window, controller = make_controller(factory=factory)
    memory = TranslationMemory(":memory:")
    memory.add("Hello there.", "你好。", "en-zh", origin="approved")
    memory.add("Good night.", "晚安（未确认）。", "en-zh", origin="edited")
    controller.postedit.use_memory(memory)
    srt = tmp_path / "film.srt"
    srt.write_text(
        "1\n00:00:01,000 --> 00:00:02,000\nHello there.\n\n2\n00:00:03,000 --> 00:00:04,000\nGood night.\n\n",
        encoding="utf-8",
    )
    with qtbot.waitSignal(controller.fileJobEnded, timeout=20_000) as ended:
        assert controller.translate_file(str(srt))
    assert ended.args == ["finished"]
    out = (tmp_path / "film.zh.srt").read_text(encoding="utf-8")
    assert "你好。" in out and "GOOD NIGHT." in out and "未确认" not in out
    received = [text for fake in made for text in fake.received]
    assert "Hello there." not in received and "Good night." in received
