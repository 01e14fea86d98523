"""`python -m export_tools evaluate`: BLEU/chrF for the variants a model folder has, greedy and beam."""

from __future__ import annotations

import json
import shutil

import pytest

from export_tools.__main__ import main
from export_tools.evaluate import read_dev, score, source_language, target_language
from export_tools.train_demo import oriented, split_by_source


def test_scores_every_variant_the_folder_has(tiny_marian_dir, tmp_path):
    dev = tmp_path / "dev.tsv"
    dev.write_text("I love you.\t我爱你。\nWhere is the train station?\t火车站在哪里？\n", encoding="utf-8")
    assert read_dev(dev) == (["I love you.", "Where is the train station?"], [["我爱你。"], ["火车站在哪里？"]])
    out = tmp_path / "eval.json"
    assert main(["evaluate", str(tiny_marian_dir), "--dev", str(dev), "--out", str(out)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))["scores"]
    assert set(rows) == {f"onnx-{v} {d}" for v in ("int8", "fp32") for d in ("greedy", "beam4")}
    # a downloaded model may hold int8 only: it is scored without failing on fp32
    int8_only = tmp_path / "int8-only"
    shutil.copytree(tiny_marian_dir, int8_only)
    manifest = json.loads((int8_only / "desktop_mt.json").read_text(encoding="utf-8"))
    for spec in manifest["variants"].pop("fp32")["files"].values():
        (int8_only / spec["file"]).unlink()
    (int8_only / "desktop_mt.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert main(["evaluate", str(int8_only), "--dev", str(dev), "--out", str(out)]) == 0
    assert set(json.loads(out.read_text(encoding="utf-8"))["scores"]) == {"onnx-int8 greedy", "onnx-int8 beam4"}


def test_score_is_sacrebleu_with_chinese_tokenization():
    perfect = score(["我爱你。"], [["我爱你。"]])
    assert perfect == {"bleu": 100.0, "chrf": 100.0}
    assert score(["你好"], [["我爱你。"]])["bleu"] < 1


def test_english_output_is_scored_with_word_tokenization(tmp_path):
    # 'zh' tokenization splits Chinese by character but keeps English words whole, so the two
    # agree here; the point is that a zh->en model's folder selects '13a' from target_lang.
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"target_lang": "en"}), encoding="utf-8")
    assert target_language(str(tmp_path)) == "en"
    assert target_language(str(tmp_path / "missing")) == "zh"
    assert score(["I love you."], [["I love you."]], "en") == {"bleu": 100.0, "chrf": 100.0}
    # 13a splits the full stop from the word: "you." vs "you ." differ only under whitespace split
    assert score(["I love you ."], [["I love you."]], "en")["bleu"] == 100.0


def test_a_chinese_source_dev_file_reads_its_src_key(tmp_path):
    dev = tmp_path / "dev.jsonl"
    dev.write_text(
        json.dumps({"src": "我爱你。", "refs": ["I love you."]}, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    assert read_dev(dev) == (["我爱你。"], [["I love you."]])


def test_train_demo_reverses_the_pairs_and_splits_by_source():
    pairs = [("I love you.", "我爱你。", "a"), ("I love you.", "我爱您。", "b"), ("Hi.", "你好。", "c")]
    reversed_pairs = oriented(pairs, "zh-en")
    assert reversed_pairs[0] == ("我爱你。", "I love you.", "a")
    train, dev = split_by_source(reversed_pairs, 1, seed=0)
    # each Chinese source and all its references land on one side
    assert {src for src, _ in train}.isdisjoint(src for src, _ in dev)
    assert len(train) + sum(len(refs) for _, refs in dev) == 3
    with pytest.raises(ValueError, match="direction"):
        oriented(pairs, "en-fr")


def test_a_tsv_reads_in_the_models_direction(tmp_path):
    # FLORES dev ships as english<TAB>chinese: a zh->en model reads its Chinese column
    dev = tmp_path / "flores.en-zh.tsv"
    dev.write_text("I love you.\t我爱你。\nIt's raining.\t下雨了。\n", encoding="utf-8")
    assert read_dev(dev, source="zh") == (["我爱你。", "下雨了。"], [["I love you."], ["It's raining."]])
    assert read_dev(dev, source="en") == read_dev(dev)
    assert read_dev(dev, limit=1, source="zh") == (["我爱你。"], [["I love you."]])
    # a zh<TAB>en file is read the right way round as well
    flipped = tmp_path / "dev.zh-en.tsv"
    flipped.write_text("我爱你。\tI love you.\n", encoding="utf-8")
    assert read_dev(flipped, source="zh") == (["我爱你。"], [["I love you."]])
    assert read_dev(flipped, source="en") == (["I love you."], [["我爱你。"]])
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"source_lang": "zh"}), encoding="utf-8")
    assert source_language(str(tmp_path)) == "zh"
    assert source_language(str(tmp_path / "missing")) == "en"
