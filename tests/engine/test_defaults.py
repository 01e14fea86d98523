"""Decoding defaults come from the model's generation_config (num_beams 4 for the bundled model)
unless the caller chooses otherwise, in the engine and in the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_mt import GenerationOptions, Translator
from desktop_mt.engine.model_format import bundled_model_dir, read_json

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "tatoeba-sample.tsv"


@pytest.fixture(scope="module")
def lines() -> list[str]:
    rows = DATA.read_text(encoding="utf-8").splitlines()
    return [row.split("\t")[0] for row in rows[1::15]][:40]


@pytest.fixture(scope="module")
def bundled():
    return Translator(variant="int8")


def test_the_bundled_model_asks_for_beam_4():
    assert read_json(bundled_model_dir() / "generation_config.json")["num_beams"] == 4


def test_engine_default_is_the_models_beam_search(bundled, lines):
    default = bundled.translate_batch(lines)
    assert default == bundled.translate_batch(lines, GenerationOptions(beams=4))
    assert default != bundled.translate_batch(lines, GenerationOptions(beams=1))  # the choice matters here


def test_cli_default_is_the_models_beam_search_and_beams_overrides_it(bundled, lines):
    def cli(*args: str) -> list[str]:
        result = subprocess.run(
            [sys.executable, "-m", "desktop_mt", "translate", *args],
            input="\n".join(lines) + "\n",
            capture_output=True,
            text=True,
            timeout=600,
            cwd=ROOT,
            env=dict(os.environ),
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.splitlines()

    assert cli() == bundled.translate_batch(lines, GenerationOptions(beams=4))
    assert cli("--beams", "1") == bundled.translate_batch(lines, GenerationOptions(beams=1))
