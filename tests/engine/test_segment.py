"""Direct unit tests of desktop_mt.engine.segment: sentence splitting, long-sentence splitting
and the text plan (literals + segments) that puts the layout back."""

from __future__ import annotations

import random

import pytest

from desktop_mt.engine.segment import Segment, plan_text, segment_sentences, split_long


def words(text: str) -> int:
    return len(text.split())


def identity(plan) -> str:
    """The output of translating every segment to itself."""
    return "".join(item.text if isinstance(item, Segment) else item for item in plan)


# -- segment_sentences ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, sentences",
    [
        ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
        ("Dr. Smith met J. R. R. Tolkien. He left.", ["Dr. Smith met J. R. R. Tolkien.", "He left."]),
        ("Mr. and Mrs. Brown, e.g. the neighbours, came.", ["Mr. and Mrs. Brown, e.g. the neighbours, came."]),
        ("U.S. troops arrived. No. 5 is here.", ["U.S. troops arrived.", "No. 5 is here."]),
        ('He said "Hi!" Then he left.', ['He said "Hi!"', "Then he left."]),
        ("(See the note.) Next one.", ["(See the note.)", "Next one."]),
        ("Wait... and then it came. Done.", ["Wait... and then it came.", "Done."]),
        ("Really?! Yes.", ["Really?!", "Yes."]),
        ("你好。 再见！ 好", ["你好。", "再见！", "好"]),
        ("No end punctuation", ["No end punctuation"]),
        ("Ends with a dot.", ["Ends with a dot."]),
        ("", []),
    ],
)
def test_sentences(text, sentences):
    assert [s for s, _gap in segment_sentences(text)] == sentences


def test_gaps_are_the_whitespace_after_each_sentence():
    assert segment_sentences("A one.  B two.\tC") == [("A one.", "  "), ("B two.", "\t"), ("C", "")]
    assert segment_sentences("Trailing space. ") == [("Trailing space.", " ")]


def test_a_dot_without_following_space_is_not_an_end():
    assert segment_sentences("Version 2.5 is out. See example.com for it.") == [
        ("Version 2.5 is out.", " "),
        ("See example.com for it.", ""),
    ]


def test_sentences_and_gaps_give_back_the_line_exactly():
    rng = random.Random(7)
    alphabet = ["a", "B", "c", " ", "  ", ".", "!", "?", "Dr.", "e.g.", '"', ")", "。", "…", "x", "\t"]
    for _ in range(500):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        pairs = segment_sentences(line)
        assert "".join(s + g for s, g in pairs) == line
        assert all(s for s, _g in pairs)  # no empty sentence
        assert all(g == "" or g.isspace() for _s, g in pairs)


# -- split_long ----------------------------------------------------------------------------------


def test_short_sentence_stays_whole():
    assert split_long("one two three", words, 3) == ["one two three"]


def test_splits_at_clause_punctuation_first():
    assert split_long("a b c, d e f; g h i j k l", words, 3) == ["a b c,", "d e f;", "g h i", "j k l"]
    # clauses are packed greedily: as many as fit the limit
    assert split_long("alpha beta, gamma delta: epsilon", words, 4) == ["alpha beta, gamma delta:", "epsilon"]


def test_splits_between_words_without_punctuation():
    assert split_long("one two three four five six seven", words, 3) == ["one two three", "four five six", "seven"]


def test_one_enormous_word_is_cut_by_characters():
    chunks = split_long("x" * 10, len, 3)
    assert "".join(chunks) == "x" * 10 and all(len(c) <= 3 for c in chunks)


@pytest.mark.parametrize("seed", range(20))
def test_every_chunk_fits_and_no_word_is_lost(seed):
    rng = random.Random(seed)
    vocab = ["a", "bb", "ccc", "dddd,", "e;", "ff:", "g" * 12]
    sentence = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 60)))
    limit = rng.randint(1, 8)
    chunks = split_long(sentence, words, limit)
    assert all(words(c) <= limit for c in chunks)
    assert " ".join(chunks).split() == sentence.split()


