"""`python -m export_tools evaluate`: BLEU/chrF for the variants a model folder has, greedy and beam."""

from __future__ import annotations

import json
import shutil

from export_tools.__main__ import main
from export_tools.evaluate import read_dev, score


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
