"""KV-cached greedy and beam search over ``Seq2SeqSessions``, in numpy.

Both follow transformers' ``generate()`` step for step (logits processors, beam bookkeeping,
length penalty, early-stopping heuristic) so outputs are token-identical; parity tests hold
them to it. Both are generators: every step they yield what became final, and they check
the cancel flag once per decode step. Finished rows (greedy) and finished inputs (beam) are
dropped from the running batch, so the cost follows the rows still decoding.

Events: ``("tokens", item, [ids])`` appends committed ids to input ``item``;
``("done", item, [ids])`` gives its final ids (without the decoder start token).
"""

from __future__ import annotations

import dataclasses
from typing import Iterator, Sequence

import numpy as np

NEG = np.float32(-1.0e9)


@dataclasses.dataclass(frozen=True)
class DecodeParams:
    """Everything in generation_config that changes output, resolved to ids and numbers."""

    decoder_start: int
    eos: int
    pad: int
    beams: int = 1
    length_penalty: float = 1.0
    early_stopping: bool | str = False
    bad_words: tuple[tuple[int, ...], ...] = ()
    forced_bos: int | None = None
    forced_eos: int | None = None
    no_repeat_ngram: int = 0
    repetition_penalty: float = 1.0
    min_length: int = 0


def process_scores(scores: np.ndarray, seqs: np.ndarray, max_lens: np.ndarray, p: DecodeParams) -> np.ndarray:
    """Apply the logits processors of generate() in its order. ``seqs`` [rows, cur_len]."""
    cur_len = seqs.shape[1]
    if p.repetition_penalty != 1.0:
        picked = np.take_along_axis(scores, seqs, axis=1)
        picked = np.where(picked < 0, picked * p.repetition_penalty, picked / p.repetition_penalty)
        np.put_along_axis(scores, seqs, picked, axis=1)
    if p.no_repeat_ngram > 0 and cur_len + 1 >= p.no_repeat_ngram:
        ban_repeated_ngrams(scores, seqs, p.no_repeat_ngram)
    for word in p.bad_words:
        ban_bad_word(scores, seqs, word)
    if cur_len < p.min_length:
        scores[:, p.eos] = -np.inf
    if p.forced_bos is not None and cur_len == 1:
        scores[:] = -np.inf
        scores[:, p.forced_bos] = 0
    if p.forced_eos is not None:
        rows = np.nonzero(max_lens - 1 == cur_len)[0]
        if len(rows):
            scores[rows] = -np.inf
            scores[rows, p.forced_eos] = 0
    return scores


def ban_repeated_ngrams(scores: np.ndarray, seqs: np.ndarray, n: int) -> None:
    """A token that would complete an n-gram already present in the row gets -inf."""
    cur_len = seqs.shape[1]
    for r, row in enumerate(seqs.tolist()):
        prefix = row[cur_len + 1 - n:] if n > 1 else []
        for start in range(cur_len - n + 1):
            if row[start: start + n - 1] == prefix:
                scores[r, row[start + n - 1]] = -np.inf


def ban_bad_word(scores: np.ndarray, seqs: np.ndarray, word: tuple[int, ...]) -> None:
    if len(word) == 1:
        scores[:, word[0]] = -np.inf
        return
    head = list(word[:-1])
    for r, row in enumerate(seqs.tolist()):
        if len(row) >= len(head) and row[len(row) - len(head):] == head:
            scores[r, word[-1]] = -np.inf


