"""Prefix-constrained decoding (post-editing) is token-identical to transformers' generate().

The reference for a typed prefix is ``generate(decoder_input_ids=[start] + forced,
prefix_allowed_tokens_fn=<the partial word's constraint>)``: ``forced`` are the target-tokenizer
ids of the prefix's complete words (all of them when it ends in whitespace); the word still
being typed is the constraint (``generation.PieceConstraint``), which generate() applies as
its ``PrefixConstrainedLogitsProcessor``. generate()'s ``max_length`` counts the prompt, ours
does not: the reference gets the model's max_length plus the forced ids.
"""

from __future__ import annotations

import threading

import pytest
import torch

from desktop_mt import GenerationOptions, Translator
from desktop_mt.engine import generation as gen
from desktop_mt.engine import prefix as px
from desktop_mt.engine.direction import NotTranslatedError
from desktop_mt.engine.events import Finished, SegmentDone, TextDelta
from desktop_mt.engine.router import translator_for_sentence
from desktop_mt.engine.testing import CountingSessions

NO_BOUND = dict(max_length_ratio=0, repetition_guard=False, chinese_punctuation=False)
SENTENCES = ["I love you.", "Where is the train station?", "Tom said that he would come back tomorrow."]
# The tiny model's own greedy output starts 我姆姆姆: "我姆" follows it, "你好吗" departs from it,
# "这" ends inside a word (这个, 这里, 这是... are pieces), "我们 " ends in whitespace (all forced).
PREFIXES = ["我姆", "你好吗", "这", "我们 ", "我"]


@pytest.fixture(scope="module")
def merged_dir(tiny_marian_hf, tmp_path_factory):
    from tests.model_factory import export_model

    return export_model(tiny_marian_hf, tmp_path_factory.mktemp("prefix_merged"), int8=False, layout="merged")


@pytest.fixture(scope="module", params=["split", "merged", "step"])
def layout_translator(request, tiny_marian_dir, tiny_marian_step_dir):
    folder = {"split": tiny_marian_dir, "step": tiny_marian_step_dir}.get(request.param)
    translator = Translator(folder or request.getfixturevalue("merged_dir"), variant="fp32")
    assert translator.sessions.layout == request.param
    return translator


def reference(model, tokenizer, text: str, typed: px.TypedPrefix, **kwargs) -> list[int]:
    """generate() with the typed prefix as decoder_input_ids and its partial word as the constraint."""
    start = model.config.decoder_start_token_id
    prompt = [start, *typed.prefix.forced]
    vocab = list(range(model.config.vocab_size))
    partial = typed.prefix.partial

    def allowed(batch_id: int, ids: torch.Tensor) -> list[int]:
        return vocab if partial is None else (partial.allowed(ids.tolist()[len(prompt) :]) or vocab)

    batch = tokenizer([text], return_tensors="pt")
    max_length = model.generation_config.max_length + len(typed.prefix.forced)
    with torch.no_grad():
        out = model.generate(
            **batch,
            decoder_input_ids=torch.tensor([prompt]),
            do_sample=False,
            prefix_allowed_tokens_fn=allowed,
            max_length=max_length,
            **kwargs,
        )
    row = out[0].tolist()[1:]
    while row and row[-1] == model.config.pad_token_id:
        row.pop()
    return row


@pytest.mark.parametrize("beams", [1, 4])
def test_prefix_decoding_matches_generate_in_every_layout(marian, layout_translator, beams):
    model, tokenizer = marian
    opts = GenerationOptions(beams=beams, **NO_BOUND)
    for text in SENTENCES:
        for typed_text in PREFIXES:
            typed = px.plan_prefix(layout_translator.tokenizer, typed_text, spaced=False)
            ours = px.prefix_ids(layout_translator, text, typed_text, opts)
            assert ours == reference(model, tokenizer, text, typed, num_beams=beams), (text, typed_text)
            assert ours[: len(typed.prefix.forced)] == list(typed.prefix.forced)
            assert layout_translator.tokenizer.decode(ours).startswith(typed_text.strip()), (text, typed_text)


