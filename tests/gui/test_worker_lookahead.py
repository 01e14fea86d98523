"""The window's worker streams a long paste with look-ahead (issue 49): the first sentence token
by token, the sentences after it decoded in batches and shown in order, the same text as one by
one, and a cancel from the UI thread stops the running batch within one decode step."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QObject, QThread, Signal

from desktop_mt.engine.options import GenerationOptions, SessionOptions
from desktop_mt.engine.router import TwoWayTranslator
from desktop_mt.engine.translator import Translator
from desktop_mt.gui.ports import EngineConfig
from desktop_mt.gui.worker import TranslationWorker
from desktop_mt.testing import CountingSessions
from tests.engine.scripted_model import ScriptedModelTranslator
from tests.engine.test_lookahead import PASTE, SENTENCES

from .fakes import wait_emitted


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
