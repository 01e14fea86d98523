"""``desktop-mt translate``'s text-handling switches (issue 29): ``--spans``, ``--raw`` and one
switch per step; with ``--raw`` the CLI's output is transformers' generate() output, token for
token, on a tiny Marian built in the tests."""

from __future__ import annotations

import io
import sys

import pytest

from desktop_mt.cli import main as cli
from desktop_mt.engine.options import RAW

# Lines the text handling would change: numbers, a URL, a code, punctuation, Chinese, a repeat.
LINES = [
    "I paid $5 at 9:30 today.",
    "Visit https://example.com now.",
    "Hello, world!",
    "Room 4B is on the 2nd floor.",
    "Where is the train station?",
    "我爱你 and you.",
    "very very very very good",
    "Tom said that he would come back tomorrow, but nobody believed him.",
]


def _run(monkeypatch, argv: list[str], lines: list[str]) -> tuple[int, list[str]]:
    stdin = io.TextIOWrapper(io.BytesIO("\n".join(lines).encode() + b"\n"), encoding="utf-8")
    stdin.isatty = lambda: False  # type: ignore[method-assign]
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    code = cli.main(["translate", *argv])
    stdout.flush()
    return code, stdout.buffer.getvalue().decode("utf-8").splitlines()  # type: ignore[attr-defined]


def _options(argv: list[str]) -> dict:
    return cli._text_handling_of(cli.build_parser().parse_args(["translate", *argv]))


@pytest.mark.parametrize(
    "argv, options",
    [
        ([], {}),
        (["--spans", "cut"], {"spans": "cut"}),
        (["--spans", "off"], {"spans": "off"}),
        (["--raw"], RAW),
        (["--raw", "--spans", "whole"], {**RAW, "spans": "whole"}),
        (
            ["--no-repetition-guard", "--no-chinese-punctuation"],
            {"repetition_guard": False, "chinese_punctuation": False},
        ),
        (["--no-protect-numbers", "--no-keep-cjk"], {"protect_numbers": False, "keep_cjk": False}),
    ],
)
def test_switches_set_the_options(argv, options):
    assert _options(argv) == options


def test_raw_with_a_glossary_is_a_usage_error(tmp_path, capsys):
    glossary = tmp_path / "terms.csv"
    glossary.write_text("station,车站\n", encoding="utf-8")
    assert cli.main(["translate", "--raw", "--glossary", str(glossary), "x.txt"]) == cli.EXIT_USAGE
    assert "--raw" in capsys.readouterr().err


@pytest.mark.parametrize("beams", [1, 4])
def test_raw_output_is_generate_output(monkeypatch, tiny_marian_hf, tiny_marian_dir, beams):
    import torch

    from tests.conftest import load_torch

    model, tokenizer = load_torch(tiny_marian_hf)
    expected = []
    for line in LINES:
        with torch.no_grad():
            ids = model.generate(**tokenizer([line], return_tensors="pt"), do_sample=False, num_beams=beams)[0]
        expected.append(tokenizer.decode(ids, skip_special_tokens=True).replace("\u2581", " ").strip())
    argv = ["--model", str(tiny_marian_dir), "--variant", "fp32", "--beams", str(beams)]
    code, raw = _run(monkeypatch, [*argv, "--raw"], LINES)
    assert code == 0 and raw == expected
    code, handled = _run(monkeypatch, argv, LINES)
    assert code == 0 and handled != expected  # the text handling is on by default, and it shows


def test_the_summary_says_how_sentences_with_spans_went(monkeypatch, tiny_marian_dir, capsys):
    code, _ = _run(monkeypatch, ["--model", str(tiny_marian_dir), "--variant", "fp32"], LINES)
    assert code == 0
    err = capsys.readouterr().err
    assert "3 sentences with protected spans:" in err and "cut around their spans" in err
    code, _ = _run(monkeypatch, ["--model", str(tiny_marian_dir), "--variant", "fp32", "--raw"], LINES)
    assert "protected spans" not in capsys.readouterr().err
