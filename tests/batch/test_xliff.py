"""XLIFF 1.2 and 2.x: targets filled as a CAT tool expects them back, validated with the OASIS
schemas (tests/data/xliff), inline codes kept, locked and confirmed units left alone."""

from __future__ import annotations

import signal
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from desktop_mt import GenerationOptions, TranslationCancelled
from desktop_mt.batch import BatchInputError, load_document, translate_file
from desktop_mt.batch.journal import journal_path
from desktop_mt.batch.xliff import MACHINE_SUBSTATE, NS2, NS12, SDL, language_of
from desktop_mt.engine.testing import ScriptedTranslator
from desktop_mt.tm import TranslationMemory
from desktop_mt.tm.apply import MemoryTranslator

from .fake_translator import FakeTranslator, fake_translation

DATA = Path(__file__).resolve().parents[1] / "data" / "xliff"
X12 = f"{{{NS12}}}"
X2 = f"{{{NS2}}}"
CODES_12 = {"g", "x", "bx", "ex", "ph", "bpt", "ept", "it", "mrk"}
CODES_2 = {"pc", "ph", "sc", "ec", "mrk", "sm", "em", "cp"}


def _schema(name: str, lax: bool = False) -> etree.XMLSchema:
    """An OASIS schema; ``lax``: other tools' namespaces checked only where a schema is known
    (Trados publishes none for its sdl: elements, which XLIFF 1.2 allows as extensions)."""
    text = (DATA / name).read_bytes()
    if lax:
        text = text.replace(b'processContents="strict"', b'processContents="lax"')
    return etree.XMLSchema(etree.fromstring(text, base_url=str(DATA / name)))


def _options_seen(translator: FakeTranslator) -> list[GenerationOptions]:
    """The options of each translate_batch call (FakeTranslator.calls holds the batches)."""
    return [call.options for call in ScriptedTranslator.calls.fget(translator)]


def _valid(schema: etree.XMLSchema, data: bytes) -> None:
    tree = etree.fromstring(data)
    assert schema.validate(tree), schema.error_log


def _translate(tmp_path, name: str, translator=None, **kwargs) -> tuple[bytes, bytes]:
    src = DATA / name
    dst = tmp_path / f"out{src.suffix}"
    translate_file(src, dst, translator or FakeTranslator(), **kwargs)
    return src.read_bytes(), dst.read_bytes()


def _units(data: bytes, ns: str = X12, tag: str = "trans-unit") -> dict[str, etree._Element]:
    return {u.get("id"): u for u in etree.fromstring(data).iter(f"{ns}{tag}")}


def _codes(element: etree._Element, ns: str, names: set[str]) -> Counter:
    """The inline codes inside ``element`` (name and attributes), as a multiset."""
    return Counter(
        (etree.QName(e).localname, tuple(sorted(e.attrib.items())))
        for e in element.iter()
        if e is not element
        and isinstance(e.tag, str)
        and etree.QName(e).namespace == ns[1:-1]
        and etree.QName(e).localname in names
    )


def _text(element: etree._Element, skip: set[str]) -> str:
    """The translatable text of a source or target: codes' own content (native code) left out."""
    out = [element.text or ""]
    for child in element:
        if etree.QName(child).localname not in skip:
            out.append(_text(child, skip))
        out.append(child.tail or "")
    return "".join(out)


def _skeleton(data: bytes) -> list[tuple]:
    """Everything outside the targets: each element's tag, attributes (less the states this
    app sets) and trimmed text, in document order."""
    ours = {"state", "state-qualifier", "subState", "conf", "origin", "origin-system", "target-language", "trgLang"}
    out = []
    for e in etree.fromstring(data).iter():
        if not isinstance(e.tag, str) or any(etree.QName(a).localname == "target" for a in [e, *e.iterancestors()]):
            continue
        attrs = tuple(sorted((k, v) for k, v in e.attrib.items() if k not in ours))
        out.append((e.tag, attrs, (e.text or "").strip()))
    return out


STANDALONE_12 = {"x", "bx", "ex", "ph", "bpt", "ept", "it"}


