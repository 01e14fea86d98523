"""KV-cached greedy and beam search over ``Seq2SeqSessions``, in numpy.

Both follow transformers' ``generate()`` step for step (logits processors, beam bookkeeping,
length penalty, early-stopping heuristic) so outputs are token-identical; parity tests hold
them to it. Both are generators: every step they yield what became final, and they check
the cancel flag once per decode step. Finished rows (greedy) and finished inputs (beam) are
dropped from the running batch, so the cost follows the rows still decoding.

Events: :class:`TokensStep` appends committed ids to an input; :class:`ItemDone` gives its
final ids (without the decoder start token). Beam search called with ``nbest=True`` also
yields :class:`NBest` just before ``ItemDone``: every finished hypothesis, best first, as
generate()'s ``num_return_sequences`` / ``sequences_scores`` give them.

The searches drive a :class:`~.protocols.DecoderRunner` and its :class:`~.protocols.KVCache`.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from .protocols import CancelToken, DecoderRunner, KVCache

__all__ = [
    "TokensStep",
    "ItemDone",
    "NBest",
    "SearchEvent",
    "DecodeParams",
    "PieceTable",
    "PieceConstraint",
    "Prefix",
    "process_scores",
    "source_repeats",
    "loop_allowance",
    "guard_loops",
    "ban_repeated_ngrams",
    "ban_bad_word",
    "log_softmax",
    "top_stable",
    "greedy",
    "beam_search",
    "column_bans",
    "best_combinations",
]

_NEG = np.float32(-1.0e9)


@dataclasses.dataclass(frozen=True)
class TokensStep:
    """Ids that became certain for input ``item``: append them to its output."""

    item: int
    ids: list[int]


@dataclasses.dataclass(frozen=True)
class ItemDone:
    """Input ``item`` is finished; ``ids`` is its whole output (without the decoder start token)."""

    item: int
    ids: list[int]


@dataclasses.dataclass(frozen=True)
class NBest:
    """Input ``item``'s finished beam hypotheses ``(ids, score)``, best first (``nbest=True``)."""

    item: int
    hypotheses: list[tuple[list[int], float]]


SearchEvent = TokensStep | ItemDone | NBest


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
    loop_guard: bool = False  # end a hypothesis that starts to loop (see guard_loops); not in generate()
    prefix: Prefix | None = None  # a forced target prefix (post-editing); None: decode from the start token


class PieceTable:
    """A target vocabulary's pieces for :class:`PieceConstraint`: which ids spell which piece,
    sorted so that the pieces starting with a text are found by bisection. Built once per model."""

    def __init__(self, pieces: Mapping[int, str], skip: frozenset[int] = frozenset()):
        self.pieces = pieces
        by_piece: dict[str, list[int]] = {}
        for i, piece in pieces.items():
            if piece and i not in skip:
                by_piece.setdefault(piece, []).append(i)
        self._by_piece = by_piece
        self._sorted = sorted(by_piece)
        self._memo: dict[str, list[int]] = {}

    def spelling(self, rest: str) -> list[int]:
        """Ids, ascending, whose piece starts with ``rest`` or is a non-empty proper prefix of it."""
        if rest not in self._memo:
            if len(self._memo) > 4096:
                self._memo.clear()
            start = bisect.bisect_left(self._sorted, rest)
            ids: list[int] = []
            for piece in self._sorted[start:]:
                if not piece.startswith(rest):
                    break
                ids += self._by_piece[piece]
            for cut in range(1, len(rest)):
                ids += self._by_piece.get(rest[:cut], [])
            self._memo[rest] = sorted(ids)
        return self._memo[rest]


