"""``Translator.alternatives``: the n-best of a beam search, token-exact against generate()."""

from __future__ import annotations

import re

import pytest
import torch

from desktop_mt import Alternative, GenerationOptions, Translator
from desktop_mt.engine import generation as gen
from tests.conftest import load_torch
from tests.engine.test_parity import NO_BOUND, SENTENCES, hf_text


def hf_nbest(model, tokenizer, text: str, beams: int, returned: int, **kwargs) -> list[tuple[list[int], float]]:
    """generate()'s ``returned`` best hypotheses (ids without the start token or padding) and
    their ``sequences_scores``."""
    batch = tokenizer([text], return_tensors="pt")
    with torch.no_grad():
        out = model.generate(
            **batch,
            do_sample=False,
            num_beams=beams,
            num_return_sequences=returned,
            output_scores=True,
            return_dict_in_generate=True,
            **kwargs,
        )
    result = []
    for row, score in zip(out.sequences.tolist(), out.sequences_scores.tolist()):
        row = row[1:]
        while row and row[-1] == model.config.pad_token_id:
            row.pop()
        result.append((row, score))
    return result


def dedupe(tokenizer, hyps, n):
    """What alternatives() promises: the best hypotheses with distinct texts, at most n."""
    out, texts = [], set()
    for ids, score in hyps:
        text = hf_text(tokenizer, ids)
        if text not in texts:
            texts.add(text)
            out.append((ids, score))
    return out[:n]


@pytest.fixture(scope="module")
def bundled():
    return Translator()


@pytest.mark.parametrize("beams, n", [(4, 3), (4, 4), (2, 5), (1, 2)])
def test_matches_generate_num_return_sequences(marian, marian_fp32, beams, n):
    """Ids, order and scores of the n best equal generate(num_beams=max(n, beams),
    num_return_sequences=...) (deduplicated by text, as alternatives() are)."""
    model, tokenizer = marian
    k = max(n, beams)
    opts = GenerationOptions(beams=beams, **NO_BOUND)
    for text in SENTENCES:
        ours = marian_fp32.alternatives(text, n, opts)
        expected = dedupe(tokenizer, hf_nbest(model, tokenizer, text, k, k), n)
        assert [list(a.token_ids) for a in ours] == [ids for ids, _ in expected], text
        assert [a.score for a in ours] == pytest.approx([s for _, s in expected], abs=1e-4), text
        assert [a.text for a in ours] == [hf_text(tokenizer, ids) for ids, _ in expected]
        assert all(isinstance(a, Alternative) for a in ours)


def test_m2m100_matches_generate(tiny_m2m_hf, tiny_m2m_dir):
    """Forced target-language token and eos as decoder start: the n-best still match."""
    model, tokenizer = load_torch(tiny_m2m_hf)
    translator = Translator(tiny_m2m_dir, variant="fp32")
    opts = GenerationOptions(beams=3, length_penalty=0.8, **NO_BOUND)
    for text in SENTENCES[:3]:
        ours = translator.alternatives(text, 3, opts)
        theirs = hf_nbest(
            model, tokenizer, text, 3, 3, length_penalty=0.8, forced_bos_token_id=tokenizer.get_lang_id("zh")
        )
        expected = dedupe(tokenizer, theirs, 3)
        assert [list(a.token_ids) for a in ours] == [ids for ids, _ in expected], text
        assert [a.score for a in ours] == pytest.approx([s for _, s in expected], abs=1e-4), text


def test_generation_nbest_lists_every_finished_hypothesis(marian, marian_fp32):
    """The engine-level event: all K finished hypotheses in generate()'s order, the best one
    the same as the "done" event."""
    model, tokenizer = marian
    text = SENTENCES[2]
    params = marian_fp32.params_for(GenerationOptions(beams=4, **NO_BOUND))
    src = [marian_fp32.tokenizer.encode(text)]
    limits = [marian_fp32.max_total_length(len(src[0]), GenerationOptions(**NO_BOUND))]
    events = list(gen.beam_search(marian_fp32.sessions, src, limits, params, nbest=True))
    nbest = [e for e in events if isinstance(e, gen.NBest)]
    done = [e for e in events if isinstance(e, gen.ItemDone)]
    assert len(nbest) == 1 and len(done) == 1 and nbest[0].hypotheses[0][0] == done[0].ids
    expected = hf_nbest(model, tokenizer, text, 4, 4)
    assert [ids for ids, _ in nbest[0].hypotheses] == [ids for ids, _ in expected]
    assert [s for _, s in nbest[0].hypotheses] == pytest.approx([s for _, s in expected], abs=1e-4)


