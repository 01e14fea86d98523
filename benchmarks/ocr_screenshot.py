"""OCR of a 1920x1080 screenshot with 30 lines of text: time to the text, and to the first
translated token (OCR, then the bundled model's translate_stream until its first TextDelta).

    python benchmarks/ocr_screenshot.py [--runs 5] [--threads 0] [--out FILE.json]

The screenshot is rendered here (Pillow, DejaVu Sans 18 px, a window-like layout: a title bar,
30 lines of English prose in two paragraphs, a side panel with short labels), so the figures
can be re-measured anywhere. The models are loaded once before the runs (first-use load time is
reported apart). Prints medians of the runs and the character accuracy of the recognised lines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LATIN_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
SENTENCES = [
    "The quarterly meeting has been moved to Thursday afternoon at three o'clock.",
    "Please bring the signed contract and a copy of the budget for next year.",
    "Our office will be closed on Monday while the heating system is repaired.",
    "Customers who ordered before Friday will receive their parcels next week.",
    "The new version of the application starts faster and uses less memory.",
    "If the printer does not respond, switch it off and wait for ten seconds.",
]


def screenshot() -> tuple[np.ndarray, list[str]]:
    """A 1920x1080 RGB screenshot with 30 text lines, and those lines."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (1920, 1080), (246, 246, 246))
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, 1920, 40), fill=(52, 58, 64))
    draw.text((16, 10), "Project notes - Editor", fill="white", font=ImageFont.truetype(LATIN_FONT, 16))
    draw.rectangle((1560, 40, 1920, 1080), fill=(230, 232, 235))
    font = ImageFont.truetype(LATIN_FONT, 18)
    lines = []
    y = 70
    for i in range(30):
        line = SENTENCES[i % len(SENTENCES)]
        if i == 15:
            y += 28  # a paragraph break
        draw.text((60, y), line, fill=(20, 20, 20), font=font)
        lines.append(line)
        y += 30
    return np.asarray(img), lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="ONNX Runtime intra-op threads (0: automatic)")
    parser.add_argument("--out", help="also write the figures as JSON here")
    args = parser.parse_args(argv)

    from desktop_mt import SessionOptions, TextDelta, Translator
    from desktop_mt.ocr import OcrEngine
    from tests.ocr.texts import accuracy

    rgb, lines = screenshot()
    started = time.perf_counter()
    engine = OcrEngine(threads=args.threads)
    engine.read(np.full((64, 64, 3), 255, np.uint8))
    ocr_load = time.perf_counter() - started
    translator = Translator(session_options=SessionOptions(intra_op_threads=args.threads))
    to_text, to_token, acc = [], [], []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        result = engine.read(rgb)
        t1 = time.perf_counter()
        stream = translator.translate_stream(result.text)
        for event in stream:
            if isinstance(event, TextDelta) and event.text:
                break
        t2 = time.perf_counter()
        stream.close()
        to_text.append(t1 - t0)
        to_token.append(t2 - t0)
        acc.append(accuracy(lines, [t for t in result.line_texts if t != "Project notes - Editor"])[0])
    figures = {
        "image": "1920x1080, 30 lines",
        "runs": args.runs,
        "ocr_model_load_s": round(ocr_load, 2),
        "median_to_text_s": round(statistics.median(to_text), 3),
        "median_to_first_token_s": round(statistics.median(to_token), 3),
        "first_token_after_text_s": round(statistics.median(to_token) - statistics.median(to_text), 3),
        "to_text_s": [round(v, 3) for v in to_text],
        "to_first_token_s": [round(v, 3) for v in to_token],
        "char_accuracy": round(min(acc), 4),
        "lines_read": len(result.line_texts),
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
