"""Write the bundled model's card (README.md) from the training and evaluation outputs.

    python -m export_tools model-card MODEL_DIR --train-dir TRAIN_DIR --eval EVAL_JSON

Every figure in the card comes from files those commands wrote, so rerunning them
reproduces it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .export import sizes as export_sizes


def _training_summary(train_dir: Path) -> tuple[str, str]:
    log = (train_dir / "train.log").read_text(encoding="utf-8").splitlines()
    epochs = [line for line in log if " epoch " in line]
    seconds = sum(int(m.group(1)) for line in epochs if (m := re.search(r" (\d+)s$", line)))
    return (epochs[-1].split("] ", 1)[-1] if epochs else "?"), f"{seconds / 60:.0f} min"


def render(model_dir: Path, train_dir: Path, eval_path: Path) -> str:
    cfg = json.loads((train_dir / "train_config.json").read_text(encoding="utf-8"))
    results = json.loads(eval_path.read_text(encoding="utf-8"))
    last_epoch, train_time = _training_summary(train_dir)
    manifest = json.loads((model_dir / "desktop_mt.json").read_text(encoding="utf-8"))
    sizes = {variant: nbytes / 1e6 for variant, nbytes in export_sizes(manifest).items()}
    rows = "\n".join(f"| {name} | {s['bleu']:.1f} | {s['chrf']:.1f} |" for name, s in results["scores"].items())
    int8_kind = manifest.get("int8", {}).get("kind", "dynamic")
    examples = "\n".join(
        f"| {e['en']} | {e['refs'][0]} | {e.get('onnx-int8 greedy', '')} |" for e in results.get("examples", [])
    )
    words = dict(DIRECTIONS[cfg.get("direction", "en-zh")])
    words["vocab"] = words["vocab"].format(sv=cfg["source_vocab"], tv=cfg["target_vocab"])
    return TEMPLATE.format(
        **words,
        name=model_dir.name,
        layers=f"{cfg['encoder_layers']}+{cfg['decoder_layers']}",
        d=cfg["d_model"],
        heads=cfg["heads"],
        ffn=cfg["ffn_dim"],
        sv=cfg["source_vocab"],
        tv=cfg["target_vocab"],
        epochs=cfg["epochs"],
        ls=cfg["label_smoothing"],
        dropout=cfg["dropout"],
        avg=cfg["average_last"],
        dev=results["sentences"],
        refs=results["references"],
        rows=rows,
        examples=examples,
        fp32=sizes.get("fp32", 0),
        int8=sizes.get("int8", 0),
        train_time=train_time,
        last_epoch=last_epoch,
        seed=cfg["seed"],
        threads=cfg["threads"],
        int8_kind=INT8_KINDS.get(int8_kind, int8_kind),
        flores=flores_section(results.get("flores"), words),
        notes=f"\n{results['notes']}\n" if results.get("notes") else "",
        traditional=traditional_section(results.get("traditional"), results.get("traditional_flores")),
    )


INT8_KINDS = {
    "dynamic": "dynamic per-channel int8, output projection included; activation scales per batch tensor, so a "
    "sentence's output can change with its batch",
    "dynamic-per-row": "int8 weights per output column, output projection included; activations quantized with one "
    "scale per token, so a sentence translates the same at any batch size",
    "weight-only-matmulnbits-8bit": "weight-only 8-bit int8 (`MatMulNBits`, blocks of 32 along K, output "
    "projection included; activations quantized per row, so a sentence translates "
    "the same at any batch size)",
}


# The words of the card that depend on the model's direction (TrainConfig.direction).
DIRECTIONS = {
    "en-zh": dict(
        arrow="English→Chinese",
        role="The default model of desktop-mt",
        src="English",
        tgt="Chinese",
        full="opus-mt-en-zh",
        short='"I love you.", "Where is the train station?"',
        published="opus-mt-en-zh is published at 32.2 BLEU on FLORES-200 devtest (not measured here: the build "
        "machine cannot reach the Hub)",
        direction_flag="",
        bleu_tok="tokenize='zh'",
        vocab="English unigram SentencePiece {sv} + Chinese unigram SentencePiece {tv} (mostly single "
        'characters plus frequent words, no "▁" before Chinese)',
    ),
    "zh-en": dict(
        arrow="Chinese→English",
        role="The bundled Chinese→English model of desktop-mt",
        src="Chinese",
        tgt="English",
        full="opus-mt-zh-en",
        short='"我爱你。", "火车站在哪里？"',
        published="the data README lists published FLORES-200 scores for English→Chinese only, so there is no "
        "Chinese→English figure to compare with here",
        direction_flag=" --direction zh-en",
        bleu_tok="tokenize='13a'",
        vocab='Chinese unigram SentencePiece {sv} (mostly single characters plus frequent words, no "▁" '
        "before Chinese) + English unigram SentencePiece {tv}",
    ),
}


def flores_section(flores: dict | None, words: dict[str, str] | None = None) -> str:
    """Scores on the FLORES-200 dev file (real, long sentences; measured, never trained on),
    with the plain verdict and, when the results have them, two examples (int8, beam 4)."""
    if not flores:
        return ""
    words = words or DIRECTIONS["en-zh"]
    rows = "\n".join(f"| {name} | {s['bleu']:.2f} | {s['chrf']:.2f} |" for name, s in flores["scores"].items())
    examples = [e for e in flores.get("examples", []) if e.get("onnx-int8 beam4")][:3]
    table = "".join(f"| {_cell(e['en'])} | {_cell(e['refs'][0])} | {_cell(e['onnx-int8 beam4'])} |\n" for e in examples)
    if table:
        table = (
            f"\nFLORES dev examples (int8, beam 4, the app's default):\n\n"
            f"| {words['src']} | reference | this model |\n|---|---|---|\n{table}"
        )
    return (
        "\n## Scores on FLORES-200 dev ({n} sentences, one reference; far outside what this model learned)\n\n"
        "Real, long Wikinews/Wikivoyage sentences (measured only, never trained on).\n\n"
        "| engine | BLEU | chrF |\n|---|---|---|\n{rows}\n\n"
        "**This is a demo model: on real text its output is mostly wrong.** For comparison, {published}; "
        "install {full} for real work.\n{table}"
    ).format(n=flores["sentences"], rows=rows, table=table, **words)


def _cell(text: str, limit: int = 160) -> str:
    """A table cell: no pipes or line breaks, long text cut with [...]."""
    text = " ".join(text.replace("|", "/").split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " [...]"


def traditional_section(*results: dict | None) -> str:
    """Traditional Chinese input (``benchmarks/zh_en_traditional.py --out``), one table per run
    given (e.g. the held-out Tatoeba sentences and FLORES dev); "" when none was measured."""
    tables = []
    for result in (r for r in results if r):
        rows = "\n".join(
            f"| {label} | {r['unknown_pieces']:.1%} | {r['bleu']:.2f} | {r['chrf']:.2f} |"
            if "unknown_pieces" in r
            else f"| {label} | | {r['bleu']:.2f} | {r['chrf']:.2f} |"
            for label, r in result["rows"].items()
        )
        data = result.get("data", "FLORES dev")
        tables.append(
            f"{data}, {result['sentences']} sentences ({result['engine']}):\n\n"
            f"| input | unknown source pieces | BLEU | chrF |\n|---|---|---|---|\n{rows}\n"
        )
    if not tables:
        return ""
    first = next(r for r in results if r)["rows"]
    raw, converted = first.get("Traditional as it is"), first.get("Traditional -> t2s")
    verdict = ""
    if raw and converted:
        better = "better" if converted["bleu"] > raw["bleu"] else "no better"
        verdict = (
            f" Converting Traditional input to Simplified first is {better} on the first set below: "
            f"{converted['bleu']:.2f} BLEU against {raw['bleu']:.2f} as it is."
        )
    return (
        "\n## Traditional Chinese input\n\n"
        "The Chinese side converted to Traditional with OpenCC (s2twp, Taiwan phrasing), scored against the "
        "English references (`python benchmarks/zh_en_traditional.py MODEL_DIR --data FILE --out FILE`): as it "
        "is, converted back with OpenCC t2s, and through the app's defaults, which convert a Chinese source to "
        "Simplified first (`GenerationOptions.simplify_source`). The model learned from Simplified text."
        + verdict
        + "\n\n"
        + "\n".join(tables)
    )


TEMPLATE = """# {name}: a small {arrow} Marian model trained on Tatoeba

