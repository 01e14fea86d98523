"""Harness logic and the exact-equivalence claims of the speed levers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from desktop_mt.engine.generation import top_stable  # noqa: E402


def reference(x, n):
    return np.argsort(-x, axis=1, kind="stable")[:, :n]


@pytest.mark.parametrize("seed", range(6))
def test_top_stable_equals_full_stable_argsort(seed):
    rng = np.random.default_rng(seed)
    for trial in range(60):
        rows, m, n = int(rng.integers(1, 6)), int(rng.choice([50, 5000, 65001 * 4])), int(rng.integers(1, 9))
        x = rng.standard_normal((rows, m)).astype(np.float32)
        if trial % 3 == 0:
            x = np.round(x, 1)  # many ties
        if trial % 4 == 0:
            x[:, rng.integers(0, m, size=m // 2)] = -np.inf
        if trial % 5 == 0:  # a forced token: one finite value per row
            x[:] = -np.inf
            x[:, int(rng.integers(0, m))] = 0.0
        if trial % 7 == 0:
            x[0, int(rng.integers(0, m))] = np.nan
        assert (top_stable(x, n) == reference(x, n)).all(), trial


def test_same_tokens_ignores_a_missing_final_eos():
    from run import same_tokens

    assert same_tokens([5, 6, 0], [5, 6, 0])
    assert same_tokens([5, 6, 7, 0], [5, 6, 7, 8])  # forced length: CTranslate2 returns no EOS
    assert not same_tokens([5, 6, 0], [5, 7, 0])


def test_batches_are_sorted_by_length_and_cover_every_line():
    from run import batches_by_length

    ids = [[1] * n for n in (5, 2, 9, 2, 7)]
    groups = batches_by_length(ids, 2)
    assert sorted(i for g in groups for i in g) == list(range(5))
    assert [len(ids[i]) for g in groups for i in g] == [2, 2, 5, 7, 9]


def test_goals_and_render(tmp_path):
    import report

    eng = {
        "load_s": 1.0,
        "rss_after_load_mb": 100,
        "peak_rss_batch1_mb": 100,
        "peak_rss_mb": 200,
        "b1_beam1": {"p50_ms": 100, "p90_ms": 120, "ttft_p50_ms": 5, "decode_tok_s": 300, "tokens_mean": 32},
        "b1_beam4": {"p50_ms": 150, "p90_ms": 160},
        "bN_beam1": {"sent_s": 40},
        "bN_beam4": {"sent_s": 10},
    }
    pt = dict(eng, peak_rss_batch1_mb=1000, peak_rss_mb=1000)
    ratios = {
        "ort-int8/ct2-int8": {
            "b1_beam1_latency": 0.5,
            "b1_beam4_latency": 1.2,
            "bN_beam1_throughput": 1.3,
            "bN_beam4_throughput": 0.8,
        },
        "ort-int8/pytorch": {
            "b1_beam1_latency": 0.2,
            "b1_beam4_latency": 0.3,
            "bN_beam1_throughput": 5.0,
            "bN_beam4_throughput": 3.0,
        },
    }
    model = {
        "engines": {"pytorch": pt, "ort-int8": eng, "ct2-int8": eng},
        "ratios": ratios,
        "forced_tokens": 32,
        "source_tokens_mean": 10.0,
        "sizes_mb": {"pytorch": 300, "ort-int8": 100, "ct2-int8": 80},
    }
    met = {r["goal"]: r["met"] for r in report.goals(model)}
    assert met["batch 1, beam 1: latency < CTranslate2 int8"] and not met["batch 1, beam 4: latency < CTranslate2 int8"]
    assert not met["batch 32, beam 4: time per sentence <= 0.25x PyTorch"]  # 1 / 3.0 = 0.33x
    assert met["peak RSS (batch 1) <= 0.35x PyTorch"]
    result = {
        "command": "python benchmarks/run.py",
        "settings": {"sentences": 1, "beam_sentences": 1, "repeats": 1, "lines": 2, "beam_lines": 2},
        "environment": {
            "cpu": "x",
            "isa": [],
            "logical_cpus": 2,
            "platform": "p",
            "python": "3",
            "date": "d",
            "thread_settings": "t",
            "versions": {},
        },
        "models": {"a": model, "b": {"missing": "not yet"}},
    }
    report.render(json.loads(json.dumps(result)), tmp_path)
    text = (tmp_path / "BENCHMARKS.md").read_text()
    assert "python benchmarks/run.py" in text and "not yet" in text and (tmp_path / "benchmarks.png").exists()


def test_external_data_copy_loads_and_translates_the_same(tiny_marian_dir, tmp_path):
    import shutil

    from desktop_mt import GenerationOptions, Translator
    from export_tools.external_data import convert_directory

    copy = tmp_path / "ext"
    shutil.copytree(tiny_marian_dir, copy)
    written = convert_directory(copy)
    assert written and all(p.name.endswith(".onnx.data") for p in written)
    manifest = json.loads((copy / "desktop_mt.json").read_text())
    spec = manifest["variants"]["int8"]["files"]["decoder_with_past"]
    assert spec["external_data"]["bytes"] == (copy / spec["external_data"]["file"]).stat().st_size
    texts = ["I love you.", "Where is the train station?"]
    for variant in ("fp32", "int8"):
        for beams in (1, 4):
            opts = GenerationOptions(beams=beams, max_length_ratio=0)
            assert Translator(copy, variant=variant).generate_ids(texts, opts) == Translator(
                tiny_marian_dir, variant=variant
            ).generate_ids(texts, opts)


@pytest.mark.parametrize("beams", [1, 4])
def test_the_ort_engine_decodes_token_ids_as_the_translator_does(tiny_marian_dir, beams):
    """benchmarks/engines.py's ORT engine follows the search's typed events (it once unpacked
    them as tuples and died on every request)."""
    import engines

    from desktop_mt import GenerationOptions

    engine = engines.OrtEngine({"onnx": str(tiny_marian_dir), "threads": 1}, "fp32")
    texts = ["I love you.", "Where is the train station?"]
    ids = [engine.t.tokenizer.encode(t) for t in texts]
    secs, ttft, out = engine.generate(ids, beams, 8, False, True)
    assert secs > 0 and (ttft is not None) == (beams == 1)
    expected = engine.t.generate_ids(texts, GenerationOptions(beams=beams, max_length=8, max_length_ratio=0))
    assert out == expected
