"""The command line speaks the user's language (issue 48): ``--help`` and its messages in
Simplified Chinese under a Chinese locale or the Settings' choice, English otherwise; the
catalog is complete, keeps every placeholder, and every user-visible string is marked."""

from __future__ import annotations

import ast
import gettext
import io
import json
import os
import re
import string
import sys
from pathlib import Path

import pytest

from desktop_mt.app import i18n
from desktop_mt.base import paths
from desktop_mt.cli import main as cli

ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture(autouse=True)
def _english_afterwards():
    """Each test chooses its language; later tests get the default choice back."""
    yield
    i18n.reset()


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A settings folder of its own, and no locale variables but those a test sets."""
    monkeypatch.setenv("DESKTOP_MT_HOME", str(tmp_path))
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def save_language(choice: str) -> None:
    config = paths.config_dir()
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"settings_version": 3, "language": choice}), encoding="utf-8")


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# -- --help and errors, both languages --------------------------------------------------------


def test_help_follows_a_chinese_locale(home, monkeypatch, capsys):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, out, _err = run(["--help"], capsys)
    assert code == 0
    assert out.startswith("用法：desktop-mt")
    for words in ("离线英汉互译。", "位置参数", "选项", "显示此帮助信息并退出", "翻译文件，或把标准输入翻译到标准输出"):
        assert words in out
    assert "show this help message" not in out and "translate files" not in out


def test_help_is_english_under_an_english_locale(home, monkeypatch, capsys):
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    code, out, _err = run(["--help"], capsys)
    assert code == 0
    assert out.startswith("usage: desktop-mt")
    assert "Offline English<->Chinese translation." in out and "show this help message and exit" in out
    assert not re.search(r"[\u4e00-\u9fff]", out)


def test_a_subcommands_help_is_chinese_and_fits_the_terminal(home, monkeypatch, capsys):
    monkeypatch.setenv("LANGUAGE", "zh_CN")
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _err = run(["translate", "--help"], capsys)
    assert code == 0
    assert "术语表 CSV/TSV" in out and "翻译记忆库（TMX）" in out and "退出码：" in out
    chinese = [line for line in out.splitlines() if re.search(r"[\u4e00-\u9fff]", line)]
    assert len(chinese) > 30, out
    # every Chinese line fits (the usage lines hold long {choices} that argparse cannot break)
    assert [line for line in chinese if i18n.display_width(line) > 80] == []


def test_a_usage_error_in_chinese_says_what_to_do(home, monkeypatch, capsys):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, _out, err = run(["translate", "-o", "out.txt", "a.txt", "b.txt"], capsys)
    assert code == 2
    assert err.startswith("用法：desktop-mt ")
    assert "desktop-mt：错误：-o 只接受一个输入文件；多个文件请用 --out-dir" in err


def test_argparse_own_errors_are_chinese_too(home, monkeypatch, capsys):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, _out, err = run(["translate", "--to", "fr"], capsys)
    assert code == 2
    assert "desktop-mt translate：错误：参数 --to：无效的选择：'fr'（可选：'auto', 'en', 'zh'）" in err


def test_a_file_error_names_the_file_and_the_fix_in_both_languages(home, monkeypatch, capsys):
    missing = home / "no such folder"
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, _out, err = run(["models", "add", str(missing)], capsys)
    assert code == 1
    assert f"desktop-mt：{missing} 不是文件夹；请给出存放模型 .onnx 文件" in err
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    code, _out, err = run(["models", "add", str(missing)], capsys)
    assert code == 1
    assert f"desktop-mt: {missing} is not a folder; give the folder that holds the model's .onnx files" in err


def test_an_out_dir_that_is_a_file_is_named_in_chinese(home, monkeypatch, capsys):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    afile = home / "notes.txt"
    afile.write_text("x", encoding="utf-8")
    code, _out, err = run(["translate", "--out-dir", str(afile), str(afile)], capsys)
    assert code == 2
    assert f"desktop-mt：错误：--out-dir {afile} 不是文件夹" in err


def test_models_list_speaks_chinese(home, monkeypatch, capsys):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, out, _err = run(["models", "list"], capsys)
    assert code == 0
    assert "模型目录（desktop-mt models download NAME [--variant int8|fp32]）：" in out
    assert "英文 → 中文（en-zh）：" in out and "中文 → 英文（zh-en）：" in out
    assert "许可证" in out and "随应用附带的小型演示模型" in out


# -- which language -----------------------------------------------------------------------------


def test_the_settings_choice_wins_over_the_locale(home, monkeypatch, capsys):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    save_language("en")
    assert run(["--help"], capsys)[1].startswith("usage: ")
    monkeypatch.setenv("LANG", "C.UTF-8")
    save_language("zh_CN")
    assert run(["--help"], capsys)[1].startswith("用法：")
    save_language("system")
    assert run(["--help"], capsys)[1].startswith("usage: ")


def test_a_broken_settings_file_is_read_as_system_and_left_alone(home, monkeypatch):
    config = paths.config_dir()
    config.mkdir(parents=True)
    (config / "settings.json").write_text("{not json", encoding="utf-8")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert i18n.language_setting() == "system"
    assert i18n.cli_language() == "zh_CN"
    assert (config / "settings.json").read_text(encoding="utf-8") == "{not json"  # no repair on a read
    (config / "settings.json").write_text('{"language": "fr"}', encoding="utf-8")
    assert i18n.language_setting() == "system"


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh_CN"),
        ({"LANG": "zh_SG.UTF-8"}, "zh_CN"),
        ({"LANG": "zh_TW.UTF-8"}, "zh_CN"),  # Simplified for any Chinese, as the window
        ({"LANG": "zh_HK.Big5HKSCS"}, "zh_CN"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({}, "en"),
        ({"LANGUAGE": "fr:zh_CN:en", "LANG": "fr_FR.UTF-8"}, "zh_CN"),  # the first with a catalog
        ({"LANGUAGE": "en_GB:zh_CN", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"LANGUAGE": "", "LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh_CN"),  # empty: not set
        ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),  # LC_ALL before LANG, as gettext
        ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh_CN"),
        ({"LANG": "zh_CN@stroke"}, "zh_CN"),
    ],
)
def test_the_system_language_is_read_as_gettext_reads_it(environ, language):
    assert i18n.cli_language("system", environ) == language


# -- the catalog ----------------------------------------------------------------------------------


def zh_entries() -> list[i18n.Entry]:
    return i18n.read_po(i18n.po_path("zh_CN").read_text(encoding="utf-8"))


def our_messages() -> set[tuple[str, str | None]]:
    found: set[tuple[str, str | None]] = set()
    for path in i18n.cli_sources():
        found |= set(i18n.extract(path.read_text(encoding="utf-8")))
    return found


def test_every_cli_message_is_in_the_catalog_and_translated():
    entries = {(e.msgid, e.msgid_plural): e for e in zh_entries()[1:]}
    ours = our_messages()
    assert len(ours) > 140  # the scan finds the marked strings at all
    missing = sorted(m for m, _p in ours - set(entries))
    assert not missing, "run `python -m desktop_mt.app.i18n update` and translate: " + repr(missing)
    untranslated = [e.msgid for e in entries.values() if not e.translated]
    assert not untranslated


def test_the_catalog_holds_no_stale_messages():
    entries = {(e.msgid, e.msgid_plural) for e in zh_entries()[1:]}
    stale = entries - set(i18n.catalog_messages())
    assert not stale, "messages no longer in the code (python -m desktop_mt.app.i18n update): " + repr(stale)


def test_argparse_words_of_this_python_are_translated():
    argparse_words = set(i18n.extract(Path(sys.modules["argparse"].__file__).read_text(encoding="utf-8")))
    translated = {(e.msgid, e.msgid_plural) for e in zh_entries() if e.translated}
    assert {("usage: ", None), ("options", None), ("%(prog)s: error: %(message)s\n", None)} <= translated
    assert argparse_words <= translated


def placeholders(text: str) -> list[str]:
    """``{name}``/``{text!r}`` fields and ``%(name)s``/``%s``/``%r`` conversions, sorted."""
    parsed = string.Formatter().parse(text)
    fields = [f"{{{name}{'!' + conv if conv else ''}}}" for _lit, name, _spec, conv in parsed if name is not None]
    return sorted(fields + re.findall(r"%(?:\([a-z_]+\))?[sdr]", text))


def test_every_translation_keeps_the_placeholders():
    bad = []
    for e in zh_entries()[1:]:
        sources = [e.msgid] if e.msgid_plural is None else [e.msgid, e.msgid_plural]
        expected = placeholders(sources[-1])
        bad += [(e.msgid, form) for form in e.msgstr if placeholders(form) != expected]
        if e.msgid.endswith("\n"):
            bad += [(e.msgid, form) for form in e.msgstr if not form.endswith("\n")]
    assert not bad


def test_the_chinese_uses_the_cat_terms():
    text = {e.msgid: e.msgstr[0] for e in zh_entries()[1:]}
    glossary = "CSV/TSV of terms (source,target[,case]): each source term found is rendered as its target term"
    assert "术语表" in text[glossary]
    memory = text[
        "a translation memory (TMX): sentences it has exactly are taken from it and never sent to the model; "
        "stderr says how many"
    ]
    assert "翻译记忆库" in memory
    bilingual = next(msgid for msgid in text if msgid.startswith("keep the source and put its translation after it"))
    assert "原文" in text[bilingual] and "译文" in text[bilingual]
    assert "译文" in text["the translation is empty"]


def test_a_placeholder_lost_in_translation_is_caught():
    assert placeholders("{done} of {total}") != placeholders("已完成 {done}")
    assert placeholders("invalid choice: %(value)r (choose from %(choices)s)") == placeholders(
        "无效的选择：%(value)r（可选：%(choices)s）"
    )


# -- .po -> .mo without GNU gettext -----------------------------------------------------------


def test_the_mo_writer_round_trips_through_gettext():
    entries = [
        i18n.Entry("", msgstr=[i18n.HEADER.format(language="zh_CN")]),
        i18n.Entry("translate the clipboard", msgstr=["翻译剪贴板"]),
        i18n.Entry("{count} line", "{count} lines", ["{count} 行"]),
        i18n.Entry("kept in English", msgstr=[""]),
        i18n.Entry("fuzzy one", msgstr=["模糊"], flags={"fuzzy"}),
        i18n.Entry("Open", msgstr=["打开"], msgctxt="menu"),
    ]
    catalog = gettext.GNUTranslations(io.BytesIO(i18n.mo_bytes(entries)))
    assert catalog.gettext("translate the clipboard") == "翻译剪贴板"
    assert catalog.ngettext("{count} line", "{count} lines", 1) == "{count} 行"
    assert catalog.ngettext("{count} line", "{count} lines", 5) == "{count} 行"
    assert catalog.gettext("kept in English") == "kept in English"  # untranslated: the English
    assert catalog.gettext("fuzzy one") == "fuzzy one"  # fuzzy: not trusted
    assert catalog.pgettext("menu", "Open") == "打开"


def test_the_po_reader_and_writer_keep_every_entry():
    text = i18n.po_path("zh_CN").read_text(encoding="utf-8")
    entries = i18n.read_po(text)
    assert i18n.write_po(entries) == text  # the file is as _update_po writes it
    again = i18n.read_po(i18n.write_po(entries))
    assert [(e.msgid, e.msgid_plural, e.msgstr) for e in again] == [
        (e.msgid, e.msgid_plural, e.msgstr) for e in entries
    ]


def test_a_bad_po_line_is_named():
    with pytest.raises(ValueError, match="line 2"):
        i18n.read_po('msgid "a"\nmsgstr b\n')


def test_a_built_mo_is_used_and_an_older_one_is_not(tmp_path, monkeypatch):
    monkeypatch.setattr(i18n, "locale_dir", lambda: tmp_path)
    po = i18n.po_path("zh_CN")
    po.parent.mkdir(parents=True)
    header = 'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    po.write_text(header + 'msgid "done"\nmsgstr "完成"\n', "utf-8")
    assert i18n.translations("zh_CN").gettext("done") == "完成"  # compiled in memory
    assert not po.with_suffix(".mo").exists()
    assert i18n.compile_all() == [po.with_suffix(".mo")]
    po.write_text(po.read_text("utf-8").replace("完成", "已完成"), "utf-8")
    mo = po.with_suffix(".mo")
    stamp = po.stat().st_mtime - 10
    os.utime(mo, (stamp, stamp))
    assert i18n.translations("zh_CN").gettext("done") == "已完成"  # the .mo is older: the .po wins
    assert i18n.translations("en").gettext("done") == "done"


# -- every user-visible string is marked ------------------------------------------------------

SHOWN_BY = {"print", "error", "UsageError", "ArgumentTypeError", "ValueError", "DesktopMTError", "_self_test_failed"}
TEXT_KEYWORDS = {"help", "description", "epilog", "title"}
MARKS = {"_", "N_", "ngettext"}


def unmarked_strings(source: str) -> list[tuple[int, str]]:
    """Strings with words that a CLI module shows without passing them through ``_``: in
    print/error/exception calls, argparse's help, description, epilog and group titles, and
    ``failures.append`` (the self-test's reasons)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        checked: list[ast.expr] = []
        if name in SHOWN_BY or (name == "append" and getattr(node.func.value, "id", "") == "failures"):
            checked += [a for a in node.args]
        if name == "add_argument_group":
            checked += node.args
        checked += [k.value for k in node.keywords if k.arg in TEXT_KEYWORDS]
        for expr in checked:
            found += [(expr.lineno, text) for text in _words_outside_marks(expr)]
            if isinstance(expr, ast.Name) and expr.id.isupper():
                found.append((expr.lineno, expr.id))  # a module constant shown without _()
    return found


def _words_outside_marks(expr: ast.expr) -> list[str]:
    """Literal text with words under ``expr``, not counting what is inside a ``_()`` call or
    another function's arguments (their strings are that function's affair)."""
    if isinstance(expr, ast.Call):
        name = expr.func.id if isinstance(expr.func, ast.Name) else getattr(expr.func, "attr", "")
        if name in MARKS:
            return []
        if name in ("format", "join") and isinstance(expr.func, ast.Attribute):
            return _words_outside_marks(expr.func.value) + [w for a in expr.args for w in _words_outside_marks(a)]
        return []
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr.value] if _has_words(expr.value) else []
    if isinstance(expr, ast.JoinedStr):
        texts = [v.value for v in expr.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        inner = [w for v in expr.values if isinstance(v, ast.FormattedValue) for w in _words_outside_marks(v.value)]
        return ([" ".join(texts)] if _has_words(" ".join(texts)) else []) + inner
    if isinstance(expr, (ast.BinOp, ast.IfExp, ast.BoolOp)):
        children = [child for child in ast.iter_child_nodes(expr) if isinstance(child, ast.expr)]
        return [w for child in children for w in _words_outside_marks(child)]
    return []


def _has_words(text: str) -> bool:
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text).replace("desktop-mt", "")
    return bool(re.search(r"[A-Za-z]{2,}", text))


