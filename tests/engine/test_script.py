"""Simplified -> Traditional output: OpenCC phrases, streamed without retracting anything."""

from __future__ import annotations

import random

import pytest

from desktop_mt import GenerationOptions, Translator
from desktop_mt.engine.events import SegmentDone, TextDelta
from desktop_mt.engine.script import StreamConverter, convert

TEXTS = [
    "这个软件的内存和网络设置在打印机旁边。",
    "头发和面条，干杯！后面的信息技术人员说：“鼠标坏了。”",
    "我们在台湾用打印机打印了一份文件 然后去吃面",
    "没有分隔符的一整句话里有打印机和内存还有软件",
]


def test_phrase_level_conversions():
    assert convert("打印机的内存", "traditional-tw") == "印表機的記憶體"  # s2twp: Taiwan phrases
    assert convert("打印机的内存", "traditional-hk") == "打印機的內存"  # s2hk
    assert convert("头发和面条", "traditional") == "頭髮和麪條"
    assert convert("打印机", "simplified") == "打印机"


@pytest.mark.parametrize("script", ["traditional-tw", "traditional-hk"])
@pytest.mark.parametrize("text", TEXTS)
def test_stream_equals_full_conversion_and_never_changes_what_it_showed(text, script):
    full = convert(text, script)
    rng = random.Random(hash(text) & 0xFFFF)
    for _ in range(30):
        cuts = sorted(rng.sample(range(1, len(text)), rng.randint(1, min(12, len(text) - 1))))
        deltas = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
        stream, shown = StreamConverter(script), ""
        for delta in deltas:
            shown += stream.push(delta)
            assert full.startswith(shown), (deltas, shown)  # nothing shown is ever replaced
        shown += stream.finish()
        assert shown == full


def test_converting_each_delta_alone_would_be_wrong_and_the_stream_waits():
    # 打 + 印机 converted one by one gives 打印機; the phrase 打印机 is 印表機 in Taiwan.
    assert convert("打", "traditional-tw") + convert("印机", "traditional-tw") != convert("打印机", "traditional-tw")
    stream = StreamConverter("traditional-tw")
    assert stream.push("打") == "" and stream.push("印机") == ""  # held back: the phrase may go on
    assert stream.push("坏了，") == "印表機壞了，"  # a separator ends the phrase: final
    assert stream.finish() == ""


@pytest.fixture(scope="module")
def bundled():
    return Translator(variant="int8")


SOURCE = (
    "The printer next to my computer is broken, so I went to the noodle shop.\n\n"
    "My hair is long. Where is the train station?"
)


@pytest.mark.parametrize("script", ["traditional-tw", "traditional-hk"])
def test_translator_streams_traditional_with_any_model(bundled, script):
    simplified = bundled.translate(SOURCE, GenerationOptions(beams=1))
    opts = GenerationOptions(beams=1, script=script)
    events = list(bundled.translate_stream(SOURCE, opts))
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert streamed == convert(simplified, script) == bundled.translate(SOURCE, opts)
    assert streamed != simplified  # the demo model's output has characters that convert
    done = [e for e in events if isinstance(e, SegmentDone)]
    assert "".join(d.translation for d in done) == convert(
        "".join(
            d.translation
            for d in bundled.translate_stream(SOURCE, GenerationOptions(beams=1))
            if isinstance(d, SegmentDone)
        ),
        script,
    )
    lines = SOURCE.split("\n")
    assert bundled.translate_batch(lines, opts) == [
        convert(t, script) for t in bundled.translate_batch(lines, GenerationOptions(beams=1))
    ]


def test_unknown_script_is_rejected():
    with pytest.raises(ValueError, match="traditional-tw"):
        GenerationOptions(script="klingon")


def test_event_conversion_flushes_a_cancelled_segment_and_closes_its_source():
    from desktop_mt.engine.events import Finished, TranslationStats
    from desktop_mt.engine.script import convert_events

    closed = []

    def events():
        try:
            yield TextDelta("打印", 0)
            yield TextDelta("机", 0)  # cancelled here: no SegmentDone, the held clause still shows
            yield Finished(TranslationStats(0, 2, 0.1, 0.05, True))
            yield TextDelta("never", 1)
        finally:
            closed.append(True)

    stream = convert_events(events(), "traditional-tw")
    assert next(stream) == TextDelta("印表機", 0)
    assert isinstance(next(stream), Finished)
    stream.close()  # as a GUI closes the stream: the engine's generator is closed with it
    assert closed == [True]


@pytest.mark.parametrize("script", ["traditional-tw", "traditional-hk", "traditional"])
def test_a_term_or_separator_after_a_held_clause_keeps_the_text_in_order(script):
    """A glossary term ends the sentence ("哪里的人" + "火车站？"): the engine holds the segment's
    SegmentDone until the term is out, so the term arrives while the clause is held back."""
    from desktop_mt.engine.script import convert_events

    def events():
        yield TextDelta("哪里", 0)
        yield TextDelta("的人", 0)
        yield TextDelta("火车站？", -1)  # the glossary term and the full stop, literal
        yield SegmentDone(0, "Where are the people from", "哪里的人", 3, sentence="Where ... station?")
        yield TextDelta(" ", -1)
        yield TextDelta("打印机", 1)
        yield TextDelta("内存", -1)
        yield SegmentDone(1, "printer", "打印机", 2)

    out = list(convert_events(events(), script))
    deltas = [e for e in out if isinstance(e, TextDelta)]
    assert "".join(d.text for d in deltas) == convert("哪里的人", script) + convert("火车站？", script) + " " + convert(
        "打印机", script
    ) + convert("内存", script)
    assert "".join(d.text for d in deltas).startswith(convert("哪里的人火车站？", script))
    # Each piece keeps its segment, and a SegmentDone comes after all of its own text.
    assert [(d.segment, d.text) for d in deltas][:2] == [
        (0, convert("哪里的人", script)),
        (-1, convert("火车站？", script)),
    ]
    done = [e for e in out if isinstance(e, SegmentDone)]
    assert [d.translation for d in done] == [convert("哪里的人", script), convert("打印机", script)]
    assert out.index(done[0]) > out.index(deltas[1])


@pytest.mark.parametrize("script", ["traditional-tw", "traditional-hk"])
def test_a_glossary_term_ending_a_sentence_streams_in_order(bundled, script):
    """The bundled model: "Where is the train station?" -> "哪里的人" + the term "火车站" + "？";
    the term came out before the held-back clause ("火車站？哪裡的人")."""
    from desktop_mt.engine.glossary import Glossary, Term

    glossary = Glossary((Term("train station", "火车站"),))
    source = "Where is the train station? My hair is long."
    simplified = bundled.translate(source, GenerationOptions(beams=1, glossary=glossary))
    assert "火车站" in simplified
    opts = GenerationOptions(beams=1, script=script, glossary=glossary)
    streamed = "".join(e.text for e in bundled.translate_stream(source, opts) if isinstance(e, TextDelta))
    assert streamed == bundled.translate(source, opts) == convert(simplified, script)
    assert streamed.index(convert("火车站", script)) > 0  # the term stays after its clause
