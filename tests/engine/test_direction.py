"""The one direction rule (engine.direction): which way each sentence goes, on inputs as people paste them."""

from __future__ import annotations

import pytest

from desktop_mt.engine import direction
from desktop_mt.engine.direction import EN_ZH, ZH_EN, describe, directions_needed, language, split_sentences

# (text, its language, the directions "auto" needs)
TABLE = [
    # pure English
    ("The meeting has been moved to Thursday afternoon.", "en", {EN_ZH}),
    ("Please find the attached invoice for March.", "en", {EN_ZH}),
    ("ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ", "en", {EN_ZH}),
    ("My name is 王小明.", "en", {EN_ZH}),
    ("I had 火锅 for dinner with friends last night.", "en", {EN_ZH}),
    ("Café au lait, naïve résumé.", "en", {EN_ZH}),
    # pure Chinese (Simplified)
    ("今天天气很好，我们去公园散步吧。", "zh", {ZH_EN}),
    ("会议改到周四下午三点。", "zh", {ZH_EN}),
    ("请在周五之前提交报告", "zh", {ZH_EN}),
    ("我们用 TensorFlow 训练模型", "zh", {ZH_EN}),
    ("Python 是一种编程语言。", "zh", {ZH_EN}),
    ("请访问 https://example.com/docs/index.html 查看文档", "zh", {ZH_EN}),
    ("请发邮件至support@example.com咨询。", "zh", {ZH_EN}),
    ("价格是100元，折扣20%。", "zh", {ZH_EN}),
    ("我买了iPhone 15和RTX 4090显卡。", "zh", {ZH_EN}),
    ("运行 `pip install desktop-mt` 即可安装。", "zh", {ZH_EN}),
    ("他说：“明天见。”", "zh", {ZH_EN}),
    # Traditional Chinese: translated too
    ("今天天氣很好，我們去公園散步吧。", "zh", {ZH_EN}),
    ("這個軟體的記憶體用量太大了。", "zh", {ZH_EN}),
    ("請問火車站怎麼走？", "zh", {ZH_EN}),
    ("香港的樓價仍然很高。", "zh", {ZH_EN}),
    # mixed paragraphs: each sentence into the other language
    ("今天天气很好。The weather is nice today.", "zh", {EN_ZH, ZH_EN}),
    ("The report is ready. 报告已经准备好了。", "en", {EN_ZH, ZH_EN}),
    ("Thanks for your help! 非常感谢你的帮助！See you tomorrow.", "en", {EN_ZH, ZH_EN}),
    ("第一句是中文。Second sentence is English. 第三句又是中文。", "zh", {EN_ZH, ZH_EN}),
    # Japanese and Korean: kept as they are
    ("東京は日本の首都です。", "ja", set()),
    ("今日はいい天気ですね。", "ja", set()),
    ("ラーメンが食べたい", "ja", set()),
    ("안녕하세요 세계", "ko", set()),
    ("회의는 목요일 오후로 변경되었습니다.", "ko", set()),
    # code-heavy
    ("`git rebase -i HEAD~3`", "", set()),
    ("Run `pip install -e .[dev]` first.", "en", {EN_ZH}),
    ("先运行 `make build` 再运行 `make test`。", "zh", {ZH_EN}),
    ("/usr/local/bin/python3", "", set()),
    ("C:\\Users\\me\\notes.txt", "", set()),
    # URLs, e-mail only
    ("https://github.com/example/project/issues/42", "", set()),
    ("www.example.com", "", set()),
    ("support@example.com", "", set()),
    # numbers, punctuation, emoji only
    ("12345", "", set()),
    ("2024-12-25 09:30", "", set()),
    ("+86 138 0013 8000", "", set()),
    ("$19.99 / ¥128", "", set()),
    ("……", "", set()),
    ("👍👍", "", set()),
    # other scripts are neither English nor Chinese: copied
    ("Привет мир", "", set()),
]


@pytest.mark.parametrize("text, lang, needed", TABLE)
def test_direction_table(text, lang, needed):
    assert language(text) == lang if len(needed) < 2 else True
    assert directions_needed(text, "auto") == needed


