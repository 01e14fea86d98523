"""``Translator``: the public face of the engine (model directory -> streamed translation)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import Any, Union, cast

from ..errors import ModelFormatError, TranslationCancelled
from . import direction, langcheck, punct, script, spans, textproc
from . import generation as gen
from .events import Alternative, Finished, SegmentDone, TextDelta, TranslationStats
from .events import StreamEvent as StreamEvent  # re-exported: the stream type of translate_stream
from .model_format import ModelInfo, bundled_model_dir, inspect_model_dir, verify_files
from .options import GenerationOptions, SessionOptions
from .prefix import complete_alternatives, complete_stream
from .protocols import CancelToken, DecoderRunner
from .segment import Segment
from .streaming import Clock, new_ids
from .tokenizer import IncrementalDecoder, SentencePieceTokenizer, default_target_token

# Languages written without spaces between sentences.
_NO_SPACE_LANGS = {"zh", "ja", "cmn", "yue"}
# Languages whose punctuation is full-width (GenerationOptions.chinese_punctuation).
_FULLWIDTH_LANGS = {"zh", "cmn", "yue"}
_TOKEN_BUDGET = 4096  # source tokens x rows per batch in translate_batch
DEFAULT_BATCH_SIZE = 16  # rows per batch in translate_batch

Hypotheses = list[tuple[list[int], float]]  # a segment's finished beam hypotheses (ids, score), best first


# a plan item: a literal, a segment to translate, a kept sentence, a sentence tried whole
PlanPiece = Union[str, Segment, "Kept", spans.Whole]


@dataclasses.dataclass(frozen=True)
class Kept:
    """A plan item copied to the output as it is, never sent to the model: a sentence that is not
    in the model's source language (``direction.keep_for_model``; ``GenerationOptions.keep_cjk``):
    Chinese, Japanese or Korean for an English->Chinese model, English, Japanese or Korean for a
    Chinese->English one. Streams show it as a
    segment whose translation is its text (``SegmentDone(..., tokens=0)``)."""

    text: str


class Translator:
    """Translate with one exported model directory.

    ``model_dir`` None uses the bundled default model. ``variant`` is ``"int8"`` or
    ``"fp32"``. Sessions are created at construction (errors surface here, not mid-text).
    ``batch_size``: the most sentences :meth:`translate_batch` decodes together (a batching
    setting, kept apart from the decoding ``options``).
    """

    def __init__(
        self,
        model_dir: str | Path | None = None,
        variant: str = "int8",
        session_options: SessionOptions = SessionOptions(),
        options: GenerationOptions = GenerationOptions(),
        target_token: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ):
        from .runtime import Seq2SeqSessions  # the only onnxruntime import of the engine

        self.model_info: ModelInfo = inspect_model_dir(model_dir if model_dir is not None else bundled_model_dir())
        if variant in self.model_info.files:
            verify_files(self.model_info, variant)
        self.variant = variant
        self.options = options
        self.batch_size = _check_batch_size(batch_size)
        self.session_options = session_options
        self.tokenizer = SentencePieceTokenizer(self.model_info)
        self.target_token = target_token  # None: the model's default >>id<< (multi-target Marian)
        self.sessions: DecoderRunner | None = Seq2SeqSessions(self.model_info, variant, session_options)
        self._params = decode_params(self.model_info)
        self._sentence_gap = "" if self.model_info.target_lang in _NO_SPACE_LANGS else " "
        # The model's languages in short form ("zh", "en"), for the keep rule and the output's punctuation.
        self.source_lang = direction.short_lang(self.model_info.source_lang)
        self.target_lang = direction.short_lang(self.model_info.target_lang)
        # How the sentences with protected spans went (whole / cut), over every call: the CLI's
        # summary and the server's /metrics read it.
        self.span_counts = spans.SpanCounts()

    # -- public API -----------------------------------------------------------------------

    def translate(self, text: str, options: GenerationOptions | None = None, cancel: CancelToken | None = None) -> str:
        """The whole translation of ``text``; layout (newlines, blank lines) kept."""
        return joined_text(self.translate_stream(text, options, cancel))

    def translate_stream(
        self,
        text: str,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
    ) -> Generator[StreamEvent, None, None]:
        """Lazily translate ``text`` segment by segment, yielding text deltas as tokens come.

        ``prefix``: post-editing (``engine.prefix.complete_stream``): ``text`` is one sentence,
        its translation starts with ``prefix`` (what the user typed) and the deltas are the
        completion that follows it.

        Closing the generator (or setting ``cancel``) stops generation within one decode step.
        A sentence with protected spans is decoded whole before anything of it is shown, then
        shown at once when its output holds every span, else streamed cut around its spans
        (``engine.spans``; ``SegmentDone.spans`` says which). With a Traditional
        ``options.script`` the deltas are converted by OpenCC clause by clause
        (``engine.script.convert_events``): nothing shown is changed afterwards.
        """
        if prefix is not None:
            return complete_stream(self, text, prefix, options, cancel)
        opts = options or self.options
        events = self._stream(text, opts, cancel)
        return events if opts.script == script.SIMPLIFIED else script.convert_events(events, opts.script)

    def _stream(
        self, text: str, options: GenerationOptions | None = None, cancel: CancelToken | None = None
    ) -> Generator[StreamEvent, None, None]:
        """:meth:`translate_stream` in the model's own script."""
        opts = options or self.options
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        state = _StreamState()
        yield from self._stream_items(self._plan(text, opts), opts, cancel, state)
        clock = state.clock
        yield Finished(
            TranslationStats(
                state.index, state.tokens, clock.elapsed(), clock.first, state.cancelled, state.whole, state.cut
            )
        )

    def _stream_items(
        self,
        items: Sequence[PlanPiece],
        opts: GenerationOptions,
        cancel: CancelToken | None,
        state: _StreamState,
        decision: spans.Decision | None = None,
    ) -> Generator[StreamEvent, None, None]:
        """The events of a plan's items (``decision``: how the sentence these items cut was
        decided, put on their ``SegmentDone``s); sets ``state.cancelled`` and stops when cancelled."""
        held: SegmentDone | None = None  # a sentence's end, held until the spans that end it are out
        owed = 0  # how many of those literals are still to come
        for item in items:
            if held is not None and (owed <= 0 or not isinstance(item, str)):
                yield held
                held = None
            if isinstance(item, spans.Whole):
                yield from self._stream_whole(item, opts, cancel, state)
                if state.cancelled:
                    break
                continue
            if isinstance(item, Kept):
                yield TextDelta(item.text, state.index)
                yield SegmentDone(state.index, item.text, item.text, 0)
                state.index += 1
                continue
            if not isinstance(item, Segment):
                yield TextDelta(item, -1)
                owed -= 1
                continue
            done = yield from self._stream_segment(item, state.index, opts, cancel, state.clock)
            if done is None:
                state.cancelled = True
                break
            if decision is not None:
                done = dataclasses.replace(done, spans=decision.path, spans_reason=decision.reason)
            state.tokens += done.tokens
            if item.tail:
                held, owed = done, item.tail
            else:
                yield done
            state.index += 1
        if held is not None:
            yield held

    def _stream_whole(
        self, item: spans.Whole, opts: GenerationOptions, cancel: CancelToken | None, state: _StreamState
    ) -> Generator[StreamEvent, None, None]:
        """A sentence with protected spans: decoded whole first (nothing shown meanwhile), shown
        as one delta when its output holds every span, else streamed cut around its spans. The
        decision comes before anything is shown, so deltas stay append-only (docs/ENGINE_API.md)."""
        decision = spans.Decision(spans.CUT, item.reason)
        if not item.reason:
            ids = self._decode_whole(item.text, opts, cancel)
            if ids is None:
                state.cancelled = True
                return
            state.tokens += len(ids)
            text = self._finish_text(self.tokenizer.decode(ids).strip(), opts)
            decision = _decide(text, item)
            if decision.path == spans.WHOLE:
                state.clock.mark()
                yield TextDelta(text, state.index)
                yield SegmentDone(state.index, item.text, text, len(ids), spans=spans.WHOLE)
                state.index += 1
        self.span_counts.add(decision)
        if decision.path == spans.WHOLE:
            state.whole += 1
            return
        state.cut += 1
        yield from self._stream_items(cast("tuple[PlanPiece, ...]", item.fallback), opts, cancel, state, decision)

    def _decode_whole(self, text: str, opts: GenerationOptions, cancel: CancelToken | None) -> list[int] | None:
        """The output ids of one sentence, decoded in full (None: cancelled)."""
        ids: list[int] | None = None
        for event in self._generate([self._encode(text, opts)], opts, cancel):
            if isinstance(event, gen.ItemDone):
                ids = event.ids
        if cancel is not None and cancel.is_set():
            return None
        return ids

    def _stream_segment(
        self, item: Segment, index: int, opts: GenerationOptions, cancel: CancelToken | None, clock: Clock
    ) -> Generator[StreamEvent, None, SegmentDone | None]:
        """One segment's deltas as they decode; returns its ``SegmentDone`` (None: cancelled)."""
        decoder, count, shown = IncrementalDecoder(self.tokenizer), 0, ""
        for event in self._generate([self._encode(item.text, opts)], opts, cancel):
            # Beam search commits only the prefix all hypotheses share; ItemDone brings the rest.
            for token in new_ids(event, count):
                count += 1
                new = decoder.emitted if decoder.push(token) else ""
                delta, shown = self._advance(shown, new, opts, item)
                if delta:
                    clock.mark()
                    yield TextDelta(delta, index)
        if cancel is not None and cancel.is_set():
            return None
        decoder.finish()
        tail, shown = self._advance(shown, decoder.emitted, opts, item, final=True)
        if tail:
            clock.mark()
            yield TextDelta(tail, index)
        return SegmentDone(index, item.text, shown, count, continues=item.joined, sentence=item.sentence)

    def translate_batch(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: Callable[[int, int], None] | None = None,
        batch_size: int | None = None,
    ) -> list[str]:
        """Translate many lines at once; one output per line, same order.

        Segments of all lines are de-duplicated, sorted by length and decoded in batches
        bounded by ``batch_size`` rows (default: the translator's) and a token budget;
        finished rows leave the batch. Sentences with protected spans are tried whole in the
        same pass and checked as their batch finishes; the pieces of those that are cut are
        decoded in a second pass (``engine.spans``).
        ``progress(finished, total)`` is called once per line as it finishes: lines with
        nothing to translate first, then the lines each decoded batch completes.
        """
        opts = options or self.options
        plans = [self._plan(line, opts) for line in lines]
        rows = self.batch_size if batch_size is None else _check_batch_size(batch_size)
        job = _BatchJob(plans, progress, self.span_counts)
        done: dict[str, str] = {}
        # First pass: the segments, and the sentences with spans tried whole; each batch's whole
        # sentences are checked as it finishes. Second pass: the pieces of those that were cut.
        for texts in (job.first_pass, job.second_pass):
            pending = [t for t in texts() if t not in done]
            encoded = {text: self._encode(text, opts) for text in pending}
            done.update(self._translate_unique(pending, encoded, opts, rows, cancel, job.batch_done))
        results = ["".join(job.output(item, done) for item in plan).strip() for plan in plans]
        return [script.convert(r, opts.script) for r in results]

    def alternatives(
        self,
        sentence: str,
        n: int = 3,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
    ) -> list[Alternative]:
        """The ``n`` best translations of ``sentence`` from a beam search with ``max(n, beams)``
        beams, best first, without repeated texts (so possibly fewer than ``n``).

        ``prefix``: the n best completions after it instead (``engine.prefix.complete_alternatives``:
        each ``text`` is what follows ``prefix``).

        Each text is final as :meth:`translate` makes it (layout, protected spans and glossary
        terms, punctuation, script); the first is what :meth:`translate` gives at that beam
        size. Where protected spans cut the sentence into several segments, an alternative
        combines one hypothesis per segment (score: the sum of theirs, token ids: theirs one
        after another). A sentence with nothing to translate gives one alternative, score 0.
        Raises ``TranslationCancelled`` when ``cancel`` is set (checked every decode step).
        """
        if prefix is not None:
            return complete_alternatives(self, sentence, prefix, n, options, cancel)
        if n < 1:
            raise ValueError("n must be >= 1")
        opts = options or self.options
        params = self._params_for(opts)
        params = dataclasses.replace(params, beams=max(n, params.beams))
        plan, hyps = self._alternatives_plan(sentence, params, opts, cancel)
        # A segment text that occurs twice in the sentence is decoded once and reads the same in both places.
        segments = list(dict.fromkeys(item.text for item in plan if isinstance(item, Segment)))
        for text in segments:
            if text not in hyps:
                hyps[text] = self._hypotheses(text, params, opts, cancel)
        out: list[Alternative] = []
        for combo in gen.best_combinations([[score for _, score in hyps[t]] for t in segments]):
            alt = self._alternative(plan, [(t, *hyps[t][i]) for t, i in zip(segments, combo)], opts)
            if all(a.text != alt.text for a in out):
                out.append(alt)
                if len(out) == n:
                    break
        return out

    def _alternatives_plan(
        self, sentence: str, params: gen.DecodeParams, opts: GenerationOptions, cancel: CancelToken | None
    ) -> tuple[list[PlanPiece], dict[str, Hypotheses]]:
        """The plan of ``sentence`` for :meth:`alternatives` and the hypotheses already known.

        A sentence with spans is one segment when the best whole-sentence hypothesis holds every
        span (what :meth:`translate` gives at that beam size); its alternatives are then the
        hypotheses that hold them all. Otherwise it is cut, as :meth:`translate` cuts it.
        """
        plan: list[PlanPiece] = []
        known: dict[str, Hypotheses] = {}
        for item in self._plan(sentence, opts):
            if not isinstance(item, spans.Whole):
                plan.append(item)
                continue
            if not item.reason:
                hyps = self._hypotheses(item.text, params, opts, cancel)
                kept = [
                    h
                    for h in hyps
                    if not spans.check(self._finish_text(self.tokenizer.decode(h[0]).strip(), opts), item.spans)
                ]
                if kept and kept[0] is hyps[0]:
                    known[item.text] = kept
                    plan.append(Segment(item.text))
                    continue
            plan.extend(cast("tuple[PlanPiece, ...]", item.fallback))
        return plan, known

    def _alternative(
        self, plan: list[PlanPiece], chosen: list[tuple[str, list[int], float]], opts: GenerationOptions
    ) -> Alternative:
        """The sentence with one hypothesis ``(segment, ids, score)`` per segment, finished as
        :meth:`translate_batch` finishes a line (punctuation, full stops before spans, script)."""
        texts = {t: self._finish_text(self.tokenizer.decode(ids).strip(), opts) for t, ids, _ in chosen}
        text = script.convert("".join(_piece_output(item, texts) for item in plan), opts.script)
        return Alternative(text, sum(score for _, _, score in chosen), tuple(i for _, ids, _ in chosen for i in ids))

    def generate_ids(
        self, texts: Sequence[str], options: GenerationOptions | None = None, cancel: CancelToken | None = None
    ) -> list[list[int]]:
        """Target token ids for each text, decoded together as one padded batch (no segmentation).

        For parity checks and benchmarks; ``translate*`` is what applications want.
        """
        out: list[list[int]] = [[] for _ in texts]
        for event in self._generate([self.tokenizer.encode(t) for t in texts], options or self.options, cancel):
            if isinstance(event, gen.ItemDone):
                out[event.item] = event.ids
        return out

    def close(self) -> None:
        """Release the ONNX Runtime sessions (translating afterwards raises RuntimeError)."""
        self.sessions = None

    def _runner(self) -> DecoderRunner:
        if self.sessions is None:
            raise RuntimeError("this Translator is closed")
        return self.sessions

    @property
    def batch_invariant(self) -> bool:
        """Whether a sentence translates the same at any batch size and with any neighbours.

        False for int8 models quantized with per-tensor dynamic activation scales (ORT's
        ``quantize_dynamic``: old exports and downloaded models), whose output can change with
        the batch; True for fp32 and for batch-independent int8 kinds (see
        ``model_format.BATCH_INVARIANT_INT8_KINDS``). Callers that cache or resume results keyed
        by sentence should add the batch size to the key when this is False.
        """
        return self.model_info.batch_invariant(self.variant)

    @property
    def target_tokens(self) -> tuple[str, ...]:
        """The model's target-language tokens (``>>cmn_Hans<<`` ...); empty for single-target models."""
        return self.tokenizer.target_tokens

    @property
    def target_token(self) -> str | None:
        """The ``>>id<<`` token prepended to every source (None for single-target models)."""
        return self.tokenizer.target_token

    @target_token.setter
    def target_token(self, token: str | None) -> None:
        """Choose the target-language token; None picks the model's default (``>>cmn_Hans<<``
        for Chinese). Raises ``ModelFormatError`` for a token the vocabulary lacks."""
        if token is None:
            token = default_target_token(self.model_info, self.tokenizer.target_tokens)
        self.tokenizer.set_target_token(token)

    # -- internals -----------------------------------------------------------------------

    @property
    def max_source_tokens(self) -> int:
        return min(self.model_info.max_positions, 512) - 2

    def _plan(self, text: str, opts: GenerationOptions) -> list[PlanPiece]:
        """``text`` as literals, segments and sentences tried whole (``spans.plan_sentences``)
        under these options; a sentence tried whole carries its finished cut plan as fallback."""
        self._check_target(opts.target)
        glossary = opts.glossary.oriented(self.source_lang) if opts.glossary else None
        opts = dataclasses.replace(opts, glossary=glossary) if glossary is not opts.glossary else opts
        plan: list[PlanPiece] = []
        for item in spans.plan_sentences(
            text,
            self.tokenizer.count,
            self.max_source_tokens,
            self._sentence_gap,
            opts.protect_numbers,
            glossary,
            opts.spans,
            cjk_ends=self.source_lang == direction.ZH,
        ):
            if isinstance(item, spans.Whole):
                reason = item.reason
                if not reason and opts.keep_cjk and not self._one_language(item.text):
                    reason = "mixed languages"  # its other-language parts are kept, as in the cut plan
                fallback = self._finish_plan(list(cast("tuple[PlanPiece, ...]", item.fallback)), opts)
                item = dataclasses.replace(item, fallback=tuple(fallback), reason=reason)
            plan.append(item)
        return self._finish_plan(plan, opts)

    def _finish_plan(self, plan: list[PlanPiece], opts: GenerationOptions) -> list[PlanPiece]:
        """Full-width marks after spans and terms (Chinese output) or ASCII ones (English
        output); sentences not in the model's source language kept."""
        if opts.chinese_punctuation and self.model_info.target_lang in _FULLWIDTH_LANGS:
            _fullwidth_after_spans(plan)
            if opts.glossary:
                _fullwidth_after_terms(plan, {term.target for term in opts.glossary.terms})
        elif opts.chinese_punctuation and self.target_lang == direction.EN:
            _ascii_literals(plan)
        return _keep_other_languages(plan, self.source_lang) if opts.keep_cjk else plan

    def _encode(self, text: str, opts: GenerationOptions) -> list[int]:
        """A segment's source ids. A Chinese source is read in Simplified characters
        (``GenerationOptions.simplify_source``: OpenCC t2s) since the zh->en models are trained on
        Simplified text (the Tatoeba pairs: 0.04% of their Chinese changes under t2s); the plan,
        the spans and what streams report as ``source`` keep the text as it was given."""
        if opts.simplify_source and self.source_lang == direction.ZH:
            text = script.to_simplified(text)
        return self.tokenizer.encode(text)

    def _one_language(self, sentence: str) -> bool:
        """Whether all of ``sentence`` is in the model's source language, so no part of it is kept."""
        if self.source_lang == direction.EN:
            return langcheck.plainly_latin(sentence)  # the fast path for English
        return len(direction.split_cjk_sentences(sentence)) == 1 and direction.language(sentence) in (
            self.source_lang,
            "",
        )

    def _check_target(self, target: str) -> None:
        """A single model translates into its own target language only (``GenerationOptions.target``)."""
        if target not in (direction.AUTO, self.target_lang):
            wanted = direction.ZH_EN if target == direction.EN else direction.EN_ZH
            raise direction.DirectionUnavailableError(
                wanted, f"{self.model_info.name} translates {self.source_lang}->{self.target_lang} only"
            )

    def _hypotheses(
        self, text: str, params: gen.DecodeParams, opts: GenerationOptions, cancel: CancelToken | None = None
    ) -> list[tuple[list[int], float]]:
        """One segment's finished beam hypotheses ``(ids, score)``, best first."""
        src = [self._encode(text, opts)]
        limits = [self._max_total_length(len(src[0]), opts)]
        for event in gen.beam_search(self._runner(), src, limits, params, cancel, nbest=True):
            if isinstance(event, gen.NBest):
                return event.hypotheses
        raise TranslationCancelled("alternatives cancelled")  # the search only stops early when cancelled

    def _translate_unique(
        self,
        unique: list[str],
        encoded: dict[str, list[int]],
        opts: GenerationOptions,
        batch_size: int,
        cancel: CancelToken | None,
        batch_done: Callable[[dict[str, str]], None] | None = None,
    ) -> dict[str, str]:
        """Each distinct segment's finished translation; ``batch_done({text: translation})`` after each batch."""
        order = sorted(unique, key=lambda t: len(encoded[t]))
        done: dict[str, str] = {}
        for batch in _batches(order, encoded, batch_size, _TOKEN_BUDGET):
            for event in self._generate([encoded[t] for t in batch], opts, cancel):
                if isinstance(event, gen.ItemDone):
                    done[batch[event.item]] = self._finish_text(self.tokenizer.decode(event.ids).strip(), opts)
            if cancel is not None and cancel.is_set():
                raise TranslationCancelled("batch translation cancelled")
            if batch_done is not None:
                batch_done({text: done[text] for text in batch})
        return done

    def _generate(
        self, src_ids: list[list[int]], opts: GenerationOptions, cancel: CancelToken | None
    ) -> Iterator[gen.SearchEvent]:
        params = self._params_for(opts)
        limits = [self._max_total_length(len(s), opts) for s in src_ids]
        search = gen.greedy if params.beams == 1 else gen.beam_search
        return search(self._runner(), src_ids, limits, params, cancel)

    def _finish_text(self, text: str, opts: GenerationOptions) -> str:
        """A segment's final output text: full-width punctuation for Chinese, ASCII punctuation
        with English spacing for English, unless turned off."""
        if opts.chinese_punctuation and self.model_info.target_lang in _FULLWIDTH_LANGS:
            return punct.to_fullwidth(text)
        if opts.chinese_punctuation and self.target_lang == direction.EN:
            return punct.to_ascii(text)
        return text

    def _advance(
        self, shown: str, raw: str, opts: GenerationOptions, segment: Segment, final: bool = False
    ) -> tuple[str, str]:
        """``(delta, shown)``: what a stream can add to ``shown`` now that the segment's decoded
        text is ``raw`` ("" when nothing new). Until ``final`` it shows only what the punctuation
        pass cannot change any more, so a shown character is never replaced."""
        if final:
            target = self._finish_text(raw, opts)
        elif opts.chinese_punctuation and self.model_info.target_lang in _FULLWIDTH_LANGS:
            target = punct.settled(raw)
        elif opts.chinese_punctuation and self.target_lang == direction.EN:
            target = punct.settled_ascii(raw)
        else:
            target = raw
        if segment.cut:  # the sentence goes on after a protected span: no full stop (held back till then)
            target = textproc.drop_full_stop(target, segment.text)
        if len(target) <= len(shown) or not target.startswith(shown):
            return "", shown
        return target[len(shown) :], target

    def _params_for(self, opts: GenerationOptions) -> gen.DecodeParams:
        p = self._params
        changes: dict[str, Any] = {
            k: v
            for k, v in (
                ("beams", opts.beams),
                ("length_penalty", opts.length_penalty),
                ("loop_guard", opts.repetition_guard),
                ("no_repeat_ngram", opts.no_repeat_ngram_size),
                ("repetition_penalty", opts.repetition_penalty),
            )
            if v is not None
        }
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


