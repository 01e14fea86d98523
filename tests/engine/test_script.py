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
