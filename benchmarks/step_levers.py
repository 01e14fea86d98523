#!/usr/bin/env python3
"""Decoder-step levers side by side in one process (issue 32): one step of the per-row int8 step
graph at 1, 32 and 128 rows, variants run in rotating order so a busy machine slows them alike.

    python benchmarks/step_levers.py MODEL_DIR [--threads 2] [--rounds 15] [--own-pools] [--out FILE.json]

MODEL_DIR: a Marian with an fp32 Optimum/transformers.js decoder (``benchmarks/arch_model.py``'s
``onnx-merged``); the step graphs are built from its weights by ``desktop_mt.models.convert``.
Sessions share one thread pool, as the app's do (``runtime.share_thread_pool``; ``--own-pools``:
a pool per session). Variants:

- ``base``: what convert writes (ORT ``ORT_ENABLE_ALL``); ``fp32``: the fp32 step graph (the
  reference the differences are measured against);
- ``fused-quant``: each per-row activation quantization as one ``QuantizeLinear`` along the rows
  instead of Div, Round, Add, Cast (the same bytes);
- ``opt-extended`` / ``opt-basic``: ORT graph optimization level; ``iobinding``: base with the
  logits and new K/V written into preallocated buffers through ORT's IO binding;
- ``head-outside``: base without the lm_head's row-scale ``Mul`` and bias ``Add`` (sizes the lever
  of doing them outside the step, e.g. in ``row_top``'s chunks; its logits are not finished);
- ``k-transposed``: the self-attention key buffer stored as [rows, heads, head_dim, capacity], so
  the scores are a plain MatMul instead of one over a transposed buffer (the same bytes);
- ``nbits-256``: weight-only ``MatMulNBits`` 8-bit in blocks of 256, ``accuracy_level`` 4 (int8
  products; activations quantized per row and block, so still batch-independent), biases fused.

Two upper bounds of levers that change outputs, for speed only (their logits mean nothing):

- ``static-scales``: base with one fixed activation scale instead of each row's (not calibrated:
  0.05 everywhere): one ``QuantizeLinear`` per activation, the products take the scale and the
  bias themselves, no row-scale ``Mul`` or bias ``Add``;
- ``shortlist-8k``: base with the lm_head cut to its first 8,000 columns, as a vocabulary
  shortlist of that size would make it (the logits are base's first 8,000).

Each variant's logits are compared with base's (max |difference|; 0 = the same bytes) and with
fp32's (max |difference| / max |fp32 logit|).
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
    from export_tools.quantize import weight_only_int8

    info = inspect_model_dir(model_dir)
    dims = cv.read_dims(info.config)
    weights = cv.find_decoder_weights(cv.GraphConstants(onnx.load(str(cv.decoder_file(info)))), dims)
    tmp.mkdir(parents=True, exist_ok=True)
    makers = {
        "base": lambda: cv.build_decoder_step(weights, dims, int8=True),
        "fp32": lambda: cv.build_decoder_step(weights, dims, int8=False),
        "fused-quant": lambda: cv.build_decoder_step(weights, dims, int8=True, fused_rows=True),
        "head-outside": lambda: head_outside(cv.build_decoder_step(weights, dims, int8=True)),
        "k-transposed": lambda: k_transposed(cv.build_decoder_step(weights, dims, int8=True)),
        "nbits-256": lambda: fuse_nbits_bias(
            weight_only_int8(cv.build_decoder_step(weights, dims, int8=False), block_size=256, accuracy_level=4)
        ),
        "static-scales": lambda: static_scales(cv.build_decoder_step(weights, dims, int8=True)),
        "shortlist-8k": lambda: shortlist(cv.build_decoder_step(weights, dims, int8=True), 8000),
    }
    paths = {name: tmp / f"step_{name}.onnx" for name in makers}
    for name, make in makers.items():
        if not paths[name].exists():
            onnx.save(make(), str(paths[name]))
    return paths


def _consumers(graph: Any, name: str) -> list[Any]:
    return [n for n in graph.node if name in n.input]


def head_outside(model: Any) -> Any:
    """The graph without the lm_head's row-scale Mul and bias Add: ``logits`` is the raw product."""
    graph = model.graph
    (product,) = [n for n in graph.node if n.op_type == "MatMulIntegerToFloat" and "lm_head.weight_int8" in n.input]
    (mul,) = _consumers(graph, product.output[0])
    (add,) = _consumers(graph, mul.output[0])
    for node in _consumers(graph, add.output[0]):
        node.input[list(node.input).index(add.output[0])] = product.output[0]
    graph.node.remove(mul)
    graph.node.remove(add)
    return model