def test_every_user_visible_cli_string_is_marked():
    problems = {path.name: unmarked_strings(path.read_text(encoding="utf-8")) for path in i18n.cli_sources()}
    assert not any(problems.values()), problems


def test_the_scan_finds_an_unmarked_string():
    source = """
def f(parser, exc, sub):
    print(f"desktop-mt: error: {exc}", file=sys.stderr)
    print(_("desktop-mt: error: {message}").format(message=exc))
    parser.add_argument("--x", help="an unmarked help")
    sub.add_parser("y", help=_("a marked one"), epilog=EPILOG)
    raise UsageError("plain words")
    print(f"{a} -> {b}")
    print(json.dumps({"file": name}))
"""
    assert [text for _line, text in unmarked_strings(source)] == [
        "desktop-mt: error: ",
        "an unmarked help",
        "EPILOG",
        "plain words",
    ]


# -- the lower layers' errors, said in the interface's language ---------------------------------


def test_a_missing_input_file_is_named_in_chinese_and_english(home, monkeypatch, capsys):
    missing = home / "nope.txt"
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, _out, err = run(["translate", str(missing)], capsys)
    assert code == 1
    assert f"desktop-mt：错误：{missing}：文件不存在" in err
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    code, _out, err = run(["translate", str(missing)], capsys)
    assert code == 1
    assert f"desktop-mt: error: {missing}: no such file" in err


