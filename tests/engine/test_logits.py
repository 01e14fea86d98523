"""Direct unit tests of the logits processors in desktop_mt.engine.generation, against
transformers' own processors (the ones generate() applies) on random inputs where they
correspond, and by behaviour where they have no counterpart (guard_loops, top_stable)."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_mt.engine import generation as gen
from desktop_mt.engine.generation import DecodeParams

EOS, PAD, START = 0, 1, 1
SEEDS = range(25)


def params(**kw) -> DecodeParams:
    return DecodeParams(decoder_start=START, eos=EOS, pad=PAD, **kw)


def random_case(seed: int, rows: int = 4, vocab: int = 12, max_len: int = 9):
    """Scores with both signs (and a few ties) and short sequences over a small vocabulary, so
    that repeated n-grams and bad-word prefixes occur often."""
    rng = np.random.default_rng(seed)
    cur_len = int(rng.integers(1, max_len))
    seqs = rng.integers(2, vocab, size=(rows, cur_len))
    seqs[:, 0] = START
    scores = rng.normal(0, 3, size=(rows, vocab)).astype(np.float32)
    scores[:, 3] = scores[:, 4]  # a tie
    return rng, scores, seqs


@pytest.fixture(scope="module")
def hf():
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    return torch, transformers


def run_hf(hf, processors, seqs, scores) -> np.ndarray:
    torch, transformers = hf
    plist = transformers.LogitsProcessorList(processors)
    out = plist(torch.from_numpy(np.ascontiguousarray(seqs)), torch.from_numpy(scores.copy()))
    return out.numpy()


def run_ours(fn, scores, *args):
    scores = scores.copy()
    out = fn(scores, *args)
    return scores if out is None else out


# -- against transformers ------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("penalty", [1.3, 0.7])
def test_repetition_penalty(hf, seed, penalty):
    _rng, scores, seqs = random_case(seed)
    ours = run_ours(gen.process_scores, scores, seqs, np.full(len(seqs), 99), params(repetition_penalty=penalty))
    theirs = run_hf(hf, [hf[1].RepetitionPenaltyLogitsProcessor(penalty)], seqs, scores)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_no_repeat_ngram(hf, seed, n):
    _rng, scores, seqs = random_case(seed, vocab=6)
    theirs = run_hf(hf, [hf[1].NoRepeatNGramLogitsProcessor(n)], seqs, scores)
    assert np.array_equal(
        run_ours(gen.process_scores, scores, seqs, np.full(len(seqs), 99), params(no_repeat_ngram=n)), theirs
    )
    if seqs.shape[1] + 1 >= n:  # process_scores skips it before then; the function itself agrees
        assert np.array_equal(run_ours(gen.ban_repeated_ngrams, scores, seqs, n), theirs)


@pytest.mark.parametrize("seed", SEEDS)
def test_bad_words(hf, seed):
    rng, scores, seqs = random_case(seed, vocab=8)
    # single tokens, and multi-token words whose prefix is often the end of a row
    words = [
        (int(rng.integers(2, 8)),),
        tuple(int(t) for t in seqs[0, -1:]) + (int(rng.integers(2, 8)),),
        tuple(int(t) for t in seqs[1, -2:]) + (int(rng.integers(2, 8)),) if seqs.shape[1] >= 2 else (3, 4),
    ]
    theirs = run_hf(hf, [hf[1].NoBadWordsLogitsProcessor([list(w) for w in words], eos_token_id=EOS)], seqs, scores)
    ours = run_ours(gen.process_scores, scores, seqs, np.full(len(seqs), 99), params(bad_words=tuple(words)))
    assert np.array_equal(ours, theirs)
    direct = scores.copy()
    for word in words:
        gen.ban_bad_word(direct, seqs, word)
    assert np.array_equal(direct, theirs)


@pytest.mark.parametrize("seed", SEEDS)
def test_min_length(hf, seed):
    _rng, scores, seqs = random_case(seed)
    for min_length in (0, seqs.shape[1], seqs.shape[1] + 1, 20):
        theirs = run_hf(hf, [hf[1].MinLengthLogitsProcessor(min_length, EOS)], seqs, scores)
        ours = run_ours(gen.process_scores, scores, seqs, np.full(len(seqs), 99), params(min_length=min_length))
        assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("cur_len", [1, 2, 5])
def test_forced_bos(hf, cur_len):
    _rng, scores, seqs = random_case(0)
    seqs = seqs[:, :1].repeat(cur_len, axis=1)
    theirs = run_hf(hf, [hf[1].ForcedBOSTokenLogitsProcessor(7)], seqs, scores)
    assert np.array_equal(
        run_ours(gen.process_scores, scores, seqs, np.full(len(seqs), 99), params(forced_bos=7)), theirs
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_forced_eos_per_row_max_length(hf, seed):
    """generate() has one max_length for the batch; ours is per row, so each row is compared
    with the processor built for its own max_length."""
    rng, scores, seqs = random_case(seed)
    cur_len = seqs.shape[1]
    max_lens = rng.integers(cur_len, cur_len + 3, size=len(seqs))
    ours = run_ours(gen.process_scores, scores, seqs, max_lens, params(forced_eos=EOS))
    for r, max_len in enumerate(max_lens):
        theirs = run_hf(
            hf, [hf[1].ForcedEOSTokenLogitsProcessor(int(max_len), EOS)], seqs[r : r + 1], scores[r : r + 1]
        )
        assert np.array_equal(ours[r : r + 1], theirs)


@pytest.mark.parametrize("seed", SEEDS)
def test_all_processors_in_generates_order(hf, seed):
    """process_scores with every option == transformers' processors in the order generate()
    builds them (repetition penalty, no-repeat n-gram, bad words, min length, forced BOS/EOS)."""
    rng, scores, seqs = random_case(seed, vocab=8)
    _torch, tf = hf
    cur_len = seqs.shape[1]
    max_len = cur_len + int(rng.integers(0, 2))
    p = params(
        repetition_penalty=1.2, no_repeat_ngram=2, bad_words=((3,), (4, 5)), min_length=3, forced_bos=6, forced_eos=EOS
    )
    processors = [
        tf.RepetitionPenaltyLogitsProcessor(1.2),
        tf.NoRepeatNGramLogitsProcessor(2),
        tf.NoBadWordsLogitsProcessor([[3], [4, 5]], eos_token_id=EOS),
        tf.MinLengthLogitsProcessor(3, EOS),
        tf.ForcedBOSTokenLogitsProcessor(6),
        tf.ForcedEOSTokenLogitsProcessor(max_len, EOS),
    ]
    ours = run_ours(gen.process_scores, scores, seqs, np.full(len(seqs), max_len), p)
    np.testing.assert_allclose(ours, run_hf(hf, processors, seqs, scores), rtol=1e-6)


def test_defaults_change_nothing():
    _rng, scores, seqs = random_case(1)
    assert np.array_equal(run_ours(gen.process_scores, scores, seqs, np.full(len(seqs), 99), params()), scores)


@pytest.mark.parametrize("seed", range(5))
def test_log_softmax_matches_torch(hf, seed):
    torch, _tf = hf
    x = np.random.default_rng(seed).normal(0, 10, size=(3, 50)).astype(np.float32)
    x[0, :10] = -np.inf
    np.testing.assert_allclose(
        gen.log_softmax(x), torch.log_softmax(torch.from_numpy(x), dim=-1).numpy(), rtol=1e-5, atol=1e-5
    )


# -- top_stable: identical to a full stable argsort -------------------------------------------------


def reference_top(x: np.ndarray, n: int) -> np.ndarray:
    return np.argsort(-x, axis=1, kind="stable")[:, :n]


@pytest.mark.parametrize("seed", range(30))
def test_top_stable_equals_stable_argsort(seed):
    rng = np.random.default_rng(seed)
    rows, m, chunk = int(rng.integers(1, 6)), int(rng.integers(100, 3000)), int(rng.choice([16, 32, 64]))
    x = rng.normal(size=(rows, m)).astype(np.float32)
    if seed % 3 == 0:
        x = np.round(x, 1)  # many ties: lower index first
    if seed % 5 == 0:
        x[0, rng.integers(0, m, size=m // 2)] = -np.inf  # banned tokens
    n = int(rng.integers(1, 9))
    assert np.array_equal(gen.top_stable(x, n, chunk=chunk), reference_top(x, n))


@pytest.mark.parametrize("forced", [True, False])
def test_top_stable_with_fewer_finite_values_than_asked_and_nan(forced):
    m, chunk, n = 4096, 32, 4
    x = np.random.default_rng(0).normal(size=(3, m)).astype(np.float32)
    x[0] = -np.inf
    x[0, 1234] = 0.0  # a forced token: one finite value
    x[1, 17] = np.nan if forced else x[1, 17]
    x[2] = 0.5  # all equal
    assert np.array_equal(gen.top_stable(x, n, chunk=chunk), reference_top(x, n))


def test_top_stable_small_inputs_take_the_plain_path():
    x = np.array([[1.0, 3.0, 3.0, 2.0]], dtype=np.float32)
    assert gen.top_stable(x, 3).tolist() == [[1, 2, 3]]


# -- guard_loops: no counterpart in generate() ------------------------------------------------------


def guarded(row: list[int], extra: int = 0, min_length: int = 0, vocab: int = 10):
    scores = np.linspace(-1, -2, vocab, dtype=np.float32)[None, :].copy()
    seqs = np.array([[START, *row]])
    before = scores.copy()
    gen.guard_loops(scores, seqs, np.array([extra]), params(loop_guard=True, min_length=min_length))
    return before[0], scores[0]


def test_one_token_three_times_gives_its_score_to_eos():
    before, after = guarded([5, 7, 7, 7])
    assert after[7] == -np.inf and after[EOS] == max(before[EOS], before[7])
    assert np.array_equal(np.delete(after, [EOS, 7]), np.delete(before, [EOS, 7]))


def test_two_in_a_row_is_not_a_loop():
    before, after = guarded([5, 7, 7])
    assert np.array_equal(before, after)


def test_a_longer_unit_repeated_twice_is_a_loop():
    before, after = guarded([9, 3, 4, 5, 3, 4, 5])
    assert after[3] == -np.inf and after[EOS] == max(before[EOS], before[3])
    before, after = guarded([9, 3, 4, 5, 3, 4])  # not yet a whole repeat
    assert np.array_equal(before, after)


def test_a_repeating_source_allows_more_repeats():
    assert gen.source_repeats([4, 4, 4, 2]) == 3 and gen.source_repeats([1, 2, 3]) == 1
    assert gen.loop_allowance([[4, 4, 4], [1, 2]]).tolist() == [2, 0]
    before, after = guarded([7, 7, 7], extra=2)
    assert np.array_equal(before, after)
    _before, after = guarded([7, 7, 7, 7, 7], extra=2)
    assert after[7] == -np.inf


def test_nothing_before_min_length_and_eos_is_never_banned():
    before, after = guarded([7, 7, 7], min_length=10)
    assert np.array_equal(before, after)
    before, after = guarded([EOS, EOS, EOS])
    assert np.array_equal(before, after)


def test_rows_are_guarded_independently():
    scores = np.zeros((2, 10), dtype=np.float32)
    seqs = np.array([[START, 7, 7, 7], [START, 2, 3, 4]])
    gen.guard_loops(scores, seqs, np.zeros(2, dtype=np.int64), params(loop_guard=True))
    assert scores[0, 7] == -np.inf and np.all(scores[1] == 0)
