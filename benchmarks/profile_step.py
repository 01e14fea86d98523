#!/usr/bin/env python3
"""Where a batch-32 decode goes (issue 32): search split into its parts, and ORT's per-op profile
of one decoder step.

    python benchmarks/profile_step.py MODEL_DIR [--variant int8] [--threads 2] [--batch 32] [--tokens 32] [--own-pools]

MODEL_DIR: a model of the opus-mt-en-zh architecture (``benchmarks/arch_model.py`` builds one with
random weights, step layout). Two parts, printed as JSON:

- ``search``: a greedy and a beam-4 decode of ``--batch`` Tatoeba sentences, ``--tokens`` tokens
  each (EOS banned before), with every call into ONNX Runtime timed (encoder, first step, later
  steps, the beam search's row TopK); what is left is numpy search work between steps.
- ``ops``: ORT's own profile of one decoder step at ``batch`` rows (greedy) and ``4 * batch`` rows
  (beam 4), past ``--tokens``: kernel time grouped by what the node computes (lm_head, the other
  linear layers, attention, layer norms, the rest), and the top ops.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "tests" / "data" / "tatoeba-sample.tsv"


def sentences(n: int) -> list[str]:
    lines = [ln.split("\t")[0] for ln in SAMPLE.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return [s for s in lines if len(s.split()) >= 3][:n]


class Timed:
    """A ``DecoderRunner`` that times each call into ONNX Runtime (by method name)."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.secs: collections.Counter[str] = collections.Counter()
        self.calls: collections.Counter[str] = collections.Counter()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr) or name not in ("encode", "decode_first", "decode_next", "row_top", "log_softmax"):
            return attr

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return attr(*args, **kwargs)
            finally:
                self.secs[name] += time.perf_counter() - t0
                self.calls[name] += 1

        return timed


def search_split(model_dir: Path, variant: str, threads: int, batch: int, tokens: int) -> dict[str, Any]:
    import dataclasses

    from desktop_mt.engine import generation as gen
    from desktop_mt.engine.model_format import inspect_model_dir
    from desktop_mt.engine.options import SessionOptions
    from desktop_mt.engine.runtime import Seq2SeqSessions
    from desktop_mt.engine.tokenizer import SentencePieceTokenizer
    from desktop_mt.engine.translator import decode_params

    info = inspect_model_dir(model_dir)
    sessions = Seq2SeqSessions(info, variant, SessionOptions(intra_op_threads=threads, inter_op_threads=1))
    tok = SentencePieceTokenizer(info)
    src = [tok.encode(s) for s in sentences(batch)]
    base = decode_params(info)
    out: dict[str, Any] = {}
    for beams in (1, 4):
        params = dataclasses.replace(base, beams=beams, min_length=tokens + 1)
        timed = Timed(sessions)
        search = gen.greedy if beams == 1 else gen.beam_search
        list(search(timed, src, [tokens + 1] * len(src), params))  # warm-up
        timed.secs.clear()
        timed.calls.clear()
        t0 = time.perf_counter()
        list(search(timed, src, [tokens + 1] * len(src), params))
        total = time.perf_counter() - t0
        ort_secs = sum(timed.secs.values())
        out[f"beam{beams}"] = {
            "total_s": round(total, 3),
            **{f"{k}_s": round(v, 3) for k, v in sorted(timed.secs.items())},
            "numpy_search_s": round(total - ort_secs, 3),
            "numpy_share": round((total - ort_secs) / total, 3),
            "calls": dict(timed.calls),
        }
    return out


def op_group(name: str, op: str, head: frozenset[str] = frozenset()) -> str:
    if "lm_head" in name or name.split("/")[0] in head:
        return "lm_head"
    if re.search(r"(q_proj|k_proj|v_proj|out_proj|fc1|fc2)", name) or op in ("MatMulIntegerToFloat", "MatMulNBits"):
        return "linear"
    if "rowq" in name or op in ("DynamicQuantizeLinear", "DynamicQuantizeMatMul"):
        return "activation quantization"
    if "layer_norm" in name or "LayerNorm" in op:
        return "layer norm"
    if "self_attn" in name or "encoder_attn" in name or op in ("Softmax",):
        return "attention"
    return "other"