def test_an_unsupported_format_says_the_fix_in_chinese(home, monkeypatch, capsys):
    doc = home / "report.doc"
    doc.write_bytes(b"\xd0\xcf\x11\xe0")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, _out, err = run(["translate", str(doc)], capsys)
    assert code == 1
    assert f"desktop-mt：错误：{doc}：不支持 .doc 文件；请先另存为 .docx" in err
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    code, _out, err = run(["translate", str(doc)], capsys)
    assert f"desktop-mt: error: {doc}: .doc files are not supported; save it as .docx first" in err


def test_a_corrupt_model_file_is_named_with_the_fix_in_chinese(home, monkeypatch, capsys):
    model = home / "model"
    model.mkdir()
    (model / "config.json").write_text("{not json", encoding="utf-8")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("hello\n"))
    code, _out, err = run(["translate", "--model", str(model)], capsys)
    assert code == 1
    assert f"desktop-mt：错误：{model / 'config.json'} 不是有效的 JSON（" in err
    assert "请用 `python -m export_tools export SRC DIR` 重新导出" in err


def test_switched_off_downloads_are_said_in_chinese_with_the_fix(home, monkeypatch, capsys):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code, _out, err = run(["models", "download", "opus-mt-en-zh", "--endpoint", "http://127.0.0.1:9"], capsys)
    assert code == 1
    assert "desktop-mt：下载已关闭：环境中设置了 HF_HUB_OFFLINE（或 TRANSFORMERS_OFFLINE）" in err
    assert "请取消该设置，才能从 http://127.0.0.1:9 下载" in err


