"""The decoder's cache shape (layers, heads, head size) comes from the graph, not from defaults."""

from __future__ import annotations

import json
import shutil

import pytest

from desktop_mt.engine import model_format as mf
from desktop_mt.engine.runtime import Seq2SeqSessions, ZeroArrays
from desktop_mt.engine.translator import Translator

SENTENCES = ["I love you.", "Where is the train station?"]
SHAPE_KEYS = ("decoder_layers", "num_layers", "decoder_attention_heads", "num_heads")


def _without_shape_keys(src, dst):
    shutil.copytree(src, dst)
    config = json.loads((dst / "config.json").read_text(encoding="utf-8"))
    for key in SHAPE_KEYS:
        config.pop(key, None)
    (dst / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return dst


@pytest.fixture(params=["tiny_marian_dir", "tiny_marian_step_dir", "bundled"])
def model_dir(request):
    if request.param == "bundled":
        return mf.bundled_model_dir()
    return request.getfixturevalue(request.param)


def test_a_config_without_layer_and_head_counts_translates_the_same(model_dir, tmp_path, monkeypatch):
    """The tiny models have 2 decoder layers and 4 heads: the old fallback (6 and 8) broke them."""
    monkeypatch.setenv("DESKTOP_MT_HOME", str(tmp_path / "home"))
    stripped = _without_shape_keys(model_dir, tmp_path / "model")
    expected = Translator(model_dir, variant="int8").translate_batch(SENTENCES)
    assert Translator(stripped, variant="int8").translate_batch(SENTENCES) == expected


def test_the_shape_matches_the_config_where_it_has_one(tiny_marian_dir):
    sessions = Seq2SeqSessions(mf.inspect_model_dir(tiny_marian_dir), "int8")
    config = json.loads((tiny_marian_dir / "config.json").read_text(encoding="utf-8"))
    assert sessions.n_layers == config["decoder_layers"]
    assert sessions.heads == config["decoder_attention_heads"]
    assert sessions.heads * sessions.head_dim == config["d_model"]


def test_placeholder_zeros_are_shared_and_read_only():
    zeros = ZeroArrays()
    a = zeros.of((2, 5, 32))
    assert a is zeros.of((2, 5, 32)) and not a.flags.writeable and not a.any()
    assert zeros.of((3, 5, 32)).shape == (3, 5, 32)