class PieceConstraint:
    """The typed partial word of a target prefix, as generate()'s ``prefix_allowed_tokens_fn``.

    ``text`` is the SentencePiece text (``\u2581`` for a space) of the prefix tokens that were
    not forced (the word being typed, which the model may tokenize its own way). Until the
    generated pieces cover it, a token is allowed only if its piece starts with what is left of
    ``text`` (it completes the word) or is a non-empty proper prefix of it (it spells the word
    further). So the output's pieces always start with the typed text, and the word the user
    was typing is finished the way the model would write it ("I lo" -> "I love").
    """

    def __init__(self, text: str, table: PieceTable):
        self.text = text
        self.table = table

    def allowed(self, generated: Sequence[int]) -> list[int] | None:
        """The ids allowed after ``generated`` (the ids after the forced ones), ascending; None
        once the text is covered (no constraint any more)."""
        rest = self.text
        for token in generated:
            piece = self.table.pieces.get(int(token), "")
            if not rest or not piece or piece.startswith(rest) or not rest.startswith(piece):
                return None  # covered (or a token the constraint did not choose, e.g. a forced end)
            rest = rest[len(piece) :]
        return self.table.spelling(rest) if rest else None

    def mask(self, scores: np.ndarray, seqs: np.ndarray, start: int) -> None:
        """-inf on every id a row may not take; ``seqs[:, start:]`` are the rows' generated ids."""
        for r, row in enumerate(seqs[:, start:].tolist()):
            allowed = self.allowed(row)
            if allowed is not None:
                keep = scores[r, allowed].copy()
                scores[r] = -np.inf
                scores[r, allowed] = keep

    def active(self, seqs: np.ndarray, start: int) -> bool:
        """Whether any row is still constrained."""
        return any(self.allowed(row) is not None for row in seqs[:, start:].tolist())


@dataclasses.dataclass(frozen=True)
class Prefix:
    """A target prefix: ``forced`` ids follow the decoder start token (as generate()'s
    ``decoder_input_ids=[start] + forced``); ``partial`` constrains the tokens after them."""

    forced: tuple[int, ...] = ()
    partial: PieceConstraint | None = None

    @property
    def length(self) -> int:
        """The decoder prompt's length: the start token and the forced ids."""
        return 1 + len(self.forced)


def _prompt_length(p: DecodeParams) -> int:
    """generate()'s ``decoder_prompt_len``: 1 (the start token) plus the forced prefix."""
    return 1 if p.prefix is None else p.prefix.length


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
    if p.prefix is not None and p.prefix.partial is not None:  # generate()'s order: after min length
        p.prefix.partial.mask(scores, seqs, p.prefix.length)
    if p.forced_bos is not None and cur_len == 1:
        scores[:] = -np.inf
        scores[:, p.forced_bos] = 0
    if p.forced_eos is not None:
        rows = np.nonzero(max_lens - 1 == cur_len)[0]
        if len(rows):
            scores[rows] = -np.inf
            scores[rows, p.forced_eos] = 0
    return scores


# Repetition guard: a unit of up to _LOOP_UNIT tokens may repeat back to back _LOOP_REPEATS[n]
# times (more if the source itself repeats); the token that would start one more repeat is
# replaced by end-of-sentence, so a degenerate loop ("的的的的...") ends where it starts.
_LOOP_UNIT = 6
_LOOP_REPEATS = {1: 3}  # one token three times in a row; longer units twice
_LOOP_REPEATS_DEFAULT = 2


