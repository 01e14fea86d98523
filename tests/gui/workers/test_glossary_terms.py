"""Glossary terms in the window's incremental path (issue 46, defect 1): a sentence that starts
with a term, kept and shown again by an incremental translation, keeps the term's target, as
the one-shot (CLI) path does. A property test replays random sentence sets, glossaries and
edit sequences through the worker's two paths (the whole text first, then only the changed
sentences) and compares every sentence with its one-shot translation."""

from __future__ import annotations

import re
import threading

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_mt.engine.glossary import Glossary, Term
from desktop_mt.engine.model_format import bundled_model_dir
from desktop_mt.engine.options import GenerationOptions
from desktop_mt.engine.testing import FakeModelTranslator
from desktop_mt.gui.ports import EngineConfig
from desktop_mt.gui.workers.translation import IncrementalPlan, TranslationWorker
from desktop_mt.tm.incremental import Sentence, plan_update

TERMS = (Term("train station", "火车站"), Term("Beijing", "北京"), Term("manual", "手册"), Term("tomorrow", "明天"))
PIECES = ("火车站", "北京", "手册", "明天", "在哪里", "我爱你", "很大", "要去", "火車站", "这是")
ENDS = ("。", "？", "！")


def _lossy(source: str) -> str:
    """A model that keeps only what it makes of the Chinese characters: it drops every span it
    is given whole (the engine then cuts the sentence around its terms), as small models do."""
    words = [f"w{ord(c) % 97}" for c in source if "\u4e00" <= c <= "\u9fff"]
    return (" ".join(words) or "ok") + "."


def _copying(source: str) -> str:
    """A model that keeps the Latin words it is given (a term rendered whole stays)."""
    latin = re.findall(r"[A-Za-z]+", source)
    return " ".join([*latin, *(f"w{ord(c) % 97}" for c in source if "\u4e00" <= c <= "\u9fff")]) + "."


def _zh_en_dir() -> str:
    return str(bundled_model_dir().parent / "tatoeba-zh-en-small")


class Runs:
    """The worker on a fake model, called in this thread: a request's spans and text."""

    def __init__(self, model) -> None:
        self.fake = FakeModelTranslator(model, model_dir=_zh_en_dir())
        self.worker = TranslationWorker(lambda _config: self.fake)
        self.worker.load(EngineConfig())
        self.spans: list = []
        self.text: list[str] = []
        self.worker.segmentDone.connect(lambda _i, span: self.spans.append(span))
        self.worker.delta.connect(lambda _i, text: self.text.append(text))

    def whole(self, text: str, options: GenerationOptions) -> list:
        self.spans, self.text = [], []
        self.worker.translate(1, text, options, threading.Event())
        return self.spans

    def incremental(self, previous: list, text: str, options: GenerationOptions) -> list:
        self.spans, self.text = [], []
        shown = [Sentence(s.source, s.translation) for s in previous]
        plan = IncrementalPlan(plan_update(shown, text))
        self.worker.translate_plan(2, text, plan, options, threading.Event())
        return self.spans


def test_a_term_that_starts_a_sentence_stays_when_another_sentence_is_added(qapp):
    """The issue's steps: 火车站在哪里？ translated, then 我爱你。 typed after it."""
    runs = Runs(_lossy)
    options = GenerationOptions(glossary=Glossary((Term("train station", "火车站"),)))
    expected = "train station " + _lossy("在哪里？")
    first = runs.whole("火车站在哪里？", options)
    assert [s.translation for s in first] == [expected]
    runs.fake.received.clear()
    second = runs.incremental(first, "火车站在哪里？我爱你。", options)
    assert [(s.origin, s.translation) for s in second] == [("kept", expected), ("model", _lossy("我爱你。"))]
    assert "".join(runs.text) == f"{expected} {_lossy('我爱你。')}"
    assert runs.fake.received == ["我爱你。"]  # the kept sentence is not translated again


