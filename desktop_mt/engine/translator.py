"""``Translator``: the public face of the engine (model directory -> streamed translation)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ..errors import ModelFormatError, TranslationCancelled
from . import generation as gen
from .events import Finished, SegmentDone, TextDelta, TranslationStats
from .model_format import ModelInfo, bundled_model_dir, inspect_model_dir, verify_files
from .options import GenerationOptions, SessionOptions
from .segment import Segment, plan_text
from .tokenizer import IncrementalDecoder, SentencePieceTokenizer

# Languages written without spaces between sentences.
_NO_SPACE_LANGS = {"zh", "ja", "cmn", "yue"}
_TOKEN_BUDGET = 4096  # source tokens x rows per batch in translate_batch


class Translator:
    """Translate with one exported model directory.

    ``model_dir`` None uses the bundled default model. ``variant`` is ``"int8"`` or
    ``"fp32"``. Sessions are created at construction (errors surface here, not mid-text).
    """

    def __init__(self, model_dir: str | Path | None = None, variant: str = "int8",
                 session_options: SessionOptions = SessionOptions(),
                 options: GenerationOptions = GenerationOptions()):
        from .runtime import Seq2SeqSessions  # the only onnxruntime import of the engine

        self.model_info: ModelInfo = inspect_model_dir(model_dir if model_dir is not None else bundled_model_dir())
        if variant in self.model_info.files:
            verify_files(self.model_info, variant)
        self.variant = variant
        self.options = options
        self.session_options = session_options
        self.tokenizer = SentencePieceTokenizer(self.model_info)
        self.sessions = Seq2SeqSessions(self.model_info, variant, session_options)
        self._params = decode_params(self.model_info)
        self._sentence_gap = "" if self.model_info.target_lang in _NO_SPACE_LANGS else " "

    # -- public API -----------------------------------------------------------------------

    def translate(self, text: str, options: GenerationOptions | None = None, cancel=None) -> str:
        """The whole translation of ``text``; layout (newlines, blank lines) kept."""
        parts, cancelled = [], False
        for event in self.translate_stream(text, options, cancel):
            if isinstance(event, TextDelta):
                parts.append(event.text)
            elif isinstance(event, Finished):
                cancelled = event.stats.cancelled
        if cancelled:
            raise TranslationCancelled("translation cancelled")
        return "".join(parts)

    def translate_stream(self, text: str, options: GenerationOptions | None = None,
                         cancel=None) -> Iterator[TextDelta | SegmentDone | Finished]:
        """Lazily translate ``text`` segment by segment, yielding text deltas as tokens come.

        Closing the generator (or setting ``cancel``) stops generation within one decode step.
        """
        opts = options or self.options
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        started, first, tokens, index = time.perf_counter(), None, 0, 0
        plan = plan_text(text, self.tokenizer.count, self.max_source_tokens, self._sentence_gap)
        cancelled = False
        for item in plan:
            if not isinstance(item, Segment):
                yield TextDelta(item, -1)
                continue
            decoder, count = IncrementalDecoder(self.tokenizer), 0
            for kind, _row, ids in self._generate([self.tokenizer.encode(item.text)], opts, cancel):
                # Beam search commits only the prefix all hypotheses share; "done" brings the rest.
                for token in (ids if kind == "tokens" else ids[count:]):
                    count += 1
                    delta = decoder.push(token)
                    if delta:
                        first = first if first is not None else time.perf_counter() - started
                        yield TextDelta(delta, index)
            if cancel is not None and cancel.is_set():
                cancelled = True
                break
            tail = decoder.finish()
            if tail:
                first = first if first is not None else time.perf_counter() - started
                yield TextDelta(tail, index)
            tokens += count
            yield SegmentDone(index, item.text, decoder.emitted, count)
            index += 1
        yield Finished(TranslationStats(index, tokens, time.perf_counter() - started, first, cancelled))

    def translate_batch(self, lines: Sequence[str], options: GenerationOptions | None = None, cancel=None,
                        progress: Callable[[int, int], None] | None = None) -> list[str]:
        """Translate many lines at once; one output per line, same order.

        Segments of all lines are de-duplicated, sorted by length and decoded in batches
        bounded by ``batch_size`` rows and a token budget; finished rows leave the batch.
        """
        opts = options or self.options
        plans = [plan_text(line, self.tokenizer.count, self.max_source_tokens, self._sentence_gap) for line in lines]
        unique = list(dict.fromkeys(item.text for plan in plans for item in plan if isinstance(item, Segment)))
        encoded = {text: self.tokenizer.encode(text) for text in unique}
        done = self._translate_unique(unique, encoded, opts, cancel)
        results, finished = [], 0
        for plan in plans:
            results.append("".join(done[item.text] if isinstance(item, Segment) else item for item in plan).strip())
            finished += 1
            if progress is not None:
                progress(finished, len(lines))
        return results

    def generate_ids(self, texts: Sequence[str], options: GenerationOptions | None = None,
                     cancel=None) -> list[list[int]]:
        """Target token ids for each text, decoded together as one padded batch (no segmentation).

        For parity checks and benchmarks; ``translate*`` is what applications want.
        """
        out: list[list[int]] = [[] for _ in texts]
        for kind, row, ids in self._generate([self.tokenizer.encode(t) for t in texts], options or self.options, cancel):
            if kind == "done":
                out[row] = ids
        return out

    def close(self) -> None:
        """Release the ONNX Runtime sessions."""
        self.sessions = None

    # -- internals -----------------------------------------------------------------------

    @property
    def max_source_tokens(self) -> int:
        return min(self.model_info.max_positions, 512) - 2

    def _translate_unique(self, unique: list[str], encoded: dict, opts: GenerationOptions, cancel) -> dict:
        order = sorted(unique, key=lambda t: len(encoded[t]))
        done: dict[str, str] = {}
        for batch in _batches(order, encoded, opts.batch_size, _TOKEN_BUDGET):
            for kind, row, ids in self._generate([encoded[t] for t in batch], opts, cancel):
                if kind == "done":
                    done[batch[row]] = self.tokenizer.decode(ids).strip()
            if cancel is not None and cancel.is_set():
                raise TranslationCancelled("batch translation cancelled")
        return done

    def _generate(self, src_ids: list[list[int]], opts: GenerationOptions, cancel):
        params = self._params_for(opts)
        limits = [self._max_total_length(len(s), opts) for s in src_ids]
        search = gen.greedy if params.beams == 1 else gen.beam_search
        return search(self.sessions, src_ids, limits, params, cancel)

    def _params_for(self, opts: GenerationOptions) -> gen.DecodeParams:
        p = self._params
        changes = {k: v for k, v in (("beams", opts.beams), ("length_penalty", opts.length_penalty),
                                     ("no_repeat_ngram", opts.no_repeat_ngram_size),
                                     ("repetition_penalty", opts.repetition_penalty)) if v is not None}
        return dataclasses.replace(p, **changes) if changes else p

    def _max_total_length(self, src_len: int, opts: GenerationOptions) -> int:
        """Total decoder length (start token included) for one segment."""
        g = self.model_info.generation
        limit = int(g.get("max_length") or 512)
        if g.get("max_new_tokens"):
            limit = int(g["max_new_tokens"]) + 1
        limit = min(limit, self.model_info.max_positions)
        if opts.max_length is not None:
            limit = min(limit, opts.max_length + 1)
        if opts.max_length_ratio > 0:  # a degenerate loop cannot run far past the input's length
            limit = min(limit, int(opts.max_length_ratio * src_len) + opts.max_length_offset + 1)
        return max(limit, 2)


def _batches(order: list[str], encoded: dict, max_rows: int, budget: int):
    batch: list[str] = []
    for text in order:
        width = len(encoded[text])
        if batch and (len(batch) >= max_rows or width * (len(batch) + 1) > budget):
            yield batch
            batch = []
        batch.append(text)
    if batch:
        yield batch


def decode_params(info: ModelInfo) -> gen.DecodeParams:
    """Resolve generation_config.json (with config.json fallbacks) into decoding parameters."""
    g, c = info.generation, info.config

    def pick(key, default=None):
        return g.get(key, c.get(key, default))

    eos = pick("eos_token_id")
    eos = eos[0] if isinstance(eos, list) else eos
    pad = pick("pad_token_id")
    start = pick("decoder_start_token_id", pad)
    if eos is None or pad is None or start is None:
        raise ModelFormatError(f"{info.path / 'generation_config.json'}: eos/pad/decoder_start token ids are missing")
    forced_eos = pick("forced_eos_token_id")
    return gen.DecodeParams(
        decoder_start=int(start), eos=int(eos), pad=int(pad), beams=int(pick("num_beams", 1) or 1),
        length_penalty=float(pick("length_penalty", 1.0)), early_stopping=pick("early_stopping", False),
        bad_words=tuple(tuple(int(t) for t in w) for w in (pick("bad_words_ids") or [])),
        forced_bos=pick("forced_bos_token_id"), forced_eos=None if forced_eos is None else int(forced_eos),
        no_repeat_ngram=int(pick("no_repeat_ngram_size", 0) or 0),
        repetition_penalty=float(pick("repetition_penalty", 1.0) or 1.0), min_length=int(pick("min_length", 0) or 0))