class _LineProgress:
    """``translate_batch``'s progress: which lines wait for which texts (segments, sentences
    tried whole); reports each line once, when the last text it waits for is done (lines
    without any at once). A sentence that is cut makes its lines wait for its pieces too."""

    def __init__(self, texts_per_line: list[set[str]], progress: Callable[[int, int], None] | None):
        self.progress, self.total, self.finished = progress, len(texts_per_line), 0
        self.pending = texts_per_line
        self.waiting: dict[str, set[int]] = {}
        self.done: set[str] = set()
        for line, texts in enumerate(texts_per_line):
            for text in texts:
                self.waiting.setdefault(text, set()).add(line)
        for texts in texts_per_line:
            if not texts:
                self._report()

    def also_wait(self, text: str, more: set[str]) -> None:
        """The lines waiting for ``text`` wait for ``more`` as well (its pieces, once it is cut)."""
        for line in self.waiting.get(text, ()):
            for extra in more - self.done:
                self.pending[line].add(extra)
                self.waiting.setdefault(extra, set()).add(line)

    def batch_done(self, texts: list[str]) -> None:
        for text in texts:
            self.done.add(text)
            for line in self.waiting.pop(text, set()):
                self.pending[line].discard(text)
                if not self.pending[line]:
                    self._report()

    def _report(self) -> None:
        self.finished += 1
        if self.progress is not None:
            self.progress(self.finished, self.total)