def download_space_error(folder: Path) -> Exception:
    """The error of a download that does not fit on the disk, as download._check_space raises it."""
    from desktop_mt.models import download

    staging = folder / ".staging" / "x"
    staging.mkdir(parents=True)
    big = download.RemoteFile(path="model.onnx", size=10**15, sha256="0" * 64, repo="r", revision="0" * 40)
    with pytest.raises(download.NotEnoughSpaceError) as caught:
        download._check_space(staging, [big])
    return caught.value


def stalled_download_error() -> Exception:
    """The error of a download that stalled, as the download's reporter raises it (the clock given)."""
    import time

    from desktop_mt.models import download

    reporter = download._Reporter(None, None, 100, endpoint="https://hf-mirror.com", stall_seconds=30)
    reporter.file = "model.onnx"
    reporter.restart_clock()
    with pytest.raises(download.DownloadStalledError) as caught:
        reporter.check_stall(time.monotonic() + 31)
    return caught.value


def test_describe_says_each_common_error_in_the_chosen_language(tmp_path, monkeypatch):
    from desktop_mt.engine import model_format
    from desktop_mt.engine.direction import DirectionUnavailableError
    from desktop_mt.models import hub

    missing = tmp_path / "config.json"
    with pytest.raises(Exception) as not_found:
        model_format.read_json(missing)
    errors = [
        DirectionUnavailableError("en-zh", model="opus-mt-en-zh"),
        not_found.value,
        hub.unreachable_error("https://huggingface.co", "ConnectError: timed out"),
        download_space_error(tmp_path),
        stalled_download_error(),
    ]
    i18n.activate("zh_CN")
    said = [i18n.describe(e) for e in errors]
    assert said[0] == (
        "没有可用的英文 → 中文模型；请用 `desktop-mt models download opus-mt-en-zh` 下载（或在“模型”对话框中下载）"
    )
    assert said[1] == f"缺少 {missing}；请用 `python -m export_tools export SRC DIR` 重新导出"
    assert "HF_ENDPOINT=https://hf-mirror.com" in said[2] and said[2].startswith("无法连接 https://huggingface.co")
    assert said[3].startswith(f"下载需要 {tmp_path} 中有 1,000,000,000.0 MB 空间，但只剩 ")
    assert said[3].endswith(" MB；请腾出空间后再运行一次")
    assert said[4] == (
        "从 https://hf-mirror.com 的下载停滞了：30 秒内收到的数据不足 16 KiB（在 model.onnx）。已收到的部分会保留："
        "再次运行下载即可续传，或换一个镜像（--endpoint URL、`desktop-mt models mirror URL`、HF_ENDPOINT，"
        "或“模型”对话框中的“下载来源”）"
    )
    i18n.activate("en")
    assert [i18n.describe(e) for e in errors] == [str(e) for e in errors]
    assert str(errors[4]).startswith(
        "the download from https://hf-mirror.com stalled: less than 16 KiB arrived in 30 s"
    )


