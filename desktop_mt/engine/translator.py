"""``Translator``: the public face of the engine (model directory -> streamed translation)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..base.errors import ModelFormatError, TranslationCancelled
from . import generation as gen
from . import script, spans
from .alternatives import best_alternatives
from .direction import EN_ZH, Direction
from .events import Alternative, Finished, TextDelta
from .events import StreamEvent as StreamEvent  # re-exported: the stream type of translate_stream
from .lookahead import TOKEN_BUDGET, batches
from .model_format import FIX, ModelInfo, Variant, bundled_model_dir, inspect_model_dir, verify_files
from .model_text import Kept as Kept  # re-exported: a plan item copied as it is
from .model_text import ModelText, PlanPiece, decide, piece_output
from .options import GenerationOptions, SessionOptions
from .prefix import complete_alternatives, complete_stream
from .protocols import CancelToken, DecoderRunner, Translation
from .segment import Segment
from .streaming import stream_each, stream_text
from .tokenizer import SentencePieceTokenizer, default_target_token

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "Translator",
    "joined_text",
    "decode_params",
]

DEFAULT_BATCH_SIZE = 16  # rows per batch in translate_batch


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
        variant: Variant = "int8",
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
        # Planning, encoding and finishing text for this model (engine.model_text).
        self.text = ModelText(self.model_info, self.tokenizer)
        self.source_lang, self.target_lang = self.text.source_lang, self.text.target_lang  # short: "zh", "en"
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
        look_ahead: bool = False,
    ) -> Generator[StreamEvent, None, None]:
        """Lazily translate ``text`` segment by segment, yielding text deltas as tokens come.

        ``prefix``: post-editing (``engine.prefix.complete_stream``): ``text`` is one sentence,
        its translation starts with ``prefix`` (what the user typed) and the deltas are the
        completion that follows it.

        Closing the generator (or setting ``cancel``) stops generation within one decode step.
        A sentence with protected spans is decoded whole before anything of it is shown, then
        shown at once when its output holds every span, else streamed cut around its spans
        (``engine.spans``; ``SegmentDone.spans`` says which).

        ``look_ahead``: the first sentence streams alone as without it; the sentences after it
        are decoded ahead in length-sorted batches of up to ``batch_size`` rows, as
        :meth:`translate_batch` cuts them (``engine.lookahead``), and each shows, in order, as
        soon as it and those before it are done: a long text costs about what
        :meth:`translate_batch` costs. The events and texts are the same as without it where
        the model is :attr:`batch_invariant`, except that a first sentence with protected spans,
        in a text of more than one, is cut around them without the whole try, so that its text
        shows after one decode step (``streaming.first_shown_at_once``). With a Traditional
        ``options.script`` the deltas are converted by OpenCC clause by clause
        (``engine.script.convert_events``): nothing shown is changed afterwards.
        """
        if prefix is not None:
            return complete_stream(self, text, prefix, options, cancel)
        opts = options or self.options
        events = stream_text(self, text, opts, cancel, self.batch_size if look_ahead else 1)
        return events if opts.script == script.SIMPLIFIED else script.convert_events(events, opts.script)

    def translate_each(
        self,
        texts: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        alone: int = 0,
    ) -> Iterator[Generator[StreamEvent, None, None]]:
        """One :meth:`translate_stream` per text, in order (read each to its end before taking the
        next), decoded with one look-ahead (``engine.streaming.stream_each``): ``texts[alone]``
        alone (the sentence at the window's cursor streams token by token), the others in
        batches, each shown as soon as it and those before it are done (the window's
        re-translation of the sentences an edit touched). Cancelling stops the running batch
        within one decode step."""
        opts = options or self.options
        for events in stream_each(self, texts, opts, cancel, self.batch_size, alone):
            yield events if opts.script == script.SIMPLIFIED else script.convert_events(events, opts.script)

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
        plans = [self.text.plan(line, opts) for line in lines]
        rows = self.batch_size if batch_size is None else _check_batch_size(batch_size)
        job = _BatchJob(plans, progress, self.span_counts)
        done: dict[str, str] = {}
        # First pass: the segments, and the sentences with spans tried whole; each batch's whole
        # sentences are checked as it finishes. Second pass: the pieces of those that were cut.
        for texts in (job.first_pass, job.second_pass):
            pending = [t for t in texts() if t not in done]
            encoded = {text: self.text.encode(text, opts) for text in pending}
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
        return best_alternatives(self, sentence, n, options, cancel)

    def generate_ids(
        self, texts: Sequence[str], options: GenerationOptions | None = None, cancel: CancelToken | None = None
    ) -> list[list[int]]:
        """Target token ids for each text, decoded together as one padded batch (no segmentation).

        For parity checks and benchmarks; ``translate*`` is what applications want.
        """
        out: list[list[int]] = [[] for _ in texts]
        for event in self.search([self.tokenizer.encode(t) for t in texts], options or self.options, cancel):
            if isinstance(event, gen.ItemDone):
                out[event.item] = event.ids
        return out

    def close(self) -> None:
        """Release the ONNX Runtime sessions (translating afterwards raises RuntimeError)."""
        self.sessions = None

    # -- the front ends' face (protocols.TranslatorFace) of one direction ----------------------

    @property
    def directions(self) -> tuple[Direction, ...]:
        """The one direction this model translates (English->Chinese where the model does not say)."""
        return (self.model_info.direction or EN_ZH,)

    @property
    def model_infos(self) -> dict[Direction, ModelInfo]:
        """``{direction: model_info}`` (a new dict)."""
        return {self.directions[0]: self.model_info}

    @property
    def missing(self) -> dict[str, str]:
        """No catalog model is named for the other direction (``TwoWayTranslator`` names it)."""
        return {}

    @property
    def memory_identity(self) -> str:
        """No memory answers here ("")."""
        return ""

    def count_tokens(self, text: str) -> int:
        """Source tokens of ``text`` by this model's tokenizer."""
        return self.tokenizer.count(text) if text.strip() else 0

    def translate_items(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Translation]:
        """:meth:`translate_batch`'s translations, each the model's (no memory here)."""
        return [Translation(text) for text in self.translate_batch(lines, options, cancel, progress)]

    def target_pieces(
        self, sentence: str, translation: str, options: GenerationOptions | None = None
    ) -> list[str] | None:
        """``translation`` in this model's target pieces (its one direction, whatever ``sentence``)."""
        return self.tokenizer.target_pieces(translation)

    def for_sentence(self, sentence: str, options: GenerationOptions | None = None) -> Translator:
        """The translator that completes ``sentence`` after a typed prefix: this one (its one
        direction; ``TwoWayTranslator.for_sentence`` picks by the sentence's)."""
        return self

    def runner(self) -> DecoderRunner:
        """The model's sessions (RuntimeError once closed)."""
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
        return self.text.max_source_tokens

    def hypotheses(
        self, text: str, params: gen.DecodeParams, opts: GenerationOptions, cancel: CancelToken | None = None
    ) -> list[tuple[list[int], float]]:
        """One segment's finished beam hypotheses ``(ids, score)``, best first."""
        src = [self.text.encode(text, opts)]
        limits = [self.max_total_length(len(src[0]), opts)]
        for event in gen.beam_search(self.runner(), src, limits, params, cancel, nbest=True):
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
        for batch in batches(order, encoded, batch_size, TOKEN_BUDGET):
            for event in self.search([encoded[t] for t in batch], opts, cancel):
                if isinstance(event, gen.ItemDone):
                    done[batch[event.item]] = self.text.finish_text(self.tokenizer.decode(event.ids).strip(), opts)
            if cancel is not None and cancel.is_set():
                raise TranslationCancelled("batch translation cancelled")
            if batch_done is not None:
                batch_done({text: done[text] for text in batch})
        return done

    def search(
        self, src_ids: list[list[int]], opts: GenerationOptions, cancel: CancelToken | None
    ) -> Iterator[gen.SearchEvent]:
        """The search for a batch of source ids under ``opts``: greedy for one beam, else beam search."""
        params = self.params_for(opts)
        limits = [self.max_total_length(len(s), opts) for s in src_ids]
        search = gen.greedy if params.beams == 1 else gen.beam_search
        return search(self.runner(), src_ids, limits, params, cancel)

    def params_for(self, opts: GenerationOptions) -> gen.DecodeParams:
        """The model's decoding parameters with what ``opts`` sets."""
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

    def max_total_length(self, src_len: int, opts: GenerationOptions) -> int:
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
                decision = self.decisions[text] = decide(output, whole)
                if decision.path == spans.CUT:
                    self.tracker.also_wait(text, self._texts(whole.fallback))
        self.tracker.batch_done(list(outputs))

    def output(self, item: PlanPiece, done: dict[str, str]) -> str:
        """A plan item's output (see :func:`_piece_output`); counts each sentence with spans."""
        if not isinstance(item, spans.Whole):
            return piece_output(item, done)
        decision = self.decisions.get(item.text, spans.Decision(spans.CUT, item.reason))
        self.counts.add(decision)
        if decision.path == spans.WHOLE:
            return done[item.text]
        return piece_output(item, done)


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
    try:
        return _decode_params(pick, start, eos, pad, forced_eos)
    except (TypeError, ValueError) as exc:  # "num_beams": "four": a model error naming the file, not a crash
        raise ModelFormatError(
            f"{info.path / 'generation_config.json'}: a decoding setting is not a number ({exc}); {FIX}"
        ) from exc


def _decode_params(pick: Callable[..., Any], start: Any, eos: Any, pad: Any, forced_eos: Any) -> gen.DecodeParams:
    """:func:`decode_params`' settings as their types (``int()``/``float()`` raise on a bad value)."""
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
