"""The converted step graphs end in LogSoftmax + TopK (issue 32): beam search takes each row's
candidates from the decoder graph instead of a [rows, vocab] array; the hypotheses and their
scores are exactly those of the path that fetches the logits, greedy never runs the tail."""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import pytest

from desktop_mt.engine import generation as gen
from desktop_mt.engine.model_format import inspect_model_dir
from desktop_mt.engine.runtime import Seq2SeqSessions, StepDecoder
from desktop_mt.engine.tokenizer import SentencePieceTokenizer
from desktop_mt.engine.translator import decode_params
from desktop_mt.models.convert import convert_model_dir
from tests.engine.test_parity import SENTENCES


@pytest.fixture(scope="module")
def converted(tiny_marian_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("tail") / "model"
    shutil.copytree(tiny_marian_dir, folder)
    convert_model_dir(folder, fp32_step=True)
    return folder


class Counting:
    """Sessions that count which step calls the search makes."""

    def __init__(self, inner: Seq2SeqSessions, tail: bool):
        self.inner, self.tail, self.calls = inner, tail, {"decode_next": 0, "decode_next_top": 0, "row_top": 0}

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def decode_next(self, *args):
        self.calls["decode_next"] += 1
        return self.inner.decode_next(*args)

    def row_top(self, *args):
        self.calls["row_top"] += 1
        return self.inner.row_top(*args)

    def decode_next_top(self, *args):
        self.calls["decode_next_top"] += 1
        return self.inner.decode_next_top(*args) if self.tail else None


def run(sessions, src, params, beams):
    search = gen.greedy if beams == 1 else gen.beam_search
    kwargs = {"nbest": True} if beams > 1 else {}
    events = list(search(sessions, src, [40] * len(src), params, **kwargs))
    return [(type(e).__name__, e.item, getattr(e, "ids", None), getattr(e, "hypotheses", None)) for e in events]


@pytest.mark.parametrize("variant", ["fp32", "int8"])
@pytest.mark.parametrize("beams", [1, 4])
def test_the_graph_tail_gives_the_candidates_of_the_logits_path(converted, variant, beams):
    info = inspect_model_dir(converted)
    sessions = Seq2SeqSessions(info, variant)
    assert isinstance(sessions.decoder_layout, StepDecoder) and sessions.decoder_layout.has_tail
    tokenizer = SentencePieceTokenizer(info)
    src = [tokenizer.encode(s) for s in SENTENCES]
    params = dataclasses.replace(decode_params(info), beams=beams)
    with_tail, without = Counting(sessions, tail=True), Counting(sessions, tail=False)
    assert run(with_tail, src, params, beams) == run(without, src, params, beams)
    if beams == 1:
        assert with_tail.calls["decode_next_top"] == 0
    else:
        # every later step took the tail, except the one that forces the end at the length limit
        assert with_tail.calls["decode_next_top"] > 0 and with_tail.calls["row_top"] <= 1
        assert without.calls["row_top"] > with_tail.calls["row_top"]


def test_top_k_zero_runs_no_tail(converted):
    info = inspect_model_dir(converted)
    sessions = Seq2SeqSessions(info, "int8")
    layout = sessions.decoder_layout
    assert isinstance(layout, StepDecoder)
    ids, mask = gen.pad_batch([[5, 6, 7, 0]], 0)
    hidden = sessions.encode(ids, mask)
    _, cache = sessions.decode_first(np.array([[1]]), mask, hidden, 8)
    values, top = layout.decode_top(np.array([[2]]), cache, 3)
    assert values.shape == top.shape == (1, 3)
    empty = layout._run(["top_values"], np.array([[2]]), cache, np.zeros(1, np.int64))[0]
    assert empty.shape == (0, 0)