def test_a_broken_settings_file_is_said_in_chinese_with_where_it_was_kept(home, monkeypatch, capsys):
    config = paths.config_dir()
    config.mkdir(parents=True)
    settings = config / "settings.json"
    settings.write_text("{not json", encoding="utf-8")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, _out, err = run(["models", "list"], capsys)
    assert code == 0
    backup = next(config.glob("settings.corrupt-*.json"))
    assert (
        f"desktop-mt：设置文件 {settings} 无法读取（第 1 行的 JSON 无效）。它已另存为 {backup.name}，现使用默认设置。"
        in err
    )


def test_a_broken_settings_file_is_said_in_english_as_before(home, monkeypatch):
    from desktop_mt.app.settings import load_settings

    config = paths.config_dir()
    config.mkdir(parents=True)
    (config / "settings.json").write_bytes(b"\xff\xfe not utf-8")
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    (warning,) = load_settings().warnings
    backup = next(config.glob("settings.corrupt-*.json"))
    expected = (
        f"Settings file {config / 'settings.json'} was unreadable (not UTF-8 text). "
        f"It was saved as {backup.name} and the default settings are in use."
    )
    assert warning == expected
    assert i18n.describe(warning) == expected
    i18n.activate("zh_CN")
    assert i18n.describe(warning).startswith(f"设置文件 {config / 'settings.json'} 无法读取（不是 UTF-8 文本）")