def k_transposed(model: Any) -> Any:
    """Self-attention key buffers as [rows, heads, head_dim, capacity]: the Transpose before the
    scores' MatMul goes, and the capacity is read from the value buffer's shape."""
    graph = model.graph
    keys = {i.name for i in graph.input if i.name.startswith("past_key_values.") and i.name.endswith("decoder.key")}
    for value in graph.input:
        if value.name in keys:
            dims = value.type.tensor_type.shape.dim
            capacity, head_dim = type(dims[2])(), type(dims[3])()
            capacity.CopyFrom(dims[2])
            head_dim.CopyFrom(dims[3])
            dims[2].CopyFrom(head_dim)
            dims[3].CopyFrom(capacity)
    for node in list(graph.node):
        if node.op_type == "Transpose" and node.input[0] in keys:
            for user in _consumers(graph, node.output[0]):
                user.input[list(user.input).index(node.output[0])] = node.input[0]
            graph.node.remove(node)
        elif node.op_type == "Shape" and node.input[0] in keys:
            node.input[0] = node.input[0].replace(".key", ".value")
    return model


def static_scales(model: Any, scale: float = 0.05) -> Any:
    """Each per-row activation quantization (Abs, ReduceMax, Max, Div, Div, Round, Add, Cast) as one
    ``QuantizeLinear`` by a fixed ``scale``; each product takes that scale and its bias, and the
    row-scale ``Mul`` and bias ``Add`` after it go (speed only: the scale is not calibrated)."""
    from onnx import helper, numpy_helper

    from desktop_mt.models.convert import drop_dead

    graph = model.graph
    graph.initializer.append(numpy_helper.from_array(np.float32(scale), "c_static"))
    made_by = {out: node for node in graph.node for out in node.output}
    quantized: dict[str, Any] = {}
    dropped: set[str] = set()  # node names (the builder names every node once)
    for product in [n for n in graph.node if n.op_type == "MatMulIntegerToFloat"]:
        cast = made_by[product.input[0]]  # Cast <- Add(128) <- Round <- Div(x, row scale)
        x = made_by[made_by[made_by[cast.input[0]].input[0]].input[0]].input[0]
        if x not in quantized:
            quantized[x] = helper.make_node("QuantizeLinear", [x, "c_static", "c_zp"], [f"{x}_static"])
        (mul,) = _consumers(graph, product.output[0])
        (add,) = _consumers(graph, mul.output[0])
        product.input[0], product.input[2] = f"{x}_static", "c_static"
        product.input.extend([""] * (6 - len(product.input)) + [add.input[1]])
        product.output[0] = add.output[0]
        dropped.update((mul.name, add.name))
    nodes = []
    for node in graph.node:
        if node.name not in dropped:
            nodes.append(node)
            nodes.extend(quantized[out] for out in node.output if out in quantized)
    drop_dead(graph, nodes)  # the per-row chains, read by nothing now, and their constants
    return model


def shortlist(model: Any, n: int) -> Any:
    """The lm_head's weights, scales and bias cut to their first ``n`` columns."""
    from onnx import numpy_helper

    for init in model.graph.initializer:
        if init.name in ("lm_head.weight_int8", "lm_head.weight_scale", "lm_head.bias"):
            array = numpy_helper.to_array(init)
            cut = array[..., :n] if array.ndim == 2 else array[:n]
            init.CopyFrom(numpy_helper.from_array(np.ascontiguousarray(cut), init.name))
    for out in model.graph.output:
        if out.name == "logits":
            out.type.tensor_type.shape.dim[-1].dim_value = n
    return model