class _BatchJob:
    """One ``translate_batch`` call's sentences with protected spans: which were tried whole,
    how each was decided (checked as its batch finishes), what the cut ones still need, and
    each plan item's output once everything is decoded."""

    def __init__(
        self, plans: list[list[PlanPiece]], progress: Callable[[int, int], None] | None, counts: spans.SpanCounts
    ):
        self.plans, self.counts = plans, counts
        self.tried = {
            item.text: item for plan in plans for item in plan if isinstance(item, spans.Whole) and not item.reason
        }
        self.decisions: dict[str, spans.Decision] = {}
        self.tracker = _LineProgress([self._texts(plan) for plan in plans], progress)

    def _texts(self, plan: Sequence[object]) -> set[str]:
        """The texts a plan needs from the model first: its segments, and its sentences tried
        whole (the pieces of a sentence cut without trying)."""
        out: set[str] = set()
        for item in plan:
            if isinstance(item, Segment):
                out.add(item.text)
            elif isinstance(item, spans.Whole):
                out |= {item.text} if not item.reason else self._texts(item.fallback)
        return out

    def first_pass(self) -> list[str]:
        """The first pass's texts, each once."""
        return list(dict.fromkeys(text for plan in self.plans for text in sorted(self._texts(plan))))

    def second_pass(self) -> list[str]:
        """The pieces of the sentences tried whole that were cut."""
        return list(
            dict.fromkeys(
                text
                for whole, decision in self.decisions.items()
                if decision.path == spans.CUT
                for text in sorted(self._texts(self.tried[whole].fallback))
            )
        )

    def batch_done(self, outputs: dict[str, str]) -> None:
        """A batch finished: decide its sentences tried whole, then report the lines it completes."""
        for text, output in outputs.items():
            whole = self.tried.get(text)
            if whole is not None and text not in self.decisions:
                decision = self.decisions[text] = _decide(output, whole)
                if decision.path == spans.CUT:
                    self.tracker.also_wait(text, self._texts(whole.fallback))
        self.tracker.batch_done(list(outputs))

    def output(self, item: PlanPiece, done: dict[str, str]) -> str:
        """A plan item's output (see :func:`_piece_output`); counts each sentence with spans."""
        if not isinstance(item, spans.Whole):
            return _piece_output(item, done)
        decision = self.decisions.get(item.text, spans.Decision(spans.CUT, item.reason))
        self.counts.add(decision)
        if decision.path == spans.WHOLE:
            return done[item.text]
        return _piece_output(item, done)


