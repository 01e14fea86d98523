"""KV caches of both decoder layouts, and the beam-candidate graph against the numpy path."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_mt.engine import generation as gen
from desktop_mt.engine import runtime
from desktop_mt.engine.kv_cache import FIRST_CAPACITY, ConcatKVCache, KVBuffer
from desktop_mt.engine.model_format import inspect_model_dir
from desktop_mt.engine.runtime import ROW_TOP_ONNX, Seq2SeqSessions


def filled_buffer(rows=5, positions=FIRST_CAPACITY + 3, seed=0, limit=0, capacities=None):
    """A buffer with ``positions`` random positions appended; ``capacities`` (a list) gets its
    capacity after each append."""
    rng = np.random.default_rng(seed)
    cache = KVBuffer(
        4,
        rows,
        2,
        3,
        cross_kv=[rng.standard_normal((rows, 2, 4, 3), dtype=np.float32)] * 4,
        mask=np.ones((rows, 4), dtype=np.int64),
        capacity=limit,
    )
    written = []
    for _ in range(positions):
        new = [rng.standard_normal((rows, 2, 1, 3), dtype=np.float32) for _ in range(4)]
        cache.append(new)
        written.append(new)
        if capacities is not None:
            capacities.append(cache.capacity)
    # what each buffer must hold: the appended positions in order
    expected = [np.concatenate([w[t] for w in written], axis=2) for t in range(4)]
    return cache, expected


def test_buffer_grows_and_keeps_every_position():
    cache, expected = filled_buffer()
    assert cache.length == FIRST_CAPACITY + 3 and cache.capacity == 2 * FIRST_CAPACITY
    for buf, exp in zip(cache.buffers, expected):
        np.testing.assert_array_equal(buf[:, :, : cache.length], exp)
        assert not buf[:, :, cache.length :].any()  # unused positions stay zero (masked, never NaN)


def distinct(values):
    return [v for i, v in enumerate(values) if i == 0 or v != values[i - 1]]


@pytest.mark.parametrize(
    "limit,positions,sequence",
    [
        (100, 100, [16, 32, 64, 100]),  # doubles, the last growth capped at the search's limit
        (64, 64, [16, 32, 64]),
        (10, 10, [10]),  # a limit under the first capacity: allocated at once, never grown
        (0, 70, [16, 32, 64, 128]),  # no limit known: doubles without a cap
        (20, 25, [16, 20, 40]),  # writing past the stated limit still works (doubles past it)
    ],
)
def test_buffer_capacity_doubles_capped_at_the_limit(limit, positions, sequence):
    assert FIRST_CAPACITY == 16
    capacities: list[int] = []
    cache, expected = filled_buffer(rows=3, positions=positions, limit=limit, capacities=capacities)
    assert distinct(capacities) == sequence
    assert cache.length == positions
    for buf, exp in zip(cache.buffers, expected):  # every position survived each growth copy
        np.testing.assert_array_equal(buf[:, :, : cache.length], exp)
        assert not buf[:, :, cache.length :].any()


def test_buffer_growth_after_beams_and_dropped_inputs_keeps_the_rows():
    """Growth after expand/keep_items copies the current rows (not the original ones)."""
    cache, expected = filled_buffer(rows=3, positions=FIRST_CAPACITY - 1, limit=50)
    cache.expand(2)
    cache.keep_items(np.array([2, 0]))
    rows = np.array([2, 2, 0, 0])
    rng = np.random.default_rng(9)
    more = [[rng.standard_normal((4, 2, 1, 3), dtype=np.float32) for _ in range(4)] for _ in range(5)]
    for new in more:
        cache.append(new)
    assert cache.capacity == 32 and cache.length == FIRST_CAPACITY + 4
    for t, buf in enumerate(cache.buffers):
        want = np.concatenate([expected[t][rows]] + [m[t] for m in more], axis=2)
        np.testing.assert_array_equal(buf[:, :, : cache.length], want)
        assert not buf[:, :, cache.length :].any()


def test_buffer_reorder_in_place_equals_gather():
    cache, expected = filled_buffer()
    rows = np.array([0, 0, 3, 1, 3])  # duplicates and a swap, as beam search produces
    cache.reorder(rows)
    for buf, exp in zip(cache.buffers, expected):
        np.testing.assert_array_equal(buf[:, :, : cache.length], exp[rows])


def test_buffer_expand_and_keep_items():
    """Beams repeat an input's rows; cross K/V and the mask stay per input; dropping an input drops all its beams."""
    cache, expected = filled_buffer()
    cross = [kv.copy() for kv in cache.cross_kv]
    cache.expand(2)
    assert cache.rows == 10 and cache.cross_kv[0].shape[0] == 5
    cache.keep_items(np.array([4, 2]))
    rows = np.array([4, 4, 2, 2])  # the original rows behind the kept beams
    assert cache.rows == 4 and cache.mask.shape[0] == 2
    for buf, exp in zip(cache.buffers, expected):
        np.testing.assert_array_equal(buf[:, :, : cache.length], exp[rows])
        assert not buf[:, :, cache.length :].any()
    np.testing.assert_array_equal(cache.cross_kv[0], cross[0][[4, 2]])


