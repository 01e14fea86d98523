"""A book on one line: segmentation and planning linear in the input, progress per sentence."""

from __future__ import annotations

from desktop_mt.batch import translate_file
from desktop_mt.batch.textio import Gap, SegmentCollector, render
from desktop_mt.engine.segment import plan_text, segment_sentences
from tests.growth import best_cpu_seconds

from .fake_translator import FakeTranslator, fake_translation

# Abbreviations, initials and lower-case continuations make the sentence splitter look back
# at the word before each full stop: the part that used to copy the whole line each time.
SENTENCES = "Tom likes the red car today. Dr. Smith met e.g. the A. B. team! Is it {n}? "


def _book(chars: int) -> str:
    """One line of about ``chars`` characters, every sentence distinct."""
    parts, size, n = [], 0, 0
    while size < chars:
        part = SENTENCES.format(n=n)
        parts.append(part)
        size += len(part)
        n += 1
    return "".join(parts).rstrip()


def _words(text: str) -> int:
    return len(text.split())


# 32x the characters on one line must cost about 32x the time. The quadratic copy of the line
# up to each full stop (``paragraph[:end]``, issue 30) is a fast memcpy beside the planning's
# per-character work, so it shows only at book sizes: with it, planning measured 118-220x and
# collecting ~400x at these sizes, and at 100k/400k as little as 5.5x (no guard at all).
SMALL, LARGE, BOUND = 50_000, 1_600_000, 64


def test_planning_a_long_line_grows_linearly():
    """Measured side by side in one run as this thread's CPU time (:mod:`tests.growth`), which
    other processes on the machine do not stretch: linear measures about 33x."""
    small, large = _book(SMALL), _book(LARGE)
    t_small, t_large = best_cpu_seconds(
        lambda: plan_text(small, _words, 510), lambda: plan_text(large, _words, 510), bound=BOUND
    )
    assert t_large / t_small < BOUND, (t_small, t_large)


def test_collecting_a_long_line_grows_linearly():
    """The file side (txt: a line cut into sentence segments, then rendered) is linear too."""
    small, large = _book(SMALL), _book(LARGE)

    def collect_and_render(text: str) -> None:
        collector = SegmentCollector(sentences=True)
        render(collector.add_text(text), collector.segments)

    t_small, t_large = best_cpu_seconds(
        lambda: collect_and_render(small), lambda: collect_and_render(large), bound=BOUND
    )
    assert t_large / t_small < BOUND, (t_small, t_large)


def test_segment_sentences_still_skips_abbreviations_and_initials():
    text = "Dr. Smith met J. R. R. Tolkien. It was e.g. fine. " + "X" * 100 + ". Done."
    assert [s for s, _ in segment_sentences(text)] == [
        "Dr. Smith met J. R. R. Tolkien.",
        "It was e.g. fine.",
        "X" * 100 + ".",
        "Done.",
    ]


def test_one_line_file_progresses_sentence_by_sentence(tmp_path):
    """A one-line book is many segments: progress moves within the line, chunk by chunk,
    and the output is the sentences' translations with no space between them (Chinese)."""
    text = _book(40_000)
    src = tmp_path / "book.txt"
    src.write_text(text + "\n", "utf-8")
    seen: list[tuple[int, int]] = []
    fake = FakeTranslator()
    out = translate_file(src, tmp_path / "book.zh.txt", fake, progress=lambda d, t: seen.append((d, t)), chunk_size=64)
    sentences = [s for s, _ in segment_sentences(text)]
    total = len(set(sentences))
    assert total > 500
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert len({done for done, _ in seen}) > total // 64  # it advanced chunk after chunk
    assert max(len(line) for call in fake.batches for line in call) < 100  # sentences, not the line
    assert out.read_text("utf-8") == "".join(fake_translation(s) for s in sentences) + "\n"


class _Echo(FakeTranslator):
    """Gives every line back as it is (a model that keeps the text, e.g. already Chinese)."""

    def translate_batch(self, lines, options=None, cancel=None, progress=None):
        self.batches.append(list(lines))
        return list(lines)


def test_gap_between_sentences_stays_where_nothing_was_translated(tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("Hello there.  How are you?\n你好。 再见。\n", "utf-8")
    out = translate_file(src, tmp_path / "b.txt", _Echo())
    assert out.read_text("utf-8") == "Hello there.  How are you?\n你好。再见。\n"


def test_bilingual_line_left_as_it_was_is_written_once(tmp_path):
    """An unchanged line is written once even where its sentence gap renders differently."""
    src = tmp_path / "a.txt"
    src.write_text("你好。 再见。\n", "utf-8")
    out = translate_file(src, tmp_path / "b.txt", _Echo(), bilingual=True)
    assert out.read_text("utf-8") == "你好。再见。\n"


def test_a_list_marker_stays_with_its_sentence():
    collector = SegmentCollector(sentences=True)
    template = collector.add_text("1. An item. Another one.")
    assert collector.segments == ["1. An item.", "Another one."]
    assert template == [0, Gap(" "), 1]