def test_omegat_xliff_12_is_filled_validated_and_keeps_its_codes(tmp_path):
    before, after = _translate(tmp_path, "omegat.xlf")
    schema = _schema("xliff-core-1.2-strict.xsd")
    _valid(schema, before)
    _valid(schema, after)
    assert _skeleton(before) == _skeleton(after)  # only targets (and their states) changed
    units = _units(after)
    for uid in ("1", "2", "3", "4", "10", "11"):
        source, target = units[uid].find(f"{X12}source"), units[uid].find(f"{X12}target")
        assert target.get("state") == "needs-review-translation", uid
        assert target.get("state-qualifier") == "mt-suggestion", uid
        assert _codes(target, X12, CODES_12) == _codes(source, X12, CODES_12), uid
    assert units["1"].find(f"{X12}target").text == fake_translation("Getting started")
    g = units["2"].find(f"{X12}target/{X12}g")
    assert (g.get("id"), g.get("ctype"), g.text) == ("1", "bold", fake_translation("Save"))
    # A leading picture stays first; the line break's <ph> keeps its native code.
    three = units["3"].find(f"{X12}target")
    assert three[0].tag == f"{X12}x" and not three.text
    assert three.find(f"{X12}ph").text == "<br/>"
    # Numbers and codes alone: the source is copied.
    ten = units["10"]
    assert etree.tostring(ten.find(f"{X12}target"), with_tail=False).count(b"2024") == 1
    assert _text(ten.find(f"{X12}target"), STANDALONE_12) == _text(ten.find(f"{X12}source"), STANDALONE_12)
    # Protected text and native codes are not translated.
    eleven = units["11"].find(f"{X12}target")
    assert eleven.find(f"{X12}mrk").text == "desktop-mt"
    assert eleven.find(f"{X12}bpt").text == "<kbd>"


@pytest.mark.parametrize("uid", ["5", "6", "7", "8", "9"])
def test_locked_approved_and_translated_units_are_left_alone(tmp_path, uid):
    before, after = _translate(tmp_path, "omegat.xlf")
    assert etree.tostring(_units(after)[uid]) == etree.tostring(_units(before)[uid])


def test_overwrite_machine_retranslates_unconfirmed_machine_targets_only(tmp_path):
    before, after = _translate(tmp_path, "omegat.xlf", overwrite_machine=True)
    units = _units(after)
    assert units["9"].find(f"{X12}target").text == fake_translation("An old machine suggestion.")
    for uid in ("7", "8"):  # a person's and an approved translation stay
        assert etree.tostring(units[uid]) == etree.tostring(_units(before)[uid])


def test_trados_sdlxliff_segments_are_filled_and_marked_as_draft_mt(tmp_path):
    before, after = _translate(tmp_path, "trados.sdlxliff")
    schema = _schema("xliff-core-1.2-strict.xsd", lax=True)
    _valid(schema, before)
    _valid(schema, after)
    assert _skeleton(before) == _skeleton(after)
    units = _units(after)
    first = units["a1b2"].find(f"{X12}target")
    twins = {m.get("mid"): m for m in first.iter(f"{X12}mrk")}
    assert twins["1"].text == fake_translation("The installer copies the files.")
    assert twins["2"].find(f"{X12}g").get("id") == "pt1"
    # (the fake turns "." into a letter, which the span at the sentence's end takes in)
    assert twins["2"].find(f"{X12}g").text.startswith(fake_translation("the service"))
    segs = {s.get("id"): s for s in etree.fromstring(after).iter(f"{{{SDL}}}seg")}
    for mid in ("1", "2", "4"):
        assert (segs[mid].get("conf"), segs[mid].get("origin"), segs[mid].get("origin-system")) == (
            "Draft",
            "mt",
            "desktop-mt",
        )
    # The unit without a target gets one shaped as its seg-source; the locked segment stays empty.
    second = {m.get("mid"): m for m in units["c3d4"].find(f"{X12}target").iter(f"{X12}mrk")}
    assert second["3"].text is None and not len(second["3"])
    assert second["4"].text == fake_translation("Translate that.")
    assert segs["3"].get("conf") is None
    assert etree.tostring(units["e5f6"]) == etree.tostring(_units(before)["e5f6"])