def _decide(output: str, whole: spans.Whole) -> spans.Decision:
    """Whole when ``output`` holds every span of the sentence as often as the source, else cut (and why)."""
    reason = spans.check(output, whole.spans)
    return spans.Decision(spans.CUT, reason) if reason else spans.Decision(spans.WHOLE)


class _StreamState:
    """What a stream has done so far: segments shown, tokens, the paths of its sentences with spans."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.index = self.tokens = self.whole = self.cut = 0
        self.cancelled = False


def _keep_other_languages(plan: list[PlanPiece], source_lang: str) -> list[PlanPiece]:
    """``plan`` with each segment cut at CJK sentence ends (``direction.split_cjk_sentences``)
    and the parts not in the model's source language turned into :class:`Kept`."""
    out: list[PlanPiece] = []
    for item in plan:
        if not isinstance(item, Segment) or (source_lang == direction.EN and langcheck.plainly_latin(item.text)):
            out.append(item)  # the fast path for English: no CJK character, a Latin letter
            continue
        parts = direction.split_cjk_sentences(item.text)
        for k, part in enumerate(parts):
            last = k == len(parts) - 1
            out.append(
                Kept(part)
                if direction.keep_for_model(part, source_lang)
                else Segment(
                    part,
                    item.cut and last,
                    item.joined and last,
                    item.tail if last else 0,
                    item.sentence if last else "",
                )
            )
    return out


