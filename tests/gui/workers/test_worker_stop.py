"""The worker after Stop: the stream's own end (its ``Finished``) still reaches the window, so
the status bar shows the stopped run's figures, wherever between two events the Stop came."""

from __future__ import annotations

import threading
from collections.abc import Generator
from typing import Any

import pytest

from desktop_mt.engine.events import StreamEvent, TranslationStats
from desktop_mt.engine.options import GenerationOptions
from desktop_mt.gui.ports import EngineConfig
from desktop_mt.gui.workers.translation import TranslationWorker

from ..fakes import FakeTranslator


class StopBetweenEvents(FakeTranslator):
    """Sets the cancel just before handing over the third token: the user pressed Stop while
    the worker, not the engine, was running (the case scheduling decides in the app)."""

    def translate_stream(
        self,
        text: str,
        options: Any = None,
        cancel: Any = None,
        prefix: str | None = None,
        look_ahead: bool = False,
    ) -> Generator[StreamEvent, None, None]:
        for n, event in enumerate(super().translate_stream(text, options, cancel, prefix)):
            if n == 2:
                cancel.set()
            yield event


def test_stop_between_two_events_still_reports_the_stopped_runs_figures():
    fake = StopBetweenEvents()
    worker = TranslationWorker(lambda _config: fake)
    worker.load(EngineConfig())
    deltas: list[str] = []
    finished: list[TranslationStats | None] = []
    worker.delta.connect(lambda _i, text: deltas.append(text))
    worker.finished.connect(lambda _i, stats: finished.append(stats))
    worker.translate(1, "one two three four five six", GenerationOptions(), threading.Event())
    [stats] = finished
    assert stats is not None and stats.cancelled and stats.tokens == 3
    assert "".join(deltas) == "<one><two><three>"  # shown up to the Stop, nothing after it
    assert fake.calls[0]["yielded"] == 3  # the engine stopped at once: read to its end, not run on


class FailsAfterStop(StopBetweenEvents):
    """Raises once the cancel is set: an engine error in the step the Stop ends, either after
    the worker read the event in which Stop came (``during_step`` False) or in the step itself,
    before its event (the usual case: Stop pressed while the engine decodes)."""

    def __init__(self, during_step: bool) -> None:
        super().__init__()
        self.during_step = during_step

    def translate_stream(
        self,
        text: str,
        options: Any = None,
        cancel: Any = None,
        prefix: str | None = None,
        look_ahead: bool = False,
    ) -> Generator[StreamEvent, None, None]:
        for event in super().translate_stream(text, options, cancel, prefix):
            if cancel.is_set() and self.during_step:
                raise RuntimeError("the session was closed under the run")
            yield event
            if cancel.is_set():
                raise RuntimeError("the session was closed under the run")


def run_one(fake: FakeTranslator, text: str) -> tuple[list[str], list[TranslationStats | None]]:
    """One request through a real worker: the ``failed`` messages and ``finished`` stats it emitted."""
    worker = TranslationWorker(lambda _config: fake)
    worker.load(EngineConfig())
    failed: list[str] = []
    finished: list[TranslationStats | None] = []
    worker.failed.connect(lambda _i, message: failed.append(message))
    worker.finished.connect(lambda _i, stats: finished.append(stats))
    worker.translate(1, text, GenerationOptions(), threading.Event())
    return failed, finished


@pytest.mark.parametrize("during_step", [False, True], ids=["between-events", "in-the-step"])
def test_an_error_after_stop_is_logged_not_shown(caplog, during_step):
    failed, finished = run_one(FailsAfterStop(during_step), "one two three four five six")
    assert failed == []  # the user pressed Stop: no error popup for what came after
    assert finished == [None]  # the run ends as stopped, without figures
    assert "a stopped translation" in caplog.text and "RuntimeError" in caplog.text


def test_an_error_without_stop_is_still_shown():
    class Fails(FakeTranslator):
        def translate_stream(self, text: str, options: Any = None, cancel: Any = None, prefix=None, look_ahead=False):
            yield from ()
            raise RuntimeError("broken")

    failed, finished = run_one(Fails(), "one two")
    assert finished == [] and len(failed) == 1 and "RuntimeError: broken" in failed[0]
