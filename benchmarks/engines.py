#!/usr/bin/env python3
"""One engine in its own process, driven by JSON lines on stdin (see ``benchmarks/run.py``).

    python benchmarks/engines.py ENGINE '{"hf": DIR, "onnx": DIR, "ct2": DIR, "threads": 2}'

ENGINE is ``pytorch`` (transformers generate(), fp32), ``ort-fp32`` / ``ort-int8`` (ours),
``ct2-int8`` (CTranslate2), or a lever variant of ours int8: ``ort-int8-own-pools`` (a thread
pool per session, threads sleeping when idle: ours share one pool, as the ``desktop-mt``
command does), ``ort-int8-spin`` (a pool per session, threads spin-wait),
``ort-int8-mempattern`` (ORT's memory pattern on), ``ort-int8-split`` (Optimum's split decoder
layout, ``cfg["onnx_split"]``) or
``ort-int8-dynamic`` / ``ort-int8-nbits`` (the same export with ORT's dynamic int8 /
weight-only MatMulNBits int8, ``cfg["onnx_dynamic"]`` / ``cfg["onnx_nbits"]``), or what a user
downloads: ``ort-int8-download`` (a transformers.js merged decoder with ORT dynamic int8, as
shipped, ``cfg["onnx_download"]``) and ``ort-int8-converted`` (that download after
``desktop_mt.models.convert``, ``cfg["onnx_converted"]``). The process loads
its model, prints one JSON line
``{"ready": ..., "load_s": ..., "rss_mb": ...}``, then answers each request line
``{"op": "gen", "batch": [[ids...], ...], "beams": K, "max_new": N|null, "forced": bool}``
with ``{"secs": ..., "ttft": ..., "out": [[ids...], ...]}``; ``{"op": "stats"}`` returns the
peak RSS of this process. Times are taken inside the process around the generation call
only (no IPC, no tokenization: every engine gets the same token ids).

``forced`` decodes exactly ``max_new`` tokens (EOS banned until then; model (a)).
Otherwise the model stops on EOS with its own ``max_length`` (model (b), real stopping).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def peak_rss_mb() -> float:
    """Peak RSS of this process image (VmHWM). Not ru_maxrss: Linux carries that over exec()
    from the parent, so a child of a big parent would report the parent's size."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def current_rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class PyTorchEngine:
    def __init__(self, cfg: dict):
        import torch
        import transformers
        from transformers import MarianMTModel

        transformers.logging.set_verbosity_error()
        torch.set_num_threads(cfg["threads"])
        torch.set_num_interop_threads(1)
        self.torch = torch
        self.model = MarianMTModel.from_pretrained(cfg["hf"]).eval()
        self.pad = self.model.config.pad_token_id

    def generate(self, batch, beams, max_new, forced, ttft):
        torch = self.torch
        width = max(len(s) for s in batch)
        ids = torch.full((len(batch), width), self.pad, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for r, s in enumerate(batch):
            ids[r, : len(s)] = torch.tensor(s)
            mask[r, : len(s)] = 1
        kwargs = dict(num_beams=beams, do_sample=False)
        if max_new is not None:
            kwargs.update(max_new_tokens=max_new, max_length=None)
            if forced:
                kwargs.update(min_new_tokens=max_new)
        first = []

        class Streamer:  # generate() calls put() with the prompt, then once per new token
            calls = 0

            def put(self, value):
                Streamer.calls += 1
                if Streamer.calls == 2:
                    first.append(time.perf_counter())

            def end(self):
                pass

        t0 = time.perf_counter()
        with torch.inference_mode():
            out = self.model.generate(
                input_ids=ids, attention_mask=mask, streamer=Streamer() if ttft and beams == 1 else None, **kwargs
            )
        secs = time.perf_counter() - t0
        rows = []
        for row in out.tolist():
            row = row[1:]
            while row and row[-1] == self.pad:
                row.pop()
            rows.append(row)
        return secs, (first[0] - t0) if first else None, rows


class OrtEngine:
    def __init__(self, cfg: dict, variant: str, spin_wait: bool = False, memory_pattern: bool = False):
        from desktop_mt import GenerationOptions, SessionOptions, Translator
        from desktop_mt.engine.generation import ItemDone, TokensStep

        self.GenerationOptions = GenerationOptions
        self.TokensStep, self.ItemDone = TokensStep, ItemDone
        self.t = Translator(
            cfg["onnx"],
            variant=variant,
            session_options=SessionOptions(
                intra_op_threads=cfg["threads"], inter_op_threads=1, spin_wait=spin_wait, memory_pattern=memory_pattern
            ),
        )

    def generate(self, batch, beams, max_new, forced, ttft):
        # max_length_ratio=0: no relative bound (it is our own addition, the peers have none).
        opts = self.GenerationOptions(beams=beams, max_length=max_new, max_length_ratio=0)
        out: list = [None] * len(batch)
        first = None
        t0 = time.perf_counter()
        # Translator.search is the search generate_ids and translate* run, on token ids.
        for event in self.t.search([list(s) for s in batch], opts, None):
            if first is None and isinstance(event, self.TokensStep):
                first = time.perf_counter()
            elif isinstance(event, self.ItemDone):
                out[event.item] = event.ids
        secs = time.perf_counter() - t0
        return secs, (first - t0) if (ttft and beams == 1 and first is not None) else None, out


class CT2Engine:
    def __init__(self, cfg: dict):
        import ctranslate2

        self.tr = ctranslate2.Translator(
            cfg["ct2"], device="cpu", compute_type="int8", intra_threads=cfg["threads"], inter_threads=1
        )
        vocab = json.loads((Path(cfg["ct2"]) / "shared_vocabulary.json").read_text(encoding="utf-8"))
        self.pieces = vocab
        self.index = {p: i for i, p in enumerate(vocab)}
        gen = json.loads((Path(cfg["hf"]) / "generation_config.json").read_text())
        conf = json.loads((Path(cfg["hf"]) / "config.json").read_text())
        # The model's own limit (as generate() uses it); past the position table CTranslate2 aborts.
        self.max_length = min(int(gen.get("max_length") or 512), int(conf.get("max_position_embeddings", 512)))
        self.eos = self.index["</s>"]

    def generate(self, batch, beams, max_new, forced, ttft):
        tokens = [[self.pieces[i] for i in s] for s in batch]
        kwargs = dict(beam_size=beams, max_batch_size=0, return_scores=False)
        if max_new is not None:
            kwargs["max_decoding_length"] = max_new
            if forced:
                kwargs["min_decoding_length"] = max_new
        else:
            kwargs["max_decoding_length"] = self.max_length - 1
            kwargs["return_end_token"] = True
        first = []
        if ttft and beams == 1:
            kwargs["callback"] = lambda step: (first.append(time.perf_counter()) if not first else None) and False
        t0 = time.perf_counter()
        results = self.tr.translate_batch(tokens, **kwargs)
        secs = time.perf_counter() - t0
        out = [[self.index[p] for p in r.hypotheses[0]] for r in results]
        return secs, (first[0] - t0) if first else None, out


def make_engine(name: str, cfg: dict):
    if name == "pytorch":
        return PyTorchEngine(cfg)
    if name in ("ort-fp32", "ort-int8"):
        return OrtEngine(cfg, name.split("-")[1])
    # Lever A/B variants of ours int8 (model (a)): one setting changed each.
    if name == "ort-int8-spin":  # a pool per session whose worker threads busy-wait (ORT's default)
        return OrtEngine(cfg, "int8", spin_wait=True)
    if name == "ort-int8-own-pools":  # a pool per session, idle threads sleeping (before 2026-12-05)
        return OrtEngine(cfg, "int8")
    if name == "ort-int8-mempattern":  # ORT's memory pattern on (ORT's default)
        return OrtEngine(cfg, "int8", memory_pattern=True)
    if name == "ort-int8-split":  # Optimum's decoder + decoder_with_past layout instead of the step layout
        return OrtEngine({**cfg, "onnx": cfg["onnx_split"]}, "int8")
    if name == "ort-int8-dynamic":  # the int8 of before issue 20: ORT quantize_dynamic (batch-dependent)
        return OrtEngine({**cfg, "onnx": cfg["onnx_dynamic"]}, "int8")
    if name == "ort-int8-nbits":  # weight-only int8 (MatMulNBits), the other batch-independent kind
        return OrtEngine({**cfg, "onnx": cfg["onnx_nbits"]}, "int8")
    # What a user downloads (issue 32): transformers.js's merged decoder with ORT dynamic int8 as
    # shipped, and the same download after models.convert (step layout, per-row int8).
    if name == "ort-int8-download":
        return OrtEngine({**cfg, "onnx": cfg["onnx_download"]}, "int8")
    if name == "ort-int8-converted":
        return OrtEngine({**cfg, "onnx": cfg["onnx_converted"]}, "int8")
    if name == "ct2-int8":
        return CT2Engine(cfg)
    raise SystemExit(f"unknown engine {name}")


# Ours with a thread pool per ORT session; every other ORT engine process shares one pool, as the
# desktop-mt command does (process-wide, so decided here, in the process's own main).
OWN_POOLS = ("ort-int8-spin", "ort-int8-own-pools")


def main() -> int:
    name, cfg = sys.argv[1], json.loads(sys.argv[2])
    os.environ.setdefault("OMP_NUM_THREADS", str(cfg["threads"]))
    if name.startswith("ort-") and name not in OWN_POOLS:
        from desktop_mt.engine import runtime

        runtime.share_thread_pool(cfg["threads"])
    base_rss = current_rss_mb()
    t0 = time.perf_counter()
    engine = make_engine(name, cfg)
    load_s = time.perf_counter() - t0
    send({"ready": name, "load_s": load_s, "rss_mb": current_rss_mb(), "base_rss_mb": base_rss, "pid": os.getpid()})
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "gen":
            secs, ttft, out = engine.generate(
                req["batch"], req["beams"], req.get("max_new"), req.get("forced", False), req.get("ttft", False)
            )
            send({"secs": secs, "ttft": ttft, "out": out})
        elif req["op"] == "stats":
            send({"peak_rss_mb": peak_rss_mb(), "rss_mb": current_rss_mb()})
        elif req["op"] == "quit":
            break
    return 0


def send(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
