"""Multi-target Marian (like opus-mt-en-zh): the runtime prepends the chosen >>id<< token exactly
where MarianTokenizer puts it, and generates the same tokens as transformers' generate()."""

from __future__ import annotations

import shutil

import pytest

from desktop_mt import GenerationOptions, Translator
from desktop_mt.base.errors import ModelFormatError
from desktop_mt.engine.model_format import inspect_model_dir
from desktop_mt.engine.tokenizer import default_target_token, target_tokens
from tests.conftest import load_torch
from tests.engine.test_parity import NO_BOUND, SENTENCES, hf_generate

TOKENS = (">>cmn_Hans<<", ">>cmn_Hant<<", ">>yue_Hant<<")
RAW = NO_BOUND  # raw decoding, as generate() does (no output bound, guard or punctuation pass)


@pytest.fixture(scope="module")
def multi_hf(tmp_path_factory):
    from tests.model_factory import make_marian

    return make_marian(tmp_path_factory.mktemp("multi_hf"), target_tokens=TOKENS)


@pytest.fixture(scope="module")
def multi_dir(multi_hf, tmp_path_factory):
    from tests.model_factory import export_model

    return export_model(multi_hf, tmp_path_factory.mktemp("multi_onnx"))


@pytest.fixture(scope="module")
def multi_torch(multi_hf):
    return load_torch(multi_hf)


def test_the_manifest_and_inspection_list_the_tokens(multi_dir, tmp_path):
    info = inspect_model_dir(multi_dir)
    assert info.manifest["target_tokens"] == list(TOKENS)
    assert target_tokens(info) == TOKENS and default_target_token(info) == ">>cmn_Hans<<"
    # a folder without our manifest (say, an Optimum export): read from its vocabulary
    foreign = tmp_path / "foreign"
    shutil.copytree(multi_dir, foreign)
    (foreign / "desktop_mt.json").unlink()
    assert target_tokens(inspect_model_dir(foreign)) == TOKENS


@pytest.mark.parametrize("token", TOKENS)
def test_source_ids_equal_marian_tokenizer_with_the_token_in_front(multi_dir, multi_torch, token):
    _, tokenizer = multi_torch
    translator = Translator(multi_dir, variant="fp32", target_token=token)
    for text in SENTENCES:
        assert translator.tokenizer.encode(text) == tokenizer(f"{token} {text}")["input_ids"], text


@pytest.mark.parametrize("beams", [1, 4])
@pytest.mark.parametrize("token", [None, ">>yue_Hant<<"])
def test_generation_equals_generate_on_the_prefixed_input(multi_dir, multi_torch, beams, token):
    model, tokenizer = multi_torch
    translator = Translator(multi_dir, variant="fp32", target_token=token)
    chosen = token or ">>cmn_Hans<<"  # the default for a Chinese model
    assert translator.target_token == chosen
    opts = GenerationOptions(beams=beams, **RAW)
    prefixed = [f"{chosen} {t}" for t in SENTENCES]
    for text, src in zip(SENTENCES, prefixed):
        assert translator.generate_ids([text], opts) == hf_generate(model, tokenizer, [src], num_beams=beams), text
    assert translator.generate_ids(SENTENCES, opts) == hf_generate(model, tokenizer, prefixed, num_beams=beams)


def test_the_token_can_be_changed_on_a_loaded_model(multi_dir):
    translator = Translator(multi_dir, variant="fp32")
    vocab = translator.tokenizer.vocab
    for token in TOKENS:
        translator.target_token = token
        ids = translator.tokenizer.encode("I love you.")
        assert ids[0] == vocab[token] and token not in translator.tokenizer.decode(ids)  # never shown
        assert translator.tokenizer.count("I love you.") == len(ids)  # segmentation counts it
    with pytest.raises(ModelFormatError, match=">>cmn_Hant<<"):
        translator.target_token = ">>fra<<"


def test_single_target_models_get_no_token(tiny_marian_dir):
    translator = Translator(tiny_marian_dir, variant="fp32")
    assert translator.target_tokens == () and translator.target_token is None
    with pytest.raises(ModelFormatError, match="single target language"):
        translator.target_token = ">>cmn_Hans<<"


def test_models_list_shows_the_target_tokens(multi_dir, tmp_path, monkeypatch, capsys):
    from desktop_mt.cli.main import main

    monkeypatch.setenv("DESKTOP_MT_HOME", str(tmp_path / "home"))
    shutil.copytree(multi_dir, tmp_path / "home" / "models" / "multi")
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "multi" in out and "target tokens: >>cmn_Hans<< (default), >>cmn_Hant<<, >>yue_Hant<<" in out
