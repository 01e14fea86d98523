"""The window's worker streams a long paste with look-ahead (issue 49): the first sentence token
by token, the sentences after it decoded in batches and shown in order, the same text as one by
one, and a cancel from the UI thread stops the running batch within one decode step."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QObject, QThread, Signal

from desktop_mt.engine.options import GenerationOptions, SessionOptions
from desktop_mt.engine.router import TwoWayTranslator
from desktop_mt.engine.testing import CountingSessions
from desktop_mt.engine.translator import Translator
from desktop_mt.gui.ports import EngineConfig
from desktop_mt.gui.workers.translation import IncrementalPlan, TranslationWorker, cursor_sentence
from desktop_mt.tm.incremental import Sentence, plan_update
from tests.engine.scripted_model import ScriptedModelTranslator
from tests.engine.test_lookahead import PASTE, SENTENCES

from ..fakes import wait_emitted


class Run:
    """One worker's signals, recorded (from whichever thread emits them)."""

    def __init__(self, worker: TranslationWorker) -> None:
        self.deltas: list[str] = []
        self.spans: list[object] = []
        self.finished: list[object] = []
        worker.delta.connect(lambda _i, text: self.deltas.append(text))
        worker.segmentDone.connect(lambda _i, span: self.spans.append(span))
        worker.finished.connect(lambda _i, stats: self.finished.append(stats))

    @property
    def text(self) -> str:
        return "".join(self.deltas)


def run_paste(translator: object, text: str, options: GenerationOptions | None = None) -> Run:
    worker = TranslationWorker(lambda _config: translator)
    worker.load(EngineConfig())
    run = Run(worker)
    worker.translate(1, text, options or GenerationOptions(), threading.Event())
    return run


@pytest.mark.parametrize("two_way", [False, True], ids=["translator", "two-way"])
def test_a_long_paste_is_decoded_in_batches_after_its_first_sentence(two_way):
    engine = ScriptedModelTranslator(lambda source: source.upper())
    engine.batch_size = 16
    run = run_paste(TwoWayTranslator({"en-zh": engine}) if two_way else engine, PASTE)
    assert engine.decoder.batches == [1, 16, 16, 7]  # the first alone, then 39 sentences in 3 batches
    engine.decoder.batches.clear()
    assert run.text == engine.translate(PASTE)  # the one-by-one path's text
    assert engine.decoder.batches == [1] * 40
    # Shown in order, each sentence where its span says.
    assert [span.segment for span in run.spans] == list(range(40))
    assert [span.source for span in run.spans] == SENTENCES
    assert all(run.text[span.start : span.end] == span.translation for span in run.spans)
    [stats] = run.finished
    assert stats.segments == 40 and not stats.cancelled


class Sender(QObject):
    """The UI thread's side: a queued request to the worker's thread, as the controller sends it."""

    translate = Signal(int, str, object, object)


def test_a_cancel_from_the_ui_thread_stops_the_batch_within_one_step(qtbot):
    engine = ScriptedModelTranslator(lambda source: source.upper())
    engine.batch_size = 16
    reached, resume, cancel = threading.Event(), threading.Event(), threading.Event()

    def pause_at(step: int) -> None:  # step 30: inside the first look-ahead batch
        if step == 30:
            reached.set()
            resume.wait(10)

    engine.decoder.on_step = pause_at
    worker = TranslationWorker(lambda _config: engine)
    worker.load(EngineConfig())
    run = Run(worker)
    thread = QThread()
    worker.moveToThread(thread)
    sender = Sender()
    sender.translate.connect(worker.translate)
    thread.start()
    try:
        with wait_emitted(qtbot, worker.finished):
            sender.translate.emit(1, PASTE, GenerationOptions(), cancel)
            assert reached.wait(10)
            cancel.set()  # Esc, an edit, a direction change: the controller sets the Event
            resume.set()
    finally:
        thread.quit()
        thread.wait()
    assert engine.decoder.steps == 30  # the step running when the cancel came, none after
    assert engine.decoder.batches == [1, 16]
    [stats] = run.finished
    assert stats is not None and stats.cancelled
    assert engine.translate(PASTE).startswith(run.text)  # what was shown stays, nothing else
    assert len(run.spans) < 40


