"""The typed fakes of desktop_mt.engine.testing behave as the engine's protocols say: the real searches
follow a ScriptedDecoder's script, CancelAfter stops them at an exact step, and a
ScriptedTranslator streams, completes, batches and cancels like a Translator."""

from __future__ import annotations

import threading

import pytest

from desktop_mt.base.errors import TranslationCancelled
from desktop_mt.engine import generation as gen
from desktop_mt.engine.events import Finished, SegmentDone, TextDelta
from desktop_mt.engine.testing import CancelAfter, ScriptedDecoder, ScriptedTranslator

START, EOS, PAD, VOCAB = 0, 1, 2, 16
PARAMS = gen.DecodeParams(decoder_start=START, eos=EOS, pad=PAD)


def reversed_source(src: tuple[int, ...], done: tuple[int, ...]) -> int:
    """The script: the source backwards, then end-of-sentence."""
    answer = (*reversed(src), EOS)
    return answer[len(done) - 1] if len(done) - 1 < len(answer) else EOS


def _outputs(events: list[gen.SearchEvent]) -> dict[int, list[int]]:
    return {e.item: e.ids for e in events if isinstance(e, gen.ItemDone)}


@pytest.mark.parametrize("beams", [1, 3])
def test_the_searches_follow_the_script(beams: int) -> None:
    decoder = ScriptedDecoder(reversed_source, VOCAB)
    sources = [[5, 6, 7], [9, 3], [4]]
    params = PARAMS if beams == 1 else gen.DecodeParams(decoder_start=START, eos=EOS, pad=PAD, beams=beams)
    search = gen.greedy if beams == 1 else gen.beam_search
    out = _outputs(list(search(decoder, sources, [10, 10, 10], params)))
    assert out == {0: [7, 6, 5, EOS], 1: [3, 9, EOS], 2: [4, EOS]}
    if beams == 1:  # the longest answer's four tokens, one decoder step each
        assert decoder.steps == 4


def test_cancel_after_stops_a_search_at_that_check() -> None:
    cancel = CancelAfter(2)
    events = list(gen.greedy(ScriptedDecoder(reversed_source, VOCAB), [[5, 6, 7]], [10], PARAMS, cancel))
    assert [e.ids for e in events if isinstance(e, gen.TokensStep)] == [[7], [6]]
    assert not _outputs(events) and cancel.asked == 3
    assert CancelAfter(0).is_set()


def test_a_scripted_stream_joins_to_the_output() -> None:
    translator = ScriptedTranslator(lambda text: text.upper())
    events = list(translator.translate_stream("one two  three"))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "ONE TWO  THREE"
    assert [type(e) for e in events][-2:] == [SegmentDone, Finished]
    assert translator.calls[0].method == "translate_stream" and translator.calls[0].text == "one two  three"


def test_a_cancelled_stream_ends_with_finished_only() -> None:
    events = list(ScriptedTranslator().translate_stream("a b c", cancel=CancelAfter(1)))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["<a "]
    assert not any(isinstance(e, SegmentDone) for e in events)
    finished = events[-1]
    assert isinstance(finished, Finished) and finished.stats.cancelled and finished.stats.tokens == 1


def test_a_held_stream_waits_for_the_test() -> None:
    hold = threading.Event()
    stream = ScriptedTranslator(hold=hold).translate_stream("a b")
    hold.set()  # nothing waits before the first delta is asked for
    assert next(stream) == TextDelta("<a ", 0)
    cancel = threading.Event()
    held = ScriptedTranslator(hold=threading.Event()).translate_stream("a b", cancel=cancel)
    cancel.set()  # a cancel ends the wait
    assert [type(e) for e in held] == [Finished]


def test_completions_continue_the_typed_prefix() -> None:
    translator = ScriptedTranslator(lambda text: "I like tea.")
    events = list(translator.translate_stream("我喜欢茶。", prefix="I like "))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "tea."
    assert translator.alternatives("我喜欢茶。", n=2, prefix="You ")[0].text == "I like tea."
    assert translator.calls[-1].prefix == "You "


def test_batches_keep_blank_lines_report_progress_and_cancel() -> None:
    translator, seen = ScriptedTranslator(), []
    assert translator.translate_batch(["a", " ", "b"], progress=lambda done, total: seen.append((done, total))) == [
        "<a>",
        "",
        "<b>",
    ]
    assert seen == [(1, 3), (2, 3), (3, 3)]
    with pytest.raises(TranslationCancelled):
        translator.translate_batch(["a", "b"], cancel=CancelAfter(1))
    with pytest.raises(RuntimeError, match="scripted failure"):
        ScriptedTranslator(fail_on="boom").translate_batch(["boom"])
    translator.close()
    assert translator.closed
