"""The bundled Chinese->English demo model (``tatoeba-zh-en-small``): found for its direction,
intact, per-row int8, its figures consistent with its card, and the runtime token for token
equal to transformers ``generate()`` on the checkpoint rebuilt from its fp32 files."""

from __future__ import annotations

import json

import pytest

from desktop_mt.engine import model_format as mf

NAME = "tatoeba-zh-en-small"
SENTENCES = [
    "我爱你。",
    "火车站在哪里？",
    "汤姆整天都在开车。",
    "这栋房子属于我的叔叔。",
    "你能帮我把这些箱子搬到楼上吗？",
]


@pytest.fixture(scope="module")
def model_dir():
    try:
        folder = mf.bundled_model_dir("zh-en")
    except mf.ModelNotFoundError as exc:  # pragma: no cover - a checkout without the model files
        pytest.skip(str(exc))
    assert folder.name == NAME
    return folder


def test_found_for_its_direction_and_intact(model_dir):
    info = mf.inspect_model_dir(model_dir)
    assert (info.source_lang, info.target_lang) == ("zh", "en") and info.direction == "zh-en"
    assert mf.bundled_model_dir().name != NAME  # the English->Chinese model stays the default
    assert info.int8_kind == mf.INT8_PER_ROW and info.batch_invariant("int8")
    for variant in ("int8", "fp32"):
        mf.verify_files(info, variant)
    manifest = json.loads((model_dir / mf.MANIFEST).read_text(encoding="utf-8"))
    validation = manifest["validation"]
    assert all(any("\u4e00" <= c <= "\u9fff" for c in s) for s in validation["samples"])  # validated on Chinese
    for variant in ("fp32", "int8"):
        assert validation[variant]["greedy_tokens_match_all"], variant
    assert validation["fp32"]["max_abs_logit_diff"] < 1e-3


def test_eval_figures_int8_within_one_bleu_and_in_the_card(model_dir):
    results = json.loads((model_dir / "eval.json").read_text(encoding="utf-8"))
    scores = results["scores"]
    assert results["sentences"] == 800
    for search in ("greedy", "beam4"):
        assert abs(scores[f"onnx-int8 {search}"]["bleu"] - scores[f"onnx-fp32 {search}"]["bleu"]) <= 1.0, search
    assert results["flores"]["sentences"] == 997 and results["flores"]["scores"]
    card = (model_dir / "README.md").read_text(encoding="utf-8")
    for name, row in scores.items():
        assert f"| {name} | {row['bleu']:.1f} | {row['chrf']:.1f} |" in card, name
    assert "tokenize='13a'" in card and "CC-BY 2.0 FR" in card and "tatoeba.org" in card
    assert "**This is a demo model" in card
    traditional = results["traditional"]["rows"]
    assert traditional["Traditional, app default"]["bleu"] >= traditional["Traditional as it is"]["bleu"]


@pytest.mark.slow
@pytest.mark.parametrize("beams", [1, 4])
def test_runtime_equals_generate_on_the_recovered_checkpoint(model_dir, beams, tmp_path_factory):
    torch = pytest.importorskip("torch")
    from transformers import AutoTokenizer, MarianMTModel

    from desktop_mt import GenerationOptions, Translator
    from desktop_mt.engine.options import RAW
    from export_tools.recover import recover

    hf = tmp_path_factory.getbasetemp() / "zh-en-hf"
    if not (hf / "config.json").exists():
        recover(model_dir, hf, verify=False)
    tok = AutoTokenizer.from_pretrained(str(hf))
    model = MarianMTModel.from_pretrained(str(hf)).eval()
    with torch.no_grad():
        ids = model.generate(**tok(SENTENCES, return_tensors="pt", padding=True), num_beams=beams, do_sample=False)
    expected = [t.replace("\u2581", " ").strip() for t in tok.batch_decode(ids, skip_special_tokens=True)]
    translator = Translator(model_dir, variant="fp32", options=GenerationOptions(beams=beams, **RAW))
    assert translator.translate_batch(SENTENCES) == expected
