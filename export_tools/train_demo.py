"""Train the small bundled Marian models on the Tatoeba pairs: English->Chinese, or with
``direction="zh-en"`` Chinese->English on the same pairs reversed.

The result is a genuine ``MarianMTModel`` checkpoint with Marian-style tokenizer files
(``source.spm``, ``target.spm``, ``vocab.json``), so it takes exactly the export path that
real checkpoints such as opus-mt-en-zh take.

Reproducible: fixed seed, every setting in :class:`TrainConfig`, the split made by English
source sentence (all references of a source sentence go to one side). Interrupt it at any time:
rerunning the same command resumes from the last checkpoint.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import shutil
import time
from collections import defaultdict
from pathlib import Path

from desktop_mt.base.fsutil import atomic_path

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tatoeba-cmn-eng.tsv"


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """Every knob of the demo model in one place (written to ``train_config.json``)."""

    direction: str = "en-zh"  # or "zh-en": the same pairs reversed
    seed: int = 1234
    dev_sentences: int = 800  # source sentences held out, with all their references
    source_vocab: int = 4000  # unigram SentencePiece of the source language
    target_vocab: int = 4000  # of the target (Chinese: ~2.8k characters + common words)
    d_model: int = 256
    encoder_layers: int = 4  # deeper encoder than decoder: the encoder runs once per input
    decoder_layers: int = 2  # the decoder runs once per output token: keep it shallow
    heads: int = 4
    ffn_dim: int = 1024
    max_positions: int = 256
    dropout: float = 0.1
    label_smoothing: float = 0.1
    lr: float = 1e-3
    warmup_steps: int = 400
    batch_tokens: int = 2000
    epochs: int = 20
    average_last: int = 4  # checkpoint averaging over the last N epochs
    threads: int = 2


def read_pairs(path: Path) -> list[tuple[str, str, str]]:
    """Read ``english<TAB>chinese<TAB>attribution`` lines (BOM tolerated)."""
    pairs = []
    with open(path, encoding="utf-8-sig") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2 and parts[0].strip() and parts[1].strip():
                pairs.append((parts[0].strip(), parts[1].strip(), parts[2] if len(parts) > 2 else ""))
    return pairs


def oriented(pairs: list[tuple[str, str, str]], direction: str) -> list[tuple[str, str, str]]:
    """``(source, target, attribution)`` for ``direction`` ("en-zh" keeps the file's order)."""
    if direction not in ("en-zh", "zh-en"):
        raise ValueError(f"direction must be 'en-zh' or 'zh-en', not {direction!r}")
    return pairs if direction == "en-zh" else [(zh, en, who) for en, zh, who in pairs]


def split_by_source(pairs, dev_sentences: int, seed: int):
    """Split so that no source sentence lands on both sides; dev keeps all references."""
    by_src: dict[str, list[str]] = defaultdict(list)
    for src, tgt, _ in pairs:
        by_src[src].append(tgt)
    sources = sorted(by_src)
    random.Random(seed).shuffle(sources)
    dev_src = set(sources[:dev_sentences])
    train = [(src, tgt) for src, tgt, _ in pairs if src not in dev_src]
    dev = [(src, by_src[src]) for src in sources[:dev_sentences]]
    return train, dev


def train_sentencepiece(lines: list[str], prefix: Path, vocab_size: int, coverage: float, dummy_prefix: bool) -> None:
    import sentencepiece as spm

    text = prefix.with_suffix(".txt")
    text.write_text("\n".join(lines) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(text),
        model_prefix=str(prefix),
        vocab_size=vocab_size,
        model_type="unigram",
        character_coverage=coverage,
        hard_vocab_limit=False,
        unk_id=0,
        bos_id=-1,
        eos_id=1,
        pad_id=-1,
        num_threads=2,
        minloglevel=2,
        add_dummy_prefix=dummy_prefix,
    )
    text.unlink()
    prefix.with_suffix(".vocab").unlink()


def build_marian_vocab(source_spm: Path, target_spm: Path) -> dict[str, int]:
    """Joint Marian vocabulary: ``</s>`` 0, ``<unk>`` 1, source then target pieces, ``<pad>`` last."""
    import sentencepiece as spm

    vocab = {"</s>": 0, "<unk>": 1}
    for path in (source_spm, target_spm):
        sp = spm.SentencePieceProcessor(model_file=str(path))
        for i in range(sp.get_piece_size()):
            if sp.is_unknown(i) or sp.is_control(i):
                continue
            vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab["<pad>"] = len(vocab)
    return vocab


def write_tokenizer(out: Path, train, cfg: TrainConfig) -> None:
    out.mkdir(parents=True, exist_ok=True)
    src_lang, tgt_lang = cfg.direction.split("-")
    # Chinese: no "▁" token before it, and rare characters left to <unk>; English: every letter.
    for lang, lines, name, size in (
        (src_lang, [s for s, _ in train], "source", cfg.source_vocab),
        (tgt_lang, [t for _, t in train], "target", cfg.target_vocab),
    ):
        chinese = lang == "zh"
        train_sentencepiece(lines, out / name, size, 0.9999 if chinese else 1.0, not chinese)
    (out / "source.model").rename(out / "source.spm")
    (out / "target.model").rename(out / "target.spm")
    vocab = build_marian_vocab(out / "source.spm", out / "target.spm")
    (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False, indent=0), encoding="utf-8")
    (out / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "MarianTokenizer",
                "source_lang": src_lang,
                "target_lang": tgt_lang,
                "model_max_length": cfg.max_positions,
                "eos_token": "</s>",
                "unk_token": "<unk>",
                "pad_token": "<pad>",
                "separate_vocabs": False,
            },
            indent=2,
        ),
        encoding="utf-8",
    )


