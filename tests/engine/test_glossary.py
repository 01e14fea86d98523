"""Glossary: loading CSV/TSV files, matching rules, rendering terms during translation (stream,
batch, file jobs, CLI)."""

from __future__ import annotations

import io
import re
import sys

import pytest

from desktop_mt import GenerationOptions, SegmentDone, TextDelta, Translator
from desktop_mt.engine.glossary import Glossary, GlossaryError, Term
from desktop_mt.engine.model_format import bundled_model_dir
from desktop_mt.engine.segment import Segment, plan_text
from desktop_mt.engine.testing import FakeModelTranslator
from desktop_mt.engine.textproc import Span, protect

TERMS = Glossary((Term("train station", "火车站"), Term("manual", "使用手册"), Term("Python", "Python语言", True)))


def write(tmp_path, name: str, text: str, bom: bool = False):
    path = tmp_path / name
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


# -- loading ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, text, bom",
    [
        ("g.csv", "train station,火车站\nmanual,使用手册\nPython,Python语言,case\n", False),
        ("g.tsv", "train station\t火车站\nmanual\t使用手册\nPython\tPython语言\tcase\n", False),
        ("g.csv", "source,target,case\ntrain station,火车站,\nmanual,使用手册,no\nPython,Python语言,yes\n", True),
        (
            "g.txt",
            "# my terms\nEnglish\tChinese\n\ntrain station\t火车站\n manual \t 使用手册 \nPython\tPython语言\tcase\n",
            True,
        ),
        ("g.csv", '"train station","火车站"\r\nmanual,使用手册\r\nPython,Python语言,case\r\n', False),
    ],
)
def test_load_csv_tsv_bom_header(tmp_path, name, text, bom):
    assert Glossary.load(write(tmp_path, name, text, bom)) == TERMS


def test_a_term_with_a_comma_is_quoted_in_csv(tmp_path):
    glossary = Glossary.load(write(tmp_path, "g.csv", '"Smith, Inc.",史密斯公司\n'))
    assert glossary.terms == (Term("Smith, Inc.", "史密斯公司"),)


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("a,甲\nlonely\n", 2, "two columns"),
        ("a,甲\nb,\n", 2, "target term is empty"),
        ("a,甲\n,乙\n", 2, "source term is empty"),
        ("a,甲\nb,乙,maybe\n", 2, "'maybe'"),
        ("a,甲\nb,乙,case,extra\n", 2, "at most three columns"),
        ("a,甲\n\n# note\nA,丙\n", 4, "already on line 1"),
    ],
)
def test_bad_row_names_file_and_line(tmp_path, text, line, words):
    path = write(tmp_path, "bad.csv", text)
    with pytest.raises(GlossaryError) as info:
        Glossary.load(path)
    assert f"{path}, line {line}:" in str(info.value) and words in str(info.value)