def test_the_table_is_big_and_varied():
    assert len(TABLE) >= 40
    assert {lang for _text, lang, _needed in TABLE} == {"en", "zh", "ja", "ko", ""}


@pytest.mark.parametrize(
    "target, lang, expected",
    [
        ("auto", "en", EN_ZH),
        ("auto", "zh", ZH_EN),
        ("zh", "en", EN_ZH),
        ("zh", "zh", None),
        ("en", "zh", ZH_EN),
        ("en", "en", None),
        ("auto", "ja", None),
        ("auto", "ko", None),
        ("en", "", None),
    ],
)
def test_target_decides_what_is_translated(target, lang, expected):
    assert direction.direction_for(lang, target) == expected


def test_unknown_target_is_refused_at_the_edge():
    # The helpers take a typed Target; a setting, argument or request field is narrowed first.
    with pytest.raises(ValueError, match="target must be one of"):
        direction.check_target("fr")
    assert direction.check_target("zh") == "zh"


@pytest.mark.parametrize(
    "line, parts",
    [
        ("今天天气很好。我们去公园吧！", ["今天天气很好。", "我们去公园吧！"]),
        ("他说：“好。”然后走了。", ["他说：“好。”", "然后走了。"]),
        ("第一；第二；第三", ["第一；", "第二；", "第三"]),
        ("等一下……好的。", ["等一下……", "好的。"]),
        ("这是中文。This is English. 又是中文。", ["这是中文。", "This is English.", "又是中文。"]),
        ("This is English.中文在这里。", ["This is English.", "中文在这里。"]),
        ("Dr. Smith arrived. Version 2.0 is out.", ["Dr. Smith arrived.", "Version 2.0 is out."]),
        ("Wait…what?", ["Wait…what?"]),
    ],
)
def test_split_sentences(line, parts):
    pairs = split_sentences(line)
    assert [s for s, _gap in pairs] == parts
    assert "".join(s + gap for s, gap in pairs) == line


@pytest.mark.parametrize(
    "text, target, said",
    [
        ("今天天气很好。", "auto", "Chinese → English"),
        ("The weather is nice.", "auto", "English → Chinese"),
        ("東京は日本の首都です。", "auto", "Japanese: left as it is"),
        ("今天天气很好。", "zh", "Chinese: already Chinese, left as it is"),
        ("今天天气很好。It is sunny.", "auto", "mixed: each sentence into the other language"),
        ("12:30", "auto", ""),
    ],
)
def test_describe_for_front_ends(text, target, said):
    assert describe(text, target) == said


@pytest.mark.parametrize(
    "text, target, said",
    [
        ("今天天气很好。", "auto", "Chinese → English"),
        ("The weather is nice.", "auto", "English → Chinese"),
        ("東京は日本の首都です。", "auto", "Japanese: kept"),
        ("안녕하세요.", "auto", "Korean: kept"),
        ("今天天气很好。", "zh", "Chinese: kept"),
        ("今天天气很好。It is sunny.", "auto", "mixed"),
        ("12:30", "auto", ""),
    ],
)
def test_describe_in_short_is_the_same_decision_in_fewer_words(text, target, said):
    assert describe(text, target, short=True) == said
    assert bool(describe(text, target)) == bool(said)


def test_untranslated_is_what_file_jobs_count_as_kept():
    assert direction.untranslated("東京は日本の首都です。", "auto")
    assert direction.untranslated("今天天气很好。", "zh")
    assert not direction.untranslated("今天天气很好。", "auto")  # Chinese is translated into English now
    assert not direction.untranslated("12345", "auto")  # nothing with words: not counted as kept


@pytest.mark.parametrize(
    "pair, expected",
    [
        (("en", "zh"), EN_ZH),
        (("zh", "en"), ZH_EN),
        (("eng", "cmn"), EN_ZH),
        (("zh", "de"), None),
    ],
)
def test_model_direction(pair, expected):
    assert direction.model_direction(*pair) == expected
