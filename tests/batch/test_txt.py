"""Plain-text files: line-for-line structure on awkward input, encodings, safety."""

from __future__ import annotations

import codecs
import os

import pytest

from desktop_mt.batch import BatchInputError, translate_file
from desktop_mt.batch.textio import split_lines

from .fake_translator import FakeTranslator, fake_translation

AWKWARD_LINES = [
    "Hello world.",
    "",
    "   indented line with trailing space   ",
    "\t\ttabbed\tcells\tand more\t",
    "word " * 2000,  # a 10,000-character line
    "mixed 中文 and English, Ελληνικά, русский, العربية",
    "emoji 😀👍🏽 family 👨‍👩‍👧 end",
    "control \x00\x07\x1b[31m chars\x7f inside",
    "vertical\x0btab and form\x0cfeed and\u2028line separator and \x85 NEL",
    "   ",
    "Hello world.",  # a repeat
    "",
]


def _write(path, text, encoding="utf-8", bom=b"", newline="\n"):
    path.write_bytes(bom + newline.join(text).encode(encoding) + newline.encode(encoding))
    return path


def _expected_line(line: str) -> str:
    """What the fake should produce for one input line, structure kept."""
    from desktop_mt.batch.textio import SegmentCollector, render

    collector = SegmentCollector()
    template = collector.add_text(line)
    return render(template, [fake_translation(s) for s in collector.segments])


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_awkward_file_keeps_every_line(tmp_path, fake, newline):
    src = _write(tmp_path / "in.txt", AWKWARD_LINES, newline=newline)
    out = translate_file(src, None, fake)
    assert out == tmp_path / "in.zh.txt"
    data = out.read_bytes()
    assert data.count(b"\n") == src.read_bytes().count(b"\n") == len(AWKWARD_LINES)
    assert data.count(b"\r\n") == (len(AWKWARD_LINES) if newline == "\r\n" else 0)
    pairs = split_lines(data.decode("utf-8"))
    assert [t for _, t in pairs] == [newline] * len(AWKWARD_LINES)
    for (got, _), line in zip(pairs, AWKWARD_LINES):
        if not line.strip():
            assert got == line  # blank and whitespace-only lines come back as they were
        else:
            assert got[: len(line) - len(line.lstrip())] == line[: len(line) - len(line.lstrip())]
            assert got[len(got.rstrip()) :] == line[len(line.rstrip()) :]
            assert got == _expected_line(line)
    # The 10k-character line is one segment (the engine segments it), and repeats go once.
    sent = [s for call in fake.batches for s in call]
    assert len(sent) == len(set(sent))
    assert ("word " * 2000).strip() in sent
    assert not any(c in s for s in sent for c in "\x00\x07\x1b\x7f\x0b\x0c\u2028\x85\n\r")


def test_no_final_newline_and_lone_cr(tmp_path, fake):
    src = tmp_path / "in.txt"
    src.write_bytes(b"one\rtwo\r\nthree\n\nlast without newline")
    out = translate_file(src, tmp_path / "out.txt", fake).read_bytes().decode("utf-8")
    assert [t for _, t in split_lines(out)] == ["\r", "\r\n", "\n", "\n", ""]
    assert out.endswith(fake_translation("last without newline"))