def _piece_output(item: PlanPiece, done: dict[str, str]) -> str:
    """A plan item's output in a batch: a literal or kept sentence as it is, a segment's
    translation (without its full stop when a protected span follows it in the sentence)."""
    if isinstance(item, Kept):
        return item.text
    if isinstance(item, spans.Whole):  # a sentence that was cut: its pieces
        return "".join(_piece_output(piece, done) for piece in cast("tuple[PlanPiece, ...]", item.fallback))
    if not isinstance(item, Segment):
        return item
    return textproc.drop_full_stop(done[item.text], item.text) if item.cut else done[item.text]


_MARKS_ONLY = re.compile(r"[.,?!;:]+[ \t]*")


def _fullwidth_after_spans(plan: list[PlanPiece]) -> None:
    """Sentence punctuation right after a protected span, in a sentence the model translates
    ("... ends on 12/25/2024." -> "…12/25/2024。"): the source's ASCII mark would otherwise sit
    in Chinese text. A sentence of spans alone (a URL on its line) keeps its ASCII marks."""
    translated = False  # the current sentence has a translated segment before this point
    for i, item in enumerate(plan):
        if isinstance(item, Segment):
            translated = item.cut
        elif isinstance(item, str) and translated and i and _is_span(plan[i - 1]) and _MARKS_ONLY.fullmatch(item):
            plan[i] = punct.fullwidth_marks(item)
            translated = item.strip()[-1] in ",;:"  # the sentence goes on after a comma


