"""Chinese->English: a tiny zh->en Marian is token-identical to transformers' generate(), greedy
and beam 4, through translate_stream and translate_batch, alone, behind the two-way translator,
and installed through the model manager from the stand-in Hub (transformers.js layout)."""

from __future__ import annotations

import json

import pytest

from desktop_mt import GenerationOptions, TextDelta, Translator
from desktop_mt.engine.options import RAW
from desktop_mt.engine.router import TwoWayTranslator
from tests.engine.test_parity import hf_generate, hf_text

SENTENCES = [
    "我爱你。",
    "火车站在哪里？",
    "汤姆说他明天会回来，但是没有人相信他。",
    "你好。",
    "今天又下雨了。",
    "你能帮我把这些箱子搬到楼上吗？",
]


def raw(beams: int) -> GenerationOptions:
    """Every text-handling step off: the model's own output, as generate() gives it."""
    return GenerationOptions(beams=beams, **RAW)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def zh_en(tiny_zh_en_dir):
    return Translator(tiny_zh_en_dir, variant="fp32")


def test_the_model_knows_its_language_pair(zh_en):
    assert (zh_en.model_info.source_lang, zh_en.model_info.target_lang) == ("zh", "en")
    assert zh_en.model_info.direction == "zh-en"


@pytest.mark.parametrize("beams", [1, 4])
def test_ids_match_generate(marian_zh_en, zh_en, beams):
    model, tokenizer = marian_zh_en
    for text in SENTENCES:
        assert zh_en.generate_ids([text], raw(beams)) == hf_generate(model, tokenizer, [text], num_beams=beams), text
    assert zh_en.generate_ids(SENTENCES, raw(beams)) == hf_generate(model, tokenizer, SENTENCES, num_beams=beams)


def expected_texts(marian_zh_en, beams: int) -> list[str]:
    model, tokenizer = marian_zh_en
    return [hf_text(tokenizer, hf_generate(model, tokenizer, [s], num_beams=beams)[0]) for s in SENTENCES]


def streamed(translator, text: str, options: GenerationOptions) -> str:
    return "".join(e.text for e in translator.translate_stream(text, options) if isinstance(e, TextDelta))


@pytest.mark.parametrize("beams", [1, 4])
def test_stream_and_batch_match_generate(marian_zh_en, zh_en, tiny_marian_dir, beams):
    expected = expected_texts(marian_zh_en, beams)
    two_way = TwoWayTranslator({"en-zh": Translator(tiny_marian_dir, variant="fp32"), "zh-en": zh_en})
    for translator in (zh_en, two_way):
        assert [streamed(translator, s, raw(beams)) for s in SENTENCES] == expected
        assert translator.translate_batch(SENTENCES, raw(beams)) == expected


def test_two_way_sends_english_to_the_other_model(zh_en, tiny_marian_dir):
    en_zh = Translator(tiny_marian_dir, variant="fp32")
    two_way = TwoWayTranslator({"en-zh": en_zh, "zh-en": zh_en})
    english = "Where is the train station?"
    assert two_way.translate(english, raw(1)) == en_zh.translate(english, raw(1))
    assert two_way.translate("我爱你。", raw(1)) == zh_en.translate("我爱你。", raw(1))


# -- installed through the model manager from the stand-in Hub ------------------------------------

ZH_REPO, ZH_COMMIT = "tiny-org/opus-mt-tiny-zh-en", "89abcdef0123456789abcdef0123456789abcdef"


@pytest.fixture
def zh_hub_home(tmp_path, monkeypatch, tiny_zh_en_dir):
    """A fresh app home whose catalog has a zh->en entry served by a stand-in Hub (transformers.js layout)."""
    import huggingface_hub.constants as hf_constants

    from tests.models.conftest import CHECKPOINT_COMMIT, CHECKPOINT_REPO, TOKENIZER, catalog_entry, repo_files
    from tests.models.fake_hub import FakeHub

    entry = {**catalog_entry("tiny-zh-en", ZH_REPO, ZH_COMMIT), "source_lang": "zh", "target_lang": "en"}
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps({"models": [entry]}), encoding="utf-8")
    monkeypatch.setenv("DESKTOP_MT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DESKTOP_MT_CATALOG", str(catalog))
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    server = FakeHub()
    server.add_repo(ZH_REPO, ZH_COMMIT, repo_files(tiny_zh_en_dir, with_tokenizer=False))
    server.add_repo(
        CHECKPOINT_REPO, CHECKPOINT_COMMIT, {name: (tiny_zh_en_dir / name).read_bytes() for name in TOKENIZER}
    )
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize("beams", [1, 4])
def test_downloaded_zh_en_matches_generate(marian_zh_en, zh_hub_home, beams):
    from desktop_mt.app.factory import build_translator
    from desktop_mt.app.settings import get_active, set_active
    from desktop_mt.models import download_model

    path = download_model("tiny-zh-en", "fp32", endpoint=zh_hub_home.url)
    assert (path / "onnx" / "encoder_model.onnx").is_file()
    assert set_active("tiny-zh-en") == "zh-en"  # placed by its own language pair
    assert get_active("zh-en") == "tiny-zh-en" and get_active("en-zh") == ""
    two_way = build_translator(variant="fp32")
    assert two_way.translators["zh-en"].model_info.path == path
    expected = expected_texts(marian_zh_en, beams)
    assert [streamed(two_way, s, raw(beams)) for s in SENTENCES] == expected
    assert two_way.translate_batch(SENTENCES, raw(beams)) == expected


@pytest.mark.parametrize("beams, n", [(4, 3), (2, 4)])
def test_alternatives_match_generate_num_return_sequences(marian_zh_en, zh_en, tiny_marian_dir, beams, n):
    """Chinese->English n-best: ids, order and scores of generate(num_return_sequences=...),
    alone and through the two-way translator."""
    from tests.engine.test_alternatives import dedupe, hf_nbest

    model, tokenizer = marian_zh_en
    two_way = TwoWayTranslator({"en-zh": Translator(tiny_marian_dir, variant="fp32"), "zh-en": zh_en})
    k = max(n, beams)
    for text in SENTENCES[:3]:
        expected = dedupe(tokenizer, hf_nbest(model, tokenizer, text, k, k), n)
        for translator in (zh_en, two_way):
            ours = translator.alternatives(text, n, raw(beams))
            assert [list(a.token_ids) for a in ours] == [ids for ids, _ in expected], text
            assert [a.score for a in ours] == pytest.approx([s for _, s in expected], abs=1e-4), text
