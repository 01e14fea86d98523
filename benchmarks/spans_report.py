"""Whole sentences with verified spans vs cutting them (issue 29), on the bundled model.

Measuring only. FLORES dev (through ``translate_batch``) and the awkward-input table of
``tests/engine/test_awkward_input.py`` (through ``translate``) are translated with
``GenerationOptions.spans`` "cut" (before issue 29), "whole" (the default) and "off" (nothing
protected); for each: protected spans of the source missing from the output, lines with a
character 4+ times in a row (loops), how many sentences took each path, BLEU/chrF. Then the
glossary lines of ``benchmarks/glossary_report.py`` (term hits, cut vs whole), and streaming:
median time to the first shown text and to the end, per mode, on 40 FLORES lines with spans.

    nice python benchmarks/spans_report.py [--lines 997] [--beams 4] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.glossary_report import DEFAULT_TSV, glossary, read_pairs, term_hits  # noqa: E402
from desktop_mt import Finished, GenerationOptions, Translator  # noqa: E402
from desktop_mt.engine.segment import segment_sentences  # noqa: E402
from desktop_mt.engine.spans import SpanCounts  # noqa: E402
from desktop_mt.engine.textproc import Span, protect  # noqa: E402

LOOP = re.compile(r"(.)\1{3,}")
MODES = ("cut", "whole", "off")


def source_spans(text: str) -> list[Span]:
    return [p for sentence, _ in segment_sentences(text) for p in protect(sentence.strip()) if isinstance(p, Span)]


def lost(src: str, out: str) -> int:
    """Spans of ``src`` that ``out`` holds fewer times than ``src`` does."""
    return sum(out.count(s.rendered) < src.count(s.text) for s in source_spans(src))


def figures(translator: Translator, sources: list[str], outputs: list[str], refs: list[str] | None) -> dict:
    from export_tools.evaluate import score

    result = {
        "lost": sum(lost(s, o) for s, o in zip(sources, outputs)),
        "loops": sum(bool(LOOP.search(o)) for o in outputs),
        **translator.span_counts.as_dict(),
    }
    return {**result, **score(outputs, [[r] for r in refs])} if refs else result


def run(args) -> dict:
    from tests.engine.test_awkward_input import TABLE

    translator = Translator(variant=args.variant)
    pairs = read_pairs(Path(args.tsv), args.lines)
    sources, refs = [s for s, _ in pairs], [r for _, r in pairs]
    result: dict = {
        "lines": len(sources),
        "lines_with_spans": sum(bool(source_spans(s)) for s in sources),
        "spans": sum(len(source_spans(s)) for s in sources),
        "beams": args.beams,
    }
    awkward = [row[0] for row in TABLE]
    for mode in MODES:
        opts = GenerationOptions(beams=args.beams, spans=mode)
        translator.span_counts = SpanCounts()
        result[f"flores_{mode}"] = figures(translator, sources, translator.translate_batch(sources, opts), refs)
        translator.span_counts = SpanCounts()
        outputs = [translator.translate(line, opts) for line in awkward]
        result[f"awkward_{mode}"] = {
            **figures(translator, awkward, outputs, None),
            "failed": [row[1] for row, out in zip(TABLE, outputs) if not row[2](out)],
        }
    terms = glossary()
    with_terms = [p for p in pairs if terms.find(p[0])]
    for mode in ("cut", "whole"):
        translator.span_counts = SpanCounts()
        outputs = translator.translate_batch(
            [s for s, _ in with_terms], GenerationOptions(beams=args.beams, spans=mode, glossary=terms)
        )
        result[f"glossary_{mode}"] = {
            **figures(translator, [s for s, _ in with_terms], outputs, [r for _, r in with_terms]),
            "term_hits": term_hits(with_terms, outputs, terms),
        }
    result["stream_ms"] = stream_times(translator, [s for s in sources if source_spans(s)][:40], args.beams)
    return result


def stream_times(translator: Translator, lines: list[str], beams: int, runs: int = 3) -> dict:
    """Median ms to the first shown text and to the end of a stream, per mode, runs interleaved."""
    times: dict = {mode: {"first": [], "total": []} for mode in MODES}
    for _ in range(runs):
        for line in lines:
            for mode in MODES:
                events = translator.translate_stream(line, GenerationOptions(beams=beams, spans=mode))
                stats = [e for e in events if isinstance(e, Finished)][0].stats
                times[mode]["first"].append(stats.first_token_seconds or stats.seconds)
                times[mode]["total"].append(stats.seconds)
    return {mode: {k: round(statistics.median(v) * 1000, 1) for k, v in d.items()} for mode, d in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=997)
    parser.add_argument("--beams", type=int, default=4)
    parser.add_argument("--variant", default="int8")
    parser.add_argument("--tsv", default=str(DEFAULT_TSV))
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    result = run(args)
    text = json.dumps(result, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        Path(args.json).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
