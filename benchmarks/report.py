"""Render ``benchmarks.json`` (from ``benchmarks/run.py``) as ``BENCHMARKS.md`` and ``benchmarks.png``."""

from __future__ import annotations

from pathlib import Path

ENGINES = ("pytorch", "ort-fp32", "ort-int8", "ct2-int8")
NAMES = {
    "pytorch": "PyTorch fp32 (transformers generate)",
    "ort-fp32": "**ours** ORT fp32",
    "ort-int8": "**ours** ORT int8",
    "ct2-int8": "CTranslate2 int8",
}
SHORT = {"pytorch": "PyTorch fp32", "ort-fp32": "ours fp32", "ort-int8": "ours int8", "ct2-int8": "CT2 int8"}
LEVERS = {
    "ort-int8-own-pools": "a thread pool per ORT session, idle threads sleeping (before 2026-12-05; "
    "ours: one pool for the process, runtime.share_thread_pool)",
    "ort-int8-spin": "a thread pool per ORT session, threads spin-wait (ORT's default; ours: one shared pool)",
    "ort-int8-mempattern": "ORT memory pattern on (ORT's default; ours: off)",
    "ort-int8-split": "Optimum's split decoder layout (decoder + decoder_with_past; ours: the step layout)",
    "ort-int8-dynamic": "int8 kind: ORT quantize_dynamic, one activation scale per batch tensor "
    "(before issue 20; batch-dependent). Ours: per-row activation scales",
    "ort-int8-nbits": "int8 kind: weight-only MatMulNBits 8-bit, accuracy_level 4 (batch-independent). "
    "Ours: per-row activation scales",
    "ort-int8-download": "a transformers.js download as shipped: merged decoder, ORT dynamic int8 (issue 32)",
    "ort-int8-converted": "that download after desktop_mt.models.convert: step layout, per-row int8 (issue 32)",
}


def f(x, digits=0):
    if x is None:
        return "–"
    return f"{x:,.{digits}f}"


def goals(model: dict) -> list[dict]:
    """The issue-6 goals on model (a), evaluated from the run (int8 = ours ORT int8)."""
    e, r = model["engines"], model["ratios"]
    rows = []
    if "ort-int8" not in e:
        return rows
    for beams in (1, 4):
        if "ort-int8/ct2-int8" in r:
            x = r["ort-int8/ct2-int8"][f"b1_beam{beams}_latency"]
            rows.append(
                {
                    "goal": f"batch 1, beam {beams}: latency < CTranslate2 int8",
                    "value": f"{x:.2f}x",
                    "target": "< 1.00x",
                    "met": x < 1.0,
                    "margin": f"{(1 - x) * 100:+.0f}%",
                }
            )
            x = r["ort-int8/ct2-int8"][f"bN_beam{beams}_throughput"]
            rows.append(
                {
                    "goal": f"batch 32, beam {beams}: throughput > CTranslate2 int8",
                    "value": f"{x:.2f}x",
                    "target": "> 1.00x",
                    "met": x > 1.0,
                    "margin": f"{(x - 1) * 100:+.0f}%",
                }
            )
        if "ort-int8/pytorch" in r:
            x = r["ort-int8/pytorch"][f"b1_beam{beams}_latency"]
            rows.append(
                {
                    "goal": f"batch 1, beam {beams}: latency <= 0.25x PyTorch",
                    "value": f"{x:.2f}x",
                    "target": "<= 0.25x",
                    "met": x <= 0.25,
                    "margin": f"{(0.25 - x) / 0.25 * 100:+.0f}%",
                }
            )
            x = 1 / r["ort-int8/pytorch"][f"bN_beam{beams}_throughput"]
            rows.append(
                {
                    "goal": f"batch 32, beam {beams}: time per sentence <= 0.25x PyTorch",
                    "value": f"{x:.2f}x",
                    "target": "<= 0.25x",
                    "met": x <= 0.25,
                    "margin": f"{(0.25 - x) / 0.25 * 100:+.0f}%",
                }
            )
    if "pytorch" in e:
        for key, label in (("peak_rss_batch1_mb", "batch 1"), ("peak_rss_mb", "batch 32")):
            x = e["ort-int8"][key] / e["pytorch"][key]
            rows.append(
                {
                    "goal": f"peak RSS ({label}) <= 0.35x PyTorch",
                    "value": f"{x:.2f}x ({e['ort-int8'][key]:.0f} vs {e['pytorch'][key]:.0f} MB)",
                    "target": "<= 0.35x",
                    "met": x <= 0.35,
                    "margin": f"{(0.35 - x) / 0.35 * 100:+.0f}%",
                }
            )
    return rows