def build_model(vocab_size: int, cfg: TrainConfig):
    from transformers import GenerationConfig, MarianConfig, MarianMTModel

    pad = vocab_size - 1
    config = MarianConfig(
        vocab_size=vocab_size,
        d_model=cfg.d_model,
        encoder_layers=cfg.encoder_layers,
        decoder_layers=cfg.decoder_layers,
        encoder_attention_heads=cfg.heads,
        decoder_attention_heads=cfg.heads,
        encoder_ffn_dim=cfg.ffn_dim,
        decoder_ffn_dim=cfg.ffn_dim,
        max_position_embeddings=cfg.max_positions,
        dropout=cfg.dropout,
        attention_dropout=0.0,
        activation_dropout=0.0,
        activation_function="swish",
        scale_embedding=True,
        pad_token_id=pad,
        eos_token_id=0,
        decoder_start_token_id=pad,
        forced_eos_token_id=0,
        share_encoder_decoder_embeddings=True,
        tie_word_embeddings=True,
    )
    model = MarianMTModel(config)
    model.generation_config = GenerationConfig(
        decoder_start_token_id=pad,
        eos_token_id=0,
        pad_token_id=pad,
        forced_eos_token_id=0,
        bad_words_ids=[[pad]],
        max_length=cfg.max_positions,
        num_beams=4,
    )
    return model


def make_batches(examples, batch_tokens: int, rng: random.Random):
    """Length-sorted batches bounded by a token budget (padding-aware), shuffled."""
    order = sorted(range(len(examples)), key=lambda i: (max(len(examples[i][0]), len(examples[i][1])), rng.random()))
    batches, cur, cur_max = [], [], 0
    for i in order:
        longest = max(cur_max, len(examples[i][0]), len(examples[i][1]))
        if cur and longest * (len(cur) + 1) > batch_tokens:
            batches.append(cur)
            cur, longest = [], max(len(examples[i][0]), len(examples[i][1]))
        cur.append(i)
        cur_max = longest
    if cur:
        batches.append(cur)
    rng.shuffle(batches)
    return batches


def collate(examples, idx, pad: int):
    import torch

    src = [examples[i][0] for i in idx]
    tgt = [examples[i][1] for i in idx]
    s_len, t_len = max(map(len, src)), max(map(len, tgt))
    input_ids = torch.full((len(idx), s_len), pad, dtype=torch.long)
    attn = torch.zeros((len(idx), s_len), dtype=torch.long)
    labels = torch.full((len(idx), t_len), -100, dtype=torch.long)
    dec_in = torch.full((len(idx), t_len), pad, dtype=torch.long)
    for r, (s, t) in enumerate(zip(src, tgt)):
        input_ids[r, : len(s)] = torch.tensor(s)
        attn[r, : len(s)] = 1
        labels[r, : len(t)] = torch.tensor(t)
        dec_in[r, 1 : len(t)] = torch.tensor(t[:-1])  # shifted right, decoder start = pad
    return input_ids, attn, dec_in, labels


def lr_at(step: int, total: int, cfg: TrainConfig) -> float:
    """Linear warm-up, then cosine decay to 5% of the peak."""
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    progress = min(1.0, (step - cfg.warmup_steps) / max(1, total - cfg.warmup_steps))
    return cfg.lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * progress)))


def encode_examples(tokenizer, train, max_len: int):
    src = tokenizer([s for s, _ in train], truncation=True, max_length=max_len)["input_ids"]
    tgt = tokenizer(text_target=[t for _, t in train], truncation=True, max_length=max_len)["input_ids"]
    return list(zip(src, tgt))


def average_state_dicts(paths: list[Path]):
    import torch

    avg = None
    for p in paths:
        sd = torch.load(p, map_location="cpu", weights_only=True)
        if avg is None:
            avg = {k: v.clone().double() if v.is_floating_point() else v.clone() for k, v in sd.items()}
        else:
            for k, v in sd.items():
                if v.is_floating_point():
                    avg[k] += v.double()
    return {k: (v / len(paths)).float() if v.is_floating_point() else v for k, v in avg.items()}


