"""The journal key of a file job names the model of each direction the document needs (issue 26):
a resume with another Chinese->English model starts over; an English document's key is the one
it had before both directions (an old journal still resumes)."""

from __future__ import annotations

import types
from pathlib import Path

from desktop_mt.batch import job_key
from desktop_mt.engine.options import GenerationOptions


def _model(name: str) -> types.SimpleNamespace:
    info = types.SimpleNamespace(path=Path(f"/models/{name}"), name=name, manifest=None)
    return types.SimpleNamespace(model_info=info)


class TwoWay:
    """What job_key reads of a two-way translator's face: its per-direction models and options."""

    variant, batch_size, batch_invariant = "int8", 16, True

    def __init__(self, zh_en: str) -> None:
        self.translators = {"en-zh": _model("en-zh-model"), "zh-en": _model(zh_en)}
        self.model_info = self.translators["en-zh"].model_info
        self.model_infos = {name: t.model_info for name, t in self.translators.items()}
        self.options = GenerationOptions()
        self.memory_identity = ""


class OneWay:
    """A single English->Chinese translator, as before both directions."""

    variant, batch_size, batch_invariant = "int8", 16, True

    def __init__(self) -> None:
        self.model_info = _model("en-zh-model").model_info
        self.model_infos = {"en-zh": self.model_info}
        self.options = GenerationOptions()
        self.memory_identity = ""


def _key(translator, segments):
    return job_key(b"data", "txt", None, translator, None, segments=segments).digest


def test_another_zh_en_model_is_another_job_for_chinese_text():
    chinese = ["我爱你。", "Good morning."]
    assert _key(TwoWay("zh-en-a"), chinese) != _key(TwoWay("zh-en-b"), chinese)


def test_an_english_document_keeps_the_key_it_had_before_both_directions():
    english = ["Good morning.", "Where is the train station?"]
    assert _key(TwoWay("zh-en-a"), english) == _key(TwoWay("zh-en-b"), english) == _key(OneWay(), english)
