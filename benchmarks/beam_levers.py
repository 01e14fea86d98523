#!/usr/bin/env python3
"""Beam-search step levers side by side in one process (issue 32): what one batch-32 x beam-4
step (128 rows) costs between the decoder graph and the next step, variants in rotating order.

    python benchmarks/beam_levers.py MODEL_DIR [--threads 2] [--rounds 12] [--past 16] [--out FILE.json]

MODEL_DIR: a Marian with an fp32 Optimum/transformers.js decoder (``arch_model.py``'s
``onnx-merged``); the step graphs are built from its weights by ``desktop_mt.models.convert``.
Each variant is one decoder step plus what the beam search needs from it (each row's top
candidates of its log-softmax):

- ``base``: the per-row int8 step graph as installed, then ``Seq2SeqSessions.row_top`` (a second
  small ORT session, LogSoftmax + TopK, in chunks of ~8 MB of scores), as the search runs now;
- ``tail``: the same graph with LogSoftmax + TopK in its tail (``convert.build_decoder_step(tail=True)``):
  the step returns 128 x 8 candidates instead of 128 x 65,001 logits;
- ``fp32-head``: the lm_head in fp32 (the rest int8), then ``row_top``;
- ``reorder``: base plus the beam reorder of the KV buffer (``KVBuffer.reorder``) with a typical
  permutation (every input's beams take beam 0's or 1's history), to size that lever.

Candidates are compared with base's (same ids, max |value difference|).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from step_levers import feed_for  # noqa: E402

M = 9  # 2 x beams + 1 banned id (pad), as _candidates_from_rows asks


def build(model_dir: Path, tmp: Path) -> dict[str, Path]:
    import onnx

    from desktop_mt.engine.model_format import inspect_model_dir
    from desktop_mt.models import convert as cv

    info = inspect_model_dir(model_dir)
    dims = cv.read_dims(info.config)
    weights = cv.find_decoder_weights(cv.GraphConstants(onnx.load(str(cv.decoder_file(info)))), dims)
    tmp.mkdir(parents=True, exist_ok=True)
    paths = {"base": tmp / "step_base.onnx", "tail": tmp / "step_tail.onnx", "fp32-head": tmp / "step_fp32head.onnx"}
    for name, kwargs in (("base", {}), ("tail", {"tail": True}), ("fp32-head", {"fp32_head": True})):
        if not paths[name].exists():
            cv.save_mapped(cv.build_decoder_step(weights, dims, int8=True, **kwargs), paths[name])
    return paths


def main() -> int:
    import onnxruntime as ort

    from desktop_mt.engine import runtime
    from desktop_mt.engine.kv_cache import KVBuffer
    from desktop_mt.engine.model_format import inspect_model_dir
    from desktop_mt.engine.options import SessionOptions

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--past", type=int, default=16)
    ap.add_argument("--rows", type=int, default=128)
    ap.add_argument("--items", type=int, default=32)
    ap.add_argument("--work", type=Path, default=Path("/tmp/dmt-beam-levers"))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    paths = build(args.model_dir, args.work)
    config = inspect_model_dir(args.model_dir).config
    options = SessionOptions(intra_op_threads=args.threads, inter_op_threads=1)

    def session(path: Path) -> Any:
        so = runtime.ort_session_options(options)
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])

    base, tail, head = session(paths["base"]), session(paths["tail"]), session(paths["fp32-head"])
    small = runtime.ort.InferenceSession(
        runtime.ROW_TOP_ONNX,
        sess_options=runtime.ort_session_options(options, inter_op_threads=1),
        providers=["CPUExecutionProvider"],
    )

    def row_top(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = np.array([M], dtype=np.int64)
        step = max(1, runtime.ROW_TOP_FLOATS // logits.shape[-1])
        parts = [small.run(None, {"logits": logits[i : i + step], "k": k}) for i in range(0, logits.shape[0], step)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    feed = feed_for(config, args.rows, args.items, args.past)
    new_names = [o.name for o in base.get_outputs()][1:]
    layers = len(new_names) // 2
    heads, hd = feed["past_key_values.0.decoder.key"].shape[1], feed["past_key_values.0.decoder.key"].shape[3]
    beams = args.rows // args.items
    cross = [feed[f"past_key_values.{i}.encoder.{kv}"] for i in range(layers) for kv in ("key", "value")]
    buffer = KVBuffer(2 * layers, args.rows, heads, hd, cross, feed["encoder_attention_mask"], capacity=2 * args.past)
    buffer.buffers = [feed[n].copy() for n in feed if n.endswith(".decoder.key") or n.endswith(".decoder.value")]
    buffer.length = args.past
    rng = np.random.default_rng(0)
    perm = (np.arange(args.items)[:, None] * beams + rng.integers(0, 2, (args.items, beams))).reshape(-1)

    def v_base() -> tuple[np.ndarray, np.ndarray]:
        out = base.run(["logits", *new_names], feed)
        return row_top(out[0][:, -1:, :])

    def v_tail() -> tuple[np.ndarray, np.ndarray]:
        out = tail.run(["top_values", "top_ids", *new_names], {**feed, "top_k": np.array([M], np.int64)})
        return out[0], out[1]

    def v_head() -> tuple[np.ndarray, np.ndarray]:
        out = head.run(["logits", *new_names], feed)
        return row_top(out[0][:, -1:, :])

    def v_reorder() -> tuple[np.ndarray, np.ndarray]:
        got = v_base()
        buffer.reorder(perm)
        return got

    variants = {"base": v_base, "tail": v_tail, "fp32-head": v_head, "reorder": v_reorder}
    ref = v_base()
    same = {}
    for name, fn in variants.items():
        values, ids = fn()
        same[name] = {
            "same_ids": bool(np.array_equal(ids, ref[1])),
            "max_value_diff": float(np.abs(values - ref[0]).max()),
        }
    # the tail with top_k 0 (greedy would run it so): does the If cost anything?
    zero = tail.run(["top_values", *new_names], {**feed, "top_k": np.array([0], np.int64)})[0]
    times: dict[str, list[float]] = {k: [] for k in variants}
    names = list(variants)
    for r in range(args.rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            t0 = time.perf_counter()
            for _ in range(3):
                variants[name]()
            times[name].append((time.perf_counter() - t0) / 3)
    result = {
        "threads": args.threads,
        "rounds": args.rounds,
        "rows": args.rows,
        "items": args.items,
        "past": args.past,
        "ms": {k: round(statistics.median(v) * 1000, 2) for k, v in times.items()},
        "speed_vs_base": {
            k: round(statistics.median(b / x for b, x in zip(times["base"], v, strict=True)), 3)
            for k, v in times.items()
        },
        "candidates_vs_base": same,
        "tail_top_k0_shape": list(zero.shape),
    }
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
