"""`desktop-mt translate` with files as people hand them over: binary files, `-o -`, no Qt."""

from __future__ import annotations

import dataclasses
import io
import sys
from pathlib import Path

import pytest

from desktop_mt.cli import main as cli
from tests.batch.fake_translator import FakeTranslator, fake_translation

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00" + bytes(range(256))


@pytest.fixture
def fake(monkeypatch):
    """The CLI builds a FakeTranslator instead of loading a model; its options carry ``--to``,
    as make_translator's do (the output's name follows the language translated into)."""
    translator = FakeTranslator()

    def make(args, variant=None):
        translator.options = dataclasses.replace(translator.options, target=getattr(args, "to", None) or "auto")
        return translator

    monkeypatch.setattr(cli, "make_translator", make)
    return translator


def _stdout(monkeypatch) -> io.TextIOWrapper:
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", stdout)
    return stdout


@pytest.mark.parametrize(
    "name, data, what",
    [
        ("picture.bin", PNG, "a PNG image"),  # (.png itself is read by OCR: tests/ocr)
        ("picture.txt", PNG, "a PNG image"),  # the suffix lies: the bytes are judged
        ("zeros.txt", b"\x00" * 4096, "a file of zero bytes only"),
        ("blob.srt", bytes(range(1, 256)) * 8 + b"\x00" * 10, "binary data"),
        ("archive.txt", b"PK\x03\x04\x14\x00\x06\x00" + bytes(200), "a ZIP archive (a .docx?"),
    ],
)
def test_binary_input_is_named_as_binary_without_encoding_advice(fake, tmp_path, capsys, name, data, what):
    src = tmp_path / name
    src.write_bytes(data)
    assert cli.main(["translate", str(src)]) == 1
    err = capsys.readouterr().err
    assert f"{src}: not a text file: this is {what}" in err
    assert "--encoding" not in err and "UTF-16" not in err
    assert not list(tmp_path.glob("*.zh*")) and fake.calls == []


def test_utf16_without_bom_still_gets_the_encoding_advice(fake, tmp_path, capsys):
    src = tmp_path / "wide.txt"
    src.write_bytes("Hello there, how are you?\n".encode("utf-16-le"))
    assert cli.main(["translate", str(src)]) == 1
    assert "pass --encoding utf-16-le" in capsys.readouterr().err


def test_an_empty_file_gives_an_empty_translation(fake, tmp_path):
    src = tmp_path / "empty.txt"
    src.write_bytes(b"")
    assert cli.main(["translate", str(src)]) == 0
    assert (tmp_path / "empty.zh.txt").read_bytes() == b""


def test_dash_o_dash_writes_a_file_input_to_stdout(fake, tmp_path, monkeypatch, capsys):
    src = tmp_path / "notes.txt"
    src.write_text("Hello there.\nGood night.\n", "utf-8")
    stdout = _stdout(monkeypatch)
    assert cli.main(["translate", str(src), "-o", "-"]) == 0
    stdout.flush()
    assert stdout.buffer.getvalue().decode("utf-8") == (
        f"{fake_translation('Hello there.')}\n{fake_translation('Good night.')}\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # no file, no journal


def test_dash_o_dash_with_a_missing_file_names_it(fake, tmp_path, monkeypatch, capsys):
    _stdout(monkeypatch)
    assert cli.main(["translate", str(tmp_path / "nope.srt"), "-o", "-"]) == 1
    assert f"{tmp_path / 'nope.srt'}: no such file" in capsys.readouterr().err


def test_dash_o_dash_takes_one_file_only(fake, tmp_path, capsys):
    assert cli.main(["translate", "a.txt", "b.txt", "-o", "-"]) == 2


def test_gui_without_pyside6_says_pyside6_is_missing_before_the_display(monkeypatch, capsys):
    """A wheel installed without the gui extra, started where there is no display: the
    missing PySide6 is what the user must fix first."""
    import importlib.util

    import desktop_mt.gui.platform.display_check as display_check

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "PySide6" else real_find_spec(name, *a)
    )
    monkeypatch.setattr(display_check, "display_problem", lambda: "desktop-mt: no display")
    assert cli.main([]) == 1
    err = capsys.readouterr().err
    assert "No module named 'PySide6'" in err and "'gui' extra" in err
    assert "no display" not in err


def test_progress_counts_the_sentences_of_a_one_line_book(fake, tmp_path, capsys):
    """A book exported as one line: the progress bar moves sentence by sentence, not 0/1."""
    src = tmp_path / "book.txt"
    src.write_text(" ".join(f"Sentence number {n} is here." for n in range(300)) + "\n", "utf-8")
    assert cli.main(["translate", "--progress", str(src)]) == 0
    err = capsys.readouterr().err
    assert "300/300" in err and "0/1 " not in err
    assert max(len(line) for call in fake.calls for line in call) < 40


