"""Look-ahead streaming (``translate_stream(look_ahead=True)``, ``engine.lookahead``): the first
text decoded alone, the rest in length-sorted batches, the same events as one by one."""

from __future__ import annotations

import re
import threading

import pytest

from desktop_mt import Translator
from desktop_mt.engine.events import Finished, SegmentDone, TextDelta
from desktop_mt.engine.lookahead import batches, plan_texts
from desktop_mt.engine.options import GenerationOptions
from desktop_mt.engine.segment import Segment
from desktop_mt.engine.streaming import FIRST_SHOWN

from .scripted_model import ScriptedModelTranslator

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]
# 40 sentences of 2 to 9 words, in three paragraphs: lengths vary, so the sort matters.
SENTENCES = [
    " ".join([WORDS[k // 12], WORDS[k % 12]] + WORDS[k % 5 : k % 5 + k % 8]).capitalize() + "." for k in range(40)
]
PASTE = " ".join(SENTENCES[:15]) + "\n\n" + " ".join(SENTENCES[15:30]) + "\n" + " ".join(SENTENCES[30:])


def events(translator, text, look_ahead, options=None, cancel=None):
    """The stream's events, its Finished's timings left out."""
    out = list(translator.translate_stream(text, options, cancel, look_ahead=look_ahead))
    *rest, end = out
    assert isinstance(end, Finished)
    stats = end.stats
    return rest, (stats.segments, stats.tokens, stats.cancelled, stats.whole, stats.cut)


@pytest.fixture
def upper():
    return ScriptedModelTranslator(lambda source: source.upper())


def test_the_first_sentence_is_decoded_alone_and_the_rest_in_sorted_batches(upper):
    upper.batch_size = 16
    ahead = events(upper, PASTE, True)
    assert upper.decoder.batches == [1, 16, 16, 7]
    upper.decoder.batches.clear()
    assert events(upper, PASTE, False) == ahead  # the same events, one by one
    assert upper.decoder.batches == [1] * 40
    shown = "".join(e.text for e in ahead[0] if isinstance(e, TextDelta))
    assert shown == upper.translate(PASTE)
    assert [e.segment for e in ahead[0] if isinstance(e, SegmentDone)] == list(range(40))  # in order


def test_the_due_sentence_streams_token_by_token_from_its_batch(upper):
    upper.batch_size = 8
    stream = upper.translate_stream(PASTE, look_ahead=True)
    deltas = [e for e in stream if isinstance(e, TextDelta) and e.segment == 1]
    # Sentence 1 waits in a batch: it still comes a character (a token) at a time.
    assert len(deltas) > 1 and "".join(d.text for d in deltas) == SENTENCES[1].upper()


def test_a_batch_of_one_streams_as_before(upper):
    upper.batch_size = 1
    assert events(upper, PASTE, True) == events(upper, PASTE, False)


def test_cancel_stops_the_running_batch_within_one_step(upper):
    upper.batch_size = 16
    cancel = threading.Event()
    upper.decoder.on_step = lambda step: cancel.set() if step == 40 else None  # inside the first batch
    rest, (segments, _tokens, cancelled, _w, _c) = events(upper, PASTE, True, cancel=cancel)
    assert cancelled and upper.decoder.steps == 40  # the step in which it was set, none after
    assert upper.decoder.batches == [1, 16]
    shown = "".join(e.text for e in rest if isinstance(e, TextDelta))
    assert upper.translate(PASTE).startswith(shown) and segments < 40


@pytest.mark.parametrize(
    "model",
    [lambda s: s, lambda s: re.sub(r"[0-9]", "", s)],
    ids=["spans-kept-whole", "spans-lost-cut"],
)
def test_sentences_with_protected_spans_give_the_same_events(model):
    translator = ScriptedModelTranslator(model)
    translator.batch_size = 4
    text = (  # the first sentence has no span (a first one with spans is cut: the test below)
        "Good night. The meeting is on 12/25/2024 at 10:30, in room 4B. It costs $19.99 today. I love you. "
        "Call 555-0100 before 9 am. See https://example.com/a?id=3 for more.\n"
        + " ".join(SENTENCES[:9])
        + " The total was 4,200 dollars."
    )
    ahead = events(translator, text, True)
    batched = list(translator.decoder.batches)
    translator.decoder.batches.clear()
    assert ahead == events(translator, text, False)
    one_by_one = translator.decoder.batches
    whole, cut = ahead[1][3:]
    assert (whole, cut) == ((5, 0) if model("1") == "1" else (0, 5))
    if not cut:  # 16 texts: the first alone, then sorted batches of 4
        assert batched == [1, 4, 4, 4, 3] and len(one_by_one) == 16
    else:  # the pieces of the sentences cut are batched too (a second pass, as translate_batch's)
        assert sum(batched) == len(one_by_one) and len(batched) * 2 < len(one_by_one)


@pytest.mark.parametrize("model", [lambda s: s, lambda s: re.sub(r"[0-9]", "", s)], ids=["keeps-spans", "loses-spans"])
def test_a_first_sentence_with_spans_is_cut_so_its_text_shows_after_one_step(model):
    """Tried whole, the first sentence of a paste would show nothing until its whole decode is
    done and checked; with look-ahead it is cut around its spans (reason "shown at once"), its
    first piece streams from the first decode step, no span is lost, and the sentences after it
    are as one by one (tried whole)."""
    translator = ScriptedModelTranslator(model)
    translator.batch_size = 4
    first = "The meeting is on 12/25/2024 at 10:30, in room 4B."
    rest = "It costs $19.99 today. I love you. The total was 4,200 dollars."
    steps_at_first_delta = []
    stream = translator.translate_stream(first + " " + rest, look_ahead=True)
    shown = []
    for event in stream:
        if isinstance(event, TextDelta):
            if not steps_at_first_delta:
                steps_at_first_delta.append(translator.decoder.steps)
            shown.append(event.text)
    assert steps_at_first_delta == [1]  # the whole try would have run ~50 steps first
    cut = translator.translate(first, GenerationOptions(beams=1, spans="cut"))
    assert "".join(shown) == cut + translator.translate(rest)  # Chinese output: no space between
    assert all(span in "".join(shown) for span in ("12/25/2024", "10:30", "4B", "$19.99", "4,200"))
    done = [e for e in translator.translate_stream(first + " " + rest, look_ahead=True) if isinstance(e, SegmentDone)]
    assert done[0].spans_reason == FIRST_SHOWN and {e.spans_reason for e in done[-3:]} != {FIRST_SHOWN}
    # A text of that one sentence is tried whole as before: the sentence is all there is to wait for.
    alone = [e for e in translator.translate_stream(first, look_ahead=True) if isinstance(e, SegmentDone)]
    assert FIRST_SHOWN not in {e.spans_reason for e in alone}


def test_repeated_sentences_are_decoded_once(upper):
    text = " ".join(["I love you.", "Thank you very much.", "I love you.", "Thank you very much.", "Good night."])
    ahead = events(upper, text, True)
    assert ahead == events(upper, text, False)
    upper.decoder.batches.clear()
    events(upper, text, True)
    assert upper.decoder.batches == [1, 2]  # "I love you." alone, then the two others


def test_batches_follow_rows_and_the_token_budget():
    encoded = {"a": [1] * 3, "b": [1] * 3, "c": [1] * 5, "d": [1] * 9}
    assert list(batches(["a", "b", "c", "d"], encoded, 2, 100)) == [["a", "b"], ["c", "d"]]
    assert list(batches(["a", "b", "c", "d"], encoded, 8, 15)) == [["a", "b", "c"], ["d"]]
    assert plan_texts([Segment("x"), "lit", Segment("y"), Segment("x")]) == ["x", "y"]


def _bundled() -> Translator:
    try:
        return Translator(session_options=__import__("desktop_mt").SessionOptions(intra_op_threads=1))
    except Exception as exc:  # noqa: BLE001 - a checkout without the bundled model
        pytest.skip(f"no bundled model: {exc}")


@pytest.mark.parametrize("beams", [1, None], ids=["greedy", "model-beams"])
def test_the_bundled_model_shows_the_same_text_with_look_ahead(beams):
    """Per-row int8 is batch invariant: look-ahead changes when text shows, not what."""
    translator = _bundled()
    assert translator.batch_invariant
    translator.batch_size = 4
    text = (
        "The committee met on Tuesday to discuss the new budget. Several members raised concerns.\n"
        "After a long debate, they agreed to postpone the vote until May 5, 2025. "
        "The chairman thanked everyone. It costs $19.99. Where is the train station? I love you."
    )
    options = GenerationOptions(beams=beams)
    assert events(translator, text, True, options) == events(translator, text, False, options)


def test_translate_each_streams_the_chosen_text_alone_and_batches_the_others(upper):
    """The window's re-translation of the sentences an edit touched: one stream per sentence,
    in order, each with the events it has alone; the sentence at the cursor (here the third)
    is decoded alone, the others in batches."""
    upper.batch_size = 4
    texts = SENTENCES[:9]
    streams = upper.translate_each(texts, alone=2)
    got = [list(stream) for stream in streams]
    assert sorted(upper.decoder.batches) == [1, 4, 4]  # the cursor's alone, 8 others in 2 batches
    assert upper.decoder.batches[:2] == [4, 1]  # the first two come from a batch, then the cursor's
    upper.decoder.batches.clear()
    for text, ahead in zip(texts, got, strict=True):
        *rest, end = ahead
        alone, _ = events(upper, text, False)
        assert rest == alone and isinstance(end, Finished) and not end.stats.cancelled


def test_translate_each_stops_within_one_step_when_cancelled(upper):
    upper.batch_size = 8
    cancel = threading.Event()
    upper.decoder.on_step = lambda step: cancel.set() if step == 5 else None  # in the first batch
    got = [list(stream) for stream in upper.translate_each(SENTENCES[:12], cancel=cancel, alone=3)]
    assert upper.decoder.steps == 5 and upper.decoder.batches == [8]
    assert got[0][-1].stats.cancelled


def test_a_two_way_translator_shares_each_direction_s_look_ahead(upper):
    from desktop_mt.engine.router import TwoWayTranslator

    upper.batch_size = 4
    two_way = TwoWayTranslator({"en-zh": upper})
    texts = [*SENTENCES[:5], "ありがとう。", *SENTENCES[5:9]]  # Japanese: copied as it is, on its own
    got = [list(stream) for stream in two_way.translate_each(texts, alone=6)]
    assert sorted(upper.decoder.batches) == [1, 4, 4]  # the 8 English ones and the cursor's (index 5 of them)
    shown = ["".join(e.text for e in events if isinstance(e, TextDelta)) for events in got]
    assert shown == [two_way.translate(text) for text in texts]


def test_a_long_paste_shows_its_first_text_before_its_later_lines_are_planned(upper):
    """Planning a long paste whole comes before its first text (~60 ms for 3,000 words): the
    first line is planned alone, the rest once the first text is out; the events are the same."""
    upper.batch_size = 16
    planned: list[str] = []
    plan = upper.text.plan
    upper.text.plan = lambda text, opts: (planned.append(text), plan(text, opts))[1]  # type: ignore[method-assign]
    stream = upper.translate_stream(PASTE, look_ahead=True)
    first = next(e for e in stream if isinstance(e, TextDelta))
    assert first.segment == 0 and planned == [PASTE.split("\n")[0]]
    rest = [first, *stream]
    assert len(planned) == 2 and PASTE.endswith(planned[1])
    upper.text.plan = plan  # type: ignore[method-assign]
    assert rest[:-1] == events(upper, PASTE, False)[0]
