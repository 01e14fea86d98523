"""One class per decoder layout family (split, merged, step): which one a file set gets, and that
all three decode the same tokens from the same checkpoint."""

from __future__ import annotations

import dataclasses
import re
import weakref
from pathlib import Path

import numpy as np
import pytest

from desktop_mt import GenerationOptions, SessionOptions, Translator
from desktop_mt.base.errors import ModelFormatError
from desktop_mt.engine import model_format as mf
from desktop_mt.engine.kv_cache import ConcatKVCache, KVBuffer
from desktop_mt.engine.runtime import (
    MergedDecoder,
    Seq2SeqSessions,
    SplitDecoder,
    StepDecoder,
    layout_for,
    layout_of,
    ort_session_options,
)

SENTENCES = [
    "I love you.",
    "Where is the train station?",
    "Tom said that he would come back tomorrow, but nobody believed him.",
    "Hi.",
]
NO_BOUND = dict(max_length_ratio=0, repetition_guard=False, chinese_punctuation=False)
FOLDER = Path("/models/some-model/onnx")


def _files(*roles: str) -> dict[str, Path]:
    return {role: FOLDER / mf.FILE_NAMES[role] for role in ("encoder", *roles)}


@pytest.mark.parametrize(
    "roles,expected",
    [
        (("decoder", "decoder_with_past"), SplitDecoder),
        (("decoder_merged",), MergedDecoder),
        (("cross_kv", "decoder_step"), StepDecoder),
        # both Optimum layouts present: the split files win, as they always have
        (("decoder", "decoder_with_past", "decoder_merged"), SplitDecoder),
        # a step export next to Optimum's files: ours win
        (("decoder", "decoder_with_past", "cross_kv", "decoder_step"), StepDecoder),
    ],
)
def test_each_file_set_gets_its_layout_class(roles, expected):
    assert layout_for(_files(*roles)) is expected
    assert layout_of(_files(*roles)) == expected.name


@pytest.mark.parametrize(
    "roles", [(), ("decoder",), ("decoder_with_past",), ("decoder_step",), ("cross_kv",), ("decoder", "decoder_step")]
)
def test_an_incomplete_file_set_names_the_folder(roles):
    with pytest.raises(ModelFormatError, match=re.escape(str(FOLDER))) as caught:
        layout_for(_files(*roles))
    assert "decoder_merged" in str(caught.value)  # says what would have worked


def test_sessions_refuse_an_incomplete_variant_naming_the_model_folder(tiny_marian_dir):
    info = mf.inspect_model_dir(tiny_marian_dir)
    roles = {role: path for role, path in info.files["fp32"].items() if role != "decoder_with_past"}
    broken = dataclasses.replace(info, files={"fp32": roles})
    with pytest.raises(ModelFormatError, match=re.escape(str(info.path))):
        Seq2SeqSessions(broken, "fp32")


@pytest.fixture(scope="module")
def tiny_marian_merged_dir(tiny_marian_hf, tmp_path_factory) -> Path:
    """The tiny Marian with one merged decoder (If on use_cache_branch), fp32 only."""
    from tests.model_factory import export_model

    return export_model(tiny_marian_hf, tmp_path_factory.mktemp("marian_merged_onnx"), int8=False, layout="merged")


@pytest.fixture(scope="module")
def layout_dirs(tiny_marian_dir, tiny_marian_merged_dir, tiny_marian_step_dir) -> dict[str, Path]:
    """The same checkpoint exported in each layout."""
    return {"split": tiny_marian_dir, "merged": tiny_marian_merged_dir, "step": tiny_marian_step_dir}


@pytest.mark.parametrize(
    "layout,expected,cache_type",
    [("split", SplitDecoder, ConcatKVCache), ("merged", MergedDecoder, ConcatKVCache), ("step", StepDecoder, KVBuffer)],
)
def test_sessions_pick_the_layout_of_the_exported_files(layout_dirs, layout, expected, cache_type):
    sessions = Seq2SeqSessions(mf.inspect_model_dir(layout_dirs[layout]), "fp32")
    assert isinstance(sessions.decoder_layout, expected) and sessions.layout == layout
    assert sessions.decoder is sessions.decoder_layout.first
    assert sessions.decoder_with_past is sessions.decoder_layout.later
    assert (sessions.decoder is sessions.decoder_with_past) == (layout != "split")  # one graph or two
    ids, mask = np.array([[5, 9, 12, 0]], dtype=np.int64), np.ones((1, 4), dtype=np.int64)
    start = np.array([[sessions_start(layout_dirs[layout])]], dtype=np.int64)
    _, cache = sessions.decode_first(start, mask, sessions.encode(ids, mask), 8)
    assert type(cache) is cache_type


def sessions_start(model_dir: Path) -> int:
    return int(mf.inspect_model_dir(model_dir).config["decoder_start_token_id"])