def _ascii_literals(plan: list[PlanPiece]) -> None:
    """English output from a Chinese source, which puts no spaces around numbers, URLs or terms:
    the full-width marks the plan copies as literals (the 。 after a number that ends a
    sentence, the ，between two spans) become ASCII, with a space after them where more of the
    sentence follows, and a span right beside a translated piece gets a space on that side."""
    for i, item in enumerate(plan):
        if not (isinstance(item, str) and item.strip()):
            continue
        before = plan[i - 1] if i else ""
        after = plan[i + 1] if i + 1 < len(plan) else ""
        if not _is_mark_literal(item):
            lead = " " if isinstance(before, Segment) and not item[0].isspace() else ""
            trail = " " if isinstance(after, Segment) and not item[-1].isspace() and after.text[0].isalnum() else ""
            plan[i] = lead + item + trail
            continue
        follows = isinstance(after, (Segment, Kept, spans.Whole)) or (
            isinstance(after, str) and after[:1].strip() != ""
        )
        converted = punct.to_ascii(item + ("a" if follows else ""))
        plan[i] = converted[:-1] if follows else converted


def _is_mark_literal(item: str) -> bool:
    """A literal of punctuation (and spaces) only: no letter, digit or symbol a span would hold."""
    return not any(c.isalnum() for c in item) and not textproc.has_words(item)