def test_counter_is_the_callers_tokenizer():
    calls = []

    def count(text):
        calls.append(text)
        return len(text)  # characters, like a tokenizer with one token per character

    chunks = split_long("aaaa bbbb cccc", count, 9)
    assert chunks == ["aaaa bbbb", "cccc"] and calls


# -- plan_text -----------------------------------------------------------------------------------


def test_layout_is_literal_and_sentences_are_segments():
    plan = plan_text("  - First line. Second one.\n\n```\ncode here.\n```\n", words, 50)
    assert plan == [
        "  - ",
        Segment("First line."),
        Segment("Second one."),
        "\n",
        "\n",
        "```",
        "\n",
        "code here.",
        "\n",
        "```",
        "\n",
    ]


def test_protected_spans_are_literals_and_cut_the_segment_before_them():
    plan = plan_text("> Visit https://x.org now, ok?", words, 50)
    assert plan == [
        "> ",
        Segment("Visit", cut=True, joined=True),
        " ",
        "https://x.org",
        " ",
        Segment("now, ok?", sentence="Visit https://x.org now, ok?"),
    ]


def test_numbers_are_protected_only_when_asked():
    assert plan_text("Call 555 now.", words, 50) == [
        Segment("Call", cut=True, joined=True),
        " ",
        "555",
        " ",
        Segment("now.", sentence="Call 555 now."),
    ]
    assert plan_text("Call 555 now.", words, 50, numbers=False) == [Segment("Call 555 now.")]


def test_sentence_gap_replaces_the_space_between_sentences():
    assert plan_text("One. Two.", words, 50, sentence_gap="") == [Segment("One."), Segment("Two.")]
    assert plan_text("One.   Two.", words, 50, sentence_gap="|") == [Segment("One."), "|", Segment("Two.")]


def test_long_sentences_become_several_segments_joined_by_the_gap():
    plan = plan_text("one two three four five six seven", words, 3, sentence_gap="|")
    whole = "one two three four five six seven"
    assert plan == [
        Segment("one two three", joined=True),
        "|",
        Segment("four five six", joined=True),
        "|",
        Segment("seven", sentence=whole),
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_newlines_blank_lines_and_edges_come_back_exactly(newline):
    text = newline.join(["Title", "", "   Indented sentence here.   ", "1. Item one.", "", "", "End"])
    plan = plan_text(text, words, 50, sentence_gap=" ")
    assert identity(plan) == text
    assert [item.text for item in plan if isinstance(item, Segment)] == [
        "Title",
        "Indented sentence here.",
        "Item one.",
        "End",
    ]


def test_whitespace_only_and_empty_text():
    assert plan_text("", words, 50) == []
    assert plan_text("  \n\t", words, 50) == ["  ", "\n", "\t"]


def test_no_empty_items_and_no_segment_over_the_limit():
    rng = random.Random(3)
    pieces = [
        "Hello world.",
        "A b c d e f g h, i j k.",
        "\n",
        "\n\n",
        "  ",
        "- ",
        "See http://a.b/c.",
        "It costs 12 dollars.",
        "Dr. Who?",
        "```",
    ]
    for _ in range(200):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        plan = plan_text(text, words, 4)
        assert all(item != "" for item in plan)
        assert all(
            words(item.text) <= 4 and item.text == item.text.strip() for item in plan if isinstance(item, Segment)
        )
        # every newline of the text is a literal, in order
        assert "".join(i for i in plan if isinstance(i, str) and i in ("\n", "\r\n", "\r")) == "".join(
            ch for ch in text if ch == "\n"
        )


def test_a_sentence_ending_in_a_span_names_itself_and_its_tail():
    """The last segment of a sentence says how many literals still belong to it (the span and
    the full stop) and what the whole sentence is; the next sentence is not joined to it."""
    plan = plan_text("It ends on 12/25/2024. Then go.", words, 50, sentence_gap="")
    assert plan == [
        Segment("It ends on", cut=True, tail=3, sentence="It ends on 12/25/2024."),
        " ",
        "12/25/2024",
        ".",
        Segment("Then go."),
    ]
