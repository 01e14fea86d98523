"""Input that is already Chinese, Japanese or Korean (engine.langcheck, GenerationOptions.keep_cjk)."""

from __future__ import annotations

import pytest

from desktop_mt import Finished, GenerationOptions, SegmentDone, TextDelta, Translator, is_mostly_cjk
from desktop_mt.engine.langcheck import already_cjk, cjk_share, keep_verbatim, needs_translation, split_cjk_sentences
from desktop_mt.engine.testing import CountingSessions


@pytest.mark.parametrize(
    "sentence, needed",
    [
        ("Hello world.", True),
        ("My name is 王小明.", True),  # a few Chinese words in an English sentence
        ("Mixed 中文 and English, ok?", True),
        ("这是中文。", False),
        ("東京は日本の首都です。", False),  # Japanese
        ("안녕하세요 세계", False),  # Korean
        ("Python 是一种编程语言。", False),  # 20-50% CJK, ends with a full-width stop
        ("我们用 TensorFlow 训练模型", False),  # 20-50% CJK, starts with a Han character
        ("请访问 https://example.com/docs/index.html 查看文档", False),  # the URL's letters do not count
        ("12345 !!", False),  # nothing to translate
        ("ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ", True),  # full-width Latin is still English
    ],
)
def test_needs_translation(sentence, needed):
    assert needs_translation(sentence) is needed


def test_keep_verbatim_leaves_numbers_and_punctuation_to_the_engine():
    assert keep_verbatim("这是中文。") and not keep_verbatim("12:30") and not keep_verbatim("Hello.")


def test_cjk_share():
    assert cjk_share("中文ab") == 0.5 and cjk_share("123") == 0.0


@pytest.mark.parametrize(
    "text, parts",
    [
        ("这是中文。This is English.", ["这是中文。", "This is English."]),
        ("This is English.中文在这里。", ["This is English.", "中文在这里。"]),
        ("他说：“好。”然后走了。", ["他说：“好。”", "然后走了。"]),
        ("这是中文。 ", ["这是中文。 "]),
        ("Version 2.0 is out.", ["Version 2.0 is out."]),
    ],
)
def test_split_cjk_sentences(text, parts):
    assert split_cjk_sentences(text) == parts
    assert "".join(parts) == text


@pytest.mark.parametrize(
    "text, mostly, already",
    [
        ("今天天气很好。我们去公园吧。", True, True),
        ("我们用 TensorFlow 训练模型", True, True),
        ("The weather is nice today.", False, False),
        ("今天天气很好。The weather is nice today and we should go out for a walk.", False, False),
        ("Привет мир", False, False),  # not CJK (and kept by the engine, having no Latin)
        ("", False, False),
    ],
)
def test_whole_text_checks(text, mostly, already):
    assert is_mostly_cjk(text) is mostly
    assert already_cjk(text) is already


# -- Translator level, on the bundled model ---------------------------------------------------


@pytest.fixture(scope="module")
def bundled():
    return Translator()


def counted(translator: Translator) -> CountingSessions:
    """Wrap the translator's sessions so decoder steps are counted (restore with ``.inner``)."""
    counting = CountingSessions(translator.sessions)
    translator.sessions = counting
    return counting


def test_chinese_comes_back_verbatim_without_a_model_call(bundled):
    text = "今天天气很好。我们去公园吧！\n\n东京は日本の首都です。"
    counting = counted(bundled)
    try:
        assert bundled.translate(text) == text
        assert bundled.translate_batch(text.split("\n")) == text.split("\n")
        assert [a.text for a in bundled.alternatives("今天天气很好。", n=3)] == ["今天天气很好。"]
    finally:
        bundled.sessions = counting.inner
    assert counting.steps == 0


def test_stream_shows_kept_sentence_as_a_segment(bundled):
    events = list(bundled.translate_stream("今天天气很好。"))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["今天天气很好。"]
    done = [e for e in events if isinstance(e, SegmentDone)]
    assert done == [SegmentDone(0, "今天天气很好。", "今天天气很好。", 0)]
    assert isinstance(events[-1], Finished) and events[-1].stats.segments == 1


def test_mixed_text_translates_only_the_english_sentence(bundled):
    english = "Where is the train station?"
    alone = bundled.translate(english)
    for text in (f"今天天气很好。{english}", f"今天天气很好。 {english}"):
        out = bundled.translate(text)
        assert out == "今天天气很好。" + alone, text
        assert bundled.translate_batch([text]) == [out]
        done = [e for e in bundled.translate_stream(text) if isinstance(e, SegmentDone)]
        assert [(d.source, d.tokens > 0) for d in done] == [("今天天气很好。", False), (english, True)]


def test_keep_cjk_off_sends_chinese_to_the_model(bundled):
    counting = counted(bundled)
    try:
        bundled.translate("今天天气很好。", GenerationOptions(keep_cjk=False))
    finally:
        bundled.sessions = counting.inner
    assert counting.steps > 0


def test_english_plan_is_the_same_with_and_without_the_check(bundled):
    text = "I love you. Where is the train station?\n- Call 555-1234 at 9:30.\n\nMy name is 王小明."
    on, off = GenerationOptions(), GenerationOptions(keep_cjk=False)
    assert bundled.text.plan(text, on) == bundled.text.plan(text, off)
    assert bundled.translate(text, on) == bundled.translate(text, off)


def test_alternatives_keep_the_chinese_sentence_in_each(bundled):
    alts = bundled.alternatives("今天天气很好。Where is the train station?", n=3, options=GenerationOptions(beams=4))
    assert len(alts) >= 2 and all(a.text.startswith("今天天气很好。") for a in alts)
    assert alts[0].text == bundled.translate("今天天气很好。Where is the train station?", GenerationOptions(beams=4))


def test_traditional_script_stream_joins_to_translate(bundled):
    opts = GenerationOptions(script="traditional-tw")
    text = "今天天气很好。Where is the train station?"
    deltas = [e.text for e in bundled.translate_stream(text, opts) if isinstance(e, TextDelta)]
    assert "".join(deltas) == bundled.translate(text, opts) and "".join(deltas).startswith("今天天氣很好。")