def test_xliff_2_is_filled_validated_and_follows_its_languages(tmp_path):
    translator = FakeTranslator()
    before, after = _translate(tmp_path, "xliff2.xlf", translator)
    schema = _schema("xliff-core-2.0.xsd")
    _valid(schema, before)
    _valid(schema, after)
    assert _skeleton(before) == _skeleton(after)
    units = _units(after, X2, "unit")
    filled = [s for uid in ("u1", "u2") for s in units[uid].iter(f"{X2}segment")]
    for segment in filled:
        assert (segment.get("state"), segment.get("subState")) == ("translated", MACHINE_SUBSTATE)
        source, target = segment.find(f"{X2}source"), segment.find(f"{X2}target")
        assert _codes(target, X2, CODES_2) == _codes(source, X2, CODES_2)
    assert units["u1"].find(f"{X2}segment/{X2}target/{X2}pc").text.startswith(fake_translation("the new version"))
    for uid in ("u3", "u4"):  # translate="no", final
        assert etree.tostring(units[uid]) == etree.tostring(_units(before, X2, "unit")[uid])
    # trgLang="zh-TW": Chinese, in Taiwan's Traditional script.
    options = _options_seen(translator)
    assert options and all((o.target, o.script) == ("zh", "traditional-tw") for o in options)


def test_the_memory_is_used_for_xliff_as_for_other_files(tmp_path):
    memory = TranslationMemory(":memory:")
    memory.add("Getting started", "入门", "en-zh", origin="approved")
    translator = MemoryTranslator(FakeTranslator(), memory)
    _before, after = _translate(tmp_path, "omegat.xlf", translator)
    assert _units(after)["1"].find(f"{X12}target").text == "入门"
    assert translator.counts.from_memory == 1


def test_a_chinese_to_english_file_translates_into_english(tmp_path):
    src = tmp_path / "zh.xlf"
    src.write_text(
        f'<xliff xmlns="{NS12}" version="1.2"><file original="a" datatype="plaintext" source-language="zh-CN"'
        ' target-language="en-US"><body><trans-unit id="1"><source>你好。</source></trans-unit></body></file></xliff>',
        "utf-8",
    )
    translator = FakeTranslator()
    translate_file(src, tmp_path / "en.xlf", translator)
    assert {o.target for o in _options_seen(translator)} == {"en"}


def test_a_file_without_a_target_language_gets_the_one_it_was_translated_into(tmp_path):
    src = tmp_path / "bare.xlf"
    src.write_text(
        f'<xliff xmlns="{NS2}" version="2.0" srcLang="en"><file id="f"><unit id="1"><segment>'
        "<source>Hello there.</source></segment></unit></file></xliff>",
        "utf-8",
    )
    out = translate_file(src, tmp_path / "out.xlf", FakeTranslator())
    assert etree.fromstring(out.read_bytes()).get("trgLang") == "zh-CN"
    _valid(_schema("xliff-core-2.0.xsd"), out.read_bytes())


@pytest.mark.parametrize(
    "code, expected",
    [
        ("en-US", ("en", None)),
        ("zh-CN", ("zh", "simplified")),
        ("zh_TW", ("zh", "traditional-tw")),
        ("zh-Hant-HK", ("zh", "traditional-hk")),
        ("zh-Hant", ("zh", "traditional")),
        ("zh", ("zh", None)),
        ("fr-FR", None),
    ],
)
def test_language_codes(code, expected):
    assert language_of(code) == expected


@pytest.mark.parametrize(
    "content, message",
    [
        (b'<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2"><file', "not well-formed XML"),
        (b"<html><body>Hello</body></html>", "not an XLIFF 1.2 or 2.x file"),
        (
            b'<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="fr" trgLang="de"/>',
            "this XLIFF file is for fr -> de; desktop-mt translates between English and Chinese",
        ),
        (
            b'<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2"><file original="a" datatype="x"'
            b' source-language="en"><body><trans-unit id="7"/></body></file></xliff>',
            "trans-unit '7' has no <source>",
        ),
    ],
)
def test_malformed_files_are_named_with_what_is_wrong_and_nothing_is_written(tmp_path, content, message):
    src = tmp_path / "bad.xlf"
    src.write_bytes(content)
    dst = tmp_path / "bad.zh.xlf"
    with pytest.raises(BatchInputError) as caught:
        translate_file(src, dst, FakeTranslator())
    assert str(caught.value).startswith(f"{src}: ")
    assert message in str(caught.value)
    assert not dst.exists() and not journal_path(dst).exists()


def _big_xliff(path: Path, units: int) -> None:
    body = "".join(
        f'<trans-unit id="{i}"><source>Sentence <g id="b{i}">number {i}</g> of the big file.</source></trans-unit>'
        for i in range(units)
    )
    path.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<xliff xmlns="{NS12}" version="1.2"><file original="big"'
        f' datatype="plaintext" source-language="en" target-language="zh-CN"><body>{body}</body></file></xliff>',
        "utf-8",
    )


