"""The worker's post-editing calls, without a window (issue 28): an incremental plan translated
sentence by sentence (kept and remembered sentences never reach the model), the completion of a
typed prefix (cancellable), and alternatives from a word."""

from __future__ import annotations

import threading

from desktop_mt.engine.options import GenerationOptions
from desktop_mt.engine.testing import FakeModelTranslator
from desktop_mt.gui.ports import EngineConfig
from desktop_mt.gui.workers.translation import IncrementalPlan, TranslationWorker, output_gap
from desktop_mt.tm import TranslationMemory
from desktop_mt.tm.incremental import Sentence, plan_update
from desktop_mt.tm.store import match_key


def _worker() -> tuple[TranslationWorker, FakeModelTranslator, dict[str, list]]:
    fake = FakeModelTranslator(lambda s: s.upper())
    worker = TranslationWorker(lambda _config: fake)
    worker.load(EngineConfig())
    got: dict[str, list] = {"delta": [], "span": [], "finished": [], "completion": [], "done": [], "alts": []}
    worker.delta.connect(lambda _i, text: got["delta"].append(text))
    worker.segmentDone.connect(lambda _i, span: got["span"].append(span))
    worker.finished.connect(lambda _i, stats: got["finished"].append(stats))
    worker.completionDelta.connect(lambda _i, text: got["completion"].append(text))
    worker.completionDone.connect(lambda i, message: got["done"].append((i, message)))
    worker.alternativesReady.connect(lambda _i, result: got["alts"].append(result))
    return worker, fake, got


def test_a_plan_sends_only_the_changed_sentences_to_the_model():
    worker, fake, got = _worker()
    memory = TranslationMemory(":memory:")
    memory.add("See you.", "回头见。", "en-zh", origin="approved")
    previous = [Sentence("Hello world.", "HELLO WORLD.", False), Sentence("How are you?", "how do you do?", True)]
    planned = plan_update(previous, "Hello world. How are you? See you. Fine.", memory)
    plan = IncrementalPlan(planned, {match_key("How are you?"): "HOW ARE YOU?"})
    fake.received.clear()
    worker.translate_plan(1, "Hello world. How are you? See you. Fine.", plan, GenerationOptions(), threading.Event())
    assert fake.received == ["Fine."]
    assert "".join(got["delta"]) == "HELLO WORLD.how do you do?回头见。FINE."
    assert [(s.origin, s.edited) for s in got["span"]] == [
        ("kept", False),
        ("kept", True),
        ("memory", False),
        ("model", False),
    ]
    assert got["span"][1].machine == "HOW ARE YOU?"
    text = "".join(got["delta"])
    assert all(text[s.start : s.end] == s.translation for s in got["span"])
    assert got["finished"][0].segments == 4 and not got["finished"][0].cancelled


def test_the_gap_after_a_sentence_follows_the_output_language():
    options = GenerationOptions()
    assert output_gap("Hello.", " ", True, options) == ""  # into Chinese: no space
    assert output_gap("你好。", " ", True, options) == " "  # into English: a space
    assert output_gap("Hello.", "\n\n", True, options) == "\n\n"  # line breaks stay
    assert output_gap("Hello.", " ", False, options) == " "  # after the last sentence: as it was


def test_a_completion_streams_after_the_prefix_and_a_cancelled_one_asks_nothing():
    worker, fake, got = _worker()
    worker.complete(1, "Hello world.", "HELLO W", GenerationOptions(), threading.Event())
    assert "".join(got["completion"]) == "ORLD." and got["done"] == [(1, "")]
    cancel = threading.Event()
    cancel.set()
    fake.received.clear()
    worker.complete(2, "Hello world.", "HELLO", GenerationOptions(), cancel)
    assert fake.received == [] and got["done"][-1] == (2, "")


def test_alternatives_from_a_word():
    worker, _fake, got = _worker()
    worker.alternatives_from(3, "Hello world.", "HELLO ", 3, GenerationOptions(), threading.Event())
    [alternatives] = got["alts"]
    assert [a.text for a in alternatives] == ["WORLD."]
