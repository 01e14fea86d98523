"""desktop_mt.base.stdio: UTF-8 standard streams at every entry point (Windows' redirected output
was cp1252, and the first Chinese line ended ``self-test > out.txt`` with UnicodeEncodeError)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from desktop_mt.base.stdio import use_utf8_streams
from desktop_mt.cli import main as cli

ROOT = Path(__file__).resolve().parents[2]


def _wrapper(encoding: str, data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding=encoding, errors="strict")


def _cp1252_streams(monkeypatch) -> dict[str, io.TextIOWrapper]:
    """The standard streams of a Windows program whose output is redirected: the ANSI code page.
    Set in the test itself: pytest's output capture puts its own streams back after fixtures."""
    streams = {
        "stdin": _wrapper("cp1252", "你好\n".encode()),
        "stdout": _wrapper("cp1252"),
        "stderr": _wrapper("cp1252"),
    }
    for name, stream in streams.items():
        monkeypatch.setattr(sys, name, stream)
    return streams


def test_cp1252_streams_become_utf8(monkeypatch):
    cp1252_streams = _cp1252_streams(monkeypatch)
    use_utf8_streams()
    print("今天天气很好")
    print("错误：无法打开", file=sys.stderr)
    assert sys.stdin.readline() == "你好\n"
    sys.stdout.flush()
    sys.stderr.flush()
    assert cp1252_streams["stdout"].buffer.getvalue().decode("utf-8") == "今天天气很好\n"
    assert cp1252_streams["stderr"].buffer.getvalue().decode("utf-8") == "错误：无法打开\n"


def test_error_handlers_are_those_of_utf8_mode(monkeypatch):
    cp1252_streams = _cp1252_streams(monkeypatch)
    use_utf8_streams()
    assert (sys.stdin.errors, sys.stdout.errors, sys.stderr.errors) == (
        "surrogateescape",
        "surrogateescape",
        "backslashreplace",
    )
    print("\udcff", file=sys.stderr)  # a lone surrogate: stderr still prints something
    sys.stderr.flush()
    assert cp1252_streams["stderr"].buffer.getvalue() == b"\\udcff\n"


def test_what_is_written_before_the_switch_keeps_its_encoding(monkeypatch):
    cp1252_streams = _cp1252_streams(monkeypatch)
    print("café", end="")
    use_utf8_streams()
    print("咖啡", end="")
    sys.stdout.flush()
    assert cp1252_streams["stdout"].buffer.getvalue() == "café".encode("cp1252") + "咖啡".encode()


def test_missing_and_foreign_streams_are_left_alone(monkeypatch):
    """The windowed Windows executable has no stdout (None); a StringIO cannot be reconfigured;
    a UTF-8 stream (any spelling) keeps its own error handler."""
    utf8 = io.TextIOWrapper(io.BytesIO(), encoding="UTF8", errors="strict")
    foreign = io.StringIO()
    monkeypatch.setattr(sys, "stdin", None)
    monkeypatch.setattr(sys, "stdout", utf8)
    monkeypatch.setattr(sys, "stderr", foreign)
    use_utf8_streams()
    assert sys.stdin is None and sys.stdout is utf8 and sys.stderr is foreign
    assert utf8.errors == "strict"


def test_the_command_entry_switches_before_running(monkeypatch):
    """``desktop-mt`` (pyproject's script), ``python -m desktop_mt`` and the frozen executables
    all start in ``cli.entry``."""
    cp1252_streams = _cp1252_streams(monkeypatch)
    seen = {}

    def fake_main(argv=None, *, share_threads=False):
        seen["encoding"] = sys.stdout.encoding
        print("你好")
        return 0

    monkeypatch.setattr(cli, "main", fake_main)
    assert cli.entry() == 0
    sys.stdout.flush()
    assert seen["encoding"] == "utf-8"
    assert cp1252_streams["stdout"].buffer.getvalue().decode("utf-8") == "你好\n"


def test_self_test_output_redirected_in_the_ansi_code_page(tmp_path):
    """The defect as a Windows user meets it: ``self-test > out.txt`` where the streams' encoding
    is cp1252 (``PYTHONIOENCODING`` stands in for Windows' ANSI code page here)."""
    out = tmp_path / "out.txt"
    env = dict(os.environ, PYTHONIOENCODING="cp1252", PYTHONUTF8="0", HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
    with out.open("wb") as stdout:
        proc = subprocess.run(
            [sys.executable, "-m", "desktop_mt", "self-test"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=600,
        )
    text = out.read_bytes().decode("utf-8")
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert "self-test passed" in text
    assert any("\u4e00" <= c <= "\u9fff" for c in text), text
