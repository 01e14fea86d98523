"""Batch files keep the awkward-input guarantees of the engine (issue 13): markers, URLs,
numbers, code and Chinese punctuation come through txt, srt and docx on the bundled model."""

from __future__ import annotations

import docx
import pytest

from desktop_mt import Translator
from desktop_mt.batch import translate_file
from tests.engine.test_awkward_input import ASCII_NEXT_TO_CJK, TABLE

LINES = [(line, name, check) for line, name, check in TABLE if "\n" not in line]
CODE = ["```", "print('hello world')", "```"]


@pytest.fixture(scope="module")
def bundled():
    return Translator()


def _assert_table(outputs):
    assert len(outputs) == len(LINES)
    for (line, name, check), out in zip(LINES, outputs):
        assert check(out), (name, line, out)
        assert not ASCII_NEXT_TO_CJK.search(out), (line, out)


def test_txt_keeps_markers_spans_and_code_blocks(tmp_path, bundled):
    src = tmp_path / "notes.txt"
    src.write_text("\n".join([line for line, _, _ in LINES] + CODE) + "\n", encoding="utf-8")
    out = translate_file(src, None, bundled).read_text(encoding="utf-8").split("\n")
    assert out[len(LINES) : len(LINES) + 3] == CODE  # the fenced block, copied
    _assert_table(out[: len(LINES)])


def test_srt_cues_keep_markers_and_spans(tmp_path, bundled):
    cues = [line.strip() for line, _, _ in LINES]
    src = tmp_path / "talk.srt"
    src.write_text(
        "".join(f"{i}\n00:00:{i:02d},000 --> 00:00:{i:02d},900\n{text}\n\n" for i, text in enumerate(cues, start=1)),
        encoding="utf-8",
    )
    blocks = translate_file(src, None, bundled).read_text(encoding="utf-8").strip().split("\n\n")
    texts = [" ".join(block.split("\n")[2:]) for block in blocks]  # a long cue may be re-wrapped
    assert len(texts) == len(cues)
    for (line, name, check), text in zip(LINES, texts):
        if name.startswith("indent"):
            continue  # cue text is stripped by the SRT format itself
        assert check(text), (name, line, text)


def test_docx_paragraphs_keep_markers_and_spans(tmp_path, bundled):
    document = docx.Document()
    for line, _, _ in LINES:
        document.add_paragraph(line)
    src = tmp_path / "report.docx"
    document.save(src)
    out = docx.Document(translate_file(src, None, bundled))
    _assert_table([p.text for p in out.paragraphs])
