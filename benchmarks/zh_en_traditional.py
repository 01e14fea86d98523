"""Traditional Chinese into English: convert to Simplified first (OpenCC t2s) or not?

Takes the Chinese side of the FLORES dev file (Simplified), makes a Traditional copy with OpenCC
(``s2twp``, Taiwan phrasing, the Traditional users are likely to paste) and scores three inputs
against the English side with sacrebleu (13a, English output): the Simplified original, the
Traditional copy as it is, and the Traditional copy converted back with ``t2s``. All three in one
run, on the same model and sentences. For a model folder the engine runs with the app's text
handling except ``simplify_source`` (off, so "as it is" means it), and a fourth row feeds the
Traditional copy to the engine's defaults (``simplify_source`` on: the app's behaviour).

    python benchmarks/zh_en_traditional.py MODEL_DIR [--n 300] [--variant int8] [--beams 4] [--out r.json]
    python benchmarks/zh_en_traditional.py MODEL_DIR --data work/zh-en/dev.jsonl   # train-demo's held-out set

``--data`` takes an ``english<TAB>chinese`` file (FLORES dev, the default) or a ``dev.jsonl`` of
``{"src": chinese, "refs": [english, ...]}`` lines (what ``train-demo --direction zh-en`` holds
out: short sentences the demo model can translate, all references used).
    python benchmarks/zh_en_traditional.py --checkpoint EPOCH.pt --tokenizer TOKENIZER_DIR [--n 300]

The second form scores a training checkpoint of ``export_tools train-demo --direction zh-en``
with transformers' generate() (greedy, as the engine with every text-handling step off), for
measuring before the model is exported.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "flores200-dev.en-zh.tsv"


def read_flores(path: Path, n: int) -> tuple[list[list[str]], list[str]]:
    """The first ``n`` (English references, Chinese) rows of an ``english<TAB>chinese`` file or
    a ``dev.jsonl`` with ``src`` (Chinese) and ``refs`` (English)."""
    english, chinese = [], []
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()][:n]
        return [r["refs"] for r in rows], [r["src"] for r in rows]
    for line in path.read_text(encoding="utf-8").splitlines()[:n]:
        en, zh = line.split("\t")[:2]
        english.append([en])
        chinese.append(zh)
    return english, chinese


def ref_streams(refs: list[list[str]]) -> list[list[str]]:
    """sacrebleu's reference streams; a missing reference repeats the first (no effect on BLEU)."""
    width = max(len(r) for r in refs)
    return [[r[i] if i < len(r) else r[0] for r in refs] for i in range(width)]


def engine_translate(
    model_dir: str, variant: str, simplify: bool = False, beams: int | None = None
) -> Callable[[list[str]], list[str]]:
    """The engine with the app's defaults, ``simplify_source`` as given (off: the input as it is)."""
    from desktop_mt import GenerationOptions, Translator

    options = GenerationOptions(simplify_source=simplify, beams=beams)
    return Translator(model_dir, variant=variant, options=options, batch_size=32).translate_batch


def checkpoint_translate(checkpoint: str, tokenizer_dir: str) -> Callable[[list[str]], list[str]]:
    import torch
    from transformers import MarianTokenizer

    from export_tools import train_demo as td

    tokenizer = MarianTokenizer.from_pretrained(tokenizer_dir)
    model = td.build_model(len(tokenizer.get_vocab()), td.TrainConfig(direction="zh-en"))
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    model.load_state_dict(state.get("model", state))
    model.eval()

    def run(texts: list[str]) -> list[str]:
        out = []
        for start in range(0, len(texts), 16):
            batch = tokenizer(
                texts[start : start + 16], return_tensors="pt", padding=True, truncation=True, max_length=250
            )
            with torch.no_grad():
                ids = model.generate(**batch, num_beams=1, do_sample=False, max_new_tokens=120)
            out.extend(tokenizer.batch_decode(ids, skip_special_tokens=True))
        return out

    return run


def unknown_share(spm_path: Path, texts: list[str]) -> float:
    """The share of source pieces the model's SentencePiece does not know (``<unk>``)."""
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(spm_path))
    ids = [i for text in texts for i in sp.encode(text)]
    return sum(i == sp.unk_id() for i in ids) / max(len(ids), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", nargs="?", help="an exported zh->en model folder")
    parser.add_argument("--checkpoint", help="a train-demo checkpoint (.pt) instead of a model folder")
    parser.add_argument("--tokenizer", help="the checkpoint's tokenizer folder")
    parser.add_argument("--variant", default="int8")
    parser.add_argument("--n", type=int, default=300, help="sentences (FLORES dev has 997)")
    parser.add_argument("--beams", type=int, default=None, help="beam size (default: the model's)")
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--out", help="also write the figures to this JSON file")
    args = parser.parse_args()

    import opencc
    import sacrebleu

    translate = (
        checkpoint_translate(args.checkpoint, args.tokenizer)
        if args.checkpoint
        else engine_translate(args.model, args.variant, beams=args.beams)
    )
    english, simplified = read_flores(Path(args.data), args.n)
    traditional = [opencc.OpenCC("s2twp").convert(s) for s in simplified]
    back = [opencc.OpenCC("t2s").convert(s) for s in traditional]
    changed = sum(a != b for a, b in zip(simplified, traditional, strict=True)) / len(simplified)
    identical = sum(a == b for a, b in zip(simplified, back, strict=True)) / len(back)
    print(
        f"{len(simplified)} {Path(args.data).name} sentences; "
        f"{changed:.0%} change when converted to Traditional (s2twp); "
        f"{identical:.0%} come back identical with t2s"
    )
    results: dict = {
        "model": Path(args.checkpoint or args.model).name,
        "engine": "generate() greedy"
        if args.checkpoint
        else f"desktop-mt {args.variant}, beams {args.beams or 'default'}",
        "data": Path(args.data).name,
        "sentences": len(simplified),
        "changed_by_s2twp": round(changed, 4),
        "identical_after_t2s": round(identical, 4),
        "rows": {},
    }
    rows = [
        ("Simplified (original)", simplified, translate),
        ("Traditional as it is", traditional, translate),
        ("Traditional -> t2s", back, translate),
    ]
    if not args.checkpoint:  # the app's path: the engine converts a Chinese source itself
        app = engine_translate(args.model, args.variant, simplify=True, beams=args.beams)
        rows.append(("Traditional, app default", traditional, app))
    spm_path = Path(args.tokenizer if args.checkpoint else args.model) / "source.spm"
    for label, source, _run in rows[:3]:
        share = unknown_share(spm_path, source)
        results["rows"].setdefault(label, {})["unknown_pieces"] = round(share, 4)
        print(f"{label:26s} unknown source pieces {share:.1%}")
    for label, source, run in rows:
        started = time.perf_counter()
        hyps = run(source)
        bleu = sacrebleu.corpus_bleu(hyps, ref_streams(english), tokenize="13a").score
        chrf = sacrebleu.corpus_chrf(hyps, ref_streams(english)).score
        seconds = time.perf_counter() - started
        results["rows"].setdefault(label, {}).update(
            bleu=round(bleu, 2), chrf=round(chrf, 2), seconds=round(seconds, 1), first=hyps[:2]
        )
        print(f"{label:26s} BLEU {bleu:5.2f}  chrF {chrf:5.2f}  ({seconds:.0f} s)")
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