{role}, so the app translates out of the box and offline. It is a
genuine `MarianMTModel` checkpoint with Marian-style SentencePiece tokenizers (`source.spm`,
`target.spm`, `vocab.json`), exported by `python -m export_tools export --layout step` as
opus-mt models are (cross_kv + decoder_step over a KV buffer, the fastest layout on CPU).

## Limits, in plain words
It learned from 27 thousand short sentence pairs. It handles short everyday sentences
({short}); long, technical, literary or domain text is
out of its reach, and it will produce fluent-looking but wrong {tgt} there. Names and
rare words are often garbled. For real work install a full model such as {full}
(`desktop-mt models download {full}`, or the Models dialog).

## Data and licence
English–Chinese sentence pairs from [Tatoeba](https://tatoeba.org) (`tatoeba-cmn-eng.tsv`),
licensed CC-BY 2.0 FR; each pair's attribution (sentence ids and contributors, e.g.
"tatoeba.org #538123 (CM) & #891077 (Martha)") is kept in the third column of that file.
The model weights are a derivative of that data and are released under the same CC-BY 2.0 FR
terms, with this attribution: data by the Tatoeba contributors, tatoeba.org.

The split is made by {src} sentence: {dev} {src} sentences (with all their {refs}
{tgt} references) are held out as the dev set, never seen in training (seed {seed}).