def test_the_prefix_is_tokenized_with_the_target_tokenizer(marian, layout_translator):
    _, tokenizer = marian
    for typed_text in PREFIXES + ["波士顿的火车"]:
        typed = px.plan_prefix(layout_translator.tokenizer, typed_text, spaced=False)
        assert list(typed.ids) == tokenizer(text_target=typed_text).input_ids[:-1]  # without </s>


def test_a_prefix_ending_inside_a_word_is_constrained_not_forced(layout_translator):
    typed = px.plan_prefix(layout_translator.tokenizer, "这", spaced=False)
    assert typed.prefix.forced == () and typed.prefix.partial is not None
    allowed = typed.prefix.partial.allowed([])
    pieces = {layout_translator.tokenizer.id_to_piece[i] for i in allowed}
    assert {"这", "这个", "这里"} <= pieces and all(p.startswith("这") for p in pieces)
    ending_in_space = px.plan_prefix(layout_translator.tokenizer, "我们 ", spaced=False)
    assert ending_in_space.prefix.partial is None and ending_in_space.prefix.forced == ending_in_space.ids


def test_an_empty_prefix_gives_the_plain_translation(layout_translator):
    for beams in (1, 4):
        opts = GenerationOptions(beams=beams, **NO_BOUND)
        assert (
            px.prefix_ids(layout_translator, SENTENCES[1], "", opts)
            == layout_translator.generate_ids([SENTENCES[1]], opts)[0]
        )


def test_piece_constraint_spells_a_word_over_several_pieces():
    pieces = {1: "\u2581lo", 2: "v", 3: "\u2581love", 4: "ve", 5: "\u2581l", 6: "x", 7: "\u2581lovely"}
    constraint = gen.PieceConstraint("\u2581lov", gen.PieceTable(pieces))
    assert constraint.allowed([]) == [1, 3, 5, 7]  # completes the word (love, lovely) or spells it (▁lo, ▁l)
    assert constraint.allowed([1]) == [2, 4]  # after "▁lo": pieces starting with "v" (v, ve)
    assert constraint.allowed([5]) == []  # "▁l" then "ov": no piece spells it in this table
    assert constraint.allowed([3]) is None and constraint.allowed([1, 2]) is None  # covered: free again


@pytest.mark.parametrize("beams", [1, 4])
def test_an_english_prefix_ending_inside_a_word_matches_generate(marian_zh_en, tiny_zh_en_dir, beams):
    model, tokenizer = marian_zh_en
    translator = Translator(tiny_zh_en_dir, variant="fp32")
    opts = GenerationOptions(beams=beams, **NO_BOUND)
    for typed_text in ["I like the", "I li", "Tom ", "He is a"]:
        typed = px.plan_prefix(translator.tokenizer, typed_text, spaced=True)
        assert list(typed.ids) == tokenizer(text_target=typed_text).input_ids[:-1]
        for text in ["我喜欢猫。", "汤姆在哪里？"]:
            ours = px.prefix_ids(translator, text, typed_text, opts)
            assert ours == reference(model, tokenizer, text, typed, num_beams=beams), (text, typed_text)


def test_english_prefix_heals_the_last_word(tiny_zh_en_dir):
    translator = Translator(tiny_zh_en_dir, variant="fp32")
    assert translator.text.sentence_gap == " "
    pieces, ids = px.target_pieces(translator.tokenizer, "I like the")
    typed = px.plan_prefix(translator.tokenizer, "I like the", spaced=True)
    word_start = max(i for i, p in enumerate(pieces) if p.startswith(px.SPACE))
    assert typed.prefix.forced == tuple(ids[:word_start])
    assert typed.prefix.partial is not None and typed.prefix.partial.text == "".join(pieces[word_start:])
    out = translator.tokenizer.decode(
        px.prefix_ids(translator, "我喜欢猫。", "I like the", GenerationOptions(beams=4, **NO_BOUND))
    )
    assert out.startswith("I like the")


