"""``desktop-mt ocr IMAGE`` and ``desktop-mt translate IMAGE`` (OCR + the batch text path)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_mt.cli import main as cli
from desktop_mt.cli.ocr import OUTPUT_SEPARATOR
from desktop_mt.engine.testing import ScriptedTranslator
from tests.ocr.texts import CHINESE, ENGLISH, render, save


def fake_translation(text: str) -> str:
    return f"译[{text}]"


@pytest.fixture
def fake(monkeypatch):
    translator = ScriptedTranslator(fake_translation)
    monkeypatch.setattr(cli, "make_translator", lambda args, variant=None: translator)
    return translator


@pytest.fixture(scope="module")
def pictures(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("pictures")
    save(render(ENGLISH[:2]), folder / "en.png")
    save(render(CHINESE[:2]), folder / "zh.jpg", quality=92)
    save(render([]), folder / "blank.png")
    (folder / "fake.png").write_text("not really a picture")
    return folder


def test_ocr_prints_the_text_alone(pictures, capsys):
    assert cli.main(["ocr", str(pictures / "en.png")]) == 0
    assert capsys.readouterr().out == " ".join(ENGLISH[:2]) + "\n"
    assert cli.main(["ocr", "--lines", str(pictures / "zh.jpg")]) == 0
    assert capsys.readouterr().out.splitlines() == CHINESE[:2]


def test_ocr_json_has_lines_and_boxes(pictures, capsys):
    assert cli.main(["ocr", "--json", str(pictures / "zh.jpg")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["text"] == "".join(CHINESE[:2]) and [line["text"] for line in doc["lines"]] == CHINESE[:2]
    assert all(0 <= line["box"][0] < line["box"][2] <= doc["size"][0] for line in doc["lines"])


def test_ocr_bad_inputs_are_named_and_the_rest_still_run(pictures, capsys):
    status = cli.main(["ocr", str(pictures / "fake.png"), str(pictures / "blank.png"), str(pictures / "en.png")])
    out, err = capsys.readouterr()
    assert status == 1
    assert "fake.png: not an image" in err and "blank.png: no text was found in the image" in err
    assert ENGLISH[0] in out


def test_translate_an_image_writes_text_then_translation(pictures, fake, tmp_path):
    src = tmp_path / "shot.png"
    src.write_bytes((pictures / "en.png").read_bytes())
    assert cli.main(["translate", str(src)]) == 0
    text = (tmp_path / "shot.zh.txt").read_text(encoding="utf-8")
    recognised = " ".join(ENGLISH[:2])
    sentences = [fake_translation(s) for s in ENGLISH[:2]]
    assert text.startswith(recognised + OUTPUT_SEPARATOR)
    assert text.endswith("\n") and all(s in text.split(OUTPUT_SEPARATOR)[1] for s in sentences)


def test_translate_an_image_bilingual_to_stdout(pictures, fake, capsys):
    assert cli.main(["translate", "--bilingual", str(pictures / "en.png"), "-o", "-"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == " ".join(ENGLISH[:2])
    assert fake_translation(ENGLISH[0]) in lines[1]


def test_translate_mixes_images_and_text_files(pictures, fake, tmp_path):
    note = tmp_path / "note.txt"
    note.write_text("Hello.\n", encoding="utf-8")
    status = cli.main(["translate", str(pictures / "fake.png"), str(note), "--out-dir", str(tmp_path / "out")])
    assert status == 1  # the fake picture fails with its own message ...
    assert (tmp_path / "out" / "note.txt").read_text(encoding="utf-8").strip()  # ... the text file is done
