"""`desktop-mt translate` both ways: --to, one --model per direction, files either way, --bilingual."""

from __future__ import annotations

import pytest

from desktop_mt import Translator
from desktop_mt.cli import main as cli
from tests.cli.test_spans import _run as run_lines

ENGLISH = "Where is the train station?"
CHINESE = "我爱你。"


@pytest.fixture(scope="module")
def zh_en_dir(tmp_path_factory):
    """The tiny Chinese->English Marian (tests/engine/zh_en_model.py), exported."""
    from tests.engine.zh_en_model import export_zh_en, make_marian_zh_en

    hf = make_marian_zh_en(tmp_path_factory.mktemp("cli_zh_en_hf"))
    return export_zh_en(hf, tmp_path_factory.mktemp("cli_zh_en_onnx"))


@pytest.fixture(scope="module")
def models(tiny_marian_dir, zh_en_dir):
    """``--model`` twice (either order) and each direction's own Translator for the expected output."""
    argv = ["--model", str(zh_en_dir), "--model", str(tiny_marian_dir), "--variant", "fp32"]
    return argv, Translator(tiny_marian_dir, variant="fp32"), Translator(zh_en_dir, variant="fp32")


def run(monkeypatch, argv: list[str], text: str) -> tuple[int, str]:
    """``desktop-mt translate ARGV`` on ``text`` (its lines) as stdin: the exit code and stdout."""
    code, lines = run_lines(monkeypatch, argv, text.splitlines())
    return code, "".join(f"{line}\n" for line in lines)


def test_auto_translates_each_line_into_the_other_language(monkeypatch, models):
    argv, en_zh, zh_en = models
    code, out = run(monkeypatch, argv, f"{ENGLISH}\n{CHINESE}\n")
    assert code == 0
    assert out == f"{en_zh.translate(ENGLISH)}\n{zh_en.translate(CHINESE)}\n"


def test_to_leaves_text_already_in_the_target_language(monkeypatch, models):
    argv, en_zh, zh_en = models
    assert run(monkeypatch, [*argv, "--to", "en"], f"{ENGLISH}\n{CHINESE}\n") == (
        0,
        f"{ENGLISH}\n{zh_en.translate(CHINESE)}\n",
    )
    assert run(monkeypatch, [*argv, "--to", "zh"], f"{ENGLISH}\n{CHINESE}\n") == (
        0,
        f"{en_zh.translate(ENGLISH)}\n{CHINESE}\n",
    )


def test_missing_direction_names_the_model_to_download(monkeypatch, tiny_marian_dir, capsys):
    code, out = run(monkeypatch, ["--model", str(tiny_marian_dir), "--variant", "fp32", "--to", "en"], f"{CHINESE}\n")
    assert code == 1 and out == ""
    assert "desktop-mt models download opus-mt-zh-en" in capsys.readouterr().err


def test_two_models_for_one_direction_are_refused(monkeypatch, tiny_marian_dir, capsys):
    code, _ = run(monkeypatch, ["--model", str(tiny_marian_dir), "--model", str(tiny_marian_dir)], "Hi.\n")
    assert code == 1 and "two en-zh models were given" in capsys.readouterr().err


def test_a_chinese_file_is_written_as_name_en(models, tmp_path):
    argv, _en_zh, zh_en = models
    src = tmp_path / "notes.txt"
    src.write_text(f"{CHINESE}\n今天又下雨了。\n", "utf-8")
    assert cli.main(["translate", *argv, str(src)]) == 0
    assert (tmp_path / "notes.en.txt").read_text("utf-8") == (
        f"{zh_en.translate(CHINESE)}\n{zh_en.translate('今天又下雨了。')}\n"
    )
    assert cli.main(["translate", *argv, "--to", "zh", str(src)]) == 0
    assert (tmp_path / "notes.zh.txt").read_text("utf-8") == src.read_text("utf-8")  # already Chinese


def test_bilingual_srt_either_way(models, tmp_path):
    argv, en_zh, zh_en = models
    src = tmp_path / "talk.srt"
    src.write_text(
        f"1\n00:00:01,000 --> 00:00:02,000\n{CHINESE}\n\n2\n00:00:03,000 --> 00:00:04,000\n{ENGLISH}\n", "utf-8"
    )
    out = tmp_path / "talk.out.srt"
    assert cli.main(["translate", *argv, "--bilingual", str(src), "-o", str(out)]) == 0
    cues = [cue.split("\n") for cue in out.read_text("utf-8").strip().split("\n\n")]
    assert cues[0][2:] == [CHINESE, zh_en.translate(CHINESE)]
    assert cues[1][2] == ENGLISH and "".join(cues[1][3:]).replace(" ", "") == en_zh.translate(ENGLISH).replace(" ", "")


def test_bilingual_txt_pairs_work_either_way(monkeypatch, models):
    argv, en_zh, zh_en = models
    code, out = run(monkeypatch, [*argv, "--bilingual"], f"{CHINESE}\n{ENGLISH}\n")
    assert code == 0
    assert out == f"{CHINESE}\n{zh_en.translate(CHINESE)}\n{ENGLISH}\n{en_zh.translate(ENGLISH)}\n"


def test_docx_translates_either_way(models, tmp_path):
    import docx

    argv, en_zh, zh_en = models
    src = tmp_path / "memo.docx"
    document = docx.Document()
    document.add_paragraph(CHINESE)
    document.add_paragraph(ENGLISH)
    document.save(str(src))
    out = tmp_path / "memo.out.docx"
    assert cli.main(["translate", *argv, str(src), "-o", str(out)]) == 0
    texts = [p.text for p in docx.Document(str(out)).paragraphs]
    assert texts == [zh_en.translate(CHINESE), en_zh.translate(ENGLISH)]


def test_self_test_loads_the_model_of_each_direction(tiny_marian_dir, zh_en_dir, capsys):
    code = cli.main(["self-test", "--model", str(zh_en_dir), "--model", str(tiny_marian_dir), "--variant", "fp32"])
    out = capsys.readouterr().out
    assert "en-zh model:" in out and "zh-en model:" in out
    assert "en-zh fp32:" in out and "zh-en fp32:" in out and "load" in out
    assert code in (0, 1)  # tiny random models may write neither script; the check names which


def test_self_test_names_the_model_a_missing_direction_needs(zh_en_dir, capsys):
    cli.main(["self-test", "--model", str(zh_en_dir), "--variant", "fp32"])
    out = capsys.readouterr().out
    assert "zh-en fp32:" in out and "en-zh: no model (`desktop-mt models download opus-mt-en-zh`" in out