def test_complete_stream_streams_the_completion_and_ends(layout_translator):
    opts = GenerationOptions(beams=1, **NO_BOUND)
    events = list(px.complete_stream(layout_translator, SENTENCES[2], "这", opts))
    deltas = "".join(e.text for e in events if isinstance(e, TextDelta))
    done = [e for e in events if isinstance(e, SegmentDone)]
    full = layout_translator.tokenizer.decode(px.prefix_ids(layout_translator, SENTENCES[2], "这", opts))
    assert done and done[0].translation == deltas == full[len("这") :].strip()
    assert isinstance(events[-1], Finished) and not events[-1].stats.cancelled


def test_closing_the_completion_stream_stops_decoding(tiny_marian_dir):
    translator = Translator(tiny_marian_dir, variant="fp32")
    counting = translator.sessions = CountingSessions(translator.sessions)
    opts = GenerationOptions(beams=1, **NO_BOUND)
    list(px.complete_stream(translator, SENTENCES[2], "我", opts))
    whole = counting.steps
    counting.steps = 0
    stream = px.complete_stream(translator, SENTENCES[2], "我", opts)
    next(e for e in stream if isinstance(e, TextDelta))
    stream.close()
    assert whole > 3 and counting.steps < whole


def test_a_set_cancel_flag_stops_the_completion(tiny_marian_dir):
    translator = Translator(tiny_marian_dir, variant="fp32")
    cancel = threading.Event()
    cancel.set()
    events = list(px.complete_stream(translator, SENTENCES[2], "我", GenerationOptions(**NO_BOUND), cancel))
    assert isinstance(events[-1], Finished) and events[-1].stats.cancelled
    assert not any(isinstance(e, SegmentDone) for e in events)


def test_alternatives_from_a_prefix_match_generate_n_best(marian, layout_translator):
    model, tokenizer = marian
    opts = GenerationOptions(beams=4, **NO_BOUND)
    typed_text = "这"
    typed = px.plan_prefix(layout_translator.tokenizer, typed_text, spaced=False)
    alts = px.complete_alternatives(layout_translator, SENTENCES[1], typed_text, n=4, options=opts)
    best = reference(model, tokenizer, SENTENCES[1], typed, num_beams=4)
    assert alts and list(alts[0].token_ids) == best[len(typed.prefix.forced) :]
    full = layout_translator.tokenizer.decode(best)
    assert alts[0].text == full[len(typed_text) :]
    assert [a.score for a in alts] == sorted((a.score for a in alts), reverse=True)
    assert len({a.text for a in alts}) == len(alts)


def test_the_translators_prefix_arguments_are_the_post_editing_calls(tiny_marian_dir):
    translator = Translator(tiny_marian_dir, variant="fp32")
    opts = GenerationOptions(beams=4, **NO_BOUND)
    streamed = "".join(
        e.text for e in translator.translate_stream(SENTENCES[0], opts, prefix="这") if isinstance(e, TextDelta)
    )
    assert streamed == "".join(
        e.text for e in px.complete_stream(translator, SENTENCES[0], "这", opts) if isinstance(e, TextDelta)
    )
    assert translator.alternatives(SENTENCES[0], 2, opts, prefix="这") == px.complete_alternatives(
        translator, SENTENCES[0], "这", 2, opts
    )
    assert translator.alternatives(SENTENCES[0], 2, opts) != translator.alternatives(SENTENCES[0], 2, opts, prefix="这")
    assert translator_for_sentence(translator, SENTENCES[0]) is translator


def test_a_two_way_translator_gives_the_sentences_direction(tiny_marian_dir, tiny_zh_en_dir):
    from desktop_mt.engine.router import TwoWayTranslator

    en_zh, zh_en = Translator(tiny_marian_dir, variant="fp32"), Translator(tiny_zh_en_dir, variant="fp32")
    engine = TwoWayTranslator({"en-zh": en_zh, "zh-en": zh_en})
    assert translator_for_sentence(engine, "I love you.") is en_zh
    assert translator_for_sentence(engine, "我爱你。") is zh_en
    with pytest.raises(NotTranslatedError, match="not translated"):
        translator_for_sentence(engine, "こんにちは。")


