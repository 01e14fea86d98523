#!/usr/bin/env python3
"""Inline formatting through translation, measured on the formatting test set with a model.

    python benchmarks/formatting_spans.py                    # bundled model
    python benchmarks/formatting_spans.py --model DIR --dump dump.md   # docs/formatting.md ends with one

The set: ``tests/data/formatting/sample.srt`` and the .docx that ``tests/batch/formatting_set.py``
builds. Each file is translated the way ``desktop-mt translate`` does it (the document's
segments through ``translate_segments``, then its writer). Counted per formatting span of
the source: ``balanced`` (SRT: every output line's tags close in order; docx: structural), and
``aligned`` (the span went on the target words the aligner matched to its own translation,
or on whole sentences it covered whole) versus ``fallback`` (it wraps its whole sentence).
Whether an aligned span sits on the right words is for a person to judge: ``--dump`` writes
the translated SRT and the docx's paragraphs with their formatting as markup.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_TAG = re.compile(r"<(/?)(i|b|u|s|font)\b[^>]*>", re.IGNORECASE)


def balanced(line: str) -> bool:
    """Every tag of ``line`` closes in order and none is left open."""
    stack: list[str] = []
    for match in _TAG.finditer(line):
        name = match.group(2).lower()
        if not match.group(1):
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack


def count(document, translations) -> tuple[int, int]:
    """``(spans, aligned)`` over the document's texts."""
    spans = aligned = 0
    for text in document.texts:
        placed = text.project(translations).spans
        spans += text.span_count
        aligned += sum(p.aligned for p in placed)
    return spans, aligned


def docx_markup(data: bytes) -> list[str]:
    """Each paragraph (body and table cells) of a .docx with its formatting as markup."""
    import docx
    from docx.oxml.ns import qn

    document = docx.Document(io.BytesIO(data))
    links = {rel.rId: rel.target_ref for rel in document.part.rels.values() if rel.is_external}

    def run_markup(run) -> str:
        text = "".join(t.text or "" for t in run.iter(qn("w:t")))
        if run.find(".//" + qn("w:footnoteReference")) is not None:
            text += "[^1]"
        rpr = run.find(qn("w:rPr"))
        for tag, name in (("w:b", "b"), ("w:i", "i"), ("w:u", "u"), ("w:color", "color")):
            if text and rpr is not None and rpr.find(qn(tag)) is not None:
                text = f"<{name}>{text}</{name}>"
        return text

    def paragraph_markup(p) -> str:
        out = []
        for element in p._p:
            if element.tag == qn("w:r"):
                out.append(run_markup(element))
            elif element.tag == qn("w:hyperlink"):
                inner = "".join(run_markup(r) for r in element.iter(qn("w:r")))
                out.append(f'<a href="{links.get(element.get(qn("r:id")), "")}">{inner}</a>')
        return re.sub(r"</(b|i|u|color)><\1>", "", "".join(out))

    lines = [paragraph_markup(p) for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            lines.append(" | ".join(paragraph_markup(c.paragraphs[0]) for c in row.cells))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="model directory (default: the bundled model)")
    parser.add_argument("--dump", type=Path, help="write the translated SRT and docx (markup) here (Markdown)")
    args = parser.parse_args(argv)

    from desktop_mt import Translator
    from desktop_mt.batch import load_document, translate_segments
    from tests.batch.formatting_set import SRT, build_docx

    translator = Translator(model_dir=args.model)
    with tempfile.TemporaryDirectory() as tmp:
        docx_bytes = build_docx(Path(tmp) / "sample.docx").read_bytes()
    results, dumps = {}, {}
    for fmt, data in (("srt", SRT.read_bytes()), ("docx", docx_bytes)):
        document = load_document(data, f"sample.{fmt}", fmt)
        translations = translate_segments(document.segments, translator)
        out = io.BytesIO()
        document.write(translations, out)
        spans, aligned = count(document, translations)
        if fmt == "srt":
            text = out.getvalue().decode("utf-8")
            lines = [line for line in text.splitlines() if line and not line[0].isdigit()]
            ok = sum(balanced(line) for line in lines)
            results[fmt] = (spans, aligned, f"{ok}/{len(lines)} lines balanced")
            dumps[fmt] = text
        else:
            results[fmt] = (spans, aligned, "runs: balanced by construction")
            dumps[fmt] = "\n".join(docx_markup(out.getvalue()))
    total = sum(r[0] for r in results.values())
    placed = sum(r[1] for r in results.values())
    for fmt, (spans, aligned, note) in results.items():
        print(
            f"{fmt}: {spans} spans, {aligned} on aligned words or whole sentences, "
            f"{spans - aligned} whole-sentence fallback; {note}"
        )
    print(f"all: {total} spans, {placed} aligned ({100 * placed / total:.0f}%), {total - placed} fallback")
    if args.dump:
        args.dump.write_text(
            f"## SRT\n\n```\n{dumps['srt']}```\n\n"
            f"## DOCX (paragraphs, formatting as markup)\n\n```\n{dumps['docx']}\n```\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