def source_repeats(src: Sequence[int]) -> int:
    """How many times the source's most repeated unit (up to _LOOP_UNIT tokens) occurs back to
    back ("very very very" -> 3; 1 when nothing repeats): the extra repeats a target may have."""
    a = np.asarray(src)
    best = 1
    for n in range(1, min(_LOOP_UNIT, len(a) // 2) + 1):
        same = np.concatenate([[False], a[n:] == a[:-n], [False]])
        edges = np.flatnonzero(np.diff(same.astype(np.int8)))
        if len(edges):
            best = max(best, int((edges[1::2] - edges[0::2]).max()) // n + 1)
    return best


def loop_allowance(src_ids: Sequence[Sequence[int]]) -> np.ndarray:
    """Per input, how many repeats beyond the defaults its source justifies."""
    return np.asarray([source_repeats(s) - 1 for s in src_ids], dtype=np.int64)


def guard_loops(scores: np.ndarray, seqs: np.ndarray, extra: np.ndarray, p: DecodeParams) -> None:
    """Where a row ends in a unit repeated as often as allowed, the token that would start the
    next repeat gives its score to end-of-sentence (greedy then stops; a beam ends with the
    score it would have had). ``seqs`` [rows, cur_len] includes the decoder start token."""
    if seqs.shape[1] <= p.min_length:
        return
    for r, row in enumerate(seqs[:, 1:].tolist()):
        token = _loop_token(row, int(extra[r]))
        if token is not None and token != p.eos:
            scores[r, p.eos] = max(scores[r, p.eos], scores[r, token])
            scores[r, token] = -np.inf


def _loop_token(row: list[int], extra: int) -> int | None:
    """The first token of the unit ``row`` ends repeating at its limit, or None."""
    for n in range(1, _LOOP_UNIT + 1):
        if len(row) < 2 * n or row[-1] != row[-1 - n]:  # cheap test first: no repeat of length n ends here
            continue
        times = _LOOP_REPEATS.get(n, _LOOP_REPEATS_DEFAULT) + extra
        if len(row) >= n * times and row[-n * times :] == row[-n:] * times:
            return row[-n]
    return None


def ban_repeated_ngrams(scores: np.ndarray, seqs: np.ndarray, n: int) -> None:
    """A token that would complete an n-gram already present in the row gets -inf."""
    cur_len = seqs.shape[1]
    for r, row in enumerate(seqs.tolist()):
        prefix = row[cur_len + 1 - n :] if n > 1 else []
        for start in range(cur_len - n + 1):
            if row[start : start + n - 1] == prefix:
                scores[r, row[start + n - 1]] = -np.inf


def ban_bad_word(scores: np.ndarray, seqs: np.ndarray, word: tuple[int, ...]) -> None:
    if len(word) == 1:
        scores[:, word[0]] = -np.inf
        return
    head = list(word[:-1])
    for r, row in enumerate(seqs.tolist()):
        if len(row) >= len(head) and row[len(row) - len(head) :] == head:
            scores[r, word[-1]] = -np.inf


def log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=-1, keepdims=True)
    out: np.ndarray = x - np.log(np.exp(x).sum(axis=-1, keepdims=True))
    return out


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
    maxima = np.concatenate(
        [
            x[:, :whole].reshape(rows, -1, chunk).max(axis=2),
            x[:, whole:].max(axis=1, keepdims=True) if whole < m else np.empty((rows, 0), x.dtype),
        ],
        axis=1,
    )
    thr = -np.sort(-maxima, axis=1)[:, n - 1]
    special = ~(thr > -np.inf) | np.isnan(maxima).any(axis=1)  # fewer than n finite values (a forced token), NaN
    if special.any():
        out = np.empty((rows, n), dtype=np.intp)
        for r in range(rows):
            out[r] = _top_row(x[r], n) if special[r] else top_stable(x[r : r + 1], n, chunk)[0]
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
    top: np.ndarray = c_idx[order[starts[:, None] + np.arange(n)[None, :]]]
    return top


def _top_row(row: np.ndarray, n: int) -> np.ndarray:
    """One row's stable top n when it has fewer than n finite values: those, then the first -infs."""
    if np.isnan(row).any():
        return np.argsort(-row, kind="stable")[:n]
    finite = np.flatnonzero(row > -np.inf)
    finite = finite[np.argsort(-row[finite], kind="stable")][:n]
    return np.concatenate([finite, np.flatnonzero(row == -np.inf)[: n - len(finite)]])


def _pad_batch(src_ids: Sequence[Sequence[int]], pad: int) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(s) for s in src_ids)
    ids = np.full((len(src_ids), width), pad, dtype=np.int64)
    mask = np.zeros((len(src_ids), width), dtype=np.int64)
    for r, s in enumerate(src_ids):
        ids[r, : len(s)] = s
        mask[r, : len(s)] = 1
    return ids, mask


def _cancelled(cancel: CancelToken | None) -> bool:
    return cancel is not None and cancel.is_set()


def _first_steps(
    sessions: DecoderRunner, rows: int, mask: np.ndarray, hidden: np.ndarray, max_len: int, p: DecodeParams
) -> tuple[np.ndarray, KVCache, np.ndarray]:
    """The first step, then one step per forced prefix id (teacher forcing: every layout steps
    one token at a time). Returns the logits after the prompt, the cache and the prompt ``[rows, P]``."""
    forced = [] if p.prefix is None else list(p.prefix.forced)
    prompt = np.tile(np.asarray([p.decoder_start] + forced, dtype=np.int64), (rows, 1))
    logits, cache = sessions.decode_first(prompt[:, :1], mask, hidden, max_len)
    for i in range(1, prompt.shape[1]):
        del logits
        logits = sessions.decode_next(prompt[:, i : i + 1], cache)
    return logits, cache, prompt


def greedy(
    sessions: DecoderRunner,
    src_ids: Sequence[Sequence[int]],
    max_lens: Sequence[int],
    p: DecodeParams,
    cancel: CancelToken | None = None,
) -> Iterator[SearchEvent]:
    """Greedy search; ``max_lens[i]`` is the total length (start token included) for input i."""
    ids, mask = _pad_batch(src_ids, p.pad)
    hidden = sessions.encode(ids, mask)
    rows = np.arange(len(src_ids))  # which input each running row belongs to
    limits = np.asarray(max_lens, dtype=np.int64)
    extra = loop_allowance(src_ids) if p.loop_guard else None
    # positions 0 .. limit - 2 get written: no step runs once a row reaches its limit
    logits, cache, seqs = _first_steps(sessions, len(src_ids), mask, hidden, int(limits.max()) - 1, p)
    if seqs.shape[1] > 1:  # a forced prefix is part of the output, as in generate()
        for r in range(len(rows)):
            yield TokensStep(int(rows[r]), seqs[r, 1:].tolist())
    while True:
        if _cancelled(cancel):
            return
        # argmax of the processed logits: no softmax, no copy (the logits are ours to modify)
        scores = process_scores(np.asarray(logits[:, -1, :], dtype=np.float32), seqs, limits, p)
        if extra is not None:
            guard_loops(scores, seqs, extra[rows], p)
        nxt = scores.argmax(axis=-1)
        seqs = np.concatenate([seqs, nxt[:, None]], axis=1)
        done = (nxt == p.eos) | (seqs.shape[1] >= limits)
        for r in range(len(rows)):
            yield TokensStep(int(rows[r]), [int(nxt[r])])
            if done[r]:
                yield ItemDone(int(rows[r]), seqs[r, 1:].tolist())
        keep = np.nonzero(~done)[0]
        if len(keep) == 0:
            return
        if len(keep) < len(rows):  # drop finished rows from the running batch
            rows, seqs, limits = rows[keep], seqs[keep], limits[keep]
            cache.keep_items(keep)
        # Drop the last logits first: ORT can then reuse their memory for the next ones
        # (rows x vocab floats: 33 MB at 128 rows of a 65k vocabulary).
        del logits
        logits = sessions.decode_next(seqs[:, -1:], cache)


@dataclasses.dataclass
class _BeamState:
    """Per-input beam bookkeeping, shaped [items, beams, ...] like generate()'s tensors."""

    running: np.ndarray  # [B, K, L] token ids
    running_scores: np.ndarray  # [B, K]
    finished: np.ndarray  # [B, K, L]
    finished_scores: np.ndarray  # [B, K]
    is_finished: np.ndarray  # [B, K]
    unsatisfied: np.ndarray  # [B] early-stop heuristic not yet met
    committed: list[int]  # per item: how many generated tokens were already streamed
    loop_extra: np.ndarray | None = None  # [B] repeats the source justifies (None: guard off)


def _new_beam_state(n: int, k: int, length: int, p: DecodeParams) -> _BeamState:
    running = np.full((n, k, length), p.pad, dtype=np.int64)
    running[:, :, 0] = p.decoder_start
    if p.prefix is not None:
        running[:, :, 1 : p.prefix.length] = p.prefix.forced
    scores = np.zeros((n, k), dtype=np.float32)
    scores[:, 1:] = _NEG
    return _BeamState(
        running,
        scores,
        running.copy(),
        np.full((n, k), _NEG, dtype=np.float32),
        np.zeros((n, k), dtype=bool),
        np.ones(n, dtype=bool),
        [0] * n,
    )


def beam_search(
    sessions: DecoderRunner,
    src_ids: Sequence[Sequence[int]],
    max_lens: Sequence[int],
    p: DecodeParams,
    cancel: CancelToken | None = None,
    nbest: bool = False,
) -> Iterator[SearchEvent]:
    """Beam search as in generate(): top-2K candidates, finished-hypothesis merge, heuristic stop.

    Cross-attention K/V are computed once per input (first step at batch size ``items``);
    the step layout attends over them once for all beams, the Optimum layouts get them
    repeated per beam (``cache.expand``). Streams the prefix that every live and finished hypothesis of
    an input shares: those tokens are certain to be in the final output. ``nbest``: also yield
    each input's finished hypotheses (:class:`NBest` events; the search itself is unchanged).
    """
    k = p.beams
    ids, mask = _pad_batch(src_ids, p.pad)
    hidden = sessions.encode(ids, mask)
    items = np.arange(len(src_ids))
    limits = np.asarray(max_lens, dtype=np.int64)
    state = _new_beam_state(len(src_ids), k, int(limits.max()), p)
    state.loop_extra = loop_allowance(src_ids) if p.loop_guard else None
    # The prompt (start token and forced prefix) once per input, before the beams split.
    logits, cache, _ = _first_steps(sessions, len(src_ids), mask, hidden, int(limits.max()) - 1, p)
    cache.expand(k)  # every beam of an input starts from its first step (the logits: see _candidates)
    cur_len = _prompt_length(p)
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
            if nbest:
                yield NBest(int(items[i]), _hypotheses(state, int(i), p))
            yield ItemDone(int(items[i]), _best(state, int(i), p))
        if not alive.any():
            return
        if not alive.all():
            keep = np.nonzero(alive)[0]
            items, limits = items[keep], limits[keep]
            state = _select(state, keep)
            cache.keep_items(keep)
        last = state.running[:, :, cur_len - 1].reshape(-1, 1)
        del logits  # as in greedy: let ORT reuse the last logits' memory
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


def _candidates(
    s: _BeamState, logits: np.ndarray, cur_len: int, limits: np.ndarray, p: DecodeParams, sessions: DecoderRunner
) -> tuple[np.ndarray, np.ndarray]:
    """generate()'s top 2K candidates per input over beams x vocab: (scores, flat ids).

    Where this step's processors ban the same ids in every row, from each row's own top
    entries (``_candidates_from_rows``); else processor by processor (``_candidates_general``)."""
    forced_eos_now = p.forced_eos is not None and bool((limits - 1 == cur_len).any())
    n, k, _ = s.running.shape
    flat_seqs = s.running[:, :, :cur_len].reshape(n * k, cur_len)
    extra = None if s.loop_extra is None else np.repeat(s.loop_extra, k)
    looping = extra is not None and any(
        _loop_token(row, int(e)) is not None for row, e in zip(flat_seqs[:, 1:].tolist(), extra)
    )
    constrained = (
        p.prefix is not None and p.prefix.partial is not None and p.prefix.partial.active(flat_seqs, p.prefix.length)
    )
    bans = None if forced_eos_now or looping or constrained else column_bans(p, cur_len)
    if bans is not None:
        return _candidates_from_rows(s, logits, bans, sessions)
    return _candidates_general(s, logits, cur_len, limits, p, sessions, extra if looping else None)


def _candidates_general(
    s: _BeamState,
    logits: np.ndarray,
    cur_len: int,
    limits: np.ndarray,
    p: DecodeParams,
    sessions: DecoderRunner,
    loop_extra: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The candidates over each row's whole processed log-softmax (``loop_extra``: run the
    repetition guard with these per-row allowances)."""
    n, k, _ = s.running.shape
    flat_seqs = s.running[:, :, :cur_len].reshape(n * k, cur_len)
    vocab = logits.shape[-1]
    if logits.shape[0] == n and k > 1:  # first step: one row per input, the same for all its beams
        logits = np.repeat(logits, k, axis=0)
    log_probs = process_scores(
        sessions.log_softmax(np.asarray(logits[:, -1, :], dtype=np.float32)), flat_seqs, np.repeat(limits, k), p
    )
    if loop_extra is not None:
        guard_loops(log_probs, flat_seqs, loop_extra, p)
    acc = log_probs.reshape(n, k, vocab)
    acc += s.running_scores[:, :, None]  # in place: one pass over [items, beams, vocab], no copy
    flat = acc.reshape(n, k * vocab)
    top = top_stable(flat, 2 * k)
    return np.take_along_axis(flat, top, axis=1), top


def _candidates_from_rows(
    s: _BeamState, logits: np.ndarray, bans: list[int], sessions: DecoderRunner
) -> tuple[np.ndarray, np.ndarray]:
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


def _beam_step(
    s: _BeamState, logits: np.ndarray, cur_len: int, limits: np.ndarray, p: DecodeParams, sessions: DecoderRunner
) -> np.ndarray:
    """One generate() beam step on all items; returns the source beam of each new running beam."""
    n, k, _ = s.running.shape
    vocab = logits.shape[-1]
    top_scores, top = _candidates(s, logits, cur_len, limits, p, sessions)
    src_beam, tokens = top // vocab, top % vocab
    cand = np.take_along_axis(s.running, src_beam[:, :, None], axis=1)
    cand[:, :, cur_len] = tokens
    hits = (tokens == p.eos) | (cur_len + 1 >= limits)[:, None]
    # Running beams for the next step: the best K candidates that did not stop.
    run_scores = top_scores + hits.astype(np.float32) * _NEG
    nxt = np.argsort(-run_scores, axis=1, kind="stable")[:, :k]
    s.running = np.take_along_axis(cand, nxt[:, :, None], axis=1)
    s.running_scores = np.take_along_axis(run_scores, nxt, axis=1)
    # Finished hypotheses: only the top K candidates may enter, with the length penalty.
    just = hits & (np.arange(2 * k) < k)[None, :]
    fin = top_scores / np.float32((cur_len + 1 - _prompt_length(p)) ** p.length_penalty)
    if p.early_stopping is True:
        fin = fin + (s.is_finished.all(axis=1, keepdims=True)).astype(np.float32) * _NEG
    fin = fin + (~s.unsatisfied[:, None]).astype(np.float32) * _NEG + (~just).astype(np.float32) * _NEG
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
        length = (limits - _prompt_length(p)).astype(np.float32)
    else:
        length = np.full(len(limits), cur_len - _prompt_length(p), dtype=np.float32)
    best_possible = s.running_scores[:, 0] / length ** np.float32(p.length_penalty)
    worst = np.where(s.is_finished, s.finished_scores.min(axis=1, keepdims=True), _NEG)
    still = (best_possible[:, None] > worst).any(axis=1)
    if p.early_stopping is True:
        still &= ~s.is_finished.all(axis=1)
    s.unsatisfied &= still


def _stream_agreed(s: _BeamState, items: np.ndarray, cur_len: int, p: DecodeParams) -> Iterator[TokensStep]:
    """Yield tokens that all live beams and all finished hypotheses share (from position 1)."""
    for i in range(len(items)):
        hyps = [s.running[i, b, 1:cur_len] for b in range(s.running.shape[1])]
        hyps += [s.finished[i, b, 1:cur_len] for b in range(s.finished.shape[1]) if s.is_finished[i, b]]
        stacked = np.stack(hyps)
        same = (stacked == stacked[0]).all(axis=0)
        agreed = int(np.argmin(same)) if not same.all() else len(same)
        if agreed > s.committed[i]:
            yield TokensStep(int(items[i]), stacked[0, s.committed[i] : agreed].tolist())
            s.committed[i] = agreed


def _best(s: _BeamState, i: int, p: DecodeParams, slot: int = 0) -> list[int]:
    """Finished hypothesis ``slot`` of input ``i`` (0: the best), cut after its end token."""
    seq: list[int] = s.finished[i, slot, 1:].tolist()
    if p.eos in seq:
        seq = seq[: seq.index(p.eos) + 1]
    while seq and seq[-1] == p.pad:
        seq.pop()
    return seq


def _hypotheses(s: _BeamState, i: int, p: DecodeParams) -> list[tuple[list[int], float]]:
    """Input ``i``'s finished hypotheses with their length-penalised scores, best first (the
    slots are kept sorted by score, as generate()'s are)."""
    return [
        (_best(s, i, p, slot), float(s.finished_scores[i, slot]))
        for slot in range(s.finished.shape[1])
        if s.is_finished[i, slot]
    ]


def _select(s: _BeamState, keep: np.ndarray) -> _BeamState:
    return _BeamState(
        s.running[keep],
        s.running_scores[keep],
        s.finished[keep],
        s.finished_scores[keep],
        s.is_finished[keep],
        s.unsatisfied[keep],
        [s.committed[i] for i in keep],
        None if s.loop_extra is None else s.loop_extra[keep],
    )


def best_combinations(scores: Sequence[Sequence[float]]) -> Iterator[tuple[int, ...]]:
    """Pick one hypothesis per segment, best total score first: index tuples, lazily.

    ``scores[j]`` are segment j's hypothesis scores, best first. A sentence cut by protected
    spans is several segments; its n-best are the n best combinations (summed scores), found
    with a heap over the neighbours of each yielded combination, not by listing them all.
    """
    if any(len(s) == 0 for s in scores):
        return
    first = tuple(0 for _ in scores)
    heap = [(-sum(s[0] for s in scores), first)]
    seen = {first}
    while heap:
        _, combo = heapq.heappop(heap)
        yield combo
        for j, index in enumerate(combo):
            if index + 1 < len(scores[j]):
                nxt = combo[:j] + (index + 1,) + combo[j + 1 :]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (-sum(scores[k][i] for k, i in enumerate(nxt)), nxt))
