"""``python -m export_tools {export,train-demo,evaluate}``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m export_tools")
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="export a HuggingFace seq2seq checkpoint to ONNX (fp32 + int8), validated")
    e.add_argument("src", help="HuggingFace model id or local checkpoint directory")
    e.add_argument("out_dir")
    e.add_argument("--no-int8", action="store_true", help="skip the int8 variant")
    e.add_argument(
        "--int8-kind",
        choices=("dynamic-per-row", "weight-only-matmulnbits-8bit", "dynamic"),
        default="dynamic-per-row",
        help="int8 quantization: activation scales per row (default) or weight-only MatMulNBits, both "
        "independent of the batch; or ORT's dynamic quantization (one scale per batch tensor)",
    )
    e.add_argument("--opset", type=int, default=17)
    e.add_argument("--samples", help="text file, one validation sentence per line")
    e.add_argument(
        "--merge",
        action="store_true",
        help="one merged decoder (If on use_cache_branch) instead of decoder + decoder_with_past",
    )
    e.add_argument(
        "--layout",
        choices=("split", "merged", "step"),
        default=None,
        help="decoder files: split (Optimum's decoder + decoder_with_past, default), merged (same as "
        "--merge), traced from torch, or step (Marian only: cross_kv + decoder_step over a KV buffer, fastest "
        "on CPU; the encoder and both built from the converter's blocks, not traced)",
    )
    e.add_argument("--no-validate", action="store_true", help="skip the PyTorch parity check (not recommended)")
    e.add_argument("--tolerance", type=float, default=1e-3, help="max |logit difference| allowed for fp32")
    t = sub.add_parser("train-demo", help="train a small bundled Marian model, en->zh or zh->en (resumable)")
    t.add_argument("out_dir")
    t.add_argument("--direction", choices=("en-zh", "zh-en"), help="default en-zh; zh-en: the pairs reversed")
    t.add_argument("--data", help="tatoeba-style TSV (default: ../shared/data/tatoeba-cmn-eng.tsv)")
    t.add_argument("--epochs", type=int, help="override the configured number of epochs")
    t.add_argument("--threads", type=int, help="override the configured torch thread count")
    v = sub.add_parser("evaluate", help="BLEU/chrF of PyTorch and ONNX fp32/int8, greedy and beam 4")
    v.add_argument("model_dir")
    v.add_argument("--hf", help="the HF checkpoint the model was exported from (adds the PyTorch rows)")
    v.add_argument("--dev", required=True, help="dev.jsonl with {'en': ..., 'refs': [...]} lines")
    v.add_argument("--limit", type=int, help="only the first N dev sentences")
    v.add_argument("--out", help="write the results as JSON here")
    v.add_argument(
        "--compare-int8",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="also score the int8 variant of DIR (e.g. the old quantization) as onnx-int8-LABEL",
    )
    c = sub.add_parser("model-card", help="write MODEL_DIR/README.md from training and evaluation outputs")
    c.add_argument("model_dir")
    c.add_argument("--train-dir", required=True)
    c.add_argument("--eval", required=True, help="JSON written by `evaluate --out`")
    args = parser.parse_args(argv)
    if args.command == "model-card":
        from pathlib import Path

        from .model_card import write_card

        print(write_card(Path(args.model_dir), Path(args.train_dir), Path(args.eval)))
        return 0
    if args.command == "evaluate":
        import json
        from pathlib import Path

        from .evaluate import evaluate

        compare = dict(item.split("=", 1) for item in args.compare_int8)
        results = evaluate(args.model_dir, args.hf, Path(args.dev), args.limit, compare)
        if args.out:
            Path(args.out).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return 0
    if args.command == "export":
        return run_export(args)
    if args.command == "train-demo":
        import dataclasses

        from .train_demo import TrainConfig, train

        overrides = {
            k: v
            for k, v in (("epochs", args.epochs), ("threads", args.threads), ("direction", args.direction))
            if v is not None
        }
        cfg = dataclasses.replace(TrainConfig(), **overrides)
        print(train(args.out_dir, args.data, cfg))
    return 0


def run_export(args) -> int:
    from pathlib import Path

    from desktop_mt.base.errors import DesktopMTError

    from .export import export, print_summary

    samples = None
    if args.samples:
        samples = [line.strip() for line in Path(args.samples).read_text(encoding="utf-8").splitlines() if line.strip()]
    try:
        manifest = export(
            args.src,
            args.out_dir,
            int8=not args.no_int8,
            opset=args.opset,
            samples=samples,
            validate=not args.no_validate,
            tolerance=args.tolerance,
            merge=args.merge,
            layout=args.layout,
            int8_kind=args.int8_kind,
        )
    except DesktopMTError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print_summary(Path(args.out_dir), manifest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
