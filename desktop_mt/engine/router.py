"""``TwoWayTranslator``: English->Chinese and Chinese->English behind one translator.

It holds one :class:`~desktop_mt.engine.translator.Translator` per direction (``"en-zh"``,
``"zh-en"``; either may be missing) and offers what a ``Translator`` offers the front ends
(``translate``, ``translate_stream``, ``translate_batch``, ``alternatives``, ``close``,
``model_info``, ``variant``, ``options``, ``batch_size``, ``batch_invariant``), so the GUI
worker, the batch code and the server use it as they use a ``Translator``
(``protocols.TranslatorFace``, the one face the front ends see).

Routing (``GenerationOptions.target``: ``"auto"``, ``"en"``, ``"zh"``; the rule is
``engine.direction``): a text whose sentences all need one direction goes whole to that
direction's translator, so its layout handling, protected spans, glossary and streaming are the
``Translator``'s own, token for token. A text that needs both (a Chinese paragraph with an
English sentence, or the reverse) is cut into lines; a line that needs one direction goes whole
to it, a mixed line is cut into runs of consecutive sentences of one direction, each translated
by its translator, with the space between sentences of the output language between them.
Sentences that stay as they are (Japanese, Korean, already in the target language) are copied,
each shown as a segment of its own (``SegmentDone(..., tokens=0)``).

A direction whose model is missing: with an explicit target (``"en"``/``"zh"``) text that needs it
raises :class:`~desktop_mt.engine.direction.DirectionUnavailableError` (a ``ModelNotFoundError``)
naming the model to download, before any output. With ``"auto"`` its sentences are copied as they
are when the text has something the loaded models translate (as desktop-mt did before it
translated both ways), and the error is raised when nothing in the text can be translated.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence

from . import direction, spans, textproc
from .direction import AUTO, EN_ZH, ZH_EN, Direction, DirectionUnavailableError, NotTranslatedError, Target
from .events import Alternative, Finished, SegmentDone, StreamEvent, TextDelta, TranslationStats
from .model_format import ModelInfo
from .options import GenerationOptions
from .protocols import CancelToken, Translation, TranslatorFace
from .translator import Translator, joined_text

__all__ = [
    "TwoWayTranslator",
    "directions_of",
    "translator_for_sentence",
]

_LINE = re.compile(r"(\r\n|\n|\r)")
_NO_SPACE_OUTPUT = {direction.ZH, direction.JA}  # languages written without spaces between sentences


@dataclasses.dataclass(frozen=True)
class _Run:
    """Consecutive text of one line that one direction translates."""

    direction: Direction
    text: str


@dataclasses.dataclass(frozen=True)
class _Copied:
    """A sentence left as it is (Japanese, Korean, already in the target language); ``lang`` its language."""

    text: str
    lang: str


_Piece = str | _Run | _Copied  # a literal (line break, indentation, marker, gap), a run, a copied sentence


class TwoWayTranslator:
    """Both directions behind the ``Translator`` interface (see the module docstring).

    ``translators``: ``{"en-zh": Translator | None, "zh-en": Translator | None}`` (at least one).
    ``missing``: for a direction without a translator, the catalog model to name in the error.
    ``options``: the default ``GenerationOptions`` (its ``target`` says where text goes).
    """

    def __init__(
        self,
        translators: Mapping[Direction, Translator | None],
        missing: Mapping[Direction, str] | None = None,
        options: GenerationOptions | None = None,
    ) -> None:
        self.translators = {d: t for d, t in translators.items() if t is not None}
        unknown = set(self.translators) - set(direction.DIRECTIONS)
        if unknown or not self.translators:
            raise ValueError(f"translators must map 'en-zh' / 'zh-en' to at least one Translator, not {translators!r}")
        self.missing: dict[Direction, str] = dict(missing or {})
        self.primary = self.translators.get(EN_ZH) or self.translators[ZH_EN]
        self.options = options if options is not None else self.primary.options
        self.variant = self.primary.variant
        self.batch_size = self.primary.batch_size

    # -- what the front ends read -------------------------------------------------------------

    @property
    def model_info(self) -> ModelInfo:
        """The English->Chinese model's information (else the Chinese->English one's)."""
        return self.primary.model_info

    @property
    def model_infos(self) -> dict[Direction, ModelInfo]:
        """Each loaded direction's model information (``{"en-zh": ..., "zh-en": ...}``, "en-zh"
        first; a direction without a model is absent, and named in ``missing``). A new dict."""
        return {d: self.translators[d].model_info for d in self.directions}

    @property
    def directions(self) -> tuple[Direction, ...]:
        """The directions this translator has a model for, ``"en-zh"`` first."""
        return tuple(d for d in direction.DIRECTIONS if d in self.translators)

    @property
    def batch_invariant(self) -> bool:
        return all(t.batch_invariant for t in self.translators.values())

    @property
    def span_counts(self) -> spans.SpanCounts:
        """How the sentences with protected spans went, over both directions (a new snapshot)."""
        total = spans.SpanCounts()
        for t in self.translators.values():
            total.merge(t.span_counts)
        return total

    def translator_for(self, name: Direction) -> Translator:
        """The translator of direction ``name``; :class:`DirectionUnavailableError` names the
        model to download when there is none."""
        found = self.translators.get(name)
        if found is None:
            raise DirectionUnavailableError(name, model=self.missing.get(name, ""))
        return found

    # -- translating ----------------------------------------------------------------------------

    def translate(self, text: str, options: GenerationOptions | None = None, cancel: CancelToken | None = None) -> str:
        """The whole translation of ``text``; layout kept (as ``Translator.translate``)."""
        return joined_text(self.translate_stream(text, options, cancel))

    def translate_stream(
        self,
        text: str,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
        look_ahead: bool = False,
    ) -> Generator[StreamEvent, None, None]:
        """Events as ``Translator.translate_stream`` yields them, segment indexes counted over
        the whole text; one ``Finished`` at the end. Raises ``DirectionUnavailableError`` before
        any event when the text needs a direction without a model. ``look_ahead``: each
        translator's own (``Translator.translate_stream``), per run of one direction.
        ``prefix``: post-editing: ``text`` is one sentence, completed after the typed prefix
        by the translator of its direction (:meth:`for_sentence`)."""
        opts = options or self.options
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        if prefix is not None:
            name = self.sentence_direction(text, opts)
            return self.translators[name].translate_stream(text, _options_for(name, opts), cancel, prefix=prefix)
        return self._stream_pieces(self._pieces(text, opts), opts, cancel, look_ahead)

    def translate_each(
        self,
        texts: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        alone: int = 0,
    ) -> Iterator[Generator[StreamEvent, None, None]]:
        """One :meth:`translate_stream` per text, in order: the texts that one direction
        translates share that direction's look-ahead (``Translator.translate_each``; ``alone``'s
        text decoded alone), a text needing both directions or none is streamed on its own."""
        opts = options or self.options
        pieces = [self._pieces(text, opts) for text in texts]  # DirectionUnavailableError first
        runs = {k: p[0] for k, p in enumerate(pieces) if len(p) == 1 and isinstance(p[0], _Run)}
        groups: dict[Direction, list[int]] = {}
        for k, one in runs.items():
            groups.setdefault(one.direction, []).append(k)
        streams = {
            name: self.translator_for(name).translate_each(
                [texts[k] for k in ks], _options_for(name, opts), cancel, ks.index(alone) if alone in ks else 0
            )
            for name, ks in groups.items()
        }
        for k in range(len(texts)):
            run = runs.get(k)
            yield (
                next(streams[run.direction]) if run is not None else self._stream_pieces(pieces[k], opts, cancel, False)
            )

    def _stream_pieces(
        self, pieces: list[_Piece], opts: GenerationOptions, cancel: CancelToken | None, look_ahead: bool
    ) -> Generator[StreamEvent, None, None]:
        started, first = time.perf_counter(), None
        index = tokens = whole = cut = 0
        cancelled = False
        for piece in pieces:
            if isinstance(piece, str):
                yield TextDelta(piece, -1)
            elif isinstance(piece, _Copied):
                first = first if first is not None else time.perf_counter() - started
                yield TextDelta(piece.text, index)
                yield SegmentDone(index, piece.text, piece.text, 0)
                index += 1
            else:
                stats: TranslationStats | None = None
                translator = self.translator_for(piece.direction)
                stream = translator.translate_stream(
                    piece.text, _options_for(piece.direction, opts), cancel, look_ahead=look_ahead
                )
                with contextlib.closing(stream):
                    for event in stream:
                        if isinstance(event, Finished):
                            stats = event.stats
                            tokens, whole, cut = tokens + stats.tokens, whole + stats.whole, cut + stats.cut
                            cancelled = stats.cancelled
                            continue
                        if isinstance(event, TextDelta) and event.segment >= 0:
                            first = first if first is not None else time.perf_counter() - started
                            event = TextDelta(event.text, event.segment + index)
                        elif isinstance(event, SegmentDone):
                            event = dataclasses.replace(event, segment=event.segment + index)
                        yield event
                index += stats.segments if stats is not None else 0
                if cancelled or stats is None:
                    cancelled = True
                    break
        yield Finished(TranslationStats(index, tokens, time.perf_counter() - started, first, cancelled, whole, cut))

    def translate_batch(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: Callable[[int, int], None] | None = None,
        batch_size: int | None = None,
    ) -> list[str]:
        """One translation per line, in order (as ``Translator.translate_batch``). Lines of one
        direction go to its translator as one batch; when the lines need both, each direction's
        runs are decoded as one batch and a line is reported to ``progress`` once all its runs are."""
        opts = options or self.options
        self._check_available([line for line in lines], opts)
        plans = [self._pieces(line, opts, checked=True) for line in lines]
        needed = {p.direction for plan in plans for p in plan if isinstance(p, _Run)}
        if len(needed) <= 1:  # every line is whole to that direction, or has nothing to translate
            name = needed.pop() if needed else self._fallback_direction(opts)
            return self.translators[name].translate_batch(lines, _options_for(name, opts), cancel, progress, batch_size)
        return self._batch_mixed(plans, opts, cancel, progress, batch_size)

    def _batch_mixed(
        self,
        plans: list[list[_Piece]],
        opts: GenerationOptions,
        cancel: CancelToken | None,
        progress: Callable[[int, int], None] | None,
        batch_size: int | None,
    ) -> list[str]:
        tracker = _Lines([{p.direction for p in plan if isinstance(p, _Run)} for plan in plans], progress)
        done: dict[tuple[str, str], str] = {}
        for name in direction.DIRECTIONS:
            texts = list(
                dict.fromkeys(p.text for plan in plans for p in plan if isinstance(p, _Run) and p.direction == name)
            )
            if not texts:
                continue
            out = self.translators[name].translate_batch(texts, _options_for(name, opts), cancel, None, batch_size)
            done.update({(name, text): result for text, result in zip(texts, out)})
            tracker.finished(name)
        return [
            "".join(
                p if isinstance(p, str) else p.text if isinstance(p, _Copied) else done[(p.direction, p.text)]
                for p in plan
            ).strip()
            for plan in plans
        ]

    def alternatives(
        self,
        sentence: str,
        n: int = 3,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
    ) -> list[Alternative]:
        """The ``n`` best translations of ``sentence`` by the translator of its direction (a
        sentence needing both: the direction of most of it; neither: it comes back as it is).
        ``prefix``: the n best completions after it (:meth:`for_sentence`'s direction)."""
        opts = options or self.options
        if prefix is not None:
            name = self.sentence_direction(sentence, opts)
            return self.translators[name].alternatives(sentence, n, _options_for(name, opts), cancel, prefix=prefix)
        self._check_available([sentence], opts)
        needed = direction.directions_needed(sentence, opts.target) & set(self.translators)
        if not needed:
            return [Alternative(sentence, 0.0, ())]
        if len(needed) > 1:
            lang = direction.paragraph_language(sentence)
            needed = {direction.direction_for(lang, opts.target) or sorted(needed)[0]}
        name = needed.pop()
        return self.translator_for(name).alternatives(sentence, n, _options_for(name, opts), cancel)

    def translate_items(
        self,
        lines: Sequence[str],
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Translation]:
        """:meth:`translate_batch`'s translations, each the model's (no memory here)."""
        return [Translation(text) for text in self.translate_batch(lines, options, cancel, progress)]

    def sentence_direction(self, sentence: str, options: GenerationOptions | None = None) -> Direction:
        """The direction whose translator completes ``sentence`` after a typed prefix
        (``engine.prefix``): :class:`DirectionUnavailableError` when it has no model;
        :class:`NotTranslatedError` for a sentence with nothing to translate (e.g. Japanese)."""
        name = direction.sentence_direction(sentence, (options or self.options).target)
        if name is None:
            raise NotTranslatedError()
        self.translator_for(name)
        return name

    def for_sentence(self, sentence: str, options: GenerationOptions | None = None) -> Translator:
        """The translator of ``sentence``'s direction (:meth:`sentence_direction`'s errors)."""
        return self.translators[self.sentence_direction(sentence, options)]

    def target_pieces(
        self, sentence: str, translation: str, options: GenerationOptions | None = None
    ) -> list[str] | None:
        """``translation`` in the target pieces of ``sentence``'s direction's model (None: a
        sentence with nothing to translate, or of a direction without a model)."""
        try:
            model = self.for_sentence(sentence, options)
        except (DirectionUnavailableError, NotTranslatedError):
            return None
        return model.target_pieces(sentence, translation, options)

    def count_tokens(self, text: str) -> int:
        """Source tokens of ``text`` by the tokenizer of the model that reads most of it:
        Chinese->English when a fifth or more of its characters are CJK (a quick estimate, not
        the per-sentence rule), else English->Chinese; the loaded direction when there is one."""
        if not text.strip():
            return 0
        wanted = ZH_EN if 5 * len(direction.CJK.findall(text)) >= len(text) else EN_ZH
        name = wanted if wanted in self.translators else self.directions[0]
        return self.translators[name].tokenizer.count(text)

    @property
    def memory_identity(self) -> str:
        """No memory answers here ("")."""
        return ""

    def close(self) -> None:
        """Release both translators' sessions."""
        for translator in self.translators.values():
            translator.close()

    # -- routing --------------------------------------------------------------------------------

    def _fallback_direction(self, opts: GenerationOptions) -> Direction:
        """The translator for text that needs none: the target's model if loaded, else any."""
        preferred = direction.direction_into(opts.target) or EN_ZH
        return preferred if preferred in self.translators else self.directions[0]

    def _check_available(self, texts: Sequence[str], opts: GenerationOptions) -> None:
        """Raise ``DirectionUnavailableError`` when ``texts`` need a direction without a model:
        any such direction for an explicit target; for ``"auto"`` only when none of the
        directions they need has one (else those sentences are copied as they are)."""
        if not opts.keep_cjk:
            needed = {_raw_direction(t, opts.target, self.directions) for t in texts if textproc.has_words(t)}
        else:
            needed = set().union(*(direction.directions_needed(t, opts.target) for t in texts)) if texts else set()
        missing = sorted(needed - set(self.translators))
        if missing and (opts.target != AUTO or not needed & set(self.translators)):
            self.translator_for(missing[0])

    def _pieces(self, text: str, opts: GenerationOptions, checked: bool = False) -> list[_Piece]:
        """``text`` as literals, runs and copied sentences (see the module docstring)."""
        if not checked:
            self._check_available([text], opts)
        if not opts.keep_cjk:  # nothing kept: every sentence goes to one model (--raw)
            name = _raw_direction(text, opts.target, self.directions)
            return [_Run(name, text)] if textproc.has_words(text) else [text]
        needed = direction.directions_needed(text, opts.target) & set(self.translators)
        if len(needed) <= 1 and direction.directions_needed(text, opts.target) <= set(self.translators):
            return [_Run(needed.pop(), text)] if needed else [text]
        pieces: list[_Piece] = []
        in_code = False
        for part in _LINE.split(text):
            if _LINE.fullmatch(part) or in_code or textproc.is_fence(part):
                in_code ^= textproc.is_fence(part)
                pieces.append(part)
            else:
                pieces.extend(_line_pieces(part, opts.target, self.directions))
        return [p for p in pieces if p != ""]


def _line_pieces(line: str, target: Target, available: tuple[Direction, ...]) -> list[_Piece]:
    """One line: whole to one direction when it needs one, else its marker, then runs of
    sentences of one direction and copied sentences (those of a direction not ``available``
    too), with the output's sentence gap between."""
    needed = direction.directions_needed(line, target)
    if len(needed) <= 1 and needed <= set(available):
        return [_Run(needed.pop(), line)] if needed else [line]
    prefix, body = textproc.split_marker(line)
    core = body.strip()
    groups: list[tuple[Direction | None, str, list[str]]] = []  # (direction, language, sentences with gaps)
    for sentence, gap in direction.split_sentences(core):
        lang = direction.language(sentence)
        name = direction.direction_for(lang, target)
        name = name if name in available else None
        if groups and (not lang or (name, None if name else lang) == (groups[-1][0], None if name else groups[-1][1])):
            groups[-1][2].extend((sentence, gap))  # a sentence without words stays with the one before
        else:
            groups.append((name, lang, [sentence, gap]))
    pieces: list[_Piece] = [prefix + body[: len(body) - len(body.lstrip())]]
    last_lang = ""
    for k, (name, lang, parts) in enumerate(groups):
        out_lang = name.split("-")[1] if name else lang
        if k:
            pieces.append("" if last_lang in _NO_SPACE_OUTPUT and out_lang in _NO_SPACE_OUTPUT else " ")
        text = "".join(parts).strip()
        pieces.append(_Run(name, text) if name else _Copied(text, lang))
        last_lang = out_lang
    pieces.append(body[len(body.rstrip()) :])
    return pieces


def _raw_direction(text: str, target: Target, available: tuple[Direction, ...]) -> Direction:
    """With nothing kept, the one direction for all of ``text``: the target's, else the only
    model's, else by its language."""
    into = direction.direction_into(target)
    if into is not None:
        return into
    if len(available) == 1:
        return available[0]
    return ZH_EN if direction.paragraph_language(text) == direction.ZH else EN_ZH


def directions_of(translator: TranslatorFace) -> tuple[Direction, ...]:
    """The directions ``translator`` translates: its ``directions`` (the GUI worker's helper
    until it reads the face itself)."""
    return translator.directions


def _options_for(name: Direction, opts: GenerationOptions) -> GenerationOptions:
    """The options a direction's translator gets: its own target; English output has no script."""
    changes: dict[str, object] = {"target": AUTO}
    if name == ZH_EN:
        changes["script"] = "simplified"
    return dataclasses.replace(opts, **changes)  # type: ignore[arg-type]


class _Lines:
    """Which lines of a mixed batch wait for which directions; reports each line once, when
    the last direction it needs is done (lines that need none at once)."""

    def __init__(self, needs: list[set[str]], progress: Callable[[int, int], None] | None) -> None:
        self.needs, self.progress, self.count = needs, progress, 0
        for need in needs:
            if not need:
                self._report()

    def finished(self, name: str) -> None:
        for need in self.needs:
            if name in need:
                need.discard(name)
                if not need:
                    self._report()

    def _report(self) -> None:
        self.count += 1
        if self.progress is not None:
            self.progress(self.count, len(self.needs))


def translator_for_sentence(
    engine: Translator | TwoWayTranslator, sentence: str, options: GenerationOptions | None = None
) -> Translator:
    """The one-direction ``Translator`` that completes ``sentence`` after a typed prefix: its
    ``for_sentence`` (a ``Translator`` itself; a ``TwoWayTranslator``'s of the sentence's
    direction, ``DirectionUnavailableError`` when that has no model, ``NotTranslatedError`` for
    a sentence with nothing to translate, e.g. Japanese). The GUI's, for the target tokenizer's word
    boundaries; completing needs no such step: the face's ``translate_stream`` and
    ``alternatives`` take ``prefix=`` and route it themselves."""
    return engine.for_sentence(sentence, options)
