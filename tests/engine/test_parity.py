"""Token-exact parity of our ONNX runtime with transformers' own generate()."""

from __future__ import annotations

import pytest
import torch

from desktop_mt import GenerationOptions, Translator
from desktop_mt.engine.segment import Segment, plan_text
from tests.conftest import load_torch

SENTENCES = [
    "I love you.",
    "Where is the train station?",
    "Tom said that he would come back tomorrow, but nobody believed him.",
    "Hi.",
    "Can you help me carry these heavy boxes upstairs before dinner?",
    "It's raining again.",
]
# The relative output bound, the repetition guard and the Chinese punctuation pass are our own
# additions: switch them off to compare with generate().
NO_BOUND = dict(max_length_ratio=0, repetition_guard=False, chinese_punctuation=False)


def hf_text(tokenizer, ids) -> str:
    """transformers' decode, with a stray "▁" (unknown to the target model) shown as a space."""
    return tokenizer.decode(ids, skip_special_tokens=True).replace("\u2581", " ").strip()


def hf_generate(model, tokenizer, texts, **kwargs) -> list[list[int]]:
    batch = tokenizer(texts, return_tensors="pt", padding=True)
    with torch.no_grad():
        out = model.generate(**batch, do_sample=False, **kwargs)
    result = []
    for row in out.tolist():
        row = row[1:]  # drop the decoder start token
        while row and row[-1] == model.config.pad_token_id:
            row.pop()
        result.append(row)
    return result


@pytest.mark.parametrize("beams", [1, 4])
def test_marian_one_by_one_matches_generate(marian, marian_fp32, beams):
    model, tokenizer = marian
    opts = GenerationOptions(beams=beams, **NO_BOUND)
    for text in SENTENCES:
        assert marian_fp32.generate_ids([text], opts) == hf_generate(model, tokenizer, [text], num_beams=beams), text


@pytest.mark.parametrize("beams", [1, 4])
def test_marian_padded_batch_matches_generate(marian, marian_fp32, beams):
    """Mixed lengths in one batch: padding, per-row finishing and row dropping."""
    model, tokenizer = marian
    ours = marian_fp32.generate_ids(SENTENCES, GenerationOptions(beams=beams, **NO_BOUND))
    assert ours == hf_generate(model, tokenizer, SENTENCES, num_beams=beams)
    assert len({len(ids) for ids in ours}) > 1  # the rows really finished at different steps


def test_beam_length_penalty_and_no_repeat_ngram_match(marian, marian_fp32):
    model, tokenizer = marian
    opts = GenerationOptions(beams=3, length_penalty=0.6, no_repeat_ngram_size=2, repetition_penalty=1.3, **NO_BOUND)
    ours = marian_fp32.generate_ids(SENTENCES[:4], opts)
    theirs = hf_generate(
        model, tokenizer, SENTENCES[:4], num_beams=3, length_penalty=0.6, no_repeat_ngram_size=2, repetition_penalty=1.3
    )
    assert ours == theirs


def test_max_length_matches_max_new_tokens(marian, marian_fp32):
    model, tokenizer = marian
    ours = marian_fp32.generate_ids(SENTENCES, GenerationOptions(beams=1, max_length=7, **NO_BOUND))
    assert ours == hf_generate(model, tokenizer, SENTENCES, num_beams=1, max_new_tokens=7)
    assert all(len(ids) <= 7 for ids in ours)


def test_pad_is_never_generated(marian_fp32):
    pad = marian_fp32.model_info.config["pad_token_id"]
    for ids in marian_fp32.generate_ids(SENTENCES, GenerationOptions(beams=4)):
        assert pad not in ids


def test_input_longer_than_position_limit_is_segmented(marian, marian_fp32):
    """64 positions in the tiny model: a long paragraph must be split, each piece matching generate()."""
    model, tokenizer = marian
    text = " ".join(SENTENCES * 4) + " " + ", ".join(["and then we walked home slowly"] * 12) + "."
    assert len(tokenizer(text).input_ids) > marian_fp32.model_info.max_positions
    plan = plan_text(text, marian_fp32.tokenizer.count, marian_fp32.max_source_tokens, "")
    segments = [item.text for item in plan if isinstance(item, Segment)]
    assert len(segments) > len(SENTENCES)
    assert all(len(tokenizer(s).input_ids) <= marian_fp32.model_info.max_positions for s in segments)
    opts = GenerationOptions(beams=1, **NO_BOUND)
    expected = "".join(hf_text(tokenizer, hf_generate(model, tokenizer, [s], num_beams=1)[0]) for s in segments)
    assert marian_fp32.translate(text, opts) == expected


def test_text_matches_tokenizer_decode(marian, marian_fp32):
    model, tokenizer = marian
    opts = GenerationOptions(beams=1, **NO_BOUND)
    for text in SENTENCES:
        ids = hf_generate(model, tokenizer, [text], num_beams=1)[0]
        assert marian_fp32.translate(text, opts) == hf_text(tokenizer, ids)


@pytest.mark.parametrize("beams", [1, 4])
def test_m2m100_matches_generate(tiny_m2m_hf, tiny_m2m_dir, beams):
    """A family with other conventions: language tag in the input, forced target-language token."""
    model, tokenizer = load_torch(tiny_m2m_hf)
    translator = Translator(tiny_m2m_dir, variant="fp32")
    ours = translator.generate_ids(SENTENCES, GenerationOptions(beams=beams, **NO_BOUND))
    theirs = hf_generate(model, tokenizer, SENTENCES, num_beams=beams, forced_bos_token_id=tokenizer.get_lang_id("zh"))
    assert ours == theirs
    assert all(ids[0] == tokenizer.get_lang_id("zh") for ids in ours)
