"""Tiny random seq2seq checkpoints for tests: real HF classes, real SentencePiece models.

SentencePiece is trained in about a second on a few hundred Tatoeba lines (the sample in
``tests/data``, so the tests need nothing outside the repository); the random weights then get
~120 quick updates so the models stop at varied lengths as real ones do.
"""

from __future__ import annotations

import json
from pathlib import Path

from export_tools import train_demo as td

DATA = Path(__file__).resolve().parent / "data" / "tatoeba-sample.tsv"


def sample_pairs(n: int = 600) -> list[tuple[str, str]]:
    """``n`` (English, Chinese) pairs of the sample, every ``len // n``-th (all 600 by default)."""
    pairs = td.read_pairs(DATA)
    step = max(1, len(pairs) // n)
    return [(en, zh) for en, zh, _ in pairs[::step][:n]]


def quick_train(model, tokenizer, pairs, steps: int = 120, lr: float = 3e-3) -> None:
    """A few hundred updates, so that the model ends sentences (emits EOS) at varied lengths
    like a real one, instead of looping to max_length as purely random weights do."""
    import random

    import torch

    src = tokenizer([en for en, _ in pairs], truncation=True, max_length=48)["input_ids"]
    tgt = tokenizer(text_target=[zh for _, zh in pairs], truncation=True, max_length=48)["input_ids"]
    examples = list(zip(src, tgt))
    pad = model.config.pad_token_id
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    rng = random.Random(0)
    model.train()
    for _ in range(steps):
        idx = rng.sample(range(len(examples)), 32)
        input_ids, attn, dec_in, labels = td.collate(examples, idx, pad)
        logits = model(input_ids=input_ids, attention_mask=attn, decoder_input_ids=dec_in).logits
        loss = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()


def _seed(seed: int = 0) -> None:
    """Seed torch before a tiny model is built: its random initial weights (and so every
    score the parity tests compare) are then the same in every test run."""
    import torch

    torch.manual_seed(seed)


def make_marian(
    out: Path, max_positions: int = 64, max_length: int = 40, num_beams: int = 4, target_tokens: tuple[str, ...] = ()
) -> Path:
    """A tiny MarianMTModel with Marian-style tokenizer files (source.spm, target.spm, vocab.json).

    ``target_tokens`` (e.g. ``">>cmn_Hans<<"``) make it multi-target like opus-mt-en-zh: they join
    the vocabulary before ``<pad>``, and training sources start with one of them.
    """
    from transformers import MarianTokenizer

    cfg = td.TrainConfig(
        source_vocab=300,
        target_vocab=1100,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        heads=4,
        ffn_dim=64,
        max_positions=max_positions,
    )
    td.write_tokenizer(out, sample_pairs(), cfg)
    if target_tokens:
        vocab = json.loads((out / "vocab.json").read_text(encoding="utf-8"))
        del vocab["<pad>"]
        vocab.update({t: len(vocab) + i for i, t in enumerate(target_tokens)})
        vocab["<pad>"] = len(vocab)
        (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tokenizer = MarianTokenizer.from_pretrained(str(out))
    _seed()  # the same weights every run: a parity failure can be reproduced
    model = td.build_model(len(tokenizer.get_vocab()), cfg)
    pairs = sample_pairs()
    if target_tokens:
        pairs = [(f"{target_tokens[i % len(target_tokens)]} {en}", zh) for i, (en, zh) in enumerate(pairs)]
    quick_train(model, tokenizer, pairs)
    model.generation_config.max_length = max_length
    model.generation_config.num_beams = num_beams
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out


def make_m2m100(out: Path, max_positions: int = 64, max_length: int = 40) -> Path:
    """A tiny M2M100 (forced target-language token, eos as decoder start, language tag in the input)."""
    import sentencepiece as spm
    from transformers import GenerationConfig, M2M100Config, M2M100ForConditionalGeneration, M2M100Tokenizer

    out.mkdir(parents=True, exist_ok=True)
    lines = [t for pair in sample_pairs(400) for t in pair]
    (out / "train.txt").write_text("\n".join(lines), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(out / "train.txt"),
        model_prefix=str(out / "spm"),
        vocab_size=900,
        character_coverage=1.0,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    (out / "train.txt").unlink()
    (out / "spm.model").rename(out / "sentencepiece.bpe.model")
    sp = spm.SentencePieceProcessor(model_file=str(out / "sentencepiece.bpe.model"))
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for i in range(sp.get_piece_size()):
        if not (sp.is_control(i) or sp.is_unknown(i)):
            vocab.setdefault(sp.id_to_piece(i), len(vocab))
    (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tokenizer = M2M100Tokenizer(
        str(out / "vocab.json"), str(out / "sentencepiece.bpe.model"), src_lang="en", tgt_lang="zh"
    )
    vocab_size = max(tokenizer.lang_token_to_id.values()) + 1 + tokenizer.num_madeup_words  # pieces + tags
    config = M2M100Config(
        vocab_size=vocab_size,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=max_positions,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=2,
        dropout=0.0,
        scale_embedding=True,
    )
    _seed()
    model = M2M100ForConditionalGeneration(config)
    quick_train(model, tokenizer, sample_pairs(400))
    model.generation_config = GenerationConfig(
        decoder_start_token_id=2,
        eos_token_id=2,
        pad_token_id=1,
        bos_token_id=0,
        max_length=max_length,
        num_beams=1,
        forced_bos_token_id=tokenizer.get_lang_id("zh"),
    )
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out


def export_model(src: Path, out: Path, int8: bool = True, layout: str | None = None) -> Path:
    from export_tools.export import export

    export(str(src), str(out), int8=int8, layout=layout)
    return out
