"""How often a glossary term's Chinese appears in the output, with and without the glossary.

Measuring only: FLORES dev lines (English source, Chinese reference) that hold one of a small
glossary's terms are translated twice with ``translate_batch``, once plain and once with
``GenerationOptions.glossary``; for every (line, term) pair the report says whether the term's
Chinese is in the output, and how often the reference itself has it (the terms' Chinese was
chosen from the references). BLEU/chrF on the same lines show what cutting sentences around
the terms costs or gains.

    nice python benchmarks/glossary_report.py [--lines 997] [--beams 4] [--tsv FILE] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktop_mt import GenerationOptions, Translator  # noqa: E402
from desktop_mt.engine.glossary import Glossary, Term  # noqa: E402

DEFAULT_TSV = ROOT.parent / "shared" / "data" / "flores200-dev.en-zh.tsv"
# Terms frequent in the first 400 FLORES dev lines, with the Chinese their references use.
# Names of celestial bodies are case-sensitive ("earth" is soil, "Earth" the planet).
TERMS = (
    ("scientists", "科学家"),
    ("university", "大学"),
    ("government", "政府"),
    ("China", "中国"),
    ("United States", "美国"),
    ("Internet", "互联网"),
    ("animals", "动物"),
    ("Japan", "日本"),
    ("earthquake", "地震"),
    ("storm", "风暴"),
    ("hurricane", "飓风"),
    ("company", "公司"),
    ("virus", "病毒"),
    ("Earth", "地球", True),
    ("Moon", "月球", True),
    ("Germany", "德国"),
    ("Australia", "澳大利亚"),
    ("Italy", "意大利"),
    ("Russia", "俄罗斯"),
    ("Brazil", "巴西"),
)


def glossary() -> Glossary:
    return Glossary(tuple(Term(src, tgt, *case) for src, tgt, *case in TERMS))


def read_pairs(path: Path, limit: int) -> list[tuple[str, str]]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if "\t" in line]
    return [(r[0], r[1]) for r in rows[:limit]]


def term_hits(pairs, outputs, terms: Glossary) -> tuple[int, int]:
    """(pairs of a line and a term found in its source, of which the output has the term's target)."""
    total = hits = 0
    for (src, _ref), out in zip(pairs, outputs):
        for target in {m.term.target for m in terms.find(src)}:
            total += 1
            hits += target in out
    return total, hits


def run(args) -> dict:
    terms = glossary()
    pairs = [p for p in read_pairs(Path(args.tsv), args.lines) if terms.find(p[0])]
    translator = Translator(variant=args.variant)
    result = {"lines_read": args.lines, "lines_with_terms": len(pairs), "terms": len(terms), "beams": args.beams}
    total, in_ref = term_hits(pairs, [ref for _, ref in pairs], terms)
    result["term_pairs"], result["reference"] = total, in_ref
    for name, opts in (
        ("without", GenerationOptions(beams=args.beams)),
        ("with", GenerationOptions(beams=args.beams, glossary=terms)),
    ):
        started = time.perf_counter()
        outputs = translator.translate_batch([src for src, _ in pairs], opts)
        result[name] = {
            "hits": term_hits(pairs, outputs, terms)[1],
            "seconds": round(time.perf_counter() - started, 1),
            **_score(outputs, [ref for _, ref in pairs]),
        }
    return result


def _score(hyps: list[str], refs: list[str]) -> dict:
    from export_tools.evaluate import score

    return score(hyps, [[r] for r in refs])


def table(r: dict) -> str:
    """The result as a Markdown table."""
    n = r["term_pairs"]
    pct = lambda k: f"{k} / {n} ({100 * k / n:.1f}%)"  # noqa: E731
    lines = [
        f"FLORES dev, first {r['lines_read']} lines: {r['lines_with_terms']} hold one of {r['terms']} "
        f"glossary terms ({n} line-term pairs); bundled model, beam {r['beams']}.",
        "",
        "| run | target term in the output | BLEU | chrF |",
        "|---|---|---|---|",
        f"| without glossary | {pct(r['without']['hits'])} | {r['without']['bleu']} | {r['without']['chrf']} |",
        f"| with glossary | {pct(r['with']['hits'])} | {r['with']['bleu']} | {r['with']['chrf']} |",
        f"| (the reference) | {pct(r['reference'])} | | |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tsv", default=str(DEFAULT_TSV), help="English<TAB>Chinese lines (FLORES dev)")
    parser.add_argument("--lines", type=int, default=997, help="how many lines to read from the top (997: all)")
    parser.add_argument("--beams", type=int, default=4)
    parser.add_argument("--variant", default="int8", choices=("int8", "fp32"))
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    result = run(args)
    print(table(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