def log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def top_stable(x: np.ndarray, n: int, chunk: int = 512) -> np.ndarray:
    """``np.argsort(-x, axis=1, kind="stable")[:, :n]`` (ties: lower index first), without a full sort.

    Each row is cut into chunks; the n-th largest chunk maximum is a threshold that at least n
    elements reach, so every one of the top n (ties included) is at or above it. Only those
    candidates are sorted, stably, so the result is identical to the full stable argsort.
    """
    rows, m = x.shape
    if m < 8 * chunk or n * 4 > m // chunk:
        return np.argsort(-x, axis=1, kind="stable")[:, :n]
    whole = (m // chunk) * chunk
    maxima = np.concatenate([x[:, :whole].reshape(rows, -1, chunk).max(axis=2), x[:, whole:].max(axis=1, keepdims=True)
                             if whole < m else np.empty((rows, 0), x.dtype)], axis=1)
    thr = -np.sort(-maxima, axis=1)[:, n - 1]
    special = ~(thr > -np.inf) | np.isnan(maxima).any(axis=1)  # fewer than n finite values (a forced token), NaN
    if special.any():
        out = np.empty((rows, n), dtype=np.intp)
        for r in range(rows):
            out[r] = _top_row(x[r], n) if special[r] else top_stable(x[r: r + 1], n, chunk)[0]
        return out
    # Candidates can only sit in chunks whose maximum reaches the threshold: look only there.
    hit_r, hit_c = np.nonzero(maxima >= thr[:, None])
    cols = hit_c[:, None] * chunk + np.arange(chunk)[None, :]
    valid = cols < m  # the last chunk may be short
    cols = np.minimum(cols, m - 1)
    keep = valid & (x[hit_r[:, None], cols] >= thr[hit_r][:, None])
    r_idx, c_idx = np.broadcast_to(hit_r[:, None], cols.shape)[keep], cols[keep]
    counts = np.bincount(r_idx, minlength=rows)
    order = np.lexsort((c_idx, -x[r_idx, c_idx], r_idx))  # by row, then value down, then index up
    starts = np.cumsum(counts) - counts
    return c_idx[order[starts[:, None] + np.arange(n)[None, :]]]


def _top_row(row: np.ndarray, n: int) -> np.ndarray:
    """One row's stable top n when it has fewer than n finite values: those, then the first -infs."""
    if np.isnan(row).any():
        return np.argsort(-row, kind="stable")[:n]
    finite = np.flatnonzero(row > -np.inf)
    finite = finite[np.argsort(-row[finite], kind="stable")][:n]
    return np.concatenate([finite, np.flatnonzero(row == -np.inf)[: n - len(finite)]])


def pad_batch(src_ids: Sequence[Sequence[int]], pad: int) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(s) for s in src_ids)
    ids = np.full((len(src_ids), width), pad, dtype=np.int64)
    mask = np.zeros((len(src_ids), width), dtype=np.int64)
    for r, s in enumerate(src_ids):
        ids[r, : len(s)] = s
        mask[r, : len(s)] = 1
    return ids, mask


def _cancelled(cancel) -> bool:
    return cancel is not None and cancel.is_set()


def greedy(sessions, src_ids, max_lens: Sequence[int], p: DecodeParams, cancel=None) -> Iterator[tuple]:
    """Greedy search; ``max_lens[i]`` is the total length (start token included) for input i."""
    ids, mask = pad_batch(src_ids, p.pad)
    hidden = sessions.encode(ids, mask)
    rows = np.arange(len(src_ids))  # which input each running row belongs to
    limits = np.asarray(max_lens, dtype=np.int64)
    seqs = np.full((len(src_ids), 1), p.decoder_start, dtype=np.int64)
    # positions 0 .. limit - 2 get written: no step runs once a row reaches its limit
    logits, cache = sessions.decode_first(seqs, mask, hidden, int(limits.max()) - 1)
    while True:
        if _cancelled(cancel):
            return
        # argmax of the processed logits: no softmax, no copy (the logits are ours to modify)
        scores = process_scores(np.asarray(logits[:, -1, :], dtype=np.float32), seqs, limits, p)
        nxt = scores.argmax(axis=-1)
        seqs = np.concatenate([seqs, nxt[:, None]], axis=1)
        done = (nxt == p.eos) | (seqs.shape[1] >= limits)
        for r in range(len(rows)):
            yield ("tokens", int(rows[r]), [int(nxt[r])])
            if done[r]:
                yield ("done", int(rows[r]), seqs[r, 1:].tolist())
        keep = np.nonzero(~done)[0]
        if len(keep) == 0:
            return
        if len(keep) < len(rows):  # drop finished rows from the running batch
            rows, seqs, limits = rows[keep], seqs[keep], limits[keep]
            cache.keep_items(keep)
        # Drop the last logits first: ORT can then reuse their memory for the next ones
        # (rows x vocab floats: 33 MB at 128 rows of a 65k vocabulary).
        logits = None
        logits = sessions.decode_next(seqs[:, -1:], cache)


@dataclasses.dataclass
class _BeamState:
    """Per-input beam bookkeeping, shaped [items, beams, ...] like generate()'s tensors."""

    running: np.ndarray       # [B, K, L] token ids
    running_scores: np.ndarray  # [B, K]
    finished: np.ndarray      # [B, K, L]
    finished_scores: np.ndarray  # [B, K]
    is_finished: np.ndarray   # [B, K]
    unsatisfied: np.ndarray   # [B] early-stop heuristic not yet met
    committed: list           # per item: how many generated tokens were already streamed


def _new_beam_state(n: int, k: int, length: int, p: DecodeParams) -> _BeamState:
    running = np.full((n, k, length), p.pad, dtype=np.int64)
    running[:, :, 0] = p.decoder_start
    scores = np.zeros((n, k), dtype=np.float32)
    scores[:, 1:] = NEG
    return _BeamState(running, scores, running.copy(), np.full((n, k), NEG, dtype=np.float32),
                      np.zeros((n, k), dtype=bool), np.ones(n, dtype=bool), [0] * n)


