"""Pure text passes: markers, protected spans, plans, Chinese punctuation, the loop guard."""

from __future__ import annotations

import re

import numpy as np
import pytest

from desktop_mt.engine import generation as gen
from desktop_mt.engine.punct import settled, stable_length, to_fullwidth
from desktop_mt.engine.segment import Segment, plan_text
from desktop_mt.engine.textproc import Span, drop_full_stop, protect, split_marker


@pytest.mark.parametrize(
    "line, prefix",
    [
        ("1. Open the door.", "1. "),
        ("  2) Close it", "  2) "),
        ("a. first", "a. "),
        ("(iv) fourth", "(iv) "),
        ("• bullet", "• "),
        ("- dash", "- "),
        ("* star", "* "),
        ("> quoted", "> "),
        ("> > - nested", "> > - "),
        ("## Heading", "## "),
        ("- [ ] todo", "- [ ] "),
        ("1.2. Sub", "1.2. "),
        ("\tIndented", "\t"),
        ("3.5 kg of rice", ""),
        ("-5 degrees", ""),
        ("#hashtag", ""),
        ("Plain text", ""),
    ],
)
def test_split_marker(line, prefix):
    assert split_marker(line) == (prefix, line[len(prefix) :])


@pytest.mark.parametrize(
    "text, spans",
    [
        ("Visit https://example.com/a?b=1. Now", [("url", "https://example.com/a?b=1")]),
        ("Mail john.doe@example.com, please.", [("email", "john.doe@example.com")]),
        ("Call +1 (555) 123-4567 today.", [("number", "+1 (555) 123-4567")]),
        (
            "It costs $19.99 on 12/25/2024 at 9:30 am.",
            [("number", "$19.99"), ("number", "12/25/2024"), ("number", "9:30 am")],
        ),
        (
            "Run `pip install x` in ~/models or C:\\Users\\me\\x.txt",
            [("code", "`pip install x`"), ("path", "~/models"), ("path", "C:\\Users\\me\\x.txt")],
        ),
        ("See docs/ENGINE_API.md and report.docx.", [("path", "docs/ENGINE_API.md"), ("path", "report.docx")]),
        (
            "Follow @desktop_mt #offline 😀👍🏽 👨\u200d👩\u200d👧 ok",
            [("handle", "@desktop_mt"), ("handle", "#offline"), ("emoji", "😀👍🏽"), ("emoji", "👨\u200d👩\u200d👧")],
        ),
        ("50% of 25 km is 1,000,000 m", [("number", "50%"), ("number", "25 km"), ("number", "1,000,000 m")]),
        (
            "He said مرحبا بالعالم and Привет, мир to me.",
            [("foreign", "مرحبا بالعالم"), ("foreign", "Привет"), ("foreign", "мир")],
        ),
        ("The angle α is small; שלום means peace.", [("foreign", "α"), ("foreign", "שלום")]),
        ("Café, naïve and Zoë are Latin.", []),
        ("I love you.", []),
    ],
)
def test_protect_finds_spans_and_joins_back(text, spans):
    pieces = protect(text)
    assert [(p.kind, p.text) for p in pieces if isinstance(p, Span)] == spans
    assert "".join(p.text if isinstance(p, Span) else p for p in pieces) == text


def test_numbers_can_be_left_to_the_model():
    assert not any(isinstance(p, Span) for p in protect("I have 5 apples and $3.", numbers=False))


def _segments(plan):
    return [item.text for item in plan if isinstance(item, Segment)]


def test_plan_keeps_markers_spans_and_code_blocks_out_of_segments():
    text = "1. Open the door.\n  • Visit https://x.com now.  \n```\nprint('x')\n```\nhttps://only.url\n- 42"
    plan = plan_text(text, len, 200)
    assert "".join(i.text if isinstance(i, Segment) else i for i in plan) == text
    assert _segments(plan) == ["Open the door.", "Visit", "now."]


def test_plan_splits_long_text_pieces_within_the_limit():
    plan = plan_text("one two three four five six seven eight nine ten, see https://x.com", len, 12)
    assert all(len(s) <= 12 for s in _segments(plan)) and "https://x.com" in plan


def test_piece_cut_by_a_span_loses_its_full_stop():
    plan = plan_text("Visit https://x.com now. Call 555-1234", len, 200)
    cuts = [(i.text, i.cut) for i in plan if isinstance(i, Segment)]
    assert cuts == [("Visit", True), ("now.", False), ("Call", True)]
    assert drop_full_stop("参观。") == "参观" and drop_full_stop("你好？") == "你好？"
    # Given its source: a mark the source piece does not end with is the model's, and goes.
    assert drop_full_stop("这要多少钱？", "It costs") == "这要多少钱"
    assert drop_full_stop("是吗？", "Is it?") == "是吗？"


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("你好, 世界?", "你好，世界？"),
        ("是的,我知道.", "是的，我知道。"),
        ("Hello, world.", "Hello, world."),
        ("下午3:30分, 他来了.", "下午3:30分，他来了。"),
        ("版本 3.5 很好!", "版本 3.5 很好！"),
        ("上午 9:30 左右 (UTC 0230), 好", "上午 9:30 左右 (UTC 0230)，好"),  # a code's brackets stay
        ("会议在(UTC+1)开始.", "会议在(UTC+1)开始。"),
        ("开始于(UTC+1).", "开始于(UTC+1)。"),
        ("上午(9点)开始", "上午（9点）开始"),
        ('他说: "你好".', "他说：“你好”。"),
        ('He said "hi".', 'He said "hi".'),
        ("我有(一个)苹果 ;", "我有（一个）苹果；"),
        ("好...", "好..."),
        ("e.g. 例如", "e.g. 例如"),
        ("Tom, 你好", "Tom, 你好"),
    ],
)
def test_fullwidth(raw, expected):
    assert to_fullwidth(raw) == expected