def test_not_utf8_and_missing_file(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("a,b\ncafé,coffee\n".encode("latin-1"))
    with pytest.raises(GlossaryError, match=r"latin\.csv, line 2: not UTF-8"):
        Glossary.load(path)
    with pytest.raises(GlossaryError, match="missing.csv: cannot read"):
        Glossary.load(tmp_path / "missing.csv")


def test_same_term_in_two_cases_is_allowed_when_case_sensitive(tmp_path):
    glossary = Glossary.load(write(tmp_path, "g.csv", "Apple,苹果公司,case\napple,苹果\n"))
    assert [m.term.target for m in glossary.find("Apple sells apple juice.")] == ["苹果公司", "苹果"]


def test_save_then_load_round_trip(tmp_path):
    glossary = Glossary(TERMS.terms + (Term('Smith, "Inc."', "史密斯公司"),))
    glossary.save(tmp_path / "out.csv")
    assert Glossary.load(tmp_path / "out.csv") == glossary
    with pytest.raises(ValueError):
        Glossary((Term("log", "日志", whole_word=False),)).save(tmp_path / "no.csv")


# -- matching --------------------------------------------------------------------------------


def found(glossary: Glossary, text: str) -> list[str]:
    return [text[m.start : m.end] for m in glossary.find(text)]


def test_case_rules():
    assert found(TERMS, "The MANUAL and the Manual.") == ["MANUAL", "Manual"]
    assert found(TERMS, "python or Python?") == ["Python"]


def test_whole_word_only_by_default():
    glossary = Glossary((Term("cat", "猫"), Term("log", "日志", whole_word=False)))
    assert found(glossary, "A cat in the category; catalog, blog, cat.") == ["cat", "log", "log", "cat"]


def test_longest_match_wins_and_no_overlaps():
    glossary = Glossary(
        (
            Term("New York", "纽约"),
            Term("York City Hall", "约克市政厅"),
            Term("New York City", "纽约市"),
            Term("city", "城市"),
        )
    )
    assert found(glossary, "New York City Hall is in New York, a big city.") == ["York City Hall", "New York", "city"]
    assert found(glossary, "I love New York City.") == ["New York City"]


def test_spaces_and_symbols_in_terms():
    glossary = Glossary((Term("machine translation", "机器翻译"), Term("C++", "C++语言"), Term("e-mail", "电子邮件")))
    assert found(glossary, "Machine\n  translation in C++, by e-mail.") == ["Machine\n  translation", "C++", "e-mail"]
    assert found(glossary, "ABC++ and email") == []  # a word edge before "C", none needed after "+"


# -- protection and plans --------------------------------------------------------------------


def test_terms_are_spans_rendered_as_their_target():
    pieces = protect("Where is the train station?", glossary=TERMS)
    assert pieces == ["Where is the ", Span("term", "train station", "火车站"), "?"]
    assert pieces[1].rendered == "火车站" and Span("url", "http://x").rendered == "http://x"


def test_urls_keep_terms_inside_but_terms_beat_numbers():
    glossary = Glossary((Term("manual", "手册"), Term("COVID-19", "新冠肺炎")))
    pieces = protect("See https://x.org/manual about COVID-19 in 2020.", glossary=glossary)
    assert [p for p in pieces if isinstance(p, Span)] == [
        Span("url", "https://x.org/manual"),
        Span("term", "COVID-19", "新冠肺炎"),
        Span("number", "2020"),
    ]
    joined = "".join(p.text if isinstance(p, Span) else p for p in pieces)
    assert joined == "See https://x.org/manual about COVID-19 in 2020."


def test_without_a_glossary_protect_is_unchanged():
    text = "Read the manual at https://x.org on 2020-01-01."
    assert protect(text) == protect(text, glossary=None) == protect(text, glossary=Glossary())


def test_plan_drops_spaces_beside_a_term_for_chinese():
    plan = plan_text("Open the manual now.", len, 100, "", glossary=TERMS)
    whole = "Open the manual now."
    assert plan == [Segment("Open the", cut=True, joined=True), "使用手册", Segment("now.", sentence=whole)]
    plan = plan_text("Open the manual now.", len, 100, " ", glossary=TERMS)
    assert plan == [Segment("Open the", cut=True, joined=True), " ", "使用手册", " ", Segment("now.", sentence=whole)]


# -- translation -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bundled():
    return Translator()


@pytest.fixture(scope="module")
def tiny(tiny_marian_dir):
    return Translator(tiny_marian_dir, variant="fp32", options=GenerationOptions(beams=2))


TEXT = "Where is the train station? Please read the manual before you use Python.\n\nThe manual is short."


@pytest.mark.parametrize("which", ["bundled", "tiny"])
def test_translation_renders_every_term(request, which):
    translator = request.getfixturevalue(which)
    opts = dataclass_replace(translator.options, glossary=TERMS)
    out = translator.translate(TEXT, opts)
    assert out.count("火车站") >= 1 and out.count("使用手册") >= 2 and "Python语言" in out
    assert "train station" not in out and "manual" not in out
    assert "火车站？" in out  # the question mark after a term is full-width, as the model's are
    assert out.count("\n\n") == 1  # layout kept
    plain = translator.translate(TEXT)
    assert "使用手册" not in plain  # the terms come from the glossary, not from the model


def test_stream_deltas_only_extend_and_join_to_translate(bundled):
    for script in ("simplified", "traditional-tw"):
        opts = GenerationOptions(glossary=TERMS, script=script)
        events = list(bundled.translate_stream(TEXT, opts))
        deltas = [e.text for e in events if isinstance(e, TextDelta)]
        assert all(deltas) and "".join(deltas) == bundled.translate(TEXT, opts)
        shown = ""
        for delta in deltas:  # what is on screen is always a prefix of the final text
            shown += delta
            assert bundled.translate(TEXT, opts).startswith(shown)
        sources = [e.source for e in events if isinstance(e, SegmentDone) and e.spans != "whole"]
        assert not any("manual" in s or "train station" in s for s in sources)  # a cut sentence's pieces hold no term


def test_batch_and_alternatives_use_the_glossary(bundled):
    opts = GenerationOptions(glossary=TERMS, beams=4)
    lines = ["Where is the train station?", "", "Read the manual."]
    out = bundled.translate_batch(lines, opts)
    assert out[1] == "" and "火车站" in out[0] and "使用手册" in out[2]
    assert out == [bundled.translate(line, opts).strip() for line in lines]
    alts = bundled.alternatives("Read the manual.", 3, opts)
    assert alts and all("使用手册" in a.text for a in alts)


def test_file_job_with_glossary_and_its_resume_key(bundled, tmp_path):
    from desktop_mt.batch import job_key, translate_file

    src = tmp_path / "in.txt"
    src.write_text("Where is the train station?\nRead the manual.\n", encoding="utf-8")
    out = translate_file(src, tmp_path / "out.txt", bundled, options=GenerationOptions(glossary=TERMS))
    lines = out.read_text(encoding="utf-8").splitlines()
    assert "火车站" in lines[0] and "使用手册" in lines[1]

    def options_key(options):
        return job_key(b"x", "txt", None, bundled, options).settings["options"]

    assert "glossary" not in options_key(GenerationOptions())  # journals from before glossaries still resume
    assert options_key(GenerationOptions(glossary=TERMS))["glossary"].startswith("3 terms, ")
    other = Glossary((Term("manual", "指南"),) + TERMS.terms[1:])
    assert options_key(GenerationOptions(glossary=other)) != options_key(GenerationOptions(glossary=TERMS))


def test_cli_glossary(tmp_path, capsys, monkeypatch):
    from desktop_mt.cli import main as cli

    glossary = write(tmp_path, "terms.tsv", "train station\t火车站\nmanual\t使用手册\n", bom=True)
    src = tmp_path / "in.txt"
    src.write_text("Where is the train station?\nRead the manual.\n", encoding="utf-8")
    assert cli.main(["translate", str(src), "-o", str(tmp_path / "out.txt"), "--glossary", str(glossary)]) == 0
    lines = (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines()
    assert "火车站" in lines[0] and "使用手册" in lines[1]
    stdin = io.TextIOWrapper(io.BytesIO(b"Read the manual.\n"), encoding="utf-8")
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    assert cli.main(["translate", "--glossary", str(glossary)]) == 0  # stdin -> stdout
    stdout.flush()
    assert "使用手册" in stdout.buffer.getvalue().decode("utf-8")
    monkeypatch.undo()
    bad = write(tmp_path, "bad.csv", "manual,使用手册\noops\n")
    assert cli.main(["translate", str(src), "-o", str(tmp_path / "o2.txt"), "--glossary", str(bad)]) == 1
    assert re.search(r"bad\.csv, line 2: expected two columns", capsys.readouterr().err)


def dataclass_replace(options, **changes):
    import dataclasses

    return dataclasses.replace(options, **changes)


# -- script and width (issue 46) -------------------------------------------------------------


def test_a_simplified_term_matches_traditional_and_full_width_text():
    glossary = Glossary((Term("train station", "火车站"), Term("API", "接口"))).oriented("zh")
    found = glossary.find("火車站在哪裡？")
    assert [(m.start, m.end, m.text, m.term.target) for m in found] == [(0, 3, "火車站", "train station")]
    english = Glossary((Term("API", "接口"),))
    assert [m.text for m in english.find("the ＡＰＩ and the api")] == ["ＡＰＩ", "api"]


def test_a_traditional_term_matches_simplified_text():
    glossary = Glossary((Term("記憶體", "memory"),))
    assert [m.text for m in glossary.find("内存不足。记忆体")] == ["记忆体"]


def test_missing_names_the_terms_whose_target_the_translation_lacks():
    glossary = Glossary((Term("train station", "火车站"), Term("Beijing", "北京"))).oriented("zh")
    assert glossary.missing("火車站在北京。", "Where is it?") == glossary.terms
    assert glossary.missing("火车站在北京。", "The Train Station is in beijing.") == ()
    assert glossary.missing("火车站，火车站。", "Station.") == (glossary.terms[0],)  # once each
    into_chinese = Glossary((Term("train station", "火车站"),))
    assert into_chinese.missing("The train station.", "火車站。") == ()  # Traditional output holds it


def _zh_en_dir():
    return bundled_model_dir().parent / "tatoeba-zh-en-small"


def test_the_traditional_input_gets_the_term_in_its_translation():
    fake = FakeModelTranslator(lambda s: "Where is it?", model_dir=_zh_en_dir())
    options = GenerationOptions(glossary=Glossary((Term("train station", "火车站"),)))
    assert fake.translate("火車站在哪裡？", options).startswith("train station")
