"""Codes as whole spans, brackets included ("(UTC+1)", "GMT-5", "ISO-8601", "v2.3.1", "SKU-12345"),
and the spacing around them in both directions.

A user test found "会议在 11:00 (UTC+1) 开始" came out as "…11:00 (UTC+ 1We're…" and "The meeting
starts at 11:00 (UTC+1)." as "…木制造成冷饮料1": "UTC+" went to the model and only the digit was
protected, and the ")" that opened the next piece was dropped by the model. Models here are
Python functions (``desktop_mt.engine.testing.FakeModelTranslator``) on the bundled models' information;
the last tests run the bundled models themselves.
"""

from __future__ import annotations

import pytest

from desktop_mt import GenerationOptions, SegmentDone, TextDelta, Translator
from desktop_mt.engine import spans
from desktop_mt.engine.model_format import bundled_model_dir
from desktop_mt.engine.testing import FakeModelTranslator
from desktop_mt.engine.textproc import Span, is_code, protect


@pytest.fixture(scope="module")
def zh_en_lossy():
    """A zh->en model that loses every span: each sentence falls back to the cut."""
    return FakeModelTranslator(lambda source: "Word.", model_dir=bundled_model_dir("zh-en"))


@pytest.fixture(scope="module")
def en_zh_lossy():
    return FakeModelTranslator(lambda source: "词。", model_dir=bundled_model_dir("en-zh"))


# source, the spans protected (kind, what the output holds), the output when the sentence is cut
# around its spans (every piece translated "Word." / "词。").
ZH_EN = [
    (
        "会议在 11:00 (UTC+1) 开始，我们在那里等你。",
        [("number", "11:00"), ("alnum", "(UTC+1)")],
        "Word 11:00 (UTC+1) Word.",
    ),
    ("会议在11:00(UTC+1)开始。", [("number", "11:00"), ("alnum", "(UTC+1)")], "Word 11:00 (UTC+1) Word."),
    ("会议在（UTC+8）开始。", [("alnum", "(UTC+8)")], "Word (UTC+8) Word."),
    ("请用A4纸打印。", [("alnum", "A4")], "Word A4 Word."),
    ("标准是ISO-8601。", [("alnum", "ISO-8601")], "Word ISO-8601."),
    ("新冠(COVID-19)的疫苗已经上市了。", [("alnum", "(COVID-19)")], "Word (COVID-19) Word."),
    ("请升级到v2.3.1，然后重启。", [("alnum", "v2.3.1")], "Word v2.3.1, Word."),
    ("订单号是SKU-12345吗？", [("alnum", "SKU-12345")], "Word SKU-12345 Word."),
    ("纽约时间是GMT-5，对吗？", [("alnum", "GMT-5")], "Word GMT-5, Word."),
    ("我们用 [A4] 纸。", [("alnum", "[A4]")], "Word [A4] Word."),
    ("印度是UTC+05:30。", [("alnum", "UTC+05:30")], "Word UTC+05:30."),
]
EN_ZH = [
    ("The meeting starts at 11:00 (UTC+1).", [("number", "11:00"), ("alnum", "(UTC+1)")], "词 11:00 (UTC+1)。"),
    ("Print it on A4 paper (ISO-216) today.", [("alnum", "A4"), ("alnum", "(ISO-216)")], "词 A4 词 (ISO-216) 词。"),
    ("Upgrade to v2.3.1, then restart.", [("alnum", "v2.3.1")], "词 v2.3.1，词。"),
    ("New York is on GMT-5.", [("alnum", "GMT-5")], "词 GMT-5。"),
    ("Dates follow ISO-8601: year first.", [("alnum", "ISO-8601")], "词 ISO-8601：词。"),
    ("Is the order SKU-12345 ready?", [("alnum", "SKU-12345")], "词 SKU-12345 词。"),
    ("Wear a mask (COVID-19) inside.", [("alnum", "(COVID-19)")], "词 (COVID-19) 词。"),
    ("The card [A4] is ready.", [("alnum", "[A4]")], "词 [A4] 词。"),
    ("Buy the (RTX 4090) card.", [("model", "(RTX 4090)")], "词 (RTX 4090) 词。"),
    ("Use SKU_12345 and x86-64 builds.", [("alnum", "SKU_12345"), ("alnum", "x86-64")], "词 SKU_12345 词 x86-64 词。"),
]


@pytest.mark.parametrize("source, protected, cut", ZH_EN)
def test_chinese_source(zh_en_lossy, source, protected, cut):
    _check(zh_en_lossy, source, protected, cut)


@pytest.mark.parametrize("source, protected, cut", EN_ZH)
def test_english_source(en_zh_lossy, source, protected, cut):
    _check(en_zh_lossy, source, protected, cut)