def log(out: Path, msg: str) -> None:
    line = f"[{time.strftime('%H:%M:%S')}] {msg}"
    print(line, flush=True)
    with open(out / "train.log", "a", encoding="utf-8") as f:
        f.write(line + "\n")


def train(out_dir: str, data: str | None = None, cfg: TrainConfig = TrainConfig()) -> Path:
    """Train (or resume) into ``out_dir``; returns the final HuggingFace checkpoint dir."""
    import torch
    from transformers import MarianTokenizer

    out = Path(out_dir)
    tok_dir, ckpt_dir, final_dir = out / "tokenizer", out / "checkpoints", out / "hf"
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(cfg.threads)
    pairs = oriented(read_pairs(Path(data) if data else DEFAULT_DATA), cfg.direction)
    train_pairs, dev = split_by_source(pairs, cfg.dev_sentences, cfg.seed)
    # "src" names the source whatever its language ("en" kept for the en->zh files made before).
    key = "en" if cfg.direction == "en-zh" else "src"
    (out / "dev.jsonl").write_text(
        "".join(json.dumps({key: src, "refs": refs}, ensure_ascii=False) + "\n" for src, refs in dev), encoding="utf-8"
    )
    (out / "train_config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=2))
    if not (tok_dir / "vocab.json").exists():
        write_tokenizer(tok_dir, train_pairs, cfg)
    tokenizer = MarianTokenizer.from_pretrained(str(tok_dir))
    examples = encode_examples(tokenizer, train_pairs, cfg.max_positions)
    torch.manual_seed(cfg.seed)
    model = build_model(len(tokenizer.get_vocab()), cfg)
    pad = model.config.pad_token_id
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.01)
    state_path, start_epoch, step = ckpt_dir / "last.pt", 0, 0
    if state_path.exists():
        state = torch.load(state_path, map_location="cpu", weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        start_epoch, step = state["epoch"], state["step"]
        log(out, f"resumed after epoch {start_epoch} (step {step})")
    steps_per_epoch = len(make_batches(examples, cfg.batch_tokens, random.Random(0)))
    total = steps_per_epoch * cfg.epochs
    log(
        out,
        f"{len(examples)} train pairs, {len(dev)} dev sentences, vocab {len(tokenizer.get_vocab())}, "
        f"{sum(p.numel() for p in model.parameters()) / 1e6:.2f}M params, {steps_per_epoch} steps/epoch",
    )
    ckpt_dir.mkdir(exist_ok=True)
    for epoch in range(start_epoch, cfg.epochs):
        step = run_epoch(model, opt, examples, epoch, step, total, pad, cfg, out)
        torch.save(model.state_dict(), ckpt_dir / f"epoch{epoch + 1:03d}.pt")
        with atomic_path(state_path) as tmp:  # a kill mid-save never corrupts the resume point
            torch.save(
                {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch + 1, "step": step}, tmp
            )
        for old in sorted(ckpt_dir.glob("epoch*.pt"))[: -cfg.average_last]:
            old.unlink()
    return finalize(model, tokenizer, ckpt_dir, final_dir, cfg, out)


def run_epoch(model, opt, examples, epoch, step, total, pad, cfg, out) -> int:
    import torch

    model.train()
    rng = random.Random(cfg.seed * 1000 + epoch)
    torch.manual_seed(cfg.seed * 1000 + epoch)
    t0, loss_sum, tok_sum = time.time(), 0.0, 0
    for idx in make_batches(examples, cfg.batch_tokens, rng):
        input_ids, attn, dec_in, labels = collate(examples, idx, pad)
        for group in opt.param_groups:
            group["lr"] = lr_at(step, total, cfg)
        logits = model(input_ids=input_ids, attention_mask=attn, decoder_input_ids=dec_in).logits
        loss = torch.nn.functional.cross_entropy(
            logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100, label_smoothing=cfg.label_smoothing
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        n = int((labels != -100).sum())
        loss_sum, tok_sum = loss_sum + float(loss) * n, tok_sum + n
    log(
        out,
        f"epoch {epoch + 1}/{cfg.epochs} step {step} loss {loss_sum / tok_sum:.3f} "
        f"lr {lr_at(step, total, cfg):.2e} {time.time() - t0:.0f}s",
    )
    return step


def finalize(model, tokenizer, ckpt_dir: Path, final_dir: Path, cfg: TrainConfig, out: Path) -> Path:
    """Average the last epochs' weights and write a ``from_pretrained`` checkpoint."""
    paths = sorted(ckpt_dir.glob("epoch*.pt"))[-cfg.average_last :]
    model.load_state_dict(average_state_dicts(paths))
    model.eval()
    if final_dir.exists():
        shutil.rmtree(final_dir)
    model.save_pretrained(str(final_dir))
    tokenizer.save_pretrained(str(final_dir))
    log(out, f"averaged {len(paths)} checkpoints -> {final_dir}")
    return final_dir