def test_normal_path_yields_no_nbest_events(marian_fp32):
    kinds = set()
    params = marian_fp32.params_for(GenerationOptions(beams=4))
    src = [marian_fp32.tokenizer.encode(SENTENCES[0])]
    for event in gen.beam_search(marian_fp32.sessions, src, [20], params):
        kinds.add(type(event))
    assert gen.ItemDone in kinds and kinds <= {gen.TokensStep, gen.ItemDone}


def test_first_alternative_is_the_translation(marian_fp32):
    """Same beam size, same post-processing (punctuation pass and repetition guard on)."""
    opts = GenerationOptions(beams=4)
    for text in SENTENCES:
        alts = marian_fp32.alternatives(text, 3, opts)
        assert alts[0].text == marian_fp32.translate(text, opts)
        assert len({a.text for a in alts}) == len(alts) <= 3
        assert [a.score for a in alts] == sorted((a.score for a in alts), reverse=True)


def test_bundled_model_gives_distinct_scored_alternatives(bundled):
    opts = GenerationOptions(beams=4)
    text = "Where is the train station?"
    alts = bundled.alternatives(text, 3, opts)
    assert len(alts) == 3
    assert alts[0].text == bundled.translate(text, opts)
    assert len({a.text for a in alts}) == 3 and all(re.search(r"[\u4e00-\u9fff]", a.text) for a in alts)
    assert alts[0].score >= alts[1].score >= alts[2].score and all(a.score < 0 for a in alts)
    assert all(a.text.endswith("？") for a in alts)  # the punctuation pass, as translate() does


def test_bundled_model_traditional_script(bundled):
    opts = GenerationOptions(beams=4, script="traditional-tw")
    alts = bundled.alternatives("I paid for the book yesterday.", 2, opts)
    assert alts[0].text == bundled.translate("I paid for the book yesterday.", opts)


def test_protected_spans_are_kept_in_every_alternative(bundled):
    """A sentence cut by a URL and a number: whole-sentence alternatives, spans verbatim,
    best total score first, the first the same as translate()."""
    opts = GenerationOptions(beams=4)
    text = "Visit https://example.com/docs to read 25 pages before the meeting."
    alts = bundled.alternatives(text, 4, opts)
    assert len(alts) == 4
    assert alts[0].text == bundled.translate(text, opts)
    for alt in alts:
        assert "https://example.com/docs" in alt.text and " 25 " in alt.text
    assert [a.score for a in alts] == sorted((a.score for a in alts), reverse=True)
    assert len({a.text for a in alts}) == 4


def test_nothing_to_translate_gives_one_alternative(bundled):
    assert bundled.alternatives("https://example.com", 3) == [Alternative("https://example.com", 0.0, ())]


def test_cancel_raises(bundled):
    import threading

    from desktop_mt import TranslationCancelled

    cancel = threading.Event()
    cancel.set()
    with pytest.raises(TranslationCancelled):
        bundled.alternatives("Where is the train station?", 3, cancel=cancel)


def test_bad_n_is_refused(bundled):
    with pytest.raises(ValueError):
        bundled.alternatives("Hello.", 0)


def test_best_combinations_order():
    """One hypothesis per segment, by summed score: the lazy heap equals sorting all products."""
    scores = [[-0.1, -0.5, -0.9], [-0.2, -0.3], [-1.0, -1.05, -3.0]]
    combos = list(gen.best_combinations(scores))
    total = [sum(scores[j][i] for j, i in enumerate(c)) for c in combos]
    assert len(combos) == 3 * 2 * 3 == len(set(combos))
    assert total == sorted(total, reverse=True)
    assert combos[0] == (0, 0, 0)
    assert list(gen.best_combinations([])) == [()]
    assert list(gen.best_combinations([[-1.0], []])) == []