@pytest.mark.parametrize(
    "full",
    [
        '你好, 世界? (UTC 0230) "引用" 3.5 ok. 他说:好!',
        "a (b (c) d",
        "x (y) z (好) . a",
        '"x" 你 "y',
        "好 (一 (二) 三) , 四.",
        "开始(UTC+1). 好, (A4)纸",
    ],
)
def test_settled_prefix_never_changes(full):
    final = to_fullwidth(full)
    for k in range(len(full) + 1):
        shown = settled(full[:k])
        assert final.startswith(shown), (full[:k], shown, final)


def test_stable_length_holds_back_only_what_may_change():
    assert stable_length("你好, 世界") == 6  # ends in a character: all settled
    assert stable_length("你好, ") == 2  # the comma waits for what follows
    assert stable_length("好 (一 (二) 三") == 1  # an open bracket waits for its partner


def test_source_repeats_counts_back_to_back_units():
    assert gen.source_repeats([5, 6, 7, 8]) == 1
    assert gen.source_repeats([5, 9, 9, 9, 2]) == 3
    assert gen.source_repeats([1, 2, 3, 2, 3, 2, 3, 4]) == 3


def _params(**kw):
    return gen.DecodeParams(decoder_start=0, eos=1, pad=0, loop_guard=True, **kw)


def test_guard_moves_the_loop_token_score_to_eos():
    seqs = np.array([[0, 7, 7, 7], [0, 7, 8, 7], [0, 4, 5, 4, 5][:4]])
    scores = np.zeros((3, 10), dtype=np.float32)
    scores[:, 7] = 5.0
    gen.guard_loops(scores, seqs, np.zeros(3, dtype=np.int64), _params())
    assert scores[0, 1] == 5.0 and scores[0, 7] == -np.inf  # a 4th "7" would loop: end instead
    assert scores[1, 7] == 5.0 and scores[1, 1] == 0.0  # no loop
    assert scores[2, 7] == 5.0


def test_guard_respects_what_the_source_repeats():
    seqs = np.array([[0, 7, 7, 7]])
    scores = np.zeros((1, 10), dtype=np.float32)
    gen.guard_loops(scores, seqs, np.array([2]), _params())  # the source repeats a unit 3 times
    assert scores[0, 7] == 0.0
    seqs = np.array([[0, 4, 5, 4, 5]])
    gen.guard_loops(scores, seqs, np.array([0]), _params())  # "4 5 4 5" then "4": ends
    assert scores[0, 4] == -np.inf


class RowTopSessions:
    """Numpy sessions with the row_top fast path, recording whether it was used."""

    def __init__(self):
        self.fast_calls = 0

    def log_softmax(self, scores):
        return gen.log_softmax(scores)

    def row_top(self, logits, n):
        self.fast_calls += 1
        scores = gen.log_softmax(logits[:, -1, :])
        ids = gen.top_stable(scores, n)
        return np.take_along_axis(scores, ids, axis=1), ids


def test_beam_candidates_end_a_looping_beam():
    """A beam that repeats token 7 three times: the general path runs, and "7" gives its score to EOS."""
    p = _params(beams=2)
    state = gen._new_beam_state(1, 2, 8, p)
    state.running[0, 0, 1:4] = 7  # beam 0: 7 7 7
    state.running[0, 1, 1:4] = [5, 6, 5]
    state.running_scores[:] = 0.0
    state.loop_extra = np.zeros(1, dtype=np.int64)
    logits = np.zeros((2, 1, 10), dtype=np.float32)
    logits[:, 0, 7] = 4.0  # both beams want a 7 next
    sessions = RowTopSessions()
    scores, flat = gen._candidates(state, logits, 4, np.array([8]), p, sessions)
    assert sessions.fast_calls == 0
    assert 7 not in flat[0].tolist() and 1 in flat[0].tolist()  # beam 0: EOS instead of a 4th "7"
    assert 10 + 7 in flat[0].tolist()  # beam 1 may still take its 7
    state.loop_extra = None  # guard off: the fast path, and the 4th "7" is the best candidate
    scores, flat = gen._candidates(state, logits, 4, np.array([8]), gen.DecodeParams(0, 1, 0, beams=2), sessions)
    assert sessions.fast_calls == 1 and flat[0, 0] == 7


class _Upper:
    """A term finder that is no Glossary: every all-capitals word is a term rendered in lowercase."""

    class Found:
        def __init__(self, start: int, end: int, text: str) -> None:
            self.start, self.end, self.text, self.target = start, end, text, text.lower()

    def find(self, text: str) -> list[_Upper.Found]:
        return [self.Found(m.start(), m.end(), m.group()) for m in re.finditer(r"\b[A-Z]{2,}\b", text)]

    def __len__(self) -> int:
        return 1


def test_protect_takes_any_term_finder() -> None:
    """``protect`` needs of a glossary only ``textproc.Terms``: where terms occur and their targets."""
    pieces = protect("Call NASA at https://NASA.gov now", glossary=_Upper())
    assert pieces == ["Call ", Span("term", "NASA", "nasa"), " at ", Span("url", "https://NASA.gov"), " now"]