def _teacher_forced(sessions: Seq2SeqSessions, start: int, tokens: list[int]) -> list[np.ndarray]:
    """Logits of every step for two inputs, two beams each, with a beam reorder halfway."""
    ids = np.array([[5, 9, 12, 0], [7, 3, 0, 58]], dtype=np.int64)
    mask = np.array([[1, 1, 1, 1], [1, 1, 1, 0]], dtype=np.int64)
    logits, cache = sessions.decode_first(
        np.full((2, 1), start, dtype=np.int64), mask, sessions.encode(ids, mask), len(tokens) + 1
    )
    cache.expand(2)
    steps = [logits]
    for n, token in enumerate(tokens):
        if n == len(tokens) // 2:
            cache.reorder(np.array([1, 1, 2, 3]))  # beam 0 of input 0 continues beam 1's history
        steps.append(sessions.decode_next(np.array([[token], [token + 1], [token], [token + 2]]), cache))
    return steps


def test_the_layouts_give_the_same_logits_step_by_step(layout_dirs):
    start = sessions_start(layout_dirs["split"])
    tokens = [11, 23, 4, 42, 8, 16]
    runs = {
        name: _teacher_forced(Seq2SeqSessions(mf.inspect_model_dir(d), "fp32"), start, tokens)
        for name, d in layout_dirs.items()
    }
    for name in ("merged", "step"):
        for n, (ours, split) in enumerate(zip(runs[name], runs["split"])):
            assert ours.shape == split.shape
            np.testing.assert_allclose(ours, split, atol=1e-4, err_msg=f"{name}, step {n}")


@pytest.mark.parametrize("beams", [1, 4])
def test_the_layouts_give_identical_tokens(layout_dirs, beams):
    opts = GenerationOptions(beams=beams, **NO_BOUND)
    tokens = {name: Translator(d, variant="fp32").generate_ids(SENTENCES, opts) for name, d in layout_dirs.items()}
    assert all(len(ids) > 1 for ids in tokens["split"])  # real outputs, not empty ones
    assert tokens["merged"] == tokens["split"]
    assert tokens["step"] == tokens["split"]


def test_the_merged_layout_makes_its_placeholders_once_per_shape(layout_dirs):
    sessions = Seq2SeqSessions(mf.inspect_model_dir(layout_dirs["merged"]), "fp32")
    layout = sessions.decoder_layout
    assert isinstance(layout, MergedDecoder)
    zeros = layout.zeros.of((2, 5, 32))
    assert zeros is layout.zeros.of((2, 5, 32)) and not zeros.flags.writeable and not zeros.any()
    _teacher_forced(sessions, sessions_start(layout_dirs["merged"]), [11, 23, 4])
    shapes = set(layout.zeros._arrays)
    # the first step's empty past (2 inputs), then one encoder-states placeholder for all later
    # steps (2 inputs x 2 beams, source length 4), and nothing per step
    assert shapes == {(2, 5, 32), (2, sessions.heads, 0, sessions.head_dim), (4, 4, sessions.heads * sessions.head_dim)}


def test_a_growing_step_buffer_frees_the_old_buffers(tiny_marian_step_dir):
    """When a step fills the KV buffer, append grows it one tensor at a time; the step's own feed
    must not keep the old buffers alive meanwhile (at batch 32 x beam 4 on opus-mt's size that
    was 45 MB more peak memory)."""
    sessions = Seq2SeqSessions(mf.inspect_model_dir(tiny_marian_step_dir), "fp32")
    ids, mask = np.array([[5, 9, 12, 0]], dtype=np.int64), np.ones((1, 4), dtype=np.int64)
    start = np.array([[sessions_start(tiny_marian_step_dir)]], dtype=np.int64)
    _, cache = sessions.decode_first(start, mask, sessions.encode(ids, mask), 0)
    assert isinstance(cache, KVBuffer)
    grow, survivors = cache._reallocate, []

    def watched_grow(rows, capacity):
        old = [weakref.ref(buffer) for buffer in cache.buffers]
        grow(rows, capacity)
        survivors.append(sum(ref() is not None for ref in old))

    cache._reallocate = watched_grow  # type: ignore[method-assign]
    first_capacity = cache.capacity
    while cache.capacity == first_capacity:
        sessions.decode_next(np.array([[11]], dtype=np.int64), cache)
    assert survivors == [0]  # one growth, and none of the old buffers outlived it


@pytest.mark.parametrize("on", [False, True])
def test_ort_memory_pattern_follows_the_session_options(on):
    """Off by default: a decoder step repeats its input shapes, and the pattern ORT keeps for them
    sat beside the arena's blocks (batch 32: 90 MB more peak memory, docs/BENCHMARKS.md)."""
    assert SessionOptions().memory_pattern is False
    assert ort_session_options(SessionOptions(memory_pattern=on)).enable_mem_pattern is on