def test_a_cancelled_xliff_job_resumes_without_translating_anything_twice(tmp_path):
    src, dst = tmp_path / "big.xlf", tmp_path / "big.zh.xlf"
    _big_xliff(src, 120)
    first = FakeTranslator(cancel_after_calls=2)
    with pytest.raises(TranslationCancelled):
        translate_file(src, dst, first, cancel=first.cancel_event, chunk_size=40)
    assert not dst.exists()
    second = FakeTranslator()
    translate_file(src, dst, second, resume=True, chunk_size=40)
    done_before = {s for batch in first.batches for s in batch}
    assert not done_before & {s for batch in second.batches for s in batch}
    assert dst.read_bytes() == translate_file(src, tmp_path / "clean.xlf", FakeTranslator()).read_bytes()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX only")
def test_kill_9_and_resume_on_a_large_xliff_loses_nothing(tmp_path):
    from tests.cli.test_main import fake_main, kill_then_resume

    src, dst = tmp_path / "big.xlf", tmp_path / "big.zh.xlf"
    _big_xliff(src, 400)  # 400 sentences + 400 formatted stretches: 800 distinct segments
    command = [sys.executable, str(fake_main(tmp_path)), "translate", str(src), "-o", str(dst)]
    resumed = kill_then_resume(command, src, dst, chunk=100, pause_after=3)
    assert "FAKE-LINES 500" in resumed.stderr  # only what the journal did not hold
    assert dst.read_bytes() == translate_file(src, tmp_path / "clean.xlf", FakeTranslator()).read_bytes()
    _valid(_schema("xliff-core-1.2-strict.xsd"), dst.read_bytes())


# Random inline content: every code of the source comes out once, and the file stays valid.
_WORDS = st.sampled_from(["Open", "the", "file", "now.", "Save it.", "2024", " ", "and", "Then close."])


@st.composite
def _content(draw, depth: int = 0, ids: list[int] | None = None) -> str:
    ids = [0] if ids is None else ids  # one counter for the whole source: ids are unique
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["text", "text", "x", "ph", "bx", "g"] if depth < 2 else ["text", "x"]))
        ids[0] += 1
        n = ids[0]
        if kind == "text":
            parts.append(" ".join(draw(st.lists(_WORDS, min_size=1, max_size=4))))
        elif kind == "x":
            parts.append(f'<x id="x{n}"/>')
        elif kind == "ph":
            parts.append(f'<ph id="p{n}">&lt;br/&gt;</ph>')
        elif kind == "bx":
            parts.append(f'<bx id="b{n}" rid="{n}"/>{draw(_content(depth + 1, ids))}<ex id="e{n}" rid="{n}"/>')
        else:
            parts.append(f'<g id="g{n}">{draw(_content(depth + 1, ids))}</g>')
    return "".join(parts)


@settings(max_examples=60, deadline=None)
@given(_content())
def test_every_inline_code_is_kept_once_and_the_file_stays_valid(content):
    data = (
        f'<xliff xmlns="{NS12}" version="1.2"><file original="a" datatype="plaintext" source-language="en"'
        f' target-language="zh-CN"><body><trans-unit id="1"><source>{content}</source></trans-unit></body></file>'
        "</xliff>"
    ).encode()
    _valid(_SCHEMA_12, data)
    document = load_document(data, "p.xlf", "xliff")
    import io

    out = io.BytesIO()
    document.write([fake_translation(s) for s in document.segments], out)
    unit = _units(out.getvalue())["1"]
    source, target = unit.find(f"{X12}source"), unit.find(f"{X12}target")
    assert _codes(target, X12, CODES_12) == _codes(source, X12, CODES_12)
    assert _standalone_order(target) == _standalone_order(source)  # a <bx/> never after its <ex/>
    _valid(_SCHEMA_12, out.getvalue())


def _standalone_order(element: etree._Element) -> list[str]:
    return [e.get("id") for e in element.iter() if etree.QName(e).localname in STANDALONE_12]


_SCHEMA_12 = _schema("xliff-core-1.2-strict.xsd")


def test_options_passed_by_the_caller_keep_what_the_file_does_not_decide(tmp_path):
    translator = FakeTranslator()
    _translate(tmp_path, "omegat.xlf", translator, options=GenerationOptions(beams=2, target="en"))
    options = {(o.beams, o.target, o.script) for o in _options_seen(translator)}
    assert options == {(2, "zh", "simplified")}  # the file says zh-CN
