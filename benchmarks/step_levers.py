#!/usr/bin/env python3
"""Decoder-step levers side by side in one process (issue 32): one step of the per-row int8 step
graph at 1, 32 and 128 rows, variants run in rotating order so a busy machine slows them alike.

    python benchmarks/step_levers.py MODEL_DIR [--threads 2] [--rounds 15] [--out FILE.json]

MODEL_DIR: a Marian with an fp32 Optimum/transformers.js decoder (``benchmarks/arch_model.py``'s
``onnx-merged``); the step graphs are built from its weights by ``desktop_mt.models.convert``.
Variants: ``base`` (what convert writes, ORT ``ORT_ENABLE_ALL``), ``fused-quant`` (each per-row
activation quantization as one ``QuantizeLinear`` along the rows instead of Div, Round, Add, Cast),
``opt-extended`` / ``opt-basic`` (ORT graph optimization level), and ``iobinding`` (base with
the logits and new K/V written into preallocated buffers through ORT's IO binding). Each variant's
logits are compared with base's (max |difference|; 0 = the same bytes).
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


def build(model_dir: Path, tmp: Path) -> dict[str, Path]:
    import onnx

    from desktop_mt.engine.model_format import inspect_model_dir
    from desktop_mt.models import convert as cv

    info = inspect_model_dir(model_dir)
    dims = cv.read_dims(info.config)
    weights = cv.find_decoder_weights(cv.GraphConstants(onnx.load(str(cv.decoder_file(info)))), dims)
    tmp.mkdir(parents=True, exist_ok=True)
    paths = {"base": tmp / "step_base.onnx", "fused-quant": tmp / "step_fused.onnx"}
    if not paths["base"].exists():
        onnx.save(cv.build_decoder_step(weights, dims, int8=True), str(paths["base"]))
    if not paths["fused-quant"].exists():
        onnx.save(cv.build_decoder_step(weights, dims, int8=True, fused_rows=True), str(paths["fused-quant"]))
    return paths


def feed_for(config: dict[str, Any], rows: int, items: int, past: int) -> dict[str, np.ndarray]:
    heads, d = int(config["decoder_attention_heads"]), int(config["d_model"])
    layers, hd, src = int(config["decoder_layers"]), d // heads, 12
    rng = np.random.default_rng(rows)
    feed = {
        "input_ids": rng.integers(0, 1000, (rows, 1)).astype(np.int64),
        "encoder_attention_mask": np.ones((items, src), dtype=np.int64),
        "past_length": np.array(past, dtype=np.int64),
    }
    for i in range(layers):
        for side, n, length in (("decoder", rows, 2 * past), ("encoder", items, src)):
            for kv in ("key", "value"):
                feed[f"past_key_values.{i}.{side}.{kv}"] = rng.standard_normal((n, heads, length, hd)).astype(
                    np.float32
                )
    return feed


class Runner:
    def __init__(self, session: Any, iobinding: bool = False):
        self.session, self.iobinding = session, iobinding
        self.names = [o.name for o in session.get_outputs()]

    def __call__(self, feed: dict[str, np.ndarray]) -> np.ndarray:
        if not self.iobinding:
            out: np.ndarray = self.session.run(None, feed)[0]
            return out
        binding = self.session.io_binding()
        for k, v in feed.items():
            binding.bind_cpu_input(k, v)
        rows = feed["input_ids"].shape[0]
        if getattr(self, "_rows", None) != rows:
            self._rows = rows
            vocab = self.session.get_outputs()[0].shape[-1]
            heads, hd = feed["past_key_values.0.decoder.key"].shape[1], feed["past_key_values.0.decoder.key"].shape[3]
            self._outs = [np.empty((rows, 1, vocab), np.float32)] + [
                np.empty((rows, heads, 1, hd), np.float32) for _ in self.names[1:]
            ]
        for name, buf in zip(self.names, self._outs, strict=True):
            binding.bind_output(name, "cpu", 0, np.float32, list(buf.shape), buf.ctypes.data)
        self.session.run_with_iobinding(binding)
        return self._outs[0]


def main() -> int:
    import onnxruntime as ort

    from desktop_mt.engine.model_format import inspect_model_dir
    from desktop_mt.engine.options import SessionOptions
    from desktop_mt.engine.runtime import ort_session_options

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--past", type=int, default=16)
    ap.add_argument("--work", type=Path, default=Path("/tmp/dmt-step-levers"))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    paths = build(args.model_dir, args.work)
    config = inspect_model_dir(args.model_dir).config

    def session(path: Path, level: Any = ort.GraphOptimizationLevel.ORT_ENABLE_ALL) -> Any:
        so = ort_session_options(SessionOptions(intra_op_threads=args.threads, inter_op_threads=1))
        so.graph_optimization_level = level
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])

    base = session(paths["base"])
    variants = {
        "base": Runner(base),
        "fused-quant": Runner(session(paths["fused-quant"])),
        "opt-extended": Runner(session(paths["base"], ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED)),
        "opt-basic": Runner(session(paths["base"], ort.GraphOptimizationLevel.ORT_ENABLE_BASIC)),
        "iobinding": Runner(base, iobinding=True),
    }
    result: dict[str, Any] = {"threads": args.threads, "rounds": args.rounds, "past": args.past, "shapes": {}}
    for rows, items in ((1, 1), (32, 32), (128, 32)):
        feed = feed_for(config, rows, items, args.past)
        reference = variants["base"](feed).copy()
        times: dict[str, list[float]] = {k: [] for k in variants}
        same = {k: float(np.abs(v(feed) - reference).max()) for k, v in variants.items()}
        names = list(variants)
        repeat = 20 if rows == 1 else 3
        for r in range(args.rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                t0 = time.perf_counter()
                for _ in range(repeat):
                    variants[name](feed)
                times[name].append((time.perf_counter() - t0) / repeat)
        ratio = {
            k: round(statistics.median(b / x for b, x in zip(times["base"], times[k], strict=True)), 3) for k in names
        }
        result["shapes"][f"{rows} rows ({items} inputs)"] = {
            "ms": {k: round(statistics.median(v) * 1000, 2) for k, v in times.items()},
            "speed_vs_base": ratio,
            "max_abs_logit_diff_vs_base": same,
        }
        print(json.dumps({f"{rows} rows": result["shapes"][f"{rows} rows ({items} inputs)"]}), flush=True)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