def _check(model: FakeModelTranslator, source: str, protected: list[tuple[str, str]], cut: str) -> None:
    (whole,) = [item for item in model.text.plan(source, GenerationOptions()) if isinstance(item, spans.Whole)]
    assert [(span.kind, span.rendered) for span in whole.spans] == protected
    assert whole.text == source and not whole.reason  # tried whole first
    out = model.translate(source)
    assert out == cut
    for _kind, text in protected:
        assert out.count(text) == 1
    stream = "".join(e.text for e in model.translate_stream(source) if isinstance(e, TextDelta))
    assert stream == out == model.translate_batch([source])[0]


@pytest.mark.parametrize(
    "text, codes",
    [
        (
            "UTC+1 GMT-5 ISO-8601 COVID-19 A4 v2.3.1 SKU-12345",
            ["UTC+1", "GMT-5", "ISO-8601", "COVID-19", "A4", "v2.3.1", "SKU-12345"],
        ),
        ("(UTC+1) [A4] (ISO-8601:2004)", ["(UTC+1)", "[A4]", "(ISO-8601:2004)"]),
        ("UTC+1开始", ["UTC+1"]),
        ("(UTC+1 later) and (paid) and (2024)", ["UTC+1", "2024"]),  # brackets around more than a code stay text
        ("a 5-year-old, 2nd, snake_case2, C++, 3+4", ["5", "2", "3", "4"]),  # not codes
    ],
)
def test_what_is_a_code(text, codes):
    assert [p.text for p in protect(text) if isinstance(p, Span)] == codes


def test_is_code():
    assert all(is_code(c) for c in ("UTC+1", "GMT-5", "ISO-8601", "v2.3.1", "RTX 4090", "SKU_12345"))
    assert not any(is_code(c) for c in ("UTC", "2024", "5-year-old", "(UTC+1)", "UTC+1 later", "C++"))


# --- the whole path: the model's own output, punctuation set for the output language -------


def test_english_output_spaces_a_code_the_model_wrote_with_full_width_brackets():
    table = {
        "会议在11:00(UTC+1)开始。": "The meeting starts at 11:00（UTC+1）。",
        "请升级到v2.3.1，然后重启。": "Upgrade to v2.3.1，then restart。",
    }
    model = FakeModelTranslator(lambda s: table.get(s, "?"), model_dir=bundled_model_dir("zh-en"))
    assert model.translate("会议在11:00(UTC+1)开始。") == "The meeting starts at 11:00 (UTC+1)."
    assert model.translate("请升级到v2.3.1，然后重启。") == "Upgrade to v2.3.1, then restart."
    assert model.received == list(table)  # both whole, none cut


def test_chinese_output_keeps_the_code_brackets_ascii():
    model = FakeModelTranslator(lambda s: "会议于11:00(UTC+1)开始.")
    events = list(model.translate_stream("The meeting starts at 11:00 (UTC+1)."))
    done = [e for e in events if isinstance(e, SegmentDone)]
    assert [(e.translation, e.spans) for e in done] == [("会议于11:00(UTC+1)开始。", "whole")]


def test_a_code_the_model_changes_falls_back_to_the_cut():
    """The model wrote the brackets full-width, or dropped the code: the span is not verbatim,
    so the sentence is cut around it and the code is copied once, as it was."""
    for written in ("会议于11:00（UTC+1）开始。", "会议于11:00开始。", "会议(UTC+1)于11:00(UTC+1)开始。"):
        model = FakeModelTranslator(lambda s, w=written: w if "UTC" in s else "开会")
        events = list(model.translate_stream("The meeting starts at 11:00 (UTC+1)."))
        done = [e for e in events if isinstance(e, SegmentDone)]
        assert {e.spans for e in done} == {"cut"}
        assert done[0].spans_reason.endswith(": (UTC+1)")
        out = "".join(e.text for e in events if isinstance(e, TextDelta))
        assert out == "开会 11:00 (UTC+1)。"


# --- the bundled models, end to end ------------------------------------------------------


@pytest.mark.parametrize(
    "direction, source",
    [("zh-en", "会议在 11:00 (UTC+1) 开始，我们在那里等你。"), ("en-zh", "The meeting starts at 11:00 (UTC+1).")],
)
def test_bundled_models_keep_the_code_verbatim(direction, source):
    translator = Translator(bundled_model_dir(direction))
    out = translator.translate(source)
    assert out.count("(UTC+1)") == 1 and out.count("11:00") == 1
    stream = "".join(e.text for e in translator.translate_stream(source) if isinstance(e, TextDelta))
    assert stream == out
    if direction == "zh-en":
        assert "(UTC+1) " in out  # a word follows, after a space
