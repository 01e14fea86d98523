#!/usr/bin/env python3
"""All engine benchmarks in one run: JSON, docs/BENCHMARKS.md and a PNG plot.

    python benchmarks/run.py --out docs/                 # the full run (about 30 min on 2 cores)
    python benchmarks/run.py --out /tmp/b --quick        # a smoke run (minutes)
    python benchmarks/run.py --render docs/benchmarks.json --out docs/   # re-render only

Engines (each in its own process, see ``benchmarks/engines.py``): transformers generate() on
PyTorch fp32, ours on ONNX Runtime fp32 and int8, CTranslate2 int8 converted from the same
checkpoint with its own converter. Same token ids in, same thread count, greedy and beam 4.

Models: (a) the opus-mt-en-zh architecture with random weights (``benchmarks/arch_model.py``,
built once under ``--work``), 32 decode tokens forced in every engine; (b) the bundled model
(``desktop_mt/resources/models/*``, its HF checkpoint from ``--bundled-hf``) with real stopping, when present.

Interleaving: for every sentence (latency) and every batch (throughput) the engines run one
after another in a rotating order, so machine noise hits them alike; ratios are computed pair
by pair (same sentence / same batch) and their median is reported next to the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
DATA = ROOT.parent / "shared" / "data" / "tatoeba-cmn-eng.tsv"
ENGINES = ("pytorch", "ort-fp32", "ort-int8", "ct2-int8")
# Lever A/B on model (a): ours int8 with one setting changed, interleaved with the others.
# ort-int8-dynamic / ort-int8-nbits: the other int8 kinds beside ours (per-row dynamic, batch-independent):
# the one used before issue 20 (ORT quantize_dynamic, batch-dependent) and weight-only MatMulNBits.
# ort-int8-download / ort-int8-converted: what a user downloads (issue 32), as shipped and as converted.
LEVER_ENGINES = (
    "ort-int8-own-pools",
    "ort-int8-spin",
    "ort-int8-mempattern",
    "ort-int8-split",
    "ort-int8-dynamic",
    "ort-int8-nbits",
    "ort-int8-download",
    "ort-int8-converted",
)
LABELS = {
    "pytorch": "transformers generate(), PyTorch fp32",
    "ort-fp32": "desktop-mt, ORT fp32",
    "ort-int8": "desktop-mt, ORT int8",
    "ct2-int8": "CTranslate2 int8",
}
GAP_S = 0.15  # pause between engines: lets OpenMP/ORT spinning threads of the previous one go idle


# -- inputs -------------------------------------------------------------------------------------


def tatoeba_english(data: Path = DATA) -> list[str]:
    """The distinct English sentences of 3+ words (real prose, not "Hi.") in file order."""
    seen: dict[str, None] = {}
    with open(data, encoding="utf-8-sig") as f:
        for row in f:
            english = row.split("\t", 1)[0].strip()
            if len(english.split()) >= 3:
                seen.setdefault(english)
    return list(seen)


def english_lines(n: int, seed: int = 2024, data: Path = DATA) -> list[str]:
    """``n`` distinct English Tatoeba sentences of 3+ words (fixed sample)."""
    pool = sorted(tatoeba_english(data))
    return random.Random(seed).sample(pool, min(n, len(pool)))


def tokenize(hf_dir: Path, lines: list[str]) -> list[list[int]]:
    from transformers import MarianTokenizer

    tok = MarianTokenizer.from_pretrained(str(hf_dir))
    return [tok(line, truncation=True, max_length=256)["input_ids"] for line in lines]


def detokenizer(hf_dir: Path):
    from transformers import MarianTokenizer

    tok = MarianTokenizer.from_pretrained(str(hf_dir))
    return lambda ids: tok.decode(ids, skip_special_tokens=True).replace("\u2581", " ").strip()


def batches_by_length(ids: list[list[int]], size: int) -> list[list[int]]:
    """Indices sorted by source length, cut into batches (the same batches for every engine)."""
    order = sorted(range(len(ids)), key=lambda i: (len(ids[i]), i))
    return [order[i : i + size] for i in range(0, len(order), size)]


# -- engine processes ---------------------------------------------------------------------------


class Worker:
    def __init__(self, engine: str, cfg: dict):
        env = dict(
            os.environ,
            OMP_NUM_THREADS=str(cfg["threads"]),
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            TOKENIZERS_PARALLELISM="false",
        )
        self.engine = engine
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "benchmarks" / "engines.py"), engine, json.dumps(cfg)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=str(ROOT),
        )
        self.ready = self._read()

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(
                f"engine {self.engine} died (run benchmarks/engines.py {self.engine} by hand to see why)"
            )
        return json.loads(line)

    def ask(self, req: dict) -> dict:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        try:
            self.proc.stdin.write('{"op": "quit"}\n')
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        self.proc.wait(timeout=60)


def load_times(engines, cfg: dict, rounds: int) -> dict[str, list[float]]:
    """Fresh processes that only load the model (interleaved), for load-time medians."""
    out: dict[str, list[float]] = {e: [] for e in engines}
    for r in range(rounds):
        for e in rotate(engines, r):
            w = Worker(e, cfg)
            out[e].append(w.ready["load_s"])
            w.close()
            time.sleep(GAP_S)
    return out


def rotate(seq, k: int):
    seq = list(seq)
    k %= len(seq)
    return seq[k:] + seq[:k]


# -- measurements -------------------------------------------------------------------------------


def interleaved(workers: dict, jobs: list[dict], label: str) -> dict[str, list[dict]]:
    """Run every job on every engine, the engine order rotating job by job."""
    results: dict[str, list[dict]] = {e: [] for e in workers}
    t0 = time.time()
    for j, job in enumerate(jobs):
        for e in rotate(list(workers), j):
            r = workers[e].ask(dict(job, op="gen"))
            results[e].append(r)
            time.sleep(GAP_S)
        if j == 0 or (j + 1) % max(1, len(jobs) // 5) == 0:
            print(f"  {label}: {j + 1}/{len(jobs)} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    return results


def pct(values, q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    pos = (len(values) - 1) * q
    lo, hi = int(pos), min(int(pos) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def pair_ratio(a: list[float], b: list[float]) -> float:
    return statistics.median(x / y for x, y in zip(a, b) if y > 0)


def measure_model(name: str, cfg: dict, ids: list[list[int]], args, forced: bool, refs=None, detok=None) -> dict:
    engines = [e for e in ENGINES if e in args.engines]
    if cfg.get("onnx_split") and "ort-int8" in engines:
        engines += [e for e in LEVER_ENGINES if e in args.levers]
    max_new = args.decode_tokens if forced else None
    res: dict = {"model": name, "forced_tokens": max_new, "engines": {}}
    print(f"[{name}] load times", file=sys.stderr, flush=True)
    loads = load_times(engines, cfg, args.load_rounds)
    workers = {}
    for e in engines:
        workers[e] = Worker(e, cfg)
        loads[e].append(workers[e].ready["load_s"])
    try:
        lat_ids = ids[: args.sentences]
        warm = [{"batch": [lat_ids[0]], "beams": b, "max_new": max_new, "forced": forced} for b in (1, 4)]
        interleaved(workers, warm, f"{name} warm-up")
        phases = {}
        for beams, count in ((1, args.sentences), (4, args.beam_sentences)):
            jobs = [
                {"batch": [s], "beams": beams, "max_new": max_new, "forced": forced, "ttft": beams == 1}
                for s in lat_ids[:count]
                for _ in range(args.repeats)
            ]
            phases[f"latency_b{beams}"] = interleaved(workers, jobs, f"{name} batch 1, beam {beams}")
        rss_b1 = {e: w.ask({"op": "stats"}) for e, w in workers.items()}
        tp_jobs = {}
        for beams, lines in ((1, args.lines), (4, args.beam_lines)):
            groups = batches_by_length(ids[:lines], args.batch_size)
            tp_jobs[beams] = groups
            jobs = [
                {"batch": [ids[i] for i in g], "beams": beams, "max_new": max_new, "forced": forced} for g in groups
            ]
            phases[f"throughput_b{beams}"] = interleaved(workers, jobs, f"{name} batch {args.batch_size}, beam {beams}")
        quality = {}
        if refs is not None:
            q_groups = batches_by_length(ids[: len(refs)], args.batch_size)
            jobs = [{"batch": [ids[i] for i in g], "beams": 1, "max_new": None, "forced": False} for g in q_groups]
            outs = interleaved(workers, jobs, f"{name} quality pass (greedy)")
            quality = {"groups": q_groups, "outs": outs}
        rss_end = {e: w.ask({"op": "stats"}) for e, w in workers.items()}
    finally:
        for w in workers.values():
            w.close()
    for e in engines:
        r = {
            "load_s": statistics.median(loads[e]),
            "load_s_all": loads[e],
            "rss_after_load_mb": workers[e].ready["rss_mb"],
            "peak_rss_batch1_mb": rss_b1[e]["peak_rss_mb"],
            "peak_rss_mb": rss_end[e]["peak_rss_mb"],
        }
        for beams in (1, 4):
            lat = phases[f"latency_b{beams}"][e]
            secs = [x["secs"] for x in lat]
            toks = [len(x["out"][0]) for x in lat]
            r[f"b1_beam{beams}"] = {
                "p50_ms": 1000 * pct(secs, 0.5),
                "p90_ms": 1000 * pct(secs, 0.9),
                "n": len(secs),
                "tokens_mean": statistics.mean(toks),
                "tok_s": sum(toks) / sum(secs),
            }
            if beams == 1:
                ttft = [x["ttft"] for x in lat if x.get("ttft") is not None]
                r["b1_beam1"]["ttft_p50_ms"] = 1000 * pct(ttft, 0.5) if ttft else None
                dec = [(n - 1) / (s - t) for n, s, t in zip(toks, secs, [x.get("ttft") for x in lat]) if t and n > 1]
                r["b1_beam1"]["decode_tok_s"] = statistics.median(dec) if dec else None
            tp = phases[f"throughput_b{beams}"][e]
            n_sent = sum(len(x["out"]) for x in tp)
            total = sum(x["secs"] for x in tp)
            r[f"bN_beam{beams}"] = {
                "sentences": n_sent,
                "seconds": total,
                "sent_s": n_sent / total,
                "tok_s": sum(len(o) for x in tp for o in x["out"]) / total,
            }
        res["engines"][e] = r
    # Pair-by-pair ratios (same sentence / same batch), and token agreement with PyTorch.
    ratios = {}
    for base in ("pytorch", "ct2-int8", "ort-int8"):
        if base not in engines:
            continue
        for e in engines:
            if e == base or (base == "ort-int8" and e not in LEVER_ENGINES):
                continue
            key = f"{e}/{base}"
            ratios[key] = {}
            for beams in (1, 4):
                a = [x["secs"] for x in phases[f"latency_b{beams}"][e]]
                b = [x["secs"] for x in phases[f"latency_b{beams}"][base]]
                ratios[key][f"b1_beam{beams}_latency"] = pair_ratio(a, b)
                a = [x["secs"] for x in phases[f"throughput_b{beams}"][e]]
                b = [x["secs"] for x in phases[f"throughput_b{beams}"][base]]
                ratios[key][f"bN_beam{beams}_throughput"] = pair_ratio(b, a)  # >1: e is faster
    res["ratios"] = ratios
    if "pytorch" in engines:
        agree = {}
        for e in engines:
            same = tot = 0
            for phase in phases:
                for x, y in zip(phases[phase][e], phases[phase]["pytorch"]):
                    for o, p in zip(x["out"], y["out"]):
                        same += same_tokens(o, p)
                        tot += 1
            agree[e] = same / tot if tot else None
        res["same_tokens_as_pytorch"] = agree
    if quality:
        res["quality"] = chrf_scores(quality, refs, detok)
    res["sizes_mb"] = model_sizes(cfg)
    return res


def same_tokens(a: list[int], b: list[int], eos: int = 0) -> bool:
    """Equal outputs; with forced lengths CTranslate2 returns no final EOS, so compare the common part."""
    if a == b:
        return True
    a, b = (a[:-1] if a and a[-1] == eos else a), (b[:-1] if b and b[-1] == eos else b)
    n = min(len(a), len(b))
    return n > 0 and abs(len(a) - len(b)) <= 1 and a[:n] == b[:n]


def chrf_scores(quality: dict, refs: list[list[str]], detok) -> dict:
    import sacrebleu

    out = {}
    for e, results in quality["outs"].items():
        hyps = [""] * len(refs)
        for group, r in zip(quality["groups"], results):
            for i, ids in zip(group, r["out"]):
                hyps[i] = detok(ids)
        width = max(len(r) for r in refs)
        ref_streams = [[r[k] if k < len(r) else r[0] for r in refs] for k in range(width)]
        out[e] = {
            "hyps": hyps,
            "chrf": sacrebleu.corpus_chrf(hyps, ref_streams).score,
            "bleu_zh": sacrebleu.corpus_bleu(hyps, ref_streams, tokenize="zh").score,
            "sentences": len(refs),
        }
    if "pytorch" in out:
        for e in out:
            out[e]["same_as_pytorch"] = sum(a == b for a, b in zip(out[e]["hyps"], out["pytorch"]["hyps"])) / len(refs)
    for e in out:
        out[e]["first_hyps"] = out[e].pop("hyps")[:5]
    return out


def model_sizes(cfg: dict) -> dict[str, float]:
    from desktop_mt.engine.model_format import inspect_model_dir

    info = inspect_model_dir(cfg["onnx"])

    def mb(paths) -> float:  # a graph's external data file (``X.onnx.data``) counts with it
        paths = [Path(p) for p in paths]
        return (
            sum(
                p.stat().st_size
                + (p.with_name(p.name + ".data").stat().st_size if p.with_name(p.name + ".data").exists() else 0)
                for p in paths
            )
            / 1e6
        )

    return {
        "pytorch": mb(Path(cfg["hf"]).glob("*.safetensors")) or mb(Path(cfg["hf"]).glob("*.bin")),
        "ort-fp32": mb(info.files["fp32"].values()),
        "ort-int8": mb(info.files["int8"].values()),
        "ct2-int8": mb([Path(cfg["ct2"]) / "model.bin"]),
    }


# -- the physical floor -------------------------------------------------------------------------


def read_bandwidth_gbs() -> float:
    """Single-thread streaming read rate (numpy sum over 512 MB, best of 3)."""
    import numpy as np

    a = np.ones(128 * 2**20, dtype=np.float32)
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        a.sum()
        best = max(best, a.nbytes / (time.perf_counter() - t0) / 1e9)
    return best


def bytes_per_token(decoder_path: Path) -> float:
    """Weight bytes one decoder step must read: every initializer except Gather tables (one row each)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(decoder_path))
    gathered = {n.input[0] for n in model.graph.node if n.op_type == "Gather"}
    total = 0
    for init in model.graph.initializer:
        if init.name not in gathered:
            total += numpy_helper.to_array(init).nbytes
    return float(total)