@pytest.mark.parametrize(
    "codec,bom", [("utf-8", codecs.BOM_UTF8), ("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE)]
)
def test_bom_and_encoding_are_kept(tmp_path, fake, codec, bom):
    src = _write(tmp_path / "in.txt", ["Hello.", "", "Bye."], encoding=codec, bom=bom, newline="\r\n")
    data = translate_file(src, None, fake).read_bytes()
    assert data.startswith(bom)
    text = data[len(bom) :].decode(codec)
    assert "\ufeff" not in text
    assert text == "\r\n".join([fake_translation("Hello."), "", fake_translation("Bye.")]) + "\r\n"


def test_undecodable_input_names_file_and_line(tmp_path, fake):
    src = tmp_path / "latin.txt"
    src.write_bytes(b"fine\nalso fine\ncaf\xe9 au lait\n")
    with pytest.raises(BatchInputError) as info:
        translate_file(src, None, fake)
    message = str(info.value)
    assert "latin.txt" in message and "line 3" in message and "--encoding" in message
    assert info.value.line == 3
    assert not (tmp_path / "latin.zh.txt").exists()
    assert fake.batches == []


def test_explicit_encoding_decodes_and_writes_utf8(tmp_path, fake):
    src = tmp_path / "latin.txt"
    src.write_bytes("café au lait\n".encode("cp1252"))
    out = translate_file(src, None, fake, encoding="cp1252")
    assert out.read_text("utf-8") == fake_translation("café au lait") + "\n"


def test_utf16_without_bom_is_refused(tmp_path, fake):
    src = tmp_path / "u16.txt"
    src.write_bytes("Hello there\nsecond line\n".encode("utf-16-le"))
    with pytest.raises(BatchInputError, match="UTF-16"):
        translate_file(src, None, fake)


def test_refuses_to_overwrite_the_input(tmp_path, fake):
    src = _write(tmp_path / "in.txt", ["Hello."])
    before = src.read_bytes()
    with pytest.raises(BatchInputError, match="overwrite the input"):
        translate_file(src, src, fake)
    with pytest.raises(BatchInputError, match="overwrite the input"):
        translate_file(src, tmp_path / "." / "in.txt", fake)
    link = tmp_path / "hard.txt"
    os.link(src, link)
    with pytest.raises(BatchInputError, match="overwrite the input"):
        translate_file(src, link, fake)
    assert src.read_bytes() == before


def test_missing_input_is_a_clear_error(tmp_path, fake):
    with pytest.raises(BatchInputError, match="nope.txt: no such file"):
        translate_file(tmp_path / "nope.txt", None, fake)


def test_repeated_lines_are_translated_once(tmp_path, fake):
    lines = ["Yes.", "No.", "Yes.", "  Yes.  ", "No."] * 40
    src = _write(tmp_path / "in.txt", lines)
    out = translate_file(src, None, fake).read_text("utf-8").split("\n")[:-1]
    assert len(out) == len(lines)
    assert sorted(s for call in fake.batches for s in call) == ["No.", "Yes."]
    assert out[3] == "  " + fake_translation("Yes.") + "  "


def test_engine_failure_leaves_no_partial_output(tmp_path):
    src = _write(tmp_path / "in.txt", [f"line {i}" for i in range(10)])
    dst = tmp_path / "out.txt"
    dst.write_text("previous output")
    with pytest.raises(RuntimeError):
        translate_file(src, dst, FakeTranslator(fail_on="line 3"), chunk_size=2)
    assert dst.read_text() == "previous output"  # replaced only by a complete output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.txt", "out.txt.journal.jsonl"]


def test_success_leaves_only_the_output(tmp_path, fake):
    src = _write(tmp_path / "in.txt", [f"line {i}" for i in range(10)])
    translate_file(src, None, fake, chunk_size=3)
    assert len(fake.batches) == 4  # chunks of 3, so the journal advances
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "in.zh.txt"]


def test_output_gets_ordinary_permissions(tmp_path, fake):
    umask = os.umask(0)
    os.umask(umask)
    src = _write(tmp_path / "in.txt", ["Hello."])
    out = translate_file(src, None, fake)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask  # not a private temp-file mode
    os.chmod(out, 0o600)
    translate_file(src, None, fake)  # replacing keeps the replaced file's mode
    assert out.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("content", [b"", b"\n\n\n", b"  \r\n\t\r\n"])
def test_empty_and_blank_files(tmp_path, fake, content):
    src = tmp_path / "in.txt"
    src.write_bytes(content)
    assert translate_file(src, None, fake).read_bytes() == content
    assert fake.batches == []
