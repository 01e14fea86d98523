"""The two-way translator (engine.router): routing by the direction rule, Chinese-source text
handling (sentence ends, spans, English punctuation, glossary both ways) and the missing-model
error, with models that are Python functions (desktop_mt.engine.testing.FakeModelTranslator)."""

from __future__ import annotations

import pytest

from desktop_mt import Finished, GenerationOptions, SegmentDone, TextDelta
from desktop_mt.base.errors import ModelNotFoundError
from desktop_mt.engine.direction import DirectionUnavailableError
from desktop_mt.engine.glossary import Glossary, Term
from desktop_mt.engine.router import TwoWayTranslator, directions_of
from desktop_mt.engine.testing import FakeModelTranslator

ZH_EN = {
    "今天天气很好。": "The weather is nice today.",
    "我们走吧！": "Let's go!",
    "我们走吧。": "Let's go.",
    "你好，世界。": "Hello，world。",
}
EN_ZH = {"The weather is nice.": "天气很好。", "Where is the station?": "车站在哪里？"}


def table_model(table: dict[str, str], fallback: str):
    return lambda source: table.get(source, fallback)


@pytest.fixture(scope="module")
def zh_en(tiny_zh_en_dir):
    return FakeModelTranslator(table_model(ZH_EN, "Something."), model_dir=tiny_zh_en_dir)


@pytest.fixture(scope="module")
def en_zh():
    return FakeModelTranslator(table_model(EN_ZH, "某事。"))


@pytest.fixture
def two_way(en_zh, zh_en):
    en_zh.received.clear()
    zh_en.received.clear()
    return TwoWayTranslator({"en-zh": en_zh, "zh-en": zh_en})


def test_each_direction_goes_to_its_model(two_way, en_zh, zh_en):
    assert two_way.translate("今天天气很好。") == "The weather is nice today."
    assert two_way.translate("The weather is nice.") == "天气很好。"
    assert zh_en.received == ["今天天气很好。"] and en_zh.received == ["The weather is nice."]
    assert two_way.directions == ("en-zh", "zh-en") and directions_of(two_way) == ("en-zh", "zh-en")


def test_mixed_paragraph_translates_each_sentence_into_the_other_language(two_way):
    text = "今天天气很好。The weather is nice. 我们走吧。"
    assert two_way.translate(text) == "The weather is nice today. 天气很好。 Let's go."
    events = list(two_way.translate_stream(text))
    done = [e for e in events if isinstance(e, SegmentDone)]
    assert [(d.segment, d.source) for d in done] == [
        (0, "今天天气很好。"),
        (1, "The weather is nice."),
        (2, "我们走吧。"),
    ]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == two_way.translate(text)
    assert isinstance(events[-1], Finished) and events[-1].stats.segments == 3
    assert two_way.translate_batch([text, "今天天气很好。", "12345"]) == [
        "The weather is nice today. 天气很好。 Let's go.",
        "The weather is nice today.",
        "12345",
    ]


def test_layout_of_a_mixed_text_is_kept(two_way):
    text = "1. 今天天气很好。\n2. The weather is nice.\n\n```\nprint('中文')\n```\n我们走吧。 Where is the station?"
    assert two_way.translate(text) == (
        "1. The weather is nice today.\n2. 天气很好。\n\n```\nprint('中文')\n```\nLet's go. 车站在哪里？"
    )


def test_target_leaves_text_already_in_it(two_way, zh_en):
    text = "今天天气很好。The weather is nice."
    into_zh = GenerationOptions(target="zh")
    assert two_way.translate(text, into_zh) == "今天天气很好。天气很好。"
    done = [e for e in two_way.translate_stream(text, into_zh) if isinstance(e, SegmentDone)]
    assert [(d.source, d.tokens) for d in done][0] == ("今天天气很好。", 0)  # copied, shown as a segment
    assert zh_en.received == []
    assert two_way.translate(text, GenerationOptions(target="en")) == "The weather is nice today. The weather is nice."


def test_japanese_and_korean_are_kept(two_way, en_zh, zh_en):
    text = "東京は日本の首都です。\n안녕하세요 세계"
    assert two_way.translate(text) == text
    assert two_way.translate_batch(text.split("\n")) == text.split("\n")
    assert en_zh.received == [] and zh_en.received == []


def test_chinese_source_is_split_at_sentence_ends_without_spaces(two_way, zh_en):
    assert two_way.translate("今天天气很好。我们走吧！") == "The weather is nice today. Let's go!"
    assert zh_en.received == ["今天天气很好。", "我们走吧！"]


def test_english_output_gets_ascii_punctuation(two_way):
    assert two_way.translate("你好，世界。") == "Hello, world."
    raw = GenerationOptions(chinese_punctuation=False)
    assert two_way.translate("你好，世界。", raw) == "Hello，world。"


def test_stream_shows_only_final_english_punctuation(tiny_zh_en_dir):
    """A stream never shows a character that the punctuation pass changes later."""
    model = FakeModelTranslator(lambda s: "He said：“yes，sir”。Then（quietly）left。", model_dir=tiny_zh_en_dir)
    deltas = [e.text for e in model.translate_stream("他说是的。") if isinstance(e, TextDelta)]
    assert "".join(deltas) == 'He said: "yes, sir". Then (quietly) left.'


