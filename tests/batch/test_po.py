"""Gettext PO/POT: untranslated entries filled and marked fuzzy, plurals, placeholders and markup
protected and verified; ``msgfmt --check`` (gettext's own validator) passes on the output."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from translate.storage import pypo

from desktop_mt import GenerationOptions
from desktop_mt.batch import BatchInputError, default_output_path, load_document, translate_file
from desktop_mt.batch.journal import journal_path
from desktop_mt.batch.po import MACHINE_COMMENT
from desktop_mt.engine.testing import ScriptedTranslator
from tests import sysdeps

from .fake_translator import fake_translation

DATA = Path(__file__).resolve().parents[1] / "data" / "po"
CODE = re.compile(r"(`[^`\n]+`)")


def engine_like(text: str) -> str:
    """The fake translation with code spans copied verbatim, as the engine's span machinery
    does (``textproc.protect``): the placeholders come through."""
    return "".join(part if CODE.fullmatch(part) else fake_translation(part) for part in CODE.split(text))


def dropping(text: str) -> str:
    """A translation that loses what the backticks held."""
    return fake_translation(CODE.sub("", text))


def _translator(model=engine_like) -> ScriptedTranslator:
    return ScriptedTranslator(model, name="fake")


def _options_seen(translator: ScriptedTranslator) -> set[tuple[str, str]]:
    return {(call.options.target, call.options.script) for call in translator.calls}


def msgfmt_check(path: Path) -> None:
    """gettext's validator, fuzzy entries included (they are what this app writes)."""
    sysdeps.require("gettext")
    result = subprocess.run(
        [shutil.which("msgfmt") or "msgfmt", "--check", "--use-fuzzy", "-o", "/dev/null", str(path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def _units(path: Path) -> dict[tuple[str | None, str], pypo.pounit]:
    store = pypo.pofile.parsestring(path.read_bytes())
    return {(u.getcontext() or None, str(u.source)): u for u in store.units if not u.isheader()}


def test_a_po_is_filled_fuzzy_with_its_placeholders_and_passes_msgfmt(tmp_path):
    src, dst = DATA / "app.zh_CN.po", tmp_path / "app.zh.po"
    translator = _translator()
    translate_file(src, dst, translator)
    msgfmt_check(dst)
    before, after = _units(src), _units(dst)
    assert before.keys() == after.keys()
    filled = [key for key, unit in before.items() if not unit.istranslated() and not unit.isfuzzy()]
    filled = [key for key in filled if not before[key].isobsolete()]
    assert len(filled) == 9
    for key in filled:
        unit = after[key]
        assert unit.isfuzzy() and MACHINE_COMMENT in unit.getnotes("translator"), key
        assert str(unit.target), key
    cannot = after[(None, "Cannot open the file %s: %s")]
    assert str(cannot.target) == fake_translation("Cannot open the file ") + "%s" + fake_translation(": ") + "%s"
    hello = str(after[(None, "Hello %(user)s, you have %(count)d new messages.")].target)
    assert "%(user)s" in hello and "%(count)d" in hello and "`" not in hello
    markup = str(after[(None, 'Read the <a href="/docs">manual</a> before you start.<br/>It is short.')].target)
    assert re.findall(r"<[^>]+>", markup) == ['<a href="/docs">', "</a>", "<br/>"]
    usage = str(after[(None, "Usage: demo [OPTION]... FILE\nCopy FILE to the backup folder.\n")].target)
    assert usage.count("\n") == 2 and usage.endswith("\n")
    assert str(after[(None, "%d%%")].target) == "%d%%"  # nothing but placeholders: copied
    assert str(after[("menu", "Open")].target) == fake_translation("Open")
    # Chinese has one plural form: the plural's translation, with its %d.
    plural = after[(None, "Copied one file.")]
    assert plural.target.strings == [fake_translation("Copied ") + "%d" + fake_translation(" files.")]
    assert _options_seen(translator) == {("zh", "simplified")}


@pytest.mark.parametrize("key", [(None, "Quit"), (None, "Save all files")], ids=["translated", "fuzzy from msgmerge"])
def test_translated_and_fuzzy_entries_are_left_as_they_were(tmp_path, key):
    dst = translate_file(DATA / "app.zh_CN.po", tmp_path / "out.po", _translator())
    assert str(_units(dst)[key]) == str(_units(DATA / "app.zh_CN.po")[key])


def test_everything_but_the_filled_entries_is_kept(tmp_path):
    dst = translate_file(DATA / "app.zh_CN.po", tmp_path / "out.po", _translator())
    source, output = (DATA / "app.zh_CN.po").read_text("utf-8"), dst.read_text("utf-8")
    header = source.split("\n\n", 1)[0]
    assert output.startswith(header + "\n\n")
    assert output.endswith('#~ msgid "An old message"\n#~ msgstr "一条旧消息"\n')


def test_a_lost_placeholder_leaves_the_entry_untranslated_and_says_so(tmp_path):
    summaries = []
    dst = translate_file(DATA / "app.zh_CN.po", tmp_path / "out.po", _translator(dropping), on_summary=summaries.append)
    msgfmt_check(dst)
    units = _units(dst)
    assert str(units[(None, "Cannot open the file %s: %s")].target) == ""
    assert str(units[("menu", "Open")].target) == fake_translation("Open")  # no placeholder to lose
    assert "entries left untranslated: their placeholders did not come through" in str(summaries[0])


def test_a_pot_becomes_a_po_for_the_language_it_was_translated_into(tmp_path):
    src = tmp_path / "demo.pot"
    src.write_bytes((DATA / "demo.pot").read_bytes())
    assert default_output_path(src) == tmp_path / "demo.zh.po"
    dst = translate_file(src, None, _translator(), options=GenerationOptions(script="traditional-tw"))
    assert dst == tmp_path / "demo.zh.po"
    msgfmt_check(dst)
    header = pypo.pofile.parsestring(dst.read_bytes()).parseheader()
    assert header["Language"] == "zh_TW"
    assert header["Plural-Forms"] == "nplurals=1; plural=0;"
    assert "charset=UTF-8" in header["Content-Type"]


def test_a_chinese_source_into_english_gets_two_plural_forms(tmp_path):
    src = tmp_path / "en.po"
    src.write_text(
        'msgid ""\nmsgstr ""\n"Language: en\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
        '#, c-format\nmsgid "复制了一个文件。"\nmsgid_plural "复制了 %d 个文件。"\nmsgstr[0] ""\nmsgstr[1] ""\n',
        "utf-8",
    )
    translator = _translator()
    dst = translate_file(src, tmp_path / "out.po", translator)
    msgfmt_check(dst)
    unit = next(iter(_units(dst).values()))
    assert unit.target.strings == [
        fake_translation("复制了一个文件。"),
        engine_like("复制了 `%d` 个文件。").replace("`", ""),
    ]
    assert _options_seen(translator) == {("en", "simplified")}


def test_overwrite_machine_refills_only_this_apps_unreviewed_entries(tmp_path):
    first = translate_file(DATA / "app.zh_CN.po", tmp_path / "first.po", _translator())
    again = _translator()
    translate_file(first, tmp_path / "same.po", again)
    assert again.calls == []  # nothing left to fill
    assert (tmp_path / "same.po").read_bytes() == first.read_bytes()
    redo = _translator(lambda text: "新" + engine_like(text))
    translate_file(first, tmp_path / "redo.po", redo, overwrite_machine=True)
    units = _units(tmp_path / "redo.po")
    assert str(units[("menu", "Open")].target) == "新" + fake_translation("Open")
    assert str(units[(None, "Save all files")].target) == "保存全部"  # msgmerge's fuzzy: a person's


def test_a_po_for_another_language_is_refused(tmp_path):
    src = tmp_path / "fr.po"
    src.write_text('msgid ""\nmsgstr "Language: fr\\n"\n\nmsgid "Hello"\nmsgstr ""\n', "utf-8")
    with pytest.raises(BatchInputError, match=r"fr\.po: this PO file is for \? -> fr"):
        translate_file(src, tmp_path / "out.po", _translator())


def test_a_malformed_po_names_the_file_and_line_and_nothing_is_written(tmp_path):
    src = tmp_path / "broken.po"
    src.write_text('msgid "Hello\nmsgstr ""\n', "utf-8")
    dst = tmp_path / "broken.zh.po"
    with pytest.raises(BatchInputError) as caught:
        translate_file(src, dst, _translator())
    assert str(caught.value).startswith(f"{src}: not a valid PO file (")
    assert "line 1" in str(caught.value)
    assert not dst.exists() and not journal_path(dst).exists()


def test_load_document_protects_placeholders_in_backticks():
    document = load_document((DATA / "app.zh_CN.po").read_bytes(), "app.po", "po")
    assert "Cannot open the file `%s`: `%s`" in document.segments
    assert "Step `%1` of `%2`" in document.segments
    assert "Saved `{filename}` in `{0}` seconds." in document.segments
