"""A sentence no direction translates, at the window's worker (issue 42): the engine's
NotTranslatedError is a DesktopMTError, so the worker says it instead of reporting a bug."""

from __future__ import annotations

import threading

from desktop_mt.engine.options import GenerationOptions
from desktop_mt.engine.router import TwoWayTranslator
from desktop_mt.engine.testing import FakeModelTranslator
from desktop_mt.gui.ports import EngineConfig
from desktop_mt.gui.workers.translation import TranslationWorker


def test_a_sentence_that_is_not_translated_is_said_not_logged_as_a_failure():
    """Completing or asking alternatives of a Japanese sentence: the engine's NotTranslatedError
    (a DesktopMTError) comes back as its message, not as "Completion failed (...)" (issue 42)."""
    fake = FakeModelTranslator(lambda s: s.upper())
    worker = TranslationWorker(lambda _config: TwoWayTranslator({"en-zh": fake}))
    worker.load(EngineConfig())
    done: list[tuple[int, str]] = []
    alternatives: list[object] = []
    worker.completionDone.connect(lambda i, message: done.append((i, message)))
    worker.alternativesReady.connect(lambda _i, result: alternatives.append(result))
    worker.complete(4, "こんにちは。", "x", GenerationOptions(), threading.Event())
    worker.alternatives_from(5, "こんにちは。", "x", 3, GenerationOptions(), threading.Event())
    said = "this sentence is not translated (no English or Chinese to translate)"
    assert done == [(4, said)] and alternatives == [said]


def test_it_is_said_in_the_windows_language(qapp):
    from desktop_mt.gui import i18n

    fake = FakeModelTranslator(lambda s: s.upper())
    worker = TranslationWorker(lambda _config: TwoWayTranslator({"en-zh": fake}))
    worker.load(EngineConfig())
    done: list[tuple[int, str]] = []
    worker.completionDone.connect(lambda i, message: done.append((i, message)))
    installed = i18n.install(qapp, "zh_CN")
    try:
        worker.complete(6, "こんにちは。", "x", GenerationOptions(), threading.Event())
    finally:
        i18n.uninstall(qapp, installed)
    assert done == [(6, "这个句子不翻译（其中没有要翻译的英文或中文）")]