@pytest.mark.parametrize(
    "source, model, expected",
    [
        (
            "请访问https://example.com了解更多。",
            lambda s: s.replace("请访问", "Visit ").replace("了解更多。", " to learn more."),
            "Visit https://example.com to learn more.",
        ),
        (
            "价格是100元。",
            lambda s: "The price is 100 yuan." if "100" in s else "The price is",
            "The price is 100 yuan.",
        ),
    ],
)
def test_spans_in_chinese_text_are_kept_whole(tiny_zh_en_dir, source, model, expected):
    translator = FakeModelTranslator(model, model_dir=tiny_zh_en_dir)
    assert translator.translate(source) == expected
    done = [e for e in translator.translate_stream(source) if isinstance(e, SegmentDone)]
    assert done[-1].spans == "whole"


def test_a_lost_span_in_chinese_text_is_cut_around_and_spaced(tiny_zh_en_dir):
    translator = FakeModelTranslator(
        lambda s: {"请访问": "Visit", "了解更多。": "to learn more."}.get(s, "Visit."), model_dir=tiny_zh_en_dir
    )
    assert translator.translate("请访问https://example.com了解更多。") == "Visit https://example.com to learn more."


def test_glossary_pairs_work_both_ways(two_way, zh_en, en_zh):
    glossary = Glossary((Term("train station", "火车站"),))
    opts = GenerationOptions(glossary=glossary)
    into_english = two_way.translate("我去火车站。", opts)
    assert "train station" in into_english and "火车站" not in into_english  # the model lost it: cut around it
    into_chinese = two_way.translate("Go to the train station.", opts)
    assert "火车站" in into_chinese


def test_missing_direction_names_the_model_to_download(en_zh):
    only_en_zh = TwoWayTranslator({"en-zh": en_zh}, missing={"zh-en": "opus-mt-zh-en"})
    for call in (
        lambda: only_en_zh.translate_stream("今天天气很好。"),
        lambda: only_en_zh.translate_batch(["你好。"]),
        lambda: only_en_zh.alternatives("今天天气很好。"),
    ):
        with pytest.raises(DirectionUnavailableError, match="desktop-mt models download opus-mt-zh-en") as info:
            call()
        assert isinstance(info.value, ModelNotFoundError) and info.value.direction == "zh-en"
        assert info.value.model == "opus-mt-zh-en"
    assert only_en_zh.translate("The weather is nice.") == "天气很好。"  # the other direction still works
    # auto: with something to translate, the sentences of the missing direction are copied
    assert only_en_zh.translate("今天天气很好。The weather is nice.") == "今天天气很好。天气很好。"
    assert only_en_zh.translate_batch(["今天天气很好。", "The weather is nice."]) == ["今天天气很好。", "天气很好。"]
    with pytest.raises(DirectionUnavailableError):  # an explicit target needs its model
        only_en_zh.translate("今天天气很好。The weather is nice.", GenerationOptions(target="en"))
    assert only_en_zh.translate("今天天气很好。", GenerationOptions(target="zh")) == "今天天气很好。"


def test_a_single_model_refuses_a_target_it_cannot_reach(en_zh):
    with pytest.raises(DirectionUnavailableError, match="Chinese->English"):
        en_zh.translate("Hello.", GenerationOptions(target="en"))


def test_mixed_batch_reports_each_line_once(two_way):
    lines = ["今天天气很好。", "The weather is nice.", "今天天气很好。Where is the station?", "", "42"]
    seen: list[tuple[int, int]] = []
    out = two_way.translate_batch(lines, progress=lambda done, total: seen.append((done, total)))
    assert out == ["The weather is nice today.", "天气很好。", "The weather is nice today. 车站在哪里？", "", "42"]
    assert [done for done, _ in seen] == list(range(1, len(lines) + 1)) and {t for _, t in seen} == {len(lines)}


def test_alternatives_come_from_the_sentence_direction(two_way, zh_en):
    alts = two_way.alternatives("今天天气很好。", n=2)
    assert alts[0].text == "The weather is nice today." and zh_en.received
    assert [a.text for a in two_way.alternatives("東京は日本の首都です。")] == ["東京は日本の首都です。"]


def test_traditional_chinese_is_translated_read_as_simplified(two_way, zh_en):
    """The zh->en models are trained on Simplified text: Traditional input reaches them converted
    (OpenCC t2s), while the stream reports the source as it was given."""
    assert two_way.translate("今天天氣很好。") == "The weather is nice today."
    assert zh_en.received == ["今天天气很好。"]
    done = [e for e in two_way.translate_stream("今天天氣很好。") if isinstance(e, SegmentDone)]
    assert done[0].source == "今天天氣很好。"
    zh_en.received.clear()
    two_way.translate("今天天氣很好。", GenerationOptions(simplify_source=False))
    assert zh_en.received == ["今天天氣很好。"]
