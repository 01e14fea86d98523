"""``python -m export_tools {export,train-demo,evaluate}``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m export_tools")
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train-demo", help="train the small bundled en->zh Marian model (resumable)")
    t.add_argument("out_dir")
    t.add_argument("--data", help="tatoeba-style TSV (default: ../shared/data/tatoeba-cmn-eng.tsv)")
    t.add_argument("--epochs", type=int, help="override the configured number of epochs")
    args = parser.parse_args(argv)
    if args.command == "train-demo":
        import dataclasses

        from .train_demo import TrainConfig, train

        cfg = TrainConfig() if args.epochs is None else dataclasses.replace(TrainConfig(), epochs=args.epochs)
        print(train(args.out_dir, args.data, cfg))
    return 0


if __name__ == "__main__":
    sys.exit(main())
