"""Score a model directory on a dev set: BLEU (sacrebleu; tokenize='zh' for Chinese output,
'13a' for English) and chrF.

    python -m export_tools evaluate MODEL_DIR --hf HF_CHECKPOINT --dev dev.jsonl [--out eval.json]
        [--compare-int8 LABEL=OTHER_MODEL_DIR]

Engines: PyTorch ``generate()`` on the HF checkpoint, and our runtime on the ONNX int8 and
fp32 variants the folder has (any model folder: exported, downloaded, Optimum's), each greedy
and beam 4, with the app's default text handling. All references of a source sentence are used.
``dev.jsonl`` holds ``{"en": ..., "refs": [...]}`` lines (``{"src": ...}`` for a Chinese
source; ``train-demo`` writes one); a ``.tsv`` file of ``english<TAB>chinese`` lines (e.g.
FLORES dev) works too, in either direction: its source column is the one in the model's source
language (``source_lang``), so ``flores200-dev.en-zh.tsv`` scores a zh->en model as well.
The output language is the model's ``target_lang`` (tokenizer_config.json).
``--compare-int8`` adds the int8 variant of another directory (say, the same model quantized
the old way) as ``onnx-int8-LABEL`` rows.
"""

from __future__ import annotations

import json
import time
from pathlib import Path


def han_share(text: str) -> float:
    """The share of CJK ideographs among the letters of ``text`` (0.0 when it has none)."""
    letters = [c for c in text if c.isalpha()]
    return sum("\u4e00" <= c <= "\u9fff" or "\u3400" <= c <= "\u4dbf" for c in letters) / max(1, len(letters))


def read_dev(path: Path, limit: int | None = None, source: str = "en") -> tuple[list[str], list[list[str]]]:
    """Sources and their references from a dev.jsonl or a two-column TSV file.

    A TSV's source column is the one in the ``source`` language: the Chinese column (the one
    with more Han characters) for ``source="zh..."``, the other one otherwise."""
    lines = [line for line in path.read_text(encoding="utf-8-sig").splitlines() if line.strip()]
    if path.suffix == ".tsv":
        pairs = [tuple(line.split("\t")[:2]) for line in lines]
        sample = pairs[:50]
        first_is_zh = sum(han_share(a) for a, _ in sample) >= sum(han_share(b) for _, b in sample)
        swap = first_is_zh != source.startswith("zh")
        rows = [{"en": b, "refs": [a]} if swap else {"en": a, "refs": [b]} for a, b in pairs]
    else:
        rows = [json.loads(line) for line in lines]
    rows = rows[:limit] if limit else rows
    return [r.get("src", r.get("en")) for r in rows], [r["refs"] for r in rows]


def target_language(model_dir: str) -> str:
    """The model's output language from its tokenizer_config.json ("zh" when it does not say)."""
    config = Path(model_dir) / "tokenizer_config.json"
    if config.exists():
        return str(json.loads(config.read_text(encoding="utf-8")).get("target_lang") or "zh")
    return "zh"


def source_language(model_dir: str) -> str:
    """The model's input language from its tokenizer_config.json ("en" when it does not say)."""
    config = Path(model_dir) / "tokenizer_config.json"
    if config.exists():
        return str(json.loads(config.read_text(encoding="utf-8")).get("source_lang") or "en")
    return "en"


def score(hyps: list[str], refs: list[list[str]], target: str = "zh") -> dict[str, float]:
    """Corpus BLEU/chrF with every reference. Missing references repeat the first one, which
    changes neither clipped n-gram counts nor the closest reference length. BLEU tokenizes
    Chinese output by character (sacrebleu's 'zh') and English with its standard '13a'."""
    import sacrebleu

    width = max(len(r) for r in refs)
    streams = [[r[i] if i < len(r) else r[0] for r in refs] for i in range(width)]
    bleu = sacrebleu.corpus_bleu(hyps, streams, tokenize="zh" if target.startswith("zh") else "13a")
    chrf = sacrebleu.corpus_chrf(hyps, streams)
    return {"bleu": round(bleu.score, 2), "chrf": round(chrf.score, 2)}


def torch_hyps(hf_dir: str, sources: list[str], beams: int, batch: int = 32) -> list[str]:
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    torch.manual_seed(0)
    model = AutoModelForSeq2SeqLM.from_pretrained(hf_dir).eval()
    tok = AutoTokenizer.from_pretrained(hf_dir)
    out = []
    for i in range(0, len(sources), batch):
        enc = tok(sources[i : i + batch], return_tensors="pt", padding=True, truncation=True)
        with torch.no_grad():
            ids = model.generate(**enc, num_beams=beams, do_sample=False)
        out += [t.replace("\u2581", " ").strip() for t in tok.batch_decode(ids, skip_special_tokens=True)]
    return out


def ort_hyps(model_dir: str, variant: str, sources: list[str], beams: int) -> list[str]:
    from desktop_mt import GenerationOptions, Translator

    translator = Translator(model_dir, variant=variant, options=GenerationOptions(beams=beams), batch_size=32)
    return translator.translate_batch(sources)


def evaluate(
    model_dir: str, hf_dir: str | None, dev: Path, limit: int | None = None, compare_int8: dict[str, str] | None = None
) -> dict:
    """BLEU/chrF (and seconds) of every engine, greedy and beam 4, plus the first examples.

    ``compare_int8``: label -> another model directory whose int8 variant is scored too.
    """
    sources, refs = read_dev(dev, limit, source_language(model_dir))
    target = target_language(model_dir)
    results: dict = {"dev": dev.name, "sentences": len(sources), "references": sum(len(r) for r in refs), "scores": {}}
    from desktop_mt.engine.model_format import inspect_model_dir

    # Only the variants the folder has (a downloaded model may hold int8 alone).
    engines = [
        (f"onnx-{v}", lambda b, v=v: ort_hyps(model_dir, v, sources, b)) for v in inspect_model_dir(model_dir).variants
    ]
    for label, other in (compare_int8 or {}).items():
        engines.insert(1, (f"onnx-int8-{label}", lambda b, other=other: ort_hyps(other, "int8", sources, b)))
    if hf_dir:
        engines.insert(0, ("pytorch", lambda b: torch_hyps(hf_dir, sources, b)))
    samples = {}
    for name, run in engines:
        for beams in (1, 4):
            t0 = time.perf_counter()
            hyps = run(beams)
            key = f"{name} {'greedy' if beams == 1 else 'beam4'}"
            results["scores"][key] = {**score(hyps, refs, target), "seconds": round(time.perf_counter() - t0, 1)}
            samples[key] = hyps[:5]
            print(key, results["scores"][key], flush=True)
    results["examples"] = [
        {"en": sources[i], "refs": refs[i], **{k: v[i] for k, v in samples.items()}}
        for i in range(min(5, len(sources)))
    ]
    return results