def test_concat_cache_expand_and_keep_items_repeat_everything():
    rng = np.random.default_rng(3)
    kv = [rng.standard_normal((3, 2, 4, 5), dtype=np.float32)]
    cache = ConcatKVCache(kv, kv, np.arange(18).reshape(3, 6))
    cache.expand(2)
    cache.keep_items(np.array([2]))
    np.testing.assert_array_equal(cache.self_kv[0], kv[0][[2, 2]])
    np.testing.assert_array_equal(cache.cross_kv[0], kv[0][[2, 2]])
    assert cache.rows == 2


def test_concat_cache_identity_reorder_copies_nothing():
    kv = [np.zeros((3, 2, 4, 5), dtype=np.float32)]
    cache = ConcatKVCache(kv, kv, np.ones((3, 6), dtype=np.int64))
    cache.reorder(np.arange(3))
    assert cache.self_kv[0] is kv[0]
    cache.reorder(np.array([2, 2, 0]))
    assert cache.self_kv[0] is not kv[0] and cache.length == 4


def test_embedded_row_top_graph_is_what_the_builder_makes():
    pytest.importorskip("onnx")
    from export_tools.runtime_graphs import row_top

    assert row_top() == ROW_TOP_ONNX


@pytest.mark.parametrize("cur_len,chunked", [(1, False), (2, False), (5, False), (2, True)])
def test_row_top_equals_general_path_with_ties(tiny_marian_dir, cur_len, chunked, monkeypatch):
    if chunked:  # a few rows per call (as at large batch x vocab): the same result
        monkeypatch.setattr(runtime, "ROW_TOP_FLOATS", 3 * 700)
    sessions = Seq2SeqSessions(inspect_model_dir(tiny_marian_dir), "fp32")
    items, k, vocab = 3, 4, 700
    rng = np.random.default_rng(cur_len)
    logits = rng.integers(-3, 3, (items * k, 1, vocab)).astype(np.float32)  # many exact ties
    logits[0, 0, :650] = -np.inf
    p = gen.DecodeParams(
        decoder_start=vocab - 1, eos=0, pad=vocab - 1, beams=k, bad_words=((vocab - 1,),), min_length=3
    )
    state = gen._new_beam_state(items, k, 8, p)
    state.running_scores = rng.integers(-2, 1, (items, k)).astype(np.float32)
    limits = np.full(items, 8)
    fast = gen._candidates(state, logits.copy(), cur_len, limits, p, sessions)
    slow = gen._candidates_general(state, logits.copy(), cur_len, limits, p, sessions)  # processor by processor
    np.testing.assert_array_equal(fast[1], slow[1])
    np.testing.assert_array_equal(fast[0], slow[0])
    assert gen.column_bans(p, cur_len) is not None  # the graph path was the one taken


def test_row_dependent_processors_take_the_general_path():
    p = gen.DecodeParams(decoder_start=1, eos=0, pad=1, beams=4, repetition_penalty=1.2)
    assert gen.column_bans(p, 3) is None
    assert gen.column_bans(gen.DecodeParams(decoder_start=1, eos=0, pad=1, forced_bos=5), 1) is None
    bans = gen.column_bans(gen.DecodeParams(decoder_start=1, eos=0, pad=1, bad_words=((1,),), min_length=4), 2)
    assert sorted(bans) == [0, 1]
