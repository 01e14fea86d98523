"""The window and the command line name a file job's output by one rule (issue 42): for
English and Chinese inputs of several formats, and each target, the name the window plans
(``app.jobs.plan_output``) is the file ``desktop-mt translate`` writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_mt import GenerationOptions
from desktop_mt.app import jobs
from desktop_mt.cli import main as cli
from tests.batch.fake_translator import FakeTranslator

ENGLISH = ["Where is the train station?", "It rained again today."]
CHINESE = ["火车站在哪里？", "今天又下雨了。"]


def _txt(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _srt(path: Path, lines: list[str]) -> Path:
    cues = [f"{i}\n00:00:0{i},000 --> 00:00:0{i},900\n{line}\n" for i, line in enumerate(lines, 1)]
    path.write_text("\n".join(cues), "utf-8")
    return path


def _md(path: Path, lines: list[str]) -> Path:
    path.write_text("# " + lines[0] + "\n\n" + lines[1] + "\n", "utf-8")
    return path


def _html(path: Path, lines: list[str]) -> Path:
    path.write_text("<html><body>" + "".join(f"<p>{line}</p>" for line in lines) + "</body></html>", "utf-8")
    return path


def _docx(path: Path, lines: list[str]) -> Path:
    docx = pytest.importorskip("docx")
    document = docx.Document()
    for line in lines:
        document.add_paragraph(line)
    document.save(str(path))
    return path


MAKERS = {"txt": _txt, "srt": _srt, "md": _md, "html": _html, "docx": _docx}


@pytest.fixture
def fake_cli(monkeypatch):
    """The command line on a stand-in translator whose options carry ``--to``."""

    def make(args, variant=None):
        return FakeTranslator(options=GenerationOptions(target=getattr(args, "to", None) or "auto"))

    monkeypatch.setattr(cli, "make_translator", make)


@pytest.mark.parametrize("suffix", sorted(MAKERS))
@pytest.mark.parametrize("language", ["en", "zh"])
def test_window_and_command_line_name_the_output_alike(fake_cli, tmp_path, suffix, language):
    src = MAKERS[suffix](tmp_path / f"notes.{suffix}", ENGLISH if language == "en" else CHINESE)
    for target in ("auto", "en", "zh"):
        planned = jobs.plan_output(src, target).output
        assert cli.main(["translate", "--to", target, str(src)]) == 0
        written = sorted(p.name for p in tmp_path.iterdir() if p != src)
        assert written == [planned.name], f"{target}: the window plans {planned.name}, the CLI wrote {written}"
        planned.unlink()
        into_english = target == "en" or (target == "auto" and language == "zh")
        assert planned.name == f"notes.{'en' if into_english else 'zh'}.{suffix}"


def test_an_unreadable_input_plans_the_default_name(tmp_path):
    assert jobs.plan_output(tmp_path / "missing.txt").output == tmp_path / "missing.zh.txt"
