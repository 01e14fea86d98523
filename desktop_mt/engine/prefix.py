"""Post-editing: translate a sentence from a target prefix the user typed (prefix-constrained decoding).

The prefix is tokenized with the target tokenizer. Its complete words are forced after the
decoder start token, as transformers' ``generate(decoder_input_ids=[start] + forced)`` does;
the word still being typed (the prefix does not end in whitespace) is not forced but
constrained: the next tokens must spell it out and may finish it
(:class:`~.generation.PieceConstraint`, generate()'s ``prefix_allowed_tokens_fn``). So "I lo"
completes to "ve you", as the model writes "love", rather than forcing the piece "lo" and
hoping a piece "ve" follows. For a target written without spaces (Chinese), the word being
typed is the prefix's last token.

:func:`complete_stream` streams the completion (the text after the typed prefix) as
``TextDelta``s; :func:`complete_alternatives` gives the n best completions.
"""

from __future__ import annotations

import dataclasses
import os
import weakref
from collections.abc import Generator, Iterator

import numpy as np

from ..base.errors import DesktopMTError, TranslationCancelled
from . import generation as gen
from . import script
from .core import TranslatorCore
from .events import Alternative, Finished, SegmentDone, StreamEvent, TextDelta, TranslationStats
from .options import GenerationOptions
from .protocols import CancelToken, DecoderRunner, KVCache
from .segment import Segment
from .streaming import Clock, new_ids
from .tokenizer import IncrementalDecoder, SentencePieceTokenizer

__all__ = [
    "SPACE",
    "EncoderKept",
    "EncoderMemo",
    "TypedPrefix",
    "target_pieces",
    "plan_prefix",
    "complete_stream",
    "complete_alternatives",
    "prefix_ids",
]

SPACE = "\u2581"  # SentencePiece's space

_TABLES: weakref.WeakKeyDictionary[SentencePieceTokenizer, gen.PieceTable] = weakref.WeakKeyDictionary()
_VOCABS: weakref.WeakKeyDictionary[SentencePieceTokenizer, dict[str, int]] = weakref.WeakKeyDictionary()


class EncoderKept:
    """What an :class:`EncoderMemo` keeps: the last source's ids and mask (as bytes), shape and
    encoder output. Kept per runner apart from the runner (a memo referring to its runner from
    a weak-keyed table would keep a closed translator's sessions alive)."""

    def __init__(self) -> None:
        self.last: tuple[bytes, tuple[int, ...], np.ndarray] | None = None