def fuse_nbits_bias(model: Any) -> Any:
    """Each ``MatMulNBits`` followed by an Add of a bias initializer takes the bias as its input."""
    graph = model.graph
    initializers = {i.name for i in graph.initializer}
    made_by = {n.output[0]: n for n in graph.node}
    for add in [n for n in graph.node if n.op_type == "Add"]:
        product = made_by.get(add.input[0])
        if product is not None and product.op_type == "MatMulNBits" and add.input[1] in initializers:
            product.input.extend([""] * (5 - len(product.input)) + [add.input[1]])
            product.output[0] = add.output[0]
            graph.node.remove(add)
    return model


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


def max_difference(logits: np.ndarray, reference: np.ndarray) -> float:
    """max |logits - reference| over the columns both have (a shortlist has fewer)."""
    n = min(logits.shape[-1], reference.shape[-1])
    return float(np.abs(logits[..., :n] - reference[..., :n]).max())


class Runner:
    """One variant's step; ``transposed_keys``: its key buffers are [rows, heads, head_dim, capacity]
    (made once per feed, outside the timing, as a KV buffer in that layout would hold them)."""

    def __init__(self, session: Any, iobinding: bool = False, transposed_keys: bool = False):
        self.session, self.iobinding, self.transposed_keys = session, iobinding, transposed_keys
        self.names = [o.name for o in session.get_outputs()]
        self._feeds: dict[int, dict[str, np.ndarray]] = {}

    def __call__(self, feed: dict[str, np.ndarray]) -> np.ndarray:
        if self.transposed_keys:
            if id(feed) not in self._feeds:
                self._feeds[id(feed)] = {
                    k: np.ascontiguousarray(v.transpose(0, 1, 3, 2)) if k.endswith("decoder.key") else v
                    for k, v in feed.items()
                }
            feed = self._feeds[id(feed)]
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
    from desktop_mt.engine.runtime import ort_session_options, share_thread_pool

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--past", type=int, default=16)
    ap.add_argument("--work", type=Path, default=Path("/tmp/dmt-step-levers"))
    ap.add_argument("--own-pools", action="store_true", help="a thread pool per session (the app shares one)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if not args.own_pools:
        share_thread_pool(args.threads)
    paths = build(args.model_dir, args.work)
    config = inspect_model_dir(args.model_dir).config

    def session(path: Path, level: Any = ort.GraphOptimizationLevel.ORT_ENABLE_ALL) -> Any:
        so = ort_session_options(SessionOptions(intra_op_threads=args.threads, inter_op_threads=1))
        so.graph_optimization_level = level
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])

    base = session(paths["base"])
    variants = {
        "base": Runner(base),
        "fp32": Runner(session(paths["fp32"])),
        "fused-quant": Runner(session(paths["fused-quant"])),
        "opt-extended": Runner(session(paths["base"], ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED)),
        "opt-basic": Runner(session(paths["base"], ort.GraphOptimizationLevel.ORT_ENABLE_BASIC)),
        "iobinding": Runner(base, iobinding=True),
        "head-outside": Runner(session(paths["head-outside"])),
        "k-transposed": Runner(session(paths["k-transposed"]), transposed_keys=True),
        "nbits-256": Runner(session(paths["nbits-256"])),
        "static-scales": Runner(session(paths["static-scales"])),
        "shortlist-8k": Runner(session(paths["shortlist-8k"])),
    }
    result: dict[str, Any] = {
        "threads": args.threads,
        "shared_pool": not args.own_pools,
        "rounds": args.rounds,
        "past": args.past,
        "shapes": {},
    }
    for rows, items in ((1, 1), (32, 32), (128, 32)):
        feed = feed_for(config, rows, items, args.past)
        reference = variants["base"](feed).copy()
        fp32 = variants["fp32"](feed).copy()
        times: dict[str, list[float]] = {k: [] for k in variants}
        same = {k: max_difference(v(feed), reference) for k, v in variants.items()}
        vs_fp32 = {k: max_difference(v(feed), fp32) / float(np.abs(fp32).max()) for k, v in variants.items()}
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
            "max_rel_logit_diff_vs_fp32": {k: float(f"{v:.3g}") for k, v in vs_fp32.items()},
        }
        print(json.dumps({f"{rows} rows": result["shapes"][f"{rows} rows ({items} inputs)"]}), flush=True)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