def model_table(model: dict) -> list[str]:
    e = model["engines"]
    engines = [k for k in ENGINES if k in e]
    lines = [
        "| engine | size MB | load s | RSS after load MB | peak RSS b1 / b32 MB | greedy b1 p50 / p90 ms | "
        "first token ms | decode tok/s | beam4 b1 p50 / p90 ms | greedy b32 sent/s | beam4 b32 sent/s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k in engines:
        x = e[k]
        g, b = x["b1_beam1"], x["b1_beam4"]
        lines.append(
            f"| {NAMES[k]} | {f(model['sizes_mb'].get(k))} | {f(x['load_s'], 2)} | "
            f"{f(x['rss_after_load_mb'])} | "
            f"{f(x['peak_rss_batch1_mb'])} / {f(x['peak_rss_mb'])} | {f(g['p50_ms'])} / {f(g['p90_ms'])} | "
            f"{f(g.get('ttft_p50_ms'), 1)} | {f(g.get('decode_tok_s'))} | "
            f"{f(b['p50_ms'])} / {f(b['p90_ms'])} | "
            f"{f(x['bN_beam1']['sent_s'], 1)} | {f(x['bN_beam4']['sent_s'], 1)} |"
        )
    lines += [
        "",
        "Ratios, pair by pair (same sentence / same batch, median of the per-pair ratios). "
        "Latency: time ratio (< 1 = faster); throughput: speed ratio (> 1 = faster).",
        "",
        "| pair | b1 greedy latency | b1 beam4 latency | b32 greedy throughput | b32 beam4 throughput |",
        "|---|---:|---:|---:|---:|",
    ]
    for key, r in model["ratios"].items():
        a, b = key.split("/")
        if a in LEVERS or b in LEVERS or b == "ort-int8":
            continue
        lines.append(
            f"| {SHORT[a]} vs {SHORT[b]} | {r['b1_beam1_latency']:.2f}x | {r['b1_beam4_latency']:.2f}x | "
            f"{r['bN_beam1_throughput']:.2f}x | {r['bN_beam4_throughput']:.2f}x |"
        )
    if model.get("same_tokens_as_pytorch"):
        lines += [
            "",
            "Outputs identical to PyTorch's (share of all sentences run): "
            + ", ".join(
                f"{SHORT[k]} {v * 100:.0f}%"
                for k, v in model["same_tokens_as_pytorch"].items()
                if k in SHORT and k != "pytorch"
            )
            + ".",
        ]
    return lines


def lever_table(model: dict) -> list[str]:
    """Ours int8 as benchmarked vs the same with one lever undone, measured in this run."""
    e, rows = model["engines"], []
    for k, label in LEVERS.items():
        r = model["ratios"].get(f"{k}/ort-int8")
        if k not in e or not r:
            continue
        same = (model.get("same_tokens_as_pytorch") or {}).get(k)
        rows.append(
            f"| {label} | {r['b1_beam1_latency']:.2f}x | {r['b1_beam4_latency']:.2f}x | "
            f"{1 / r['bN_beam1_throughput']:.2f}x | {1 / r['bN_beam4_throughput']:.2f}x | "
            f"{f(e[k]['peak_rss_batch1_mb'])} / {f(e[k]['peak_rss_mb'])} vs "
            f"{f(e['ort-int8']['peak_rss_batch1_mb'])} / "
            f"{f(e['ort-int8']['peak_rss_mb'])} | {f(100 * same) + '%' if same is not None else '–'} |"
        )
    if not rows:
        return []
    return [
        "",
        "### Levers A/B in this run (ours int8 with one setting undone)",
        "",
        "Time of the variant / time of ours as benchmarked, pair by pair (> 1: the lever helps), and peak RSS "
        "(b1 / b32, variant vs ours).",
        "",
        "| variant | b1 greedy | b1 beam4 | b32 greedy | b32 beam4 | peak RSS MB | same as PyTorch |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ] + rows


def render(result: dict, out: Path) -> None:
    env, s = result["environment"], result["settings"]
    md = [
        "# Benchmarks",
        "",
        "Made by one run of:",
        "",
        "```",
        result["command"],
        "```",
        "",
        f"Machine: {env['cpu']}, {env['logical_cpus']} logical CPUs ({', '.join(env['isa'])}), {env['platform']}, "
        f"Python {env['python']}. Run started {env['date']}, took {result.get('wall_minutes', 0):.0f} min.",
        "",
        f"Threads: {env['thread_settings']}.",
        "",
        "Packages: " + ", ".join(f"{k} {v}" for k, v in env["versions"].items()) + ".",
        "",
        "Method: each engine runs in its own process (so peak RSS is its own: `VmHWM` of that process) "
        "and gets the same token ids. For every sentence (batch 1) and every batch (batch 32) the engines "
        "run one after another "
        "in a rotating order, so the machine's noise hits them alike; the ratios below are computed pair by "
        "pair and their median reported. Times cover the generate call only (encoder + decoder + search), not "
        "tokenization. Batch 32: the lines are sorted by source length and cut into the same batches for "
        f"every engine. Batch 1: {s['sentences']} sentences greedy, {s['beam_sentences']} with beam 4, each "
        f"{s['repeats']}x; batch 32: {s['lines']} lines greedy, {s['beam_lines']} lines with beam 4"
        + (" (beam 4 on fewer lines to fit the run in the time available)" if s["beam_lines"] < s["lines"] else "")
        + (" — **a shorter run than the 1,000-line target** (see the command above)" if s["lines"] < 1000 else "")
        + ". Load time: median of fresh processes. Inputs: distinct English Tatoeba sentences of 3+ words "
        "(a fixed random sample).",
        "",
    ]
    a = result["models"].get("a")
    if a and "engines" in a:
        md += [
            "## (a) opus-mt-en-zh architecture, random weights",
            "",
            f"MarianConfig of opus-mt-en-zh (6+6 layers, d_model 512, 8 heads, FFN 2048, vocab 65,001, tied "
            f"embeddings), random weights, built by `benchmarks/arch_model.py`. Every engine decodes exactly "
            f"{a['forced_tokens']} tokens per sentence (EOS banned before that: `min_length == max_length`, "
            f"CTranslate2 `min_decoding_length == max_decoding_length`). Source sentences: "
            f"{a['source_tokens_mean']:.1f} tokens on average.",
            "",
        ]
        md += model_table(a)
        md += lever_table(a)
        rows = goals(a)
        if rows:
            met = sum(r["met"] for r in rows)
            md += [
                "",
                f"### Goals (issue 6), ours int8 on (a): {met} of {len(rows)} met",
                "",
                "| goal | measured | target | met | margin |",
                "|---|---:|---:|:-:|---:|",
            ]
            md += [
                f"| {r['goal']} | {r['value']} | {r['target']} | {'yes' if r['met'] else '**no**'} | {r['margin']} |"
                for r in rows
            ]
        fl = a.get("floor")
        if fl and "ort-int8" in a["engines"]:
            g = a["engines"]["ort-int8"]["b1_beam1"]
            per_tok = 1000 / g["decode_tok_s"] if g.get("decode_tok_s") else None
            md += [
                "",
                "### Distance from the physical floor (batch 1, greedy)",
                "",
                f"Single-thread streaming read rate measured in this run: {fl['read_bandwidth_gbs']:.1f} GB/s. "
                f"One decoder step must read its weights once (embedding tables excluded: one row each): "
                f"int8 {fl['int8']['weight_mb_per_token']:.0f} MB -> floor {fl['int8']['floor_ms_per_token']:.2f} "
                f"ms/token; fp32 {fl['fp32']['weight_mb_per_token']:.0f} MB -> "
                f"{fl['fp32']['floor_ms_per_token']:.2f} "
                f"ms/token.",
            ]
            if per_tok:
                md += [
                    "",
                    f"Ours int8 decodes at {per_tok:.2f} ms/token: "
                    f"{per_tok / fl['int8']['floor_ms_per_token']:.1f}x "
                    f"the floor.",
                ]
                if "ct2-int8" in a["engines"] and a["engines"]["ct2-int8"]["b1_beam1"].get("decode_tok_s"):
                    c = 1000 / a["engines"]["ct2-int8"]["b1_beam1"]["decode_tok_s"]
                    md[-1] += f" CTranslate2 int8: {c:.2f} ms/token ({c / fl['int8']['floor_ms_per_token']:.1f}x)."
    b = result["models"].get("b")
    if b:
        md += ["", "## (b) the bundled model, real stopping", ""]
        if "engines" not in b:
            md += [f"Not measured in this run: {b.get('missing')}."]
        else:
            where = (
                f"`desktop_mt/resources/models/{b.get('name')}`"
                if b.get("bundled", True)
                else f"the demo checkpoint `work/demo/hf` (the bundled model's training output), exported with "
                f"`python -m export_tools export work/demo/hf {b.get('onnx_dir')}` because "
                f"`desktop_mt/resources/models` "
                f"was still empty at run time"
            )
            md += [
                f"{where}; PyTorch and CTranslate2 from its HF checkpoint. Each engine "
                f"stops on EOS (greedy / beam 4), so token counts may differ slightly between engines. Source "
                f"sentences: {b['source_tokens_mean']:.1f} tokens on average.",
                "",
            ]
            md += model_table(b)
            if b.get("quality"):
                md += [
                    "",
                    "Quality (greedy, held-out dev sentences vs their Tatoeba references, sacrebleu):",
                    "",
                    "| engine | chrF | BLEU (zh tokenizer) | sentences | same output as PyTorch |",
                    "|---|---:|---:|---:|---:|",
                ]
                for k, q in b["quality"].items():
                    same = q.get("same_as_pytorch")
                    md.append(
                        f"| {NAMES[k]} | {q['chrf']:.1f} | {q['bleu_zh']:.1f} | {q['sentences']} | "
                        f"{f(100 * same) + '%' if same is not None else '–'} |"
                    )
    # hand-kept: each lever and its measured effect; the int8 kinds compared (issue 20); the
    # downloaded model on the fast path (issue 32)
    for name in ("levers.md", "int8.md", "download.md"):
        extra = Path(__file__).with_name(name)
        if extra.exists():
            md += ["", extra.read_text(encoding="utf-8").strip()]
    md += ["", "![benchmarks](benchmarks.png)", ""]
    (out / "BENCHMARKS.md").write_text("\n".join(md), encoding="utf-8")
    plot(result, out / "benchmarks.png")


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = [(k, m) for k, m in result["models"].items() if "engines" in m]
    if not models:
        return
    panels = [
        ("b1_beam1", "p50_ms", "batch 1 greedy, ms/sentence (lower is better)"),
        ("b1_beam4", "p50_ms", "batch 1 beam 4, ms/sentence"),
        ("bN_beam1", "sent_s", "batch 32 greedy, sentences/s (higher is better)"),
        ("bN_beam4", "sent_s", "batch 32 beam 4, sentences/s"),
        (None, "peak_rss_mb", "peak RSS, MB (lower is better)"),
    ]
    fig, axes = plt.subplots(len(models), len(panels), figsize=(4.2 * len(panels), 3.3 * len(models)), squeeze=False)
    colors = {"pytorch": "#888888", "ort-fp32": "#7fb3e6", "ort-int8": "#1f5fa8", "ct2-int8": "#e08a2c"}
    for row, (name, m) in enumerate(models):
        engines = [k for k in ENGINES if k in m["engines"]]
        for col, (group, key, title) in enumerate(panels):
            ax = axes[row][col]
            vals = [(m["engines"][k][group][key] if group else m["engines"][k][key]) for k in engines]
            bars = ax.bar([SHORT[k] for k in engines], vals, color=[colors[k] for k in engines])
            ax.bar_label(bars, fmt="%.0f" if max(vals) > 50 else "%.1f", fontsize=8)
            ax.set_title(f"({name}) {title}", fontsize=8.5)
            ax.tick_params(axis="x", labelsize=7.5, rotation=15)
            ax.tick_params(axis="y", labelsize=7.5)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