def test_the_face_cuts_a_translation_into_the_sentences_model_pieces(tiny_marian_dir, tiny_zh_en_dir):
    """``TranslatorFace.target_pieces``: the window's word starts for an alternative, asked of
    the face (the per-model tokenizer stays inside); None where no model's pieces tell."""
    from desktop_mt.engine.router import TwoWayTranslator
    from desktop_mt.engine.testing import ScriptedTranslator
    from desktop_mt.tm.apply import MemoryTranslator
    from desktop_mt.tm.store import TranslationMemory

    en_zh, zh_en = Translator(tiny_marian_dir, variant="fp32"), Translator(tiny_zh_en_dir, variant="fp32")
    engine = TwoWayTranslator({"en-zh": en_zh, "zh-en": zh_en})
    chinese, english = "我爱你。", "I love you."
    assert engine.target_pieces("I love you.", chinese) == en_zh.tokenizer.target_pieces(chinese)
    assert engine.target_pieces("我爱你。", english) == zh_en.tokenizer.target_pieces(english)
    assert "".join(engine.target_pieces("我爱你。", english) or []).replace("\u2581", " ").strip() == english
    assert engine.target_pieces("こんにちは。", english) is None  # nothing to translate
    assert TwoWayTranslator({"en-zh": en_zh}).target_pieces("我爱你。", english) is None  # no model for it
    with_memory = MemoryTranslator(engine, TranslationMemory(":memory:"))
    assert with_memory.target_pieces("I love you.", chinese) == engine.target_pieces("I love you.", chinese)
    assert ScriptedTranslator().target_pieces("I love you.", chinese) is None


def test_a_sentence_that_is_not_translated_is_a_worded_desktop_mt_error():
    """Completing a Japanese sentence is refused with an error of the one tree (a front end's
    ``except DesktopMTError`` says it), worded in the interface's language."""
    from desktop_mt.app.i18n import describe
    from desktop_mt.base.errors import DesktopMTError

    error = NotTranslatedError()
    assert isinstance(error, DesktopMTError) and not isinstance(error, ValueError)
    assert describe(error, "en") == str(error) == "this sentence is not translated (no English or Chinese to translate)"
    assert describe(error, "zh_CN") == "这个句子不翻译（其中没有要翻译的英文或中文）"


def test_the_two_way_face_completes_a_prefix_in_the_sentences_direction(tiny_marian_dir, tiny_zh_en_dir):
    """The front ends' face (issue 42): ``prefix=`` on the two-way translator's own stream and
    n-best is the sentence's direction's completion, with its errors, without asking for that
    direction's translator first."""
    from desktop_mt.engine.router import TwoWayTranslator

    en_zh, zh_en = Translator(tiny_marian_dir, variant="fp32"), Translator(tiny_zh_en_dir, variant="fp32")
    engine = TwoWayTranslator({"en-zh": en_zh, "zh-en": zh_en})
    opts = GenerationOptions(beams=2, **NO_BOUND)

    def text(events) -> str:
        return "".join(e.text for e in events if isinstance(e, TextDelta))

    for sentence, prefix, own in ((SENTENCES[0], "这", en_zh), ("我爱你。", "I", zh_en)):
        assert text(engine.translate_stream(sentence, opts, prefix=prefix)) == text(
            own.translate_stream(sentence, opts, prefix=prefix)
        )
        assert engine.alternatives(sentence, 2, opts, prefix=prefix) == own.alternatives(
            sentence, 2, opts, prefix=prefix
        )
    with pytest.raises(NotTranslatedError, match="not translated"):
        engine.translate_stream("こんにちは。", opts, prefix="x")


def test_the_fake_model_completes_from_a_prefix_for_front_end_tests(tiny_marian_dir):
    from desktop_mt.engine.testing import FakeModelTranslator

    fake = FakeModelTranslator(lambda s: "我喜欢茶。", tiny_marian_dir)
    events = list(fake.translate_stream("I like tea.", prefix="我喜"))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "欢茶。"
    assert [e.translation for e in events if isinstance(e, SegmentDone)] == ["欢茶。"]
    assert fake.alternatives("I like tea.", prefix="你")[0].text == "我喜欢茶。"  # a model that ignores the prefix
    cancel = threading.Event()
    stream = fake.translate_stream("I like tea.", cancel=cancel, prefix="我")
    next(stream)
    cancel.set()
    assert list(stream)[-1].stats.cancelled and fake.received == ["I like tea."] * 3