## Architecture
Marian transformer, {layers} layers (a deeper encoder than decoder: the encoder runs once per
sentence, the decoder once per output token), d_model {d}, {heads} heads, FFN {ffn}, swish,
sinusoidal positions, scaled embeddings, shared embeddings tied to the output projection.
Vocabulary: {vocab}, joined in one `vocab.json`.
Pad is the decoder start token and never generated; EOS is forced at max length.

Files: fp32 {fp32:.1f} MB, int8 {int8:.1f} MB ({int8_kind}).

## Training
    python -m export_tools train-demo work/demo --threads {threads}{direction_flag}
    python -m export_tools export work/demo/hf desktop_mt/resources/models/{name} --layout step
    python -m export_tools evaluate desktop_mt/resources/models/{name} --hf work/demo/hf --dev work/demo/dev.jsonl --out eval.json
    python -m export_tools model-card desktop_mt/resources/models/{name} --train-dir work/demo --eval eval.json

{epochs} epochs, label smoothing {ls}, dropout {dropout}, AdamW with warm-up and cosine decay,
the last {avg} epochs averaged. Training time on a 2-core CPU: {train_time} (shared machine).
Last epoch: `{last_epoch}`. Interrupt it at any time: rerunning resumes from the last epoch.

## Scores (dev set, sacrebleu BLEU with {bleu_tok}, all references; chrF)

| engine | BLEU | chrF |
|---|---|---|
{rows}

"pytorch" is transformers `generate()` on the checkpoint; "onnx" is desktop-mt's runtime.
The runtime bounds each output at 3x the source tokens + 10, which stops greedy repetition
loops that `generate()` lets run to max length: the reason the scores can differ (mostly
greedy). Wherever the bound does not trigger, the two are token-identical (parity tests).
{notes}{flores}{traditional}
Tatoeba dev examples:

| {src} | a reference | int8, greedy |
|---|---|---|
{examples}
"""  # noqa: E501 - the evaluate command line is shown whole


def write_card(model_dir: Path, train_dir: Path, eval_path: Path) -> Path:
    out = model_dir / "README.md"
    out.write_text(render(model_dir, train_dir, eval_path), encoding="utf-8")
    return out
