"""The text side of a translator: what happens to text around the model, for one model.

:class:`ModelText` plans a text (literals, segments, sentences tried whole with their protected
spans, sentences kept as they are), reads a segment into source ids, finishes a segment's output
(punctuation for the target language) and says what a stream may show of it so far. No search
and no sessions: ``engine.translator.Translator`` decodes, ``engine.streaming`` and
``engine.alternatives`` put the two together.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Union, cast

from . import direction, langcheck, punct, script, spans, textproc
from .model_format import ModelInfo
from .options import GenerationOptions
from .segment import Segment
from .tokenizer import SentencePieceTokenizer

__all__ = [
    "PlanPiece",
    "Kept",
    "ModelText",
    "decide",
    "piece_output",
]

# Languages written without spaces between sentences.
_NO_SPACE_LANGS = {"zh", "ja", "cmn", "yue"}
# Languages whose punctuation is full-width (GenerationOptions.chinese_punctuation).
_FULLWIDTH_LANGS = {"zh", "cmn", "yue"}


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


class ModelText:
    """The text rules of one model: its languages, how sentences join in its output
    (``sentence_gap``: "" for Chinese), and the plan, encoding and finishing of text."""

    def __init__(self, model_info: ModelInfo, tokenizer: SentencePieceTokenizer) -> None:
        self.model_info, self.tokenizer = model_info, tokenizer
        self.sentence_gap = "" if model_info.target_lang in _NO_SPACE_LANGS else " "
        # The model's languages in short form ("zh", "en"), for the keep rule and the output's punctuation.
        self.source_lang = direction.short_lang(model_info.source_lang)
        self.target_lang = direction.short_lang(model_info.target_lang)

    @property
    def max_source_tokens(self) -> int:
        return min(self.model_info.max_positions, 512) - 2

    def plan(self, text: str, opts: GenerationOptions) -> list[PlanPiece]:
        """``text`` as literals, segments and sentences tried whole (``spans.plan_sentences``)
        under these options; a sentence tried whole carries its finished cut plan as fallback."""
        self.check_target(opts.target)
        glossary = opts.glossary.oriented(self.source_lang) if opts.glossary else None
        opts = dataclasses.replace(opts, glossary=glossary) if glossary is not opts.glossary else opts
        plan: list[PlanPiece] = []
        for item in spans.plan_sentences(
            text,
            self.tokenizer.count,
            self.max_source_tokens,
            self.sentence_gap,
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

    def encode(self, text: str, opts: GenerationOptions) -> list[int]:
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

    def check_target(self, target: direction.Target) -> None:
        """A single model translates into its own target language only (``GenerationOptions.target``)."""
        if target not in (direction.AUTO, self.target_lang):
            wanted = direction.direction_into(target) or direction.EN_ZH
            raise direction.DirectionUnavailableError(
                wanted, f"{self.model_info.name} translates {self.source_lang}->{self.target_lang} only"
            )

    def finish_text(self, text: str, opts: GenerationOptions) -> str:
        """A segment's final output text: full-width punctuation for Chinese, ASCII punctuation
        with English spacing for English, unless turned off."""
        if opts.chinese_punctuation and self.model_info.target_lang in _FULLWIDTH_LANGS:
            return punct.to_fullwidth(text)
        if opts.chinese_punctuation and self.target_lang == direction.EN:
            return punct.to_ascii(text)
        return text

    def advance(
        self, shown: str, raw: str, opts: GenerationOptions, segment: Segment, final: bool = False
    ) -> tuple[str, str]:
        """``(delta, shown)``: what a stream can add to ``shown`` now that the segment's decoded
        text is ``raw`` ("" when nothing new). Until ``final`` it shows only what the punctuation
        pass cannot change any more, so a shown character is never replaced."""
        if final:
            target = self.finish_text(raw, opts)
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


def decide(output: str, whole: spans.Whole) -> spans.Decision:
    """Whole when ``output`` holds every span of the sentence as often as the source, else cut (and why)."""
    reason = spans.check(output, whole.spans)
    return spans.Decision(spans.CUT, reason) if reason else spans.Decision(spans.WHOLE)


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


def piece_output(item: PlanPiece, done: dict[str, str]) -> str:
    """A plan item's output in a batch: a literal or kept sentence as it is, a segment's
    translation (without its full stop when a protected span follows it in the sentence)."""
    if isinstance(item, Kept):
        return item.text
    if isinstance(item, spans.Whole):  # a sentence that was cut: its pieces
        return "".join(piece_output(piece, done) for piece in cast("tuple[PlanPiece, ...]", item.fallback))
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