def _is_span(item: PlanPiece) -> bool:
    """A literal with text in it (a URL, number, code...), not a space or a line break."""
    return isinstance(item, str) and bool(item.strip())


def _fullwidth_after_terms(plan: list[PlanPiece], targets: set[str]) -> None:
    """Punctuation right after a Chinese glossary term ("火车站?") becomes full-width ("火车站？"),
    as the model's own output does; other literals keep what the source had."""
    for i in range(1, len(plan)):
        item, before = plan[i], plan[i - 1]
        if isinstance(item, str) and isinstance(before, str) and before in targets and not textproc.has_words(item):
            plan[i] = punct.to_fullwidth(before + item)[len(before) :]


def joined_text(events: Iterator[StreamEvent]) -> str:
    """A stream's whole text (its deltas joined); ``TranslationCancelled`` when it was cancelled."""
    parts, cancelled = [], False
    for event in events:
        if isinstance(event, TextDelta):
            parts.append(event.text)
        elif isinstance(event, Finished):
            cancelled = event.stats.cancelled
    if cancelled:
        raise TranslationCancelled("translation cancelled")
    return "".join(parts)


def _check_batch_size(batch_size: int) -> int:
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    return batch_size


def _batches(order: list[str], encoded: dict[str, list[int]], max_rows: int, budget: int) -> Iterator[list[str]]:
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

    def pick(key: str, default: Any = None) -> Any:
        return g.get(key, c.get(key, default))

    eos = pick("eos_token_id")
    eos = eos[0] if isinstance(eos, list) else eos
    pad = pick("pad_token_id")
    start = pick("decoder_start_token_id", pad)
    if eos is None or pad is None or start is None:
        raise ModelFormatError(f"{info.path / 'generation_config.json'}: eos/pad/decoder_start token ids are missing")
    forced_eos = pick("forced_eos_token_id")
    return gen.DecodeParams(
        decoder_start=int(start),
        eos=int(eos),
        pad=int(pad),
        beams=int(pick("num_beams", 1) or 1),
        length_penalty=float(pick("length_penalty", 1.0)),
        early_stopping=pick("early_stopping", False),
        bad_words=tuple(tuple(int(t) for t in w) for w in (pick("bad_words_ids") or [])),
        forced_bos=pick("forced_bos_token_id"),
        forced_eos=None if forced_eos is None else int(forced_eos),
        no_repeat_ngram=int(pick("no_repeat_ngram_size", 0) or 0),
        repetition_penalty=float(pick("repetition_penalty", 1.0) or 1.0),
        min_length=int(pick("min_length", 0) or 0),
    )