# --- the files translators are handed (issue 47) ------------------------------------------

XLIFF_DATA = Path(__file__).resolve().parents[1] / "data" / "xliff"


def test_an_xliff_is_translated_next_to_itself_by_its_suffix(fake, tmp_path, capsys):
    src = tmp_path / "manual.xlf"
    src.write_bytes((XLIFF_DATA / "omegat.xlf").read_bytes())
    assert cli.main(["translate", str(src)]) == 0
    out = tmp_path / "manual.zh.xlf"
    assert fake_translation("Getting started").encode() in out.read_bytes()
    assert f"{src} -> {out}" in capsys.readouterr().err


def test_overwrite_mt_reaches_the_xliff(fake, tmp_path):
    src = tmp_path / "manual.xlf"
    src.write_bytes((XLIFF_DATA / "omegat.xlf").read_bytes())
    assert cli.main(["translate", str(src), "-o", str(tmp_path / "kept.xlf")]) == 0
    assert "旧的机器建议。" in (tmp_path / "kept.xlf").read_text("utf-8")
    assert cli.main(["translate", str(src), "--overwrite-mt", "-o", str(tmp_path / "new.xlf")]) == 0
    new = (tmp_path / "new.xlf").read_text("utf-8")
    assert "旧的机器建议。" not in new and fake_translation("An old machine suggestion.") in new


def test_an_xliff_into_english_is_named_for_english(fake, tmp_path):
    src = tmp_path / "app.xlf"
    src.write_text(
        '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="zh-CN" trgLang="en">'
        '<file id="f"><unit id="1"><segment><source>你好。</source></segment></unit></file></xliff>',
        "utf-8",
    )
    assert cli.main(["translate", str(src)]) == 0
    assert (tmp_path / "app.en.xlf").exists()


def test_a_broken_xliff_is_named_and_nothing_is_written(fake, tmp_path, capsys):
    src = tmp_path / "broken.xliff"
    src.write_bytes(b'<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2"><file>')
    assert cli.main(["translate", str(src)]) == 1
    assert f"{src}: not well-formed XML" in capsys.readouterr().err
    assert not list(tmp_path.glob("broken.zh*"))


def test_an_xliff_to_stdout_follows_its_languages(fake, tmp_path, monkeypatch):
    src = tmp_path / "tw.xlf"
    src.write_bytes((XLIFF_DATA / "xliff2.xlf").read_bytes())
    stdout = _stdout(monkeypatch)
    assert cli.main(["translate", str(src), "-o", "-"]) == 0
    stdout.flush()
    assert b"desktop-mt:mt" in stdout.buffer.getvalue()
    assert {(o.target, o.script) for o in _options_seen(fake)} == {("zh", "traditional-tw")}


def _options_seen(translator: FakeTranslator) -> list:
    from desktop_mt.engine.testing import ScriptedTranslator

    return [call.options for call in ScriptedTranslator.calls.fget(translator)]


def test_a_po_through_the_real_engine_keeps_every_placeholder(tiny_marian_dir, tmp_path, capsys):
    """The tiny model translates nonsense, but the engine's span machinery must bring each
    protected placeholder and tag through (whole or cut around it): msgfmt --check passes."""
    from tests.batch.test_po import DATA as PO_DATA
    from tests.batch.test_po import msgfmt_check

    out = tmp_path / "app.zh.po"
    argv = ["translate", str(PO_DATA / "app.zh_CN.po"), "-o", str(out), "--model", str(tiny_marian_dir)]
    assert cli.main([*argv, "--variant", "fp32"]) == 0, capsys.readouterr().err
    msgfmt_check(out)
    text = out.read_text("utf-8")
    assert "entries left untranslated" not in capsys.readouterr().err
    assert text.count("desktop-mt: machine translation") == 9


def test_a_pdf_becomes_a_docx_named_for_its_language(fake, tmp_path, capsys):
    from tests.batch.pdf_maker import column, make_pdf

    src = tmp_path / "paper.pdf"
    src.write_bytes(make_pdf([column(72, 720, ["The tool copies your files."])]))
    assert cli.main(["translate", str(src)]) == 0, capsys.readouterr().err
    assert (tmp_path / "paper.zh.docx").exists()
    assert cli.main(["translate", "--to", "en", str(src)]) == 0
    assert (tmp_path / "paper.en.docx").exists()


def test_a_pdf_named_txt_is_pointed_at_the_pdf_format(fake, tmp_path, capsys):
    src = tmp_path / "paper.txt"
    src.write_bytes(b"%PDF-1.4\n" + bytes(range(256)))
    assert cli.main(["translate", str(src)]) == 1
    assert "a PDF document (give it the .pdf suffix or pass --format pdf)" in capsys.readouterr().err
