"""Text handling for Chinese sources: English punctuation in the output (punct.to_ascii) and
protected spans inside Chinese text (textproc.protect)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_mt.engine.punct import settled_ascii, to_ascii
from desktop_mt.engine.textproc import Span, protect


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Hello，world。How are you？", "Hello, world. How are you?"),
        ("He said：“hello”。", 'He said: "hello".'),
        ("It costs 100（about）dollars.", "It costs 100 (about) dollars."),
        ("apples、pears、plums", "apples, pears, plums"),
        ("Wait…", "Wait..."),
        ("He said “hi”, then left", 'He said "hi", then left'),
        ("Read《Dream of the Red Chamber》today", 'Read "Dream of the Red Chamber" today'),
        ("first；second！", "first; second!"),
        ("Already ASCII, fine.", "Already ASCII, fine."),
        ("a　b", "a b"),  # the ideographic space
    ],
)
def test_english_output_gets_ascii_punctuation(text, expected):
    assert to_ascii(text) == expected


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab1 ，。、？！：；“”‘’（）《》…", max_size=16))
def test_a_stream_never_shows_what_the_conversion_changes_later(text):
    full = to_ascii(text)
    for cut in range(len(text) + 1):
        assert full.startswith(settled_ascii(text[:cut]))


@pytest.mark.parametrize(
    "text, spans",
    [
        ("请访问https://example.com/docs了解更多。", [("url", "https://example.com/docs")]),
        ("价格是100元，折扣20%。", [("number", "100"), ("number", "20%")]),
        ("请发邮件至abc.def@example.com咨询", [("email", "abc.def@example.com")]),
        ("我买了iPhone 15和RTX 4090显卡", [("model", "iPhone 15"), ("model", "RTX 4090")]),
        ("打开C:\\Users\\me\\a.txt文件", [("path", "C:\\Users\\me\\a.txt")]),
        ("运行./run.sh脚本，见config.yaml", [("path", "./run.sh"), ("path", "config.yaml")]),
        ("会议在9:30开始，地点A-12室。", [("number", "9:30"), ("alnum", "A-12")]),
        ("下载v2.3.1版本", [("alnum", "v2.3.1")]),
        ("重5kg的箱子", [("number", "5kg")]),
        ("联系@Tom你好", [("handle", "@Tom")]),
        ("运行`make test`即可", [("code", "`make test`")]),
    ],
)
def test_spans_are_found_in_chinese_text(text, spans):
    pieces = protect(text)
    assert [(p.kind, p.text) for p in pieces if isinstance(p, Span)] == spans
    assert "".join(p.text if isinstance(p, Span) else p for p in pieces) == text
