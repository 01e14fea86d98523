"""``benchmarks/layouts.py``: the layout comparison runs and reports identical outputs."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import layouts  # noqa: E402


def test_compare_split_and_step_layouts_of_one_checkpoint(tiny_marian_dir, tiny_marian_step_dir):
    report = layouts.compare(
        str(tiny_marian_dir), str(tiny_marian_step_dir), 1, ("split", "step"), latency_n=4, repeats=1, limit=40
    )
    assert report["b1_identical"] == "4/4"
    for name in ("b32_greedy", "b32_beam4"):
        assert report[f"{name}_identical_sample"] == "40/40"
        assert report[f"{name}_throughput_ratio"] > 0
    assert report["int8_bytes"]["step"] > 0


def test_parity_of_a_checkpoint_and_its_export(tiny_marian_hf, tiny_marian_dir):
    report = layouts.parity(str(tiny_marian_hf), str(tiny_marian_dir), 20)
    assert report["beam1_identical"] == report["beam4_identical"] == 20
