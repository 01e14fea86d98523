"""`python -m export_tools model-card`: the card's words follow the direction, every figure comes
from the files it is given."""

from __future__ import annotations

import json

from export_tools.__main__ import main


def _files(tmp_path, direction: str, with_extras: bool = True):
    model, train = tmp_path / "model", tmp_path / "train"
    model.mkdir()
    train.mkdir()
    files = {"encoder": {"file": "e.onnx", "bytes": 5_000_000}, "decoder_step": {"file": "d.onnx", "bytes": 6_900_000}}
    manifest = {"variants": {"int8": {"files": files}}, "int8": {"kind": "dynamic-per-row"}}
    (model / "desktop_mt.json").write_text(json.dumps(manifest), encoding="utf-8")
    config = {
        "direction": direction,
        "seed": 1234,
        "source_vocab": 4000,
        "target_vocab": 4000,
        "d_model": 256,
        "encoder_layers": 4,
        "decoder_layers": 2,
        "heads": 4,
        "ffn_dim": 1024,
        "dropout": 0.1,
        "label_smoothing": 0.1,
        "epochs": 8,
        "average_last": 4,
        "threads": 2,
    }
    (train / "train_config.json").write_text(json.dumps(config), encoding="utf-8")
    log = "[13:31:07] epoch 1/8 step 135 loss 5.1 lr 1e-03 600s\n"
    log += "[13:36:52] epoch 8/8 step 1080 loss 2.544 lr 5e-05 205s\n"
    (train / "train.log").write_text(log, encoding="utf-8")
    results = {
        "sentences": 800,
        "references": 1100,
        "notes": "measured on a test machine",
        "scores": {
            "onnx-int8 greedy": {"bleu": 21.17, "chrf": 38.79},
            "onnx-fp32 greedy": {"bleu": 20.96, "chrf": 38.79},
        },
        "examples": [
            {"en": "我们需要的只有水。", "refs": ["We just need water."], "onnx-int8 greedy": "We need water."}
        ],
    }
    if with_extras:
        results["flores"] = {
            "sentences": 997,
            "scores": {"onnx-int8 beam4": {"bleu": 1.23, "chrf": 14.5}},
            "examples": [
                {"en": "周一，斯坦福大学|医学院", "refs": ["On Monday, Stanford"], "onnx-int8 beam4": "On Monday"}
            ],
        }
        results["traditional_flores"] = {
            "data": "flores200-dev.en-zh.tsv",
            "sentences": 997,
            "engine": "desktop-mt int8, beams default",
            "rows": {
                "Simplified (original)": {"unknown_pieces": 0.015, "bleu": 1.06, "chrf": 14.07},
                "Traditional as it is": {"unknown_pieces": 0.216, "bleu": 0.5, "chrf": 9.0},
                "Traditional -> t2s": {"unknown_pieces": 0.015, "bleu": 1.05, "chrf": 14.0},
                "Traditional, app default": {"bleu": 1.0, "chrf": 14.0},
            },
        }
    eval_path = tmp_path / "eval.json"
    eval_path.write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
    return model, train, eval_path


def test_a_zh_en_card_speaks_of_chinese_sources_and_english_scores(tmp_path):
    model, train, eval_path = _files(tmp_path, "zh-en")
    assert main(["model-card", str(model), "--train-dir", str(train), "--eval", str(eval_path)]) == 0
    card = (model / "README.md").read_text(encoding="utf-8")
    assert card.startswith("# model: a small Chinese→English Marian model trained on Tatoeba")
    assert "CC-BY 2.0 FR" in card and "data by the Tatoeba contributors, tatoeba.org" in card
    assert "tokenize='13a'" in card and "opus-mt-zh-en" in card and "--direction zh-en" in card
    assert '"我爱你。"' in card and "800 Chinese sentences (with all their 1100" in card
    assert "| onnx-int8 greedy | 21.2 | 38.8 |" in card and "int8 11.9 MB" in card
    assert "| onnx-int8 beam4 | 1.23 | 14.50 |" in card and "**This is a demo model" in card
    assert "| 周一，斯坦福大学/医学院 | On Monday, Stanford | On Monday |" in card  # a pipe never breaks the table
    assert "flores200-dev.en-zh.tsv, 997 sentences (desktop-mt int8, beams default)" in card
    assert "| Traditional as it is | 21.6% | 0.50 | 9.00 |" in card
    assert "| Traditional, app default | | 1.00 | 14.00 |" in card
    assert "Simplified first is better on the first set below: 1.05 BLEU against 0.50 as it is." in card
    assert "measured on a test machine" in card  # the eval file's notes
    assert "| 我们需要的只有水。 | We just need water. | We need water. |" in card
    assert "Training time on a 2-core CPU: 13 min" in card and "epoch 8/8 step 1080" in card


def test_an_en_zh_card_without_flores_or_traditional_figures(tmp_path):
    model, train, eval_path = _files(tmp_path, "en-zh", with_extras=False)
    assert main(["model-card", str(model), "--train-dir", str(train), "--eval", str(eval_path)]) == 0
    card = (model / "README.md").read_text(encoding="utf-8")
    assert "English→Chinese" in card and "tokenize='zh'" in card and '"I love you."' in card
    assert "FLORES" not in card and "Traditional" not in card
