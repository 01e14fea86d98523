"""``desktop-mt translate --tm FILE.tmx``: the memory's exact matches are used for stdin and
files and never sent to the model (counted with desktop_mt.engine.testing.FakeModelTranslator)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from desktop_mt.cli import main as cli
from desktop_mt.engine.testing import FakeModelTranslator

CAT_FILE = Path(__file__).resolve().parents[1] / "tm" / "cat_tool.tmx"


@pytest.fixture
def fake(monkeypatch, tiny_marian_dir):
    model = FakeModelTranslator(lambda s: "<" + s + ">", tiny_marian_dir)
    monkeypatch.setattr(cli, "make_translator", lambda args: model)
    return model


def _stdin(monkeypatch, text: str) -> io.TextIOWrapper:
    stdin = io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")
    stdin.isatty = lambda: False  # type: ignore[method-assign]
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    return stdout


def test_stdin_uses_the_memorys_exact_matches(monkeypatch, fake, capsys):
    stdout = _stdin(monkeypatch, "Press Enter.\nClick Save to keep your changes. Then close it.\nHello.\n")
    assert cli.main(["translate", "--tm", str(CAT_FILE)]) == 0
    stdout.flush()
    lines = stdout.buffer.getvalue().decode().splitlines()  # type: ignore[attr-defined]
    assert lines[0] == "按回车键。"
    assert lines[1].startswith("单击保存以保留更改。") and "Then close it." in lines[1]
    assert sorted(fake.received) == ["Hello.", "Then close it."]  # the memory's sentences never reach the model
    err = capsys.readouterr().err
    assert "2 sentence(s) from the translation memory, 2 text(s) to the model" in err and "cat_tool.tmx" in err


def test_files_use_the_memory_too(fake, tmp_path, capsys):
    src = tmp_path / "doc.txt"
    src.write_text("The file was saved.\nSomething new.\n", encoding="utf-8")
    assert cli.main(["translate", "--tm", str(CAT_FILE), str(src)]) == 0
    out = (tmp_path / "doc.zh.txt").read_text(encoding="utf-8").splitlines()
    assert out[0] in ("文件已保存。", "文件已经保存。") and fake.received == ["Something new."]
    assert "1 sentence(s) from the translation memory" in capsys.readouterr().err


def test_a_bad_memory_file_is_named_before_the_model_loads(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cli, "make_translator", lambda args: pytest.fail("the model was loaded"))
    bad = tmp_path / "broken.tmx"
    bad.write_text("<tmx><body>", encoding="utf-8")
    assert cli.main(["translate", "--tm", str(bad), str(tmp_path / "x.txt")]) == cli.EXIT_FAILED
    err = capsys.readouterr().err
    assert "broken.tmx" in err and "not a TMX file" in err


def test_a_memory_without_the_tm_extra_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    # The CLI's own error is a DesktopMTError (no bare ValueError around the model load).
    monkeypatch.setattr(cli, "make_translator", lambda args: pytest.fail("the model was loaded"))
    monkeypatch.setitem(sys.modules, "rapidfuzz", None)  # importing it raises ImportError
    assert cli.main(["translate", "--tm", str(CAT_FILE), str(tmp_path / "x.txt")]) == cli.EXIT_FAILED
    err = capsys.readouterr().err
    assert "--tm needs the translation-memory part (rapidfuzz is missing)" in err
