#!/usr/bin/env python3
"""Decoder layouts of one model compared in one process (issue 17: ship the fast path).

    python benchmarks/layouts.py parity HF_DIR MODEL_DIR [--n 300]
    python benchmarks/layouts.py compare MERGED_DIR STEP_DIR [--threads 1] [--out FILE.json]
    python benchmarks/layouts.py long MERGED_DIR STEP_DIR [--threads 1] [--n 200] [--out FILE.json]

``parity``: transformers ``generate()`` on HF_DIR against our runtime on MODEL_DIR's fp32
files, token by token, greedy and beam 4, on the first N lines of ``tests/data/tatoeba-sample.tsv``
(batches of 16, the runtime's own additions switched off as in ``tests/engine/test_parity.py``).
Used to check a checkpoint recovered with ``python -m export_tools.recover``.

``compare``: the int8 variants of two directories of the same model, loaded side by side and
run alternately (A then B, then B then A, ...) so that a busy machine slows both alike:
batch-1 greedy latency per sentence, batch-32 greedy and beam-4 throughput, and whether the
outputs are token-identical, on the Tatoeba sample (600 lines) and the Tatoeba dev set (800
English sentences held out of training, rebuilt from ``../shared/data/tatoeba-cmn-eng.tsv``
when present). Generation uses the app's defaults (output bound, repetition guard).

``long``: long outputs, where the KV buffer of the step layout grows: the N longest distinct
English lines of ``../shared/data/tatoeba-cmn-eng.tsv`` (of the sample when it is absent),
batch 32 beam 4 (``--beams``), three engines run in rotating order: the merged directory, the
step directory with the engine's buffer policy (start at ``FIRST_CAPACITY``, double, capped at
the length limit) and the step directory with the old policy (start at 64, grow by 32; patched
around its calls only). Throughput ratios against the merged one, and whether tokens match.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "tests" / "data" / "tatoeba-sample.tsv"
TATOEBA = ROOT.parent / "shared" / "data" / "tatoeba-cmn-eng.tsv"
NO_BOUND = dict(max_length_ratio=0, repetition_guard=False, chinese_punctuation=False)


def sample_lines(n: int | None = None) -> list[str]:
    lines = [line.split("\t")[0] for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines[:n] if n else lines


def dev_lines() -> list[str]:
    """The 800 dev English sentences of the bundled model (the model card's split)."""
    if not TATOEBA.exists():
        return []
    from export_tools.train_demo import read_pairs, split_by_source

    split = split_by_source(read_pairs(TATOEBA), 800, 1234)
    dev = split[1] if isinstance(split, tuple) else split["dev"]
    english = []
    for item in dev:
        en = item[0] if isinstance(item, (tuple, list)) else item["en"]
        if en not in english:
            english.append(en)
    return english


def long_lines(n: int) -> list[str]:
    """The ``n`` longest distinct English lines (characters) of the full Tatoeba file, else of the sample."""
    source = TATOEBA if TATOEBA.exists() else SAMPLE
    english: dict[str, None] = {}
    for line in source.read_text(encoding="utf-8-sig").splitlines():
        if line.strip():
            english.setdefault(line.split("\t")[0].strip(), None)
    return sorted(english, key=len, reverse=True)[:n]


@contextmanager
def buffer_policy(first: int | None, growth: int | None):
    """The KV buffer's first capacity and growth (``growth`` positions added; 0 or None: the
    engine's doubling), patched in this process while the block runs."""
    from desktop_mt.engine import kv_cache

    saved = kv_cache.FIRST_CAPACITY, kv_cache.KVBuffer._next_capacity
    try:
        if first:
            kv_cache.FIRST_CAPACITY = first
        if growth:
            kv_cache.KVBuffer._next_capacity = lambda self: self.capacity + growth  # type: ignore[method-assign]
        yield
    finally:
        kv_cache.FIRST_CAPACITY, kv_cache.KVBuffer._next_capacity = saved  # type: ignore[method-assign]


def chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def parity(hf_dir: str, model_dir: str, n: int) -> dict:
    import torch
    from transformers import AutoTokenizer, MarianMTModel

    from desktop_mt import GenerationOptions, Translator

    model = MarianMTModel.from_pretrained(hf_dir, attn_implementation="eager").eval()
    tokenizer = AutoTokenizer.from_pretrained(hf_dir)
    ours = Translator(model_dir, variant="fp32")
    texts = sample_lines(n)
    result = {"sentences": len(texts)}
    for beams in (1, 4):
        same, differ = 0, []
        for batch in chunks(texts, 16):
            enc = tokenizer(batch, return_tensors="pt", padding=True)
            with torch.no_grad():
                out = model.generate(**enc, do_sample=False, num_beams=beams)
            theirs = []
            for row in out.tolist():
                row = row[1:]
                while row and row[-1] == model.config.pad_token_id:
                    row.pop()
                theirs.append(row)
            mine = ours.generate_ids(batch, GenerationOptions(beams=beams, **NO_BOUND))
            for text, a, b in zip(batch, mine, theirs):
                if a == b:
                    same += 1
                else:
                    differ.append(text)
        result[f"beam{beams}_identical"] = same
        result[f"beam{beams}_differ"] = differ[:10]
    return result


def _bytes(model_dir: Path, variant: str) -> int:
    manifest = json.loads((model_dir / "desktop_mt.json").read_text(encoding="utf-8"))
    return sum(f["bytes"] for f in manifest["variants"][variant]["files"].values())


def compare(
    dir_a: str,
    dir_b: str,
    threads: int,
    labels: tuple[str, str],
    latency_n: int,
    repeats: int,
    limit: int | None = None,
) -> dict:
    from desktop_mt import GenerationOptions, SessionOptions, Translator

    session = SessionOptions(intra_op_threads=threads, inter_op_threads=1)
    engines = [Translator(d, variant="int8", session_options=session) for d in (dir_a, dir_b)]
    greedy, beam4 = GenerationOptions(beams=1), GenerationOptions(beams=4)  # generate_ids: one padded batch
    sets = {"sample": sample_lines(limit), "dev": dev_lines()[:limit]}
    sets = {k: v for k, v in sets.items() if v}
    for engine in engines:  # warm up both (first-run allocations, ORT's lazy init)
        engine.generate_ids(sets["sample"][:32], greedy)
        engine.generate_ids(sets["sample"][:4], beam4)

    def timed(engine, texts, opts):
        t0 = time.perf_counter()
        out = engine.generate_ids(texts, opts)
        return time.perf_counter() - t0, out

    def alternate(k, call):
        """Run ``call(engine)`` for both engines, the first one alternating with ``k``."""
        order = (0, 1) if k % 2 == 0 else (1, 0)
        res = [None, None]
        for i in order:
            res[i] = call(engines[i])
        return res

    from desktop_mt.engine import kv_cache

    report: dict = {
        "threads": threads,
        "kv_buffer": [kv_cache.FIRST_CAPACITY, GROWTH_NOTE],
        "labels": list(labels),
        "sets": {k: len(v) for k, v in sets.items()},
    }
    # batch-1 greedy latency: one sentence at a time, median per sentence
    lat = [[], []]
    lat_same = 0
    for k, text in enumerate(sets["sample"][:latency_n]):
        (ta, oa), (tb, ob) = alternate(k, lambda e, text=text: timed(e, [text], greedy))
        lat[0].append(ta)
        lat[1].append(tb)
        lat_same += oa == ob
    report["b1_greedy_latency_ms"] = {labels[i]: round(statistics.median(lat[i]) * 1e3, 3) for i in range(2)}
    report["b1_greedy_latency_ratio"] = round(statistics.median(lat[1]) / statistics.median(lat[0]), 3)
    report["b1_greedy_per_sentence_ratio_median"] = round(statistics.median(b / a for a, b in zip(*lat)), 3)
    report["b1_identical"] = f"{lat_same}/{len(lat[0])}"
    # batch-32 throughput over both sets, greedy and beam 4; every repeat alternates the order
    for name, opts in (("b32_greedy", greedy), ("b32_beam4", beam4)):
        totals = [[], []]  # per repeat, seconds for all sentences
        outputs: dict = {}
        for r in range(repeats):
            secs = [0.0, 0.0]
            for k, (set_name, texts) in enumerate(sets.items()):
                for c, batch in enumerate(chunks(texts, 32)):
                    (ta, oa), (tb, ob) = alternate(r + k + c, lambda e, batch=batch, opts=opts: timed(e, batch, opts))
                    secs[0] += ta
                    secs[1] += tb
                    if r == 0:
                        outputs.setdefault(set_name, [[], [], []])
                        outputs[set_name][0] += oa
                        outputs[set_name][1] += ob
                        outputs[set_name][2] += batch
            totals[0].append(secs[0])
            totals[1].append(secs[1])
        n = sum(len(v) for v in sets.values())
        med = [statistics.median(t) for t in totals]
        report[f"{name}_sentences_per_s"] = {labels[i]: round(n / med[i], 2) for i in range(2)}
        report[f"{name}_throughput_ratio"] = round(med[0] / med[1], 3)  # B's throughput / A's
        report[f"{name}_repeat_seconds"] = {labels[i]: [round(s, 2) for s in totals[i]] for i in range(2)}
        for set_name, (oa, ob, texts) in outputs.items():
            differ = [t for t, a, b in zip(texts, oa, ob) if a != b]
            report[f"{name}_identical_{set_name}"] = f"{len(texts) - len(differ)}/{len(texts)}"
            if differ:
                report[f"{name}_differ_{set_name}"] = differ[:10]
    report["int8_bytes"] = {labels[i]: _bytes(Path(d), "int8") for i, d in enumerate((dir_a, dir_b))}
    report["fp32_bytes"] = {labels[i]: _bytes(Path(d), "fp32") for i, d in enumerate((dir_a, dir_b))}
    import onnxruntime

    report["onnxruntime"] = onnxruntime.__version__
    return report


GROWTH_NOTE = "double, capped at the length limit"  # what --step-capacity's GROWTH replaces


def long_outputs(merged_dir: str, step_dir: str, threads: int, n: int, repeats: int, beams: int, batch: int) -> dict:
    from desktop_mt import GenerationOptions, SessionOptions, Translator
    from desktop_mt.engine import kv_cache

    session = SessionOptions(intra_op_threads=threads, inter_op_threads=1)
    labels = ["merged", "step", "step_old_growth"]
    policies: list[tuple[int | None, int | None]] = [(None, None), (None, None), (64, 32)]
    engines = [Translator(d, variant="int8", session_options=session) for d in (merged_dir, step_dir, step_dir)]
    opts = GenerationOptions(beams=beams)
    texts = long_lines(n)
    for engine, policy in zip(engines, policies):  # warm up
        with buffer_policy(*policy):
            engine.generate_ids(texts[:8], opts)
    totals: list[list[float]] = [[] for _ in engines]
    outputs: list[list] = [[] for _ in engines]
    calls = 0
    for r in range(repeats):
        secs = [0.0] * len(engines)
        for part in chunks(texts, batch):
            for j in range(len(engines)):  # rotating order: each engine runs first, second, third in turn
                i = (j + calls) % len(engines)
                with buffer_policy(*policies[i]):
                    t0 = time.perf_counter()
                    out = engines[i].generate_ids(part, opts)
                    secs[i] += time.perf_counter() - t0
                if r == 0:
                    outputs[i] += out
            calls += 1
        for i in range(len(engines)):
            totals[i].append(secs[i])
    med = [statistics.median(t) for t in totals]
    lengths = sorted(len(o) for o in outputs[0])
    report: dict = {
        "threads": threads,
        "beams": beams,
        "batch": batch,
        "sentences": len(texts),
        "source_chars_min_max": [len(texts[-1]), len(texts[0])],
        "output_tokens_median_max": [lengths[len(lengths) // 2], lengths[-1]],
        "kv_buffer": {"step": [kv_cache.FIRST_CAPACITY, GROWTH_NOTE], "step_old_growth": [64, "+32"]},
    }
    report["sentences_per_s"] = {labels[i]: round(len(texts) / med[i], 2) for i in range(len(engines))}
    report["throughput_ratio_vs_merged"] = {labels[i]: round(med[0] / med[i], 3) for i in (1, 2)}
    report["step_vs_step_old_growth"] = round(med[2] / med[1], 3)
    report["repeat_seconds"] = {labels[i]: [round(s, 2) for s in totals[i]] for i in range(len(engines))}
    for i in (1, 2):
        differ = [t for t, a, b in zip(texts, outputs[0], outputs[i]) if a != b]
        report[f"identical_{labels[i]}_vs_merged"] = f"{len(texts) - len(differ)}/{len(texts)}"
        if differ:
            report[f"differ_{labels[i]}"] = differ[:10]
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("parity")
    p.add_argument("hf_dir")
    p.add_argument("model_dir")
    p.add_argument("--n", type=int, default=300)
    c = sub.add_parser("compare")
    c.add_argument("dir_a", help="e.g. the merged layout (the baseline)")
    c.add_argument("dir_b", help="e.g. the step layout")
    c.add_argument("--labels", nargs=2, default=("merged", "step"))
    c.add_argument("--threads", type=int, default=1, help="ORT intra-op threads (1: least disturbed on a busy machine)")
    c.add_argument("--latency-n", type=int, default=200, help="sentences for the batch-1 latency")
    c.add_argument("--repeats", type=int, default=3, help="passes over the sets for the batch-32 throughput")
    c.add_argument("--limit", type=int, help="only the first N sentences of each set (a quick check)")
    c.add_argument(
        "--step-capacity",
        type=int,
        nargs=2,
        metavar=("FIRST", "GROWTH"),
        help="an experiment: the KV buffer's first capacity cap and a fixed growth step "
        "(0: the engine's doubling; desktop_mt.engine.kv_cache, patched in this process)",
    )
    g = sub.add_parser("long")
    g.add_argument("merged_dir")
    g.add_argument("step_dir")
    g.add_argument("--threads", type=int, default=1)
    g.add_argument("--n", type=int, default=200, help="the N longest English lines")
    g.add_argument("--repeats", type=int, default=3)
    g.add_argument("--beams", type=int, default=4)
    g.add_argument("--batch", type=int, default=32)
    for q in (p, c, g):
        q.add_argument("--out", help="also write the JSON report here")
    args = parser.parse_args(argv)
    if args.command == "parity":
        report = parity(args.hf_dir, args.model_dir, args.n)
    elif args.command == "long":
        report = long_outputs(
            args.merged_dir, args.step_dir, args.threads, args.n, args.repeats, args.beams, args.batch
        )
    else:
        with buffer_policy(*(args.step_capacity or (None, None))):
            report = compare(
                args.dir_a, args.dir_b, args.threads, tuple(args.labels), args.latency_n, args.repeats, args.limit
            )
        if args.step_capacity:
            report["kv_buffer"] = [
                args.step_capacity[0],
                f"+{args.step_capacity[1]}" if args.step_capacity[1] else GROWTH_NOTE,
            ]
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