def test_a_pasted_text_keeps_the_term_of_its_second_sentence(qapp):
    runs = Runs(_lossy)
    glossary = Glossary((Term("train station", "火车站"), Term("Beijing", "北京")))
    spans = runs.whole("我明天要去北京。火车站在哪里？", GenerationOptions(glossary=glossary))
    assert [s.source for s in spans] == ["我明天要去北京。", "火车站在哪里？"]
    assert "Beijing" in spans[0].translation and spans[1].translation.startswith("train station")
    text = "".join(runs.text)
    assert all(text[s.start : s.end] == s.translation for s in spans)  # ASCII: UTF-16 = str positions


def test_a_list_marker_before_a_term_stays_out_of_the_sentence(qapp):
    runs = Runs(_lossy)
    spans = runs.whole("1. 火车站在哪里？\n2. 北京很大。", GenerationOptions(glossary=Glossary(TERMS)))
    assert [s.translation.split()[0] for s in spans] == ["train", "Beijing"]
    assert not any(s.translation.startswith(("1.", "2.")) for s in spans)


sentence = st.builds(
    lambda parts, end: "".join(parts) + end,
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=3),
    st.sampled_from(ENDS),
)
edit = st.tuples(st.sampled_from(("insert", "delete", "replace")), st.integers(0, 10), sentence)


def _apply(sentences: list[str], change: tuple[str, int, str]) -> list[str]:
    kind, at, new = change
    out = list(sentences)
    if kind == "insert" or not out:
        out.insert(at % (len(out) + 1), new)
    elif kind == "delete" and len(out) > 1:
        del out[at % len(out)]
    else:
        out[at % len(out)] = new
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    start=st.lists(sentence, min_size=1, max_size=4),
    terms=st.lists(st.sampled_from(TERMS), unique=True, max_size=4),
    edits=st.lists(edit, min_size=1, max_size=4),
    lossy=st.booleans(),
)
def test_the_incremental_path_keeps_every_term_the_one_shot_path_keeps(qapp, start, terms, edits, lossy):
    runs = Runs(_lossy if lossy else _copying)
    glossary = Glossary(tuple(terms))
    options = GenerationOptions(glossary=glossary)
    oriented = glossary.oriented("zh")
    one_shot = runs.fake  # the CLI's path: translate_batch of the sentence

    sentences = list(start)
    shown = runs.whole("".join(sentences), options)
    for change in edits:
        sentences = _apply(sentences, change)
        shown = runs.incremental(shown, "".join(sentences), options)
        assert [s.source for s in shown] == sentences
        for span in shown:
            cli = one_shot.translate_batch([span.source], options)[0]
            kept_by_cli = set(t for t in _found(oriented, span.source) if t not in oriented.missing(span.source, cli))
            assert not kept_by_cli & set(oriented.missing(span.source, span.translation)), (span, cli)


def _found(glossary: Glossary, text: str) -> list[Term]:
    return [m.term for m in glossary.find(text)]


def test_a_term_ending_a_traditional_sentence_stays_in_order_and_in_its_span(qapp):
    """Issue 46: under a Traditional script, the term (a literal of the engine) arrived while
    the converted clause before it was held back, and came out first ("火車站？哪裡的人"); the
    window's sentence then no longer matched the text shown."""
    fake = FakeModelTranslator(lambda _source: "哪里的人", model_dir=bundled_model_dir())
    worker = TranslationWorker(lambda _config: fake)
    worker.load(EngineConfig())
    spans: list = []
    text: list[str] = []
    worker.segmentDone.connect(lambda _i, span: spans.append(span))
    worker.delta.connect(lambda _i, delta: text.append(delta))
    glossary = Glossary((Term("train station", "火车站"),))
    options = GenerationOptions(target="zh", script="traditional-tw", glossary=glossary)
    worker.translate(1, "Where is the train station?", options, threading.Event())
    shown = "".join(text)
    assert shown == "哪裡的人火車站？"
    assert [s.translation for s in spans] == [shown]
    assert all(shown[s.start : s.end] == s.translation for s in spans)  # BMP: UTF-16 = str positions