def floor_info(onnx_dir: Path, bandwidth: float) -> dict:
    from desktop_mt.engine.model_format import inspect_model_dir

    info = inspect_model_dir(onnx_dir)
    out = {"read_bandwidth_gbs": bandwidth}
    for variant in ("int8", "fp32"):
        files = info.files[variant]
        path = files.get("decoder_step") or files.get("decoder_with_past") or files.get("decoder_merged")
        nbytes = bytes_per_token(path)
        out[variant] = {"weight_mb_per_token": nbytes / 1e6, "floor_ms_per_token": nbytes / bandwidth / 1e6}
    return out


# -- environment --------------------------------------------------------------------------------


def environment(threads: int) -> dict:
    import importlib.metadata as md

    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        flags = next((ln for ln in Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("flags")), "")
        isa = sorted({f for f in flags.split() if f.startswith(("avx512_vnni", "avx512f", "avx2", "amx", "avx_vnni"))})
    except OSError:
        isa = []
    versions = {}
    for pkg in ("torch", "transformers", "onnxruntime", "ctranslate2", "numpy", "sentencepiece", "onnx"):
        try:
            versions[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            versions[pkg] = None
    return {
        "cpu": cpu,
        "isa": isa,
        "logical_cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "threads": threads,
        # benchmarks/no_amx.c: AMX refused, the int8 kernels of a CPU without it (Intel before
        # Sapphire Rapids, AMD)
        "amx_refused": "no_amx" in os.environ.get("LD_PRELOAD", ""),
        "versions": versions,
        "thread_settings": f"ORT: one shared pool of {threads} threads (runtime.share_thread_pool; the "
        f"own-pools/spin levers: intra_op_num_threads={threads}, inter_op=1 per session); "
        f"torch.set_num_threads({threads}), interop 1; CTranslate2 intra_threads={threads}, inter_threads=1; "
        f"OMP_NUM_THREADS={threads}",
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }


# -- main ---------------------------------------------------------------------------------------


def bundled_models_folder() -> Path:
    """desktop_mt/resources/models, through the package's own resolver."""
    from desktop_mt.base.resources_path import resource_path

    return resource_path("models")


def find_bundled(args) -> dict | None:
    models = sorted(p for p in bundled_models_folder().glob("*") if (p / "desktop_mt.json").exists())
    if not models and args.bundled_onnx and (Path(args.bundled_onnx) / "desktop_mt.json").exists():
        models = [Path(args.bundled_onnx)]  # not bundled yet: the same checkpoint, exported by hand
    hf = Path(args.bundled_hf)
    if not models or not (hf / "config.json").exists():
        return None
    import arch_model

    ct2 = Path(args.work) / "bundled" / "ct2"
    if (ct2 / "model.bin").exists() and (ct2 / "model.bin").stat().st_mtime < (hf / "config.json").stat().st_mtime:
        import shutil

        shutil.rmtree(ct2)
    arch_model.convert_ct2(hf, ct2)
    return {"hf": str(hf), "onnx": str(models[0]), "ct2": str(ct2), "threads": args.threads}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--out", default=str(ROOT / "docs"), help="folder for benchmarks.json, BENCHMARKS.md, benchmarks.png"
    )
    ap.add_argument("--work", default="/tmp/dmt-bench", help="where the benchmark models are built (not the repo)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sentences", type=int, default=30, help="batch-1 sentences, greedy")
    ap.add_argument("--beam-sentences", type=int, default=20, help="batch-1 sentences, beam 4")
    ap.add_argument("--repeats", type=int, default=1, help="times each batch-1 sentence is run per engine")
    ap.add_argument("--lines", type=int, default=1000, help="throughput lines, greedy")
    ap.add_argument("--beam-lines", type=int, default=256, help="throughput lines, beam 4")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--decode-tokens", type=int, default=32, help="forced decode length for model (a)")
    ap.add_argument("--load-rounds", type=int, default=2, help="extra load-only processes per engine")
    ap.add_argument("--models", default="a,b")
    ap.add_argument(
        "--no-external-data",
        dest="external_data",
        action="store_false",
        help="model (a): benchmark the plain export, not its external-data copy",
    )
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument(
        "--levers", default=",".join(LEVER_ENGINES), help="lever variants of ours int8 run on model (a) ('' for none)"
    )
    ap.add_argument(
        "--bundled-hf",
        default=str(ROOT / "work" / "demo" / "hf"),
        help="HF checkpoint of the bundled model (PyTorch and CTranslate2 need it)",
    )
    ap.add_argument("--bundled-onnx", help="model (b) export to use while desktop_mt/resources/models is still empty")
    ap.add_argument("--quick", action="store_true", help="tiny settings for a smoke run")
    ap.add_argument("--render", help="re-render Markdown/PNG from this JSON and exit")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.render:
        import report

        report.render(json.loads(Path(args.render).read_text()), out)
        return 0
    if args.quick:
        args.sentences, args.beam_sentences, args.lines, args.beam_lines, args.load_rounds = 3, 2, 64, 32, 0
    args.engines = args.engines.split(",")
    command = "python benchmarks/run.py " + " ".join(sys.argv[1:] if argv is None else argv)
    started = time.time()
    env = environment(args.threads)
    lines = english_lines(max(args.lines, args.beam_lines, args.sentences))
    result = {"command": command, "environment": env, "settings": {k: v for k, v in vars(args).items()}, "models": {}}
    if "a" in args.models.split(","):
        import arch_model

        paths = arch_model.build_all(Path(args.work) / "arch")
        # Ours: the exporter's output with its weights in page-aligned external data (memory-mapped).
        onnx_dir = paths["onnx_ext"] if args.external_data else paths["onnx"]
        cfg = {
            "hf": str(paths["hf"]),
            "onnx": str(onnx_dir),
            "ct2": str(paths["ct2"]),
            "threads": args.threads,
            "onnx_split": str(paths["onnx_split_ext"] if args.external_data else paths["onnx_split"]),
            "onnx_dynamic": str(paths["onnx_dynamic_ext"] if args.external_data else paths["onnx_dynamic"]),
            "onnx_nbits": str(paths["onnx_nbits_ext"] if args.external_data else paths["onnx_nbits"]),
            "onnx_download": str(paths["onnx_download"]),
            "onnx_converted": str(paths["onnx_converted"]),
        }
        ids = tokenize(paths["hf"], lines)
        res = measure_model("a", cfg, ids, args, forced=True)
        res["source_tokens_mean"] = statistics.mean(len(i) for i in ids)
        res["floor"] = floor_info(paths["onnx"], read_bandwidth_gbs())
        res["layout"] = "external data (python -m export_tools.external_data)" if args.external_data else "single files"
        result["models"]["a"] = res
        write_json(result, out)
    if "b" in args.models.split(","):
        cfg = find_bundled(args)
        if cfg is None:
            result["models"]["b"] = {
                "missing": f"no bundled model in desktop_mt/resources/models or no checkpoint at {args.bundled_hf}"
            }
        else:
            ids = tokenize(Path(cfg["hf"]), lines)
            dev_file = Path(args.bundled_hf).parent / "dev.jsonl"
            dev = [json.loads(x) for x in dev_file.read_text(encoding="utf-8").splitlines()]
            dev = dev[: 64 if args.quick else len(dev)]
            dev_ids = tokenize(Path(cfg["hf"]), [d["en"] for d in dev])
            # Speed on the general sample; quality (chrF vs Tatoeba references) on held-out dev sentences.
            res = measure_b(cfg, ids, dev_ids, [d["refs"] for d in dev], detokenizer(Path(cfg["hf"])), args)
            res["name"] = Path(cfg["onnx"]).name
            res["onnx_dir"] = cfg["onnx"]
            res["bundled"] = Path(cfg["onnx"]).parent == bundled_models_folder()
            res["source_tokens_mean"] = statistics.mean(len(i) for i in ids)
            result["models"]["b"] = res
    result["wall_minutes"] = (time.time() - started) / 60
    write_json(result, out)
    import report

    report.render(result, out)
    print(
        f"wrote {out / 'benchmarks.json'}, {out / 'BENCHMARKS.md'}, {out / 'benchmarks.png'} "
        f"in {result['wall_minutes']:.1f} min",
        file=sys.stderr,
    )
    return 0


def measure_b(cfg: dict, speed_ids, dev_ids, refs, detok, args) -> dict:
    """Model (b): speed on the general lines, then a greedy quality pass on held-out dev sentences."""
    res = measure_model("b", cfg, speed_ids, args, forced=False)
    q_args = argparse.Namespace(**vars(args))
    q_args.sentences = q_args.beam_sentences = q_args.lines = q_args.beam_lines = 1
    q_args.load_rounds = 0
    q = measure_model("b-quality", cfg, dev_ids, q_args, forced=False, refs=refs, detok=detok)
    res["quality"] = q.get("quality")
    res["quality_same_tokens_as_pytorch"] = q.get("same_tokens_as_pytorch")
    return res


def write_json(result: dict, out: Path) -> None:
    (out / "benchmarks.json").write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