def beam_search(sessions, src_ids, max_lens: Sequence[int], p: DecodeParams, cancel=None) -> Iterator[tuple]:
    """Beam search as in generate(): top-2K candidates, finished-hypothesis merge, heuristic stop.

    Cross-attention K/V are computed once per input (first step at batch size ``items``);
    the step layout attends over them once for all beams, the Optimum layouts get them
    repeated per beam (``cache.expand``). Streams the prefix that every live and finished hypothesis of
    an input shares: those tokens are certain to be in the final output.
    """
    k = p.beams
    ids, mask = pad_batch(src_ids, p.pad)
    hidden = sessions.encode(ids, mask)
    items = np.arange(len(src_ids))
    limits = np.asarray(max_lens, dtype=np.int64)
    state = _new_beam_state(len(src_ids), k, int(limits.max()), p)
    start = np.full((len(src_ids), 1), p.decoder_start, dtype=np.int64)
    logits, cache = sessions.decode_first(start, mask, hidden, int(limits.max()) - 1)
    cache.expand(k)  # every beam of an input starts from its first step (the logits: see _candidates)
    cur_len = 1
    while True:
        if _cancelled(cancel):
            return
        beam_idx = _beam_step(state, logits, cur_len, limits, p, sessions)
        cur_len += 1
        _update_heuristic(state, cur_len, limits, p)
        yield from _stream_agreed(state, items, cur_len, p)
        cache.reorder((np.arange(len(items))[:, None] * k + beam_idx).reshape(-1))
        alive = state.unsatisfied & (cur_len < limits)
        for i in np.nonzero(~alive)[0]:
            yield ("done", int(items[i]), _best(state, i, p))
        if not alive.any():
            return
        if not alive.all():
            keep = np.nonzero(alive)[0]
            items, limits = items[keep], limits[keep]
            state = _select(state, keep)
            cache.keep_items(keep)
        last = state.running[:, :, cur_len - 1].reshape(-1, 1)
        logits = None  # as in greedy: let ORT reuse the last logits' memory
        logits = sessions.decode_next(last, cache)


def column_bans(p: DecodeParams, cur_len: int) -> list[int] | None:
    """Token ids this step's processors ban in every row, or None when a processor depends on
    the row (repetition penalty, n-grams, multi-token bad words, a forced token): then the step
    takes the general path."""
    if p.repetition_penalty != 1.0 or p.no_repeat_ngram > 0 or any(len(w) > 1 for w in p.bad_words):
        return None
    if p.forced_bos is not None and cur_len == 1:
        return None
    return [w[0] for w in p.bad_words] + ([p.eos] if cur_len < p.min_length else [])


def _candidates(s, logits: np.ndarray, cur_len: int, limits: np.ndarray, p: DecodeParams, sessions):
    """generate()'s top 2K candidates per input over beams x vocab: (scores, flat ids)."""
    forced_eos_now = p.forced_eos is not None and bool((limits - 1 == cur_len).any())
    bans = None if forced_eos_now else column_bans(p, cur_len)
    if bans is not None and hasattr(sessions, "row_top"):
        return _candidates_from_rows(s, logits, bans, sessions)
    n, k, _ = s.running.shape
    vocab = logits.shape[-1]
    if logits.shape[0] == n and k > 1:  # first step: one row per input, the same for all its beams
        logits = np.repeat(logits, k, axis=0)
    normalize = getattr(sessions, "log_softmax", None) or log_softmax
    flat_seqs = s.running[:, :, :cur_len].reshape(n * k, cur_len)
    log_probs = process_scores(normalize(np.asarray(logits[:, -1, :], dtype=np.float32)), flat_seqs,
                               np.repeat(limits, k), p)
    acc = log_probs.reshape(n, k, vocab)
    acc += s.running_scores[:, :, None]  # in place: one pass over [items, beams, vocab], no copy
    acc = acc.reshape(n, k * vocab)
    top = top_stable(acc, 2 * k)
    return np.take_along_axis(acc, top, axis=1), top


def _candidates_from_rows(s, logits: np.ndarray, bans: list[int], sessions):
    """The same candidates from each row's own top entries (``sessions.row_top``).

    A row's beam score is one constant added to the whole row, so the row's order does not
    change: an input's best 2K over beams x vocab are among its rows' best 2K (+ the banned
    ids, which are dropped here). The scores are the same float additions as the general path.
    """
    n, k, _ = s.running.shape
    vocab = logits.shape[-1]
    m = min(2 * k + len(bans), vocab)
    values, ids = sessions.row_top(logits[:, -1:, :], m)
    if values.shape[0] == n and k > 1:  # first step: one row per input, the same for all its beams
        values, ids = np.repeat(values, k, axis=0), np.repeat(ids, k, axis=0)
    if bans:
        values = np.where(np.isin(ids, bans), np.float32(-np.inf), values)
    values = (values + s.running_scores.reshape(-1, 1)).reshape(n, k * m)
    flat = (ids + (np.arange(n * k) % k * vocab)[:, None]).reshape(n, k * m)
    order = np.lexsort((flat, -values), axis=-1)[:, : 2 * k]  # score down, then lower flat id, as a stable sort
    return np.take_along_axis(values, order, axis=1), np.take_along_axis(flat, order, axis=1)


