"""Markdown: text translated; code, HTML blocks, URLs and front matter untouched; the output
parses to the same block structure (markdown-it-py, the parser the format reads with)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from desktop_mt.batch import default_output_path, load_document, translate_file
from desktop_mt.batch.markdown import _inline
from desktop_mt.engine.testing import ScriptedTranslator

from .fake_translator import fake_translation

README = Path(__file__).resolve().parents[1] / "data" / "markdown" / "README.md"
CODE = re.compile(r"(`[^`\n]+`)")


def engine_like(text: str) -> str:
    """The fake translation with code spans copied, as the engine's protected spans are."""
    return "".join(part if CODE.fullmatch(part) else fake_translation(part) for part in CODE.split(text))


def _translated(tmp_path, text: str | None = None) -> tuple[str, str]:
    src = tmp_path / "README.md"
    src.write_text(text if text is not None else README.read_text("utf-8"), "utf-8")
    dst = translate_file(src, tmp_path / "README.zh.md", ScriptedTranslator(engine_like, name="fake"))
    return src.read_text("utf-8"), dst.read_text("utf-8")


def _blocks(text: str) -> list[str]:
    """The block structure as markdown-it-py reads it (inline content left out)."""
    parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    return [t.type for t in parser.parse(text) if t.type != "inline"]


def test_a_readme_keeps_its_structure_code_and_urls(tmp_path):
    source, output = _translated(tmp_path)
    assert _blocks(output) == _blocks(source)
    for kept in (
        "---\ntitle: Demo tool\ntags: [cli, offline]\n---\n",
        "```sh\ndemo --copy ~/Documents /mnt/backup   # copies everything\n```\n",
        "    indented code stays too\n",
        '<div align="center">\n  <img src="logo.png" alt="Logo">\n</div>\n',
        "![The main window](docs/window.png)\n",
        "|--------|--------------|\n",
        "--------------\n\n[faq]: https://example.com/faq\n",
    ):
        assert kept in output, kept
    lines = output.splitlines()
    assert lines[5] == f"# {fake_translation('Demo tool')} #"
    assert '](https://example.com/guide "Guide")' in output and f"[{fake_translation('user guide')}" in output
    step = next(line for line in lines if "<https://example.com/download>" in line)
    assert step.startswith("1. " + fake_translation("Download the installer from"))
    assert "`demo --install`" in output and "| `--copy` |" in output
    assert f"**{fake_translation('Note:')}**" in output
    assert "[faq]" in output and "<br>" in output


def test_a_paragraph_of_several_lines_becomes_one_line_with_its_marker(tmp_path):
    _source, output = _translated(tmp_path, "- first line\n  second line\n\n> quoted\n> more\n")
    assert output == (f"- {fake_translation('first line second line')}\n\n> {fake_translation('quoted more')}\n")


def test_chinese_lines_are_joined_without_a_space(tmp_path):
    document = load_document("第一行\n第二行。\n".encode(), "zh.md", "md")
    assert document.segments == ["第一行第二行。"]


def test_table_cells_are_translated_each_with_their_padding(tmp_path):
    _source, output = _translated(tmp_path, "| Name  | Use |\n|---|---|\n| Alpha | Copy files. |\n")
    first, delimiter, row = output.splitlines()
    assert first == f"| {fake_translation('Name')}  | {fake_translation('Use')} |"
    assert delimiter == "|---|---|"
    assert row == f"| {fake_translation('Alpha')} | {fake_translation('Copy files.')} |"


@pytest.mark.parametrize(
    "text, plain",
    [
        ("snake_case_name and 5 * 3 = 15", "snake_case_name and 5 * 3 = 15"),  # no emphasis in there
        ("**unclosed and [open", "**unclosed and [open"),  # unclosed markup is text
        ("a *b* and **c d** and ~~e~~", "a b and c d and e"),
        (r"an \*escaped\* star", r"an \*escaped\* star"),
    ],
)
def test_inline_markup_is_read_as_markdown_reads_it(text, plain):
    assert _inline(text)[0] == plain


def test_emphasis_and_links_stay_balanced_around_the_translation(tmp_path):
    _source, output = _translated(tmp_path, "Use **the [new](https://x.y) tool** now.\n")
    assert output.count("**") == 2 and output.count("[") == 1
    assert "](https://x.y)" in output
    assert _blocks(output) == ["paragraph_open", "paragraph_close"]


def test_markdown_output_is_named_by_its_suffix(tmp_path):
    assert default_output_path(tmp_path / "guide.markdown") == tmp_path / "guide.zh.markdown"
    _source, output = _translated(tmp_path, "Hello.\n")
    assert output == fake_translation("Hello.") + "\n"


def test_a_code_before_the_full_stop_stays_before_it():
    """'... from <link>.': the autolink goes before the translation's closing punctuation."""
    document = load_document(b"Download it from <https://x.y/d>.\n", "d.md", "md")
    import io

    out = io.BytesIO()
    document.write(["从这里下载。"], out)
    assert out.getvalue().decode() == "从这里下载<https://x.y/d>。\n"
