"""A tiny Chinese->English Marian for the tests, built like ``tests.model_factory.make_marian``
(the same Tatoeba sample reversed, Chinese SentencePiece without the dummy prefix, seeded)."""

from __future__ import annotations

from pathlib import Path

from export_tools import train_demo as td
from tests import model_factory as mf


def zh_en_pairs(n: int = 600) -> list[tuple[str, str]]:
    """The sample's ``(Chinese, English)`` pairs."""
    return [(zh, en) for en, zh in mf.sample_pairs(n)]


def make_marian_zh_en(out: Path, max_positions: int = 64, max_length: int = 40, num_beams: int = 4) -> Path:
    """A tiny MarianMTModel translating Chinese into English, tokenizer_config source_lang "zh"."""
    from transformers import MarianTokenizer

    cfg = td.TrainConfig(
        direction="zh-en",
        source_vocab=1100,
        target_vocab=300,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        heads=4,
        ffn_dim=64,
        max_positions=max_positions,
    )
    pairs = zh_en_pairs()
    td.write_tokenizer(out, pairs, cfg)
    tokenizer = MarianTokenizer.from_pretrained(str(out))
    mf._seed()
    model = td.build_model(len(tokenizer.get_vocab()), cfg)
    mf.quick_train(model, tokenizer, pairs)
    model.generation_config.max_length = max_length
    model.generation_config.num_beams = num_beams
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out


SAMPLES = ["我爱你。", "火车站在哪里？", "汤姆说他明天会回来，但是没有人相信他。"]


def export_zh_en(src: Path, out: Path, layout: str | None = None) -> Path:
    """Export the tiny model, validated on Chinese samples (the exporter's are English, which a
    Chinese SentencePiece cuts into more pieces than the tiny model has positions)."""
    from export_tools.export import export

    export(str(src), str(out), int8=True, layout=layout, samples=SAMPLES)
    return out