class RowCounting(CountingSessions):
    """Real sessions that record the rows of each batch (one encoder call per search)."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.rows: list[int] = []

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        self.rows.append(int(input_ids.shape[0]))
        return super().encode(input_ids, attention_mask)


def test_the_bundled_model_shows_the_one_by_one_text_from_batches():
    try:
        engine = Translator(session_options=SessionOptions(intra_op_threads=1))
    except Exception as exc:  # noqa: BLE001 - a checkout without the bundled model
        pytest.skip(f"no bundled model: {exc}")
    engine.batch_size = 4
    engine.sessions = counting = RowCounting(engine.runner())
    text = (
        "The committee met on Tuesday to discuss the new budget. Several members raised concerns.\n\n"
        "After a long debate, they agreed to postpone the vote. The chairman thanked everyone. "
        "Where is the train station? I love you. The weather is nice today."
    )
    options = GenerationOptions(beams=1)
    run = run_paste(engine, text, options)
    assert counting.rows[0] == 1 and sorted(counting.rows[1:]) == [2, 4]  # 7 sentences: the first alone
    counting.rows.clear()
    assert run.text == engine.translate(text, options)  # per-row int8: the same as one by one
    assert counting.rows == [1] * 7
    assert [span.segment for span in run.spans] == list(range(7))


def _edit_plan(sentences: list[str], touched: set[int]) -> tuple[str, IncrementalPlan]:
    """A text of ``sentences`` whose ``touched`` ones changed since their translation was shown
    (the others are kept: lower-case stand-ins for the user's translations)."""
    previous = [Sentence(s, s.lower(), False) for k, s in enumerate(sentences) if k not in touched]
    text = " ".join(sentences[:15]) + "\n\n" + " ".join(sentences[15:])
    return text, IncrementalPlan(plan_update(previous, text, None))


def test_an_edit_re_translates_the_touched_sentences_in_batches_in_order():
    engine = ScriptedModelTranslator(lambda source: source.upper())
    engine.batch_size = 8
    touched = {3, 4, 7, 12, 16, 20, 21, 22, 25, 30, 31, 33, 38}
    text, plan = _edit_plan(SENTENCES, touched)
    assert plan.to_model == len(touched)
    worker = TranslationWorker(lambda _config: engine)
    worker.load(EngineConfig())
    run = Run(worker)
    worker.translate_plan(1, text, plan, GenerationOptions(), threading.Event())
    assert engine.decoder.batches == [1, 8, 4]  # the first touched alone, then 12 in two batches
    assert [span.source for span in run.spans] == SENTENCES  # every sentence, in order
    for k, span in enumerate(run.spans):
        assert run.text[span.start : span.end] == span.translation
        assert span.translation == (engine.translate(SENTENCES[k]) if k in touched else SENTENCES[k].lower())
        assert span.origin == ("model" if k in touched else "kept")
    [stats] = run.finished
    assert stats.segments == 40 and not stats.cancelled


def test_an_edit_s_batch_stops_within_one_step_when_cancelled(qtbot):
    engine = ScriptedModelTranslator(lambda source: source.upper())
    engine.batch_size = 8
    text, plan = _edit_plan(SENTENCES, set(range(5, 30)))
    reached, resume, cancel = threading.Event(), threading.Event(), threading.Event()

    alone = len(SENTENCES[5]) + 1  # the first touched sentence's steps: a character each, then the end
    pause = alone + 5  # inside the first batch

    def pause_at(step: int) -> None:
        if step == pause:
            reached.set()
            resume.wait(10)

    engine.decoder.on_step = pause_at
    worker = TranslationWorker(lambda _config: engine)
    worker.load(EngineConfig())
    run = Run(worker)
    thread = QThread()
    worker.moveToThread(thread)
    sender = PlanSender()
    sender.translate_plan.connect(worker.translate_plan)
    thread.start()
    try:
        with wait_emitted(qtbot, worker.finished):
            sender.translate_plan.emit(1, text, plan, GenerationOptions(), cancel)
            assert reached.wait(10)
            cancel.set()  # a keystroke: the controller sets the Event
            resume.set()
    finally:
        thread.quit()
        thread.wait()
    assert engine.decoder.steps == pause and engine.decoder.batches == [1, 8]
    [stats] = run.finished
    assert stats is not None and stats.cancelled
    assert [span.source for span in run.spans] == SENTENCES[:6]  # the kept five and the first touched


class PlanSender(QObject):
    """The UI thread's side of an incremental request (``RequestFlow.planRequested``)."""

    translate_plan = Signal(int, str, object, object, object)


def test_the_sentence_at_the_cursor_is_decoded_alone():
    engine = ScriptedModelTranslator(lambda source: source.upper())
    engine.batch_size = 8
    text, plan = _edit_plan(SENTENCES, {3, 4, 20})
    at = text.index(SENTENCES[20]) + 3  # the user types in sentence 20
    assert cursor_sentence(text, plan.sentences, at) == 2 and cursor_sentence(text, plan.sentences, None) == 0
    worker = TranslationWorker(lambda _config: engine)
    worker.load(EngineConfig())
    run = Run(worker)
    worker.translate_plan(1, text, dataclasses.replace(plan, cursor=at), GenerationOptions(), threading.Event())
    assert engine.decoder.batches == [2, 1]  # sentences 3 and 4 together, then the cursor's alone
    assert [span.source for span in run.spans] == SENTENCES
    engine.decoder.batches.clear()
    worker.translate_plan(2, text, plan, GenerationOptions(), threading.Event())
    assert engine.decoder.batches == [1, 2]  # no cursor: the first touched alone, the others after