def _beam_step(s: _BeamState, logits: np.ndarray, cur_len: int, limits: np.ndarray, p: DecodeParams,
               sessions=None) -> np.ndarray:
    """One generate() beam step on all items; returns the source beam of each new running beam."""
    n, k, _ = s.running.shape
    vocab = logits.shape[-1]
    top_scores, top = _candidates(s, logits, cur_len, limits, p, sessions)
    src_beam, tokens = top // vocab, top % vocab
    cand = np.take_along_axis(s.running, src_beam[:, :, None], axis=1)
    cand[:, :, cur_len] = tokens
    hits = (tokens == p.eos) | (cur_len + 1 >= limits)[:, None]
    # Running beams for the next step: the best K candidates that did not stop.
    run_scores = top_scores + hits.astype(np.float32) * NEG
    nxt = np.argsort(-run_scores, axis=1, kind="stable")[:, :k]
    s.running = np.take_along_axis(cand, nxt[:, :, None], axis=1)
    s.running_scores = np.take_along_axis(run_scores, nxt, axis=1)
    # Finished hypotheses: only the top K candidates may enter, with the length penalty.
    just = hits & (np.arange(2 * k) < k)[None, :]
    fin = top_scores / np.float32((cur_len + 1 - 1) ** p.length_penalty)
    if p.early_stopping is True:
        fin = fin + (s.is_finished.all(axis=1, keepdims=True)).astype(np.float32) * NEG
    fin = fin + (~s.unsatisfied[:, None]).astype(np.float32) * NEG + (~just).astype(np.float32) * NEG
    merged_seqs = np.concatenate([s.finished, cand], axis=1)
    merged_scores = np.concatenate([s.finished_scores, fin], axis=1)
    merged_done = np.concatenate([s.is_finished, just], axis=1)
    best = np.argsort(-merged_scores, axis=1, kind="stable")[:, :k]
    s.finished = np.take_along_axis(merged_seqs, best[:, :, None], axis=1)
    s.finished_scores = np.take_along_axis(merged_scores, best, axis=1)
    s.is_finished = np.take_along_axis(merged_done, best, axis=1)
    return np.take_along_axis(src_beam, nxt, axis=1)


def _update_heuristic(s: _BeamState, cur_len: int, limits: np.ndarray, p: DecodeParams) -> None:
    """generate()'s early-stopping check: can a running beam still beat the worst finished one?"""
    if p.early_stopping == "never" and p.length_penalty > 0.0:
        length = (limits - 1).astype(np.float32)
    else:
        length = np.full(len(limits), cur_len - 1, dtype=np.float32)
    best_possible = s.running_scores[:, 0] / length ** np.float32(p.length_penalty)
    worst = np.where(s.is_finished, s.finished_scores.min(axis=1, keepdims=True), NEG)
    still = (best_possible[:, None] > worst).any(axis=1)
    if p.early_stopping is True:
        still &= ~s.is_finished.all(axis=1)
    s.unsatisfied &= still


def _stream_agreed(s: _BeamState, items: np.ndarray, cur_len: int, p: DecodeParams) -> Iterator[tuple]:
    """Yield tokens that all live beams and all finished hypotheses share (from position 1)."""
    for i in range(len(items)):
        hyps = [s.running[i, b, 1:cur_len] for b in range(s.running.shape[1])]
        hyps += [s.finished[i, b, 1:cur_len] for b in range(s.finished.shape[1]) if s.is_finished[i, b]]
        stacked = np.stack(hyps)
        same = (stacked == stacked[0]).all(axis=0)
        agreed = int(np.argmin(same)) if not same.all() else len(same)
        if agreed > s.committed[i]:
            yield ("tokens", int(items[i]), stacked[0, s.committed[i]: agreed].tolist())
            s.committed[i] = agreed


def _best(s: _BeamState, i: int, p: DecodeParams) -> list[int]:
    seq = s.finished[i, 0, 1:].tolist()
    if p.eos in seq:
        seq = seq[: seq.index(p.eos) + 1]
    while seq and seq[-1] == p.pad:
        seq.pop()
    return seq


def _select(s: _BeamState, keep: np.ndarray) -> _BeamState:
    return _BeamState(s.running[keep], s.running_scores[keep], s.finished[keep], s.finished_scores[keep],
                      s.is_finished[keep], s.unsatisfied[keep], [s.committed[i] for i in keep])