def head_nodes(path: Path) -> frozenset[str]:
    """Names of the nodes between the lm_head's product and ``logits`` (the product, its row scale,
    the bias): walked back from ``logits`` through Identity/Mul/Add to the first product."""
    import onnx

    graph = onnx.load(str(path), load_external_data=False).graph
    made_by = {out: node for node in graph.node for out in node.output}
    names: set[str] = set()
    node = made_by.get("logits")
    while node is not None:
        names.add(node.name)
        if node.op_type not in ("Identity", "Mul", "Add"):
            break
        node = made_by.get(node.input[0])
    return frozenset(names)


def step_profile(model_dir: Path, variant: str, threads: int, rows: int, items: int, past: int) -> dict[str, Any]:
    import numpy as np
    import onnxruntime as ort

    from desktop_mt.engine.model_format import inspect_model_dir
    from desktop_mt.engine.options import SessionOptions
    from desktop_mt.engine.runtime import ort_session_options

    info = inspect_model_dir(model_dir)
    files = info.files[variant]
    if "decoder_step" not in files:
        raise SystemExit("the op profile is written for the step layout")
    so = ort_session_options(SessionOptions(intra_op_threads=threads, inter_op_threads=1))
    so.enable_profiling = True
    tmp = tempfile.mkdtemp(prefix="dmt-prof-")
    so.profile_file_prefix = os.path.join(tmp, "step")
    sess = ort.InferenceSession(str(files["decoder_step"]), so, providers=["CPUExecutionProvider"])
    head = head_nodes(files["decoder_step"])
    cfg = info.config
    heads, d = int(cfg["decoder_attention_heads"]), int(cfg["d_model"])
    layers, hd, src, capacity = int(cfg["decoder_layers"]), d // heads, 12, past + 1
    rng = np.random.default_rng(0)
    feed: dict[str, Any] = {
        "input_ids": rng.integers(0, 1000, (rows, 1)).astype(np.int64),
        "encoder_attention_mask": np.ones((items, src), dtype=np.int64),
        "past_length": np.array(past, dtype=np.int64),
    }
    for i in range(layers):
        for side, n, length in (("decoder", rows, capacity), ("encoder", items, src)):
            for kv in ("key", "value"):
                feed[f"past_key_values.{i}.{side}.{kv}"] = rng.standard_normal((n, heads, length, hd)).astype(
                    np.float32
                )
    for _ in range(3):
        sess.run(None, feed)
    n = 10
    t0 = time.perf_counter()
    for _ in range(n):
        sess.run(None, feed)
    wall = (time.perf_counter() - t0) / n
    path = sess.end_profiling()
    events = json.loads(Path(path).read_text())
    groups: collections.Counter[str] = collections.Counter()
    ops: collections.Counter[str] = collections.Counter()
    for ev in events:
        if ev.get("cat") != "Node" or not ev["name"].endswith("_kernel_time"):
            continue
        name, op = ev["name"][: -len("_kernel_time")], ev["args"].get("op_name", "")
        groups[op_group(name, op, head)] += ev["dur"]
        ops[op] += ev["dur"]
    runs = n + 3
    kernel = sum(groups.values()) / runs / 1000
    return {
        "rows": rows,
        "past": past,
        "wall_ms": round(wall * 1000, 2),
        "kernel_ms": round(kernel, 2),
        "groups_ms": {k: round(v / runs / 1000, 2) for k, v in groups.most_common()},
        "top_ops_ms": {k: round(v / runs / 1000, 2) for k, v in ops.most_common(8)},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--variant", default="int8")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--skip-search", action="store_true")
    ap.add_argument("--own-pools", action="store_true", help="a thread pool per session (the app shares one)")
    args = ap.parse_args()
    if not args.own_pools:
        from desktop_mt.engine.runtime import share_thread_pool

        share_thread_pool(args.threads)
    res: dict[str, Any] = {
        "model": str(args.model_dir),
        "variant": args.variant,
        "threads": args.threads,
        "shared_pool": not args.own_pools,
    }
    if not args.skip_search:
        res["search"] = search_split(args.model_dir, args.variant, args.threads, args.batch, args.tokens)
    res["ops"] = [
        step_profile(args.model_dir, args.variant, args.threads, rows, args.batch, args.tokens // 2)
        for rows in (args.batch, 4 * args.batch)
    ]
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
