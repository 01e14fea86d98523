"""join_lines: text copied from PDFs and web pages, joined into sentences (desktop_mt.engine.pasted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_mt import join_lines
from desktop_mt.engine.pasted import is_table_row

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "pdf_paste"
NAMES = sorted(p.name[: -len("_before.txt")] for p in SAMPLES.glob("*_before.txt"))


def test_there_are_samples():
    assert {"two_column", "hyphenation", "numbered_list", "table", "heading"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_pdf_sample_joins_exactly(name):
    before = (SAMPLES / f"{name}_before.txt").read_text(encoding="utf-8")
    after = (SAMPLES / f"{name}_after.txt").read_text(encoding="utf-8")
    assert join_lines(before) == after


@pytest.mark.parametrize("name", NAMES)
def test_joining_twice_changes_nothing(name):
    once = join_lines((SAMPLES / f"{name}_before.txt").read_text(encoding="utf-8"))
    assert join_lines(once) == once


@pytest.mark.parametrize(
    "text, joined",
    [
        ("transla-\ntion", "translation"),
        ("a well-\nknown fact", "a well-known fact"),
        ("the Anglo-\nSaxon period", "the Anglo-Saxon period"),
        ("a CPU-\nbound task", "a CPU-bound task"),
        ("end-to-\nend training", "end-to-end training"),
        ("trans\u00ad\nformer", "transformer"),
        ("pages 3-\n5 of the", "pages 3-5 of the"),
        ("word -\nanother", "word - another"),
        ("for ex-\nample", "for example"),
        ("the mid-\ndle one", "the middle one"),
        ("the open-\ning, a state-\nment", "the opening, a statement"),
        ("self-\nsupervised", "self-supervised"),
    ],
)
def test_hyphenation(text, joined):
    assert join_lines(text) == joined


def test_paragraphs_stay_apart_and_blank_runs_become_one():
    text = "First line of one\nparagraph.\n\n\n  \nSecond\nparagraph.\n"
    assert join_lines(text) == "First line of one paragraph.\n\nSecond paragraph."


def test_windows_and_mac_line_ends():
    assert join_lines("one\r\ntwo\rthree") == "one two three"


def test_repeated_spaces_collapse_outside_tables():
    assert join_lines("too   many spaces\nhere") == "too many spaces here"


def test_table_row_keeps_its_spacing_and_tabs():
    text = "Name\tAge\nAlice\t30\nThe end of the table."
    assert join_lines(text) == text
    assert is_table_row("a  b  c") and not is_table_row("a  b c")


def test_a_short_line_that_ends_a_sentence_ends_the_paragraph():
    text = (
        "This sentence is long enough to fill the whole line of the column.\n"
        "It ends here.\n"
        "A new paragraph starts on this line of the page and goes on\n"
        "to the next one."
    )
    assert join_lines(text) == (
        "This sentence is long enough to fill the whole line of the column. It ends here.\n"
        "A new paragraph starts on this line of the page and goes on to the next one."
    )


def test_mid_sentence_line_before_a_name_is_not_a_heading():
    text = "The model was trained on text from\nWikipedia and news sites."
    assert join_lines(text) == "The model was trained on text from Wikipedia and news sites."


def test_a_lowercase_continuation_is_never_cut_after_a_heading_like_line():
    assert join_lines("Results On The\nbenchmark improved.") == "Results On The benchmark improved."


def test_wrapped_list_item_joins_its_continuation():
    text = "- The first item is long and\n  wraps onto a second line\n- Second item"
    assert join_lines(text) == "- The first item is long and wraps onto a second line\n- Second item"


def test_markdown_heading_and_quote_stay_on_their_lines():
    text = "# Install\nRun the script\nand wait.\n> Quoted text\nthat wraps."
    assert join_lines(text) == "# Install\nRun the script and wait.\n> Quoted text that wraps."


def test_chinese_lines_join_without_a_space():
    assert join_lines("这是一个很长的句子，被\n分成了两行。") == "这是一个很长的句子，被分成了两行。"


def test_empty_and_blank():
    assert join_lines("") == ""
    assert join_lines("\n \n") == ""


def test_fenced_code_is_copied_as_it_is_and_nothing_is_added_around_it():
    text = "Run this\ncommand:\n```\npip install\n  desktop-mt\n\nls -l\n```\nThen wait\nfor it."
    assert join_lines(text) == "Run this command:\n```\npip install\n  desktop-mt\n\nls -l\n```\nThen wait for it."


@pytest.mark.parametrize(
    "text",
    [
        "Intro.\n\n```\ncode\n```\n\nAfter.",  # blank lines around the fence stay
        "Intro.\n```\ncode\n```\n\n~~~\nmore\n~~~\nAfter.",
        "```\ncode\n```\n```\nnext block\n```",
    ],
)
def test_the_breaks_around_fences_stay_as_they_were(text):
    assert join_lines(text) == text


@pytest.mark.parametrize("item", ["• We offer translation.", "- Smile", "* We offer translation!"])
def test_a_line_after_a_list_item_that_does_not_continue_it_stays_its_own(item):
    text = f"{item}\nI love you 😀..."
    assert join_lines(text) == text


def test_a_wrapped_list_item_is_still_joined():
    text = (
        "- A wrapped item that goes on and on until the margin of the page and\n"
        "continues here.\n- Another item, indented when it wraps to the next\n"
        "  line. Of the page.\n- A third one that\nended early."
    )
    assert join_lines(text) == (
        "- A wrapped item that goes on and on until the margin of the page and continues here.\n"
        "- Another item, indented when it wraps to the next line. Of the page.\n"
        "- A third one that ended early."
    )


def test_web_paragraphs_copied_as_long_lines_stay_apart():
    first = (
        "Machine translation is the use of software to translate text or speech from one language "
        "to another, and it is one of the oldest and hardest problems of computer science."
    )
    second = (
        "On a basic level, it replaces words of one language with words of another, which alone "
        "rarely gives a good translation of a whole sentence."
    )
    assert join_lines(f"{first}\n{second}") == f"{first}\n{second}"


def test_a_list_of_sentences_one_per_line_keeps_its_lines():
    """A phrase list (a sheet's column, subtitles) ends a sentence on most lines; lines as long
    as the longest one still end theirs (5,000 Tatoeba lines once came back as 839)."""
    listed = [
        "Are you angry?",
        "I would like to know whether you are coming with us tomorrow.",
        "Anything else?",
        "Are you ready to go now, or should we wait for the others?",
        "Hi.",
    ]
    assert join_lines("\n".join(listed)) == "\n".join(listed)


def test_a_printed_paragraph_with_one_sentence_end_at_the_margin_still_joins():
    lines = [
        "The model was trained on a large corpus of news articles and it was",
        "evaluated on held-out data from the same period of time. The scores",
        "were higher than expected, and the authors explain why in section four.",
    ]
    assert join_lines("\n".join(lines)) == " ".join(lines)


@pytest.mark.parametrize(
    "lines, joined",
    [
        (["我们在一个很大的新闻语料库上训练了这个模型，", "并在同一时期的数据上进行了评估。"], None),
        (["他说：", "“明天见。”"], "他说：“明天见。”"),
        (["“你好，”他", "说。"], "“你好，”他说。"),
        (["模型的名字叫「小", "明」。"], None),
        (["我们使用", "TensorFlow 训练模型。"], "我们使用 TensorFlow 训练模型。"),
        (["版本号是", "2.0，已经发布了。"], "版本号是 2.0，已经发布了。"),
        (["The model was trained on a large", "corpus of news."], "The model was trained on a large corpus of news."),
    ],
)
def test_chinese_lines_are_joined_without_a_space(lines, joined):
    """PDF line joining in Chinese text (issue 26): no space where Chinese meets Chinese, also
    across quotes and brackets; a space beside Latin words and numbers, as in English."""
    assert join_lines("\n".join(lines)) == (joined if joined is not None else "".join(lines))


def test_a_short_chinese_line_that_ends_a_sentence_ends_its_paragraph():
    lines = ["这是第一段的第一行，它一直写到了页面的右边距才换行，", "然后在这里结束。", "这是第二段。"]
    assert join_lines("\n".join(lines)) == lines[0] + lines[1] + "\n" + lines[2]