class EncoderMemo:
    """A ``DecoderRunner`` that keeps the encoder's output of the last source it was given:
    while the user types in one sentence, every keystroke's completion encodes that same
    sentence (11.5 of 52 ms on the bundled model, docs/BENCHMARKS.md). The same input gives the
    same output (a kept array is never written to), so completions are unchanged. Everything
    else goes to ``inner``."""

    def __init__(self, inner: DecoderRunner, kept: EncoderKept | None = None) -> None:
        self.inner = inner
        self.kept = kept if kept is not None else EncoderKept()

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        key = np.ascontiguousarray(input_ids).tobytes() + np.ascontiguousarray(attention_mask).tobytes()
        last = self.kept.last  # one read: another thread may replace it meanwhile
        if last is not None and last[0] == key and last[1] == input_ids.shape:
            return last[2]
        hidden = self.inner.encode(input_ids, attention_mask)
        hidden.setflags(write=False)
        self.kept.last = (key, input_ids.shape, hidden)
        return hidden

    def decode_first(
        self, input_ids: np.ndarray, encoder_mask: np.ndarray, encoder_hidden: np.ndarray, max_length: int = 0
    ) -> tuple[np.ndarray, KVCache]:
        return self.inner.decode_first(input_ids, encoder_mask, encoder_hidden, max_length)

    def decode_next(self, input_ids: np.ndarray, cache: KVCache) -> np.ndarray:
        return self.inner.decode_next(input_ids, cache)

    def log_softmax(self, scores: np.ndarray) -> np.ndarray:
        return self.inner.log_softmax(scores)

    def row_top(self, logits: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        return self.inner.row_top(logits, n)


_KEPT: weakref.WeakKeyDictionary[DecoderRunner, EncoderKept] = weakref.WeakKeyDictionary()


def _memo_runner(translator: TranslatorCore) -> DecoderRunner:
    """``translator``'s runner behind an :class:`EncoderMemo` that shares what that runner's
    completions kept (a closed and reopened translator starts afresh)."""
    runner = translator.runner()
    try:
        kept = _KEPT.get(runner)
        if kept is None:
            kept = _KEPT[runner] = EncoderKept()
    except TypeError:  # a runner that cannot be weakly referenced: nothing kept
        return runner
    return EncoderMemo(runner, kept)


@dataclasses.dataclass(frozen=True)
class TypedPrefix:
    """A typed target prefix resolved to ids: ``prefix`` for the search, and ``ids``, every
    id of the typed text as the target tokenizer gives them (forced ones first)."""

    text: str
    prefix: gen.Prefix
    ids: tuple[int, ...]


def _piece_table(tokenizer: SentencePieceTokenizer) -> gen.PieceTable:
    """The tokenizer's target pieces (special tokens left out), built once per tokenizer."""
    table = _TABLES.get(tokenizer)
    if table is None:
        table = _TABLES[tokenizer] = gen.PieceTable(tokenizer.id_to_piece, frozenset(tokenizer.special_ids))
    return table


def target_pieces(tokenizer: SentencePieceTokenizer, text: str) -> tuple[list[str], list[int]]:
    """``text`` as target pieces and their ids (MarianTokenizer's ``text_target`` without ``</s>``)."""
    pieces = tokenizer.target_pieces(text)
    vocab = _VOCABS.get(tokenizer)
    if vocab is None:  # built once per tokenizer: every keystroke plans its prefix (3 ms for 8k pieces)
        vocab = _VOCABS[tokenizer] = {p: i for i, p in tokenizer.id_to_piece.items()}
    return pieces, [vocab.get(p, tokenizer.unk_id) for p in pieces]


def plan_prefix(tokenizer: SentencePieceTokenizer, typed: str, spaced: bool = True) -> TypedPrefix:
    """Which ids of ``typed`` are forced and which text is left to the constraint.

    Nothing is constrained when ``typed`` ends in whitespace or its last word holds a piece
    the vocabulary lacks (no token could spell it: it is forced as tokenized). ``spaced``:
    the target language separates words with spaces (else the last token is the word)."""
    pieces, ids = target_pieces(tokenizer, typed)
    if not pieces or typed[-1:].isspace():
        return TypedPrefix(typed, gen.Prefix(tuple(ids)), tuple(ids))
    cut = len(pieces) - 1
    if spaced:
        while cut > 0 and not pieces[cut].startswith(SPACE):
            cut -= 1
    if tokenizer.unk_id in ids[cut:]:
        return TypedPrefix(typed, gen.Prefix(tuple(ids)), tuple(ids))
    partial = gen.PieceConstraint("".join(pieces[cut:]), _piece_table(tokenizer))
    return TypedPrefix(typed, gen.Prefix(tuple(ids[:cut]), partial), tuple(ids))


def _search(
    translator: TranslatorCore,
    sentence: str,
    typed: TypedPrefix,
    params: gen.DecodeParams,
    opts: GenerationOptions,
    cancel: CancelToken | None,
    nbest: bool = False,
) -> Iterator[gen.SearchEvent]:
    """The search for one sentence with the prefix forced; its length limit grows by the prefix."""
    src = [translator.tokenizer.encode(sentence)]
    forced = len(typed.prefix.forced)
    limit = translator.max_total_length(len(src[0]), opts) + forced
    if forced + 2 > translator.model_info.max_positions:
        raise DesktopMTError(
            f"the prefix is {forced} tokens long: the model takes at most {translator.model_info.max_positions - 2}"
        )
    limit = min(limit, translator.model_info.max_positions)
    params = dataclasses.replace(params, prefix=typed.prefix)
    runner = _memo_runner(translator)
    if params.beams == 1 and not nbest:
        return gen.greedy(runner, src, [limit], params, cancel)
    return gen.beam_search(runner, src, [limit], params, cancel, nbest=nbest)


def _typed(translator: TranslatorCore, prefix: str) -> TypedPrefix:
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be str, not {type(prefix).__name__}")
    return plan_prefix(translator.tokenizer, prefix, spaced=translator.text.sentence_gap != "")


def _head(translator: TranslatorCore, typed: TypedPrefix) -> str:
    """The typed prefix as the target tokenizer decodes it (the start of every output)."""
    return translator.tokenizer.decode(typed.ids)


def _completion(raw: str, head: str, typed: TypedPrefix) -> str:
    """What ``raw`` (the output decoded so far) adds after the typed prefix: nothing while it
    is still spelling the prefix out. Where the decoded text differs from ``head`` (a piece
    that decodes differently from how it was typed), what follows their common start."""
    if len(raw) <= len(head) and head.startswith(raw):
        return ""
    same = len(os.path.commonprefix([raw, head]))
    rest = raw[len(head) :] if same == len(head) else raw[same:]
    return rest.lstrip() if typed.text[-1:].isspace() or not typed.text else rest


def complete_stream(
    translator: TranslatorCore,
    sentence: str,
    prefix: str,
    options: GenerationOptions | None = None,
    cancel: CancelToken | None = None,
) -> Generator[StreamEvent, None, None]:
    """Translate ``sentence`` (one sentence: no span planning) starting with ``prefix``; yields
    the completion (the text to put after ``prefix``) as ``TextDelta(text, 0)`` as tokens come,
    then ``SegmentDone(0, sentence, completion, tokens)`` and ``Finished``.

    Closing the generator (or setting ``cancel``) stops decoding within one step; ``Finished``
    then says ``cancelled`` (when the generator is not closed)."""
    opts = options or translator.options
    if not isinstance(sentence, str):
        raise TypeError(f"text must be str, not {type(sentence).__name__}")
    translator.text.check_target(opts.target)
    typed = _typed(translator, prefix)
    events = _stream(translator, sentence, typed, opts, cancel)
    return events if opts.script == script.SIMPLIFIED else script.convert_events(events, opts.script)


def _stream(
    translator: TranslatorCore, sentence: str, typed: TypedPrefix, opts: GenerationOptions, cancel: CancelToken | None
) -> Generator[StreamEvent, None, None]:
    clock = Clock()
    decoder, head, count, shown = IncrementalDecoder(translator.tokenizer), _head(translator, typed), 0, ""
    segment = Segment(sentence)
    skip = len(typed.prefix.forced)
    for event in _search(translator, sentence, typed, translator.params_for(opts), opts, cancel):
        for token in new_ids(event, count):
            count += 1
            decoder.push(token)
            if count <= skip:
                continue
            delta, shown = translator.text.advance(shown, _completion(decoder.emitted, head, typed), opts, segment)
            if delta:
                clock.mark()
                yield TextDelta(delta, 0)
    cancelled = cancel is not None and cancel.is_set()
    if not cancelled:
        decoder.finish()
        tail, shown = translator.text.advance(
            shown, _completion(decoder.emitted, head, typed), opts, segment, final=True
        )
        if tail:
            clock.mark()
            yield TextDelta(tail, 0)
        yield SegmentDone(0, sentence, shown, max(count - skip, 0))
    yield Finished(
        TranslationStats(0 if cancelled else 1, max(count - skip, 0), clock.elapsed(), clock.first, cancelled)
    )


def complete_alternatives(
    translator: TranslatorCore,
    sentence: str,
    prefix: str,
    n: int = 3,
    options: GenerationOptions | None = None,
    cancel: CancelToken | None = None,
) -> list[Alternative]:
    """The ``n`` best completions of ``sentence`` after ``prefix`` from one beam search with
    ``max(n, beams)`` beams, best first, without repeated texts (so possibly fewer than ``n``).

    Each ``text`` is the completion (what follows ``prefix``), finished as a translation is
    (punctuation, script); ``token_ids`` are the ids after the forced ones; ``score`` is
    generate()'s ``sequences_scores``. Raises ``TranslationCancelled`` when ``cancel`` is set."""
    if n < 1:
        raise ValueError("n must be >= 1")
    opts = options or translator.options
    translator.text.check_target(opts.target)
    typed = _typed(translator, prefix)
    params = translator.params_for(opts)
    params = dataclasses.replace(params, beams=max(n, params.beams))
    head, skip = _head(translator, typed), len(typed.prefix.forced)
    for event in _search(translator, sentence, typed, params, opts, cancel, nbest=True):
        if isinstance(event, gen.NBest):
            out: list[Alternative] = []
            for ids, score in event.hypotheses:
                raw = _completion(translator.tokenizer.decode(ids).strip(), head, typed)
                text = script.convert(translator.text.finish_text(raw, opts), opts.script)
                if all(a.text != text for a in out):
                    out.append(Alternative(text, score, tuple(ids[skip:])))
            return out[:n]
    raise TranslationCancelled("alternatives cancelled")


def prefix_ids(
    translator: TranslatorCore,
    sentence: str,
    prefix: str,
    options: GenerationOptions | None = None,
    cancel: CancelToken | None = None,
) -> list[int]:
    """The output ids (forced prefix included, start token not) of ``sentence`` decoded after
    ``prefix``, as generate() returns them: for parity checks and benchmarks."""
    opts = options or translator.options
    typed = _typed(translator, prefix)
    out: list[int] = []
    for event in _search(translator, sentence, typed, translator.params_for(opts), opts, cancel):
        if isinstance(event, gen.ItemDone):
            out = event.ids
    return out
