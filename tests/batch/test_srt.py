"""SRT subtitles: indices/timings untouched, cues as one unit, Chinese re-wrapping."""

from __future__ import annotations

import codecs
import re

import pytest

from desktop_mt.batch import BatchInputError, translate_file
from desktop_mt.batch.srt import MAX_LINE_WIDTH, text_width, wrap_chinese

from .fake_translator import fake_translation

SRT = """1
00:00:01,000 --> 00:00:03,500
Hello there.

2
00:00:04,000 --> 00:00:07,250
This cue has two lines that belong together
and must be translated as one sentence.

3
00:00:08,000 --> 00:00:09,000
- Are you coming?
- Yes, wait for me.

4
00:00:10,000 --> 00:00:12,000
<i>Whispered words on the wind</i>

5
00:00:13,000 --> 00:00:14,000
Hello there.
6
00:00:15,000 --> 00:00:16,000 X1:10 X2:20
{\\an8}Top of the screen
7
00:00:17,000 --> 00:00:18,000
Last cue without a final newline"""

TIMING = re.compile(r"^\d\d:\d\d:\d\d,\d\d\d --> ")


def _cues(text: str) -> list[tuple[str, str, list[str]]]:
    """(index, timing, text lines) of each cue, parsed independently of the code under test."""
    lines = text.splitlines()
    cues = []
    for k, line in enumerate(lines):
        if TIMING.match(line):
            body = []
            for nxt in lines[k + 1 :]:
                if not nxt.strip() or TIMING.match(nxt):
                    break
                body.append(nxt)
            # a following index line (cue without a blank line before it) is not text
            if len(body) > 1 and body[-1].isdigit():
                body = body[:-1]
            cues.append((lines[k - 1], line, body))
    return cues


@pytest.mark.parametrize("newline,bom", [("\n", b""), ("\r\n", codecs.BOM_UTF8)])
def test_srt_round_trip(tmp_path, fake, newline, bom):
    src = tmp_path / "film.srt"
    src.write_bytes(bom + SRT.replace("\n", newline).encode("utf-8"))
    out = translate_file(src, None, fake)
    assert out.name == "film.zh.srt"
    data = out.read_bytes()
    assert data.startswith(bom) and data[len(bom) : len(bom) + 1] == b"1"
    text = data[len(bom) :].decode("utf-8")
    if newline == "\r\n":
        assert text.count("\n") == text.count("\r\n")
    assert not text.endswith("\n")  # the input had no final newline
    before, after = _cues(SRT), _cues(text.replace("\r\n", "\n"))
    assert [(i, t) for i, t, _ in before] == [(i, t) for i, t, _ in after]  # untouched
    by_index = {i: body for i, _, body in after}
    joined = "This cue has two lines that belong together and must be translated as one sentence."
    assert "".join(by_index["2"]) == fake_translation(joined)
    assert len(by_index["2"]) == 2  # long: wrapped into two lines
    assert by_index["3"] == ["- " + fake_translation("Are you coming?"), "- " + fake_translation("Yes, wait for me.")]
    assert by_index["4"][0].startswith("<i>") and by_index["4"][-1].endswith("</i>")
    assert by_index["1"] == by_index["5"] == [fake_translation("Hello there.")]
    assert by_index["6"][0].startswith("{\\an8}")
    assert by_index["7"] == wrap_chinese(fake_translation("Last cue without a final newline"))
    sent = [s for call in fake.batches for s in call]
    assert sent.count("Hello there.") == 1  # repeated cues translated once
    assert joined in sent


def test_not_an_srt_file(tmp_path, fake):
    src = tmp_path / "notes.srt"
    src.write_text("just some text\nwith no timings\n", "utf-8")
    with pytest.raises(BatchInputError, match="notes.srt.*timing"):
        translate_file(src, None, fake)


def test_wrap_short_text_is_one_line():
    assert wrap_chinese("你好，世界。") == ["你好，世界。"]


def test_wrap_prefers_punctuation_near_the_middle():
    text = "我们今天晚上一起去看电影，然后再去吃一顿好吃的晚饭吧。"
    lines = wrap_chinese(text)
    assert lines == ["我们今天晚上一起去看电影，", "然后再去吃一顿好吃的晚饭吧。"]


def test_wrap_without_punctuation_splits_near_the_middle():
    text = "一二三四五六七八九十" * 4
    first, second = wrap_chinese(text)
    assert first + second == text
    assert abs(len(first) - len(second)) <= 1


def test_wrap_never_splits_a_latin_word():
    text = "我们明天要用Transformer模型和ONNXRuntime来翻译这些很长很长的句子"
    lines = wrap_chinese(text)
    assert len(lines) == 2 and "".join(lines) == text
    for word in ("Transformer", "ONNXRuntime"):
        assert any(word in line for line in lines)


def test_wrap_is_at_most_two_lines():
    text = "很长的字幕" * 30
    lines = wrap_chinese(text)
    assert len(lines) == 2
    assert all(text_width(line) > MAX_LINE_WIDTH for line in lines)
