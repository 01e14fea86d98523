"""Known sentences, image rendering (Pillow) and character accuracy for the OCR tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

ENGLISH = [
    "The meeting has been moved to Thursday afternoon.",
    "Please bring the quarterly report and your laptop.",
    "Our office will be closed on Monday for repairs.",
    "Send the signed contract back before Friday noon.",
]
CHINESE = [
    "会议已改到星期四下午举行。",
    "请带上季度报告和你的笔记本电脑。",
    "我们的办公室星期一因维修关闭。",
    "请在星期五中午之前寄回签好的合同。",
]
LATIN_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
CJK_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"


def font_path(text: str) -> str:
    return CJK_FONT if any("\u4e00" <= c <= "\u9fff" for c in text) else LATIN_FONT


def render(
    lines: list[str],
    size: int = 20,
    pitch: int = 36,
    width: int = 760,
    margin: int = 20,
    gaps: dict[int, int] | None = None,
) -> np.ndarray:
    """Black text on white, one line per entry; ``gaps`` adds extra pixels above line i."""
    from PIL import Image, ImageDraw, ImageFont

    gaps = gaps or {}
    height = 2 * margin + pitch * len(lines) + sum(gaps.values())
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    y = margin
    for i, line in enumerate(lines):
        y += gaps.get(i, 0)
        draw.text((margin, y), line, fill="black", font=ImageFont.truetype(font_path(line), size))
        y += pitch
    return np.asarray(img)


def save(rgb: np.ndarray, path: Path, **kw) -> Path:
    from PIL import Image

    Image.fromarray(rgb).save(path, **kw)
    return path


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (characters)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def accuracy(expected: list[str], got: list[str]) -> tuple[float, int]:
    """Character accuracy over all lines (1 - errors / characters) and the number of errors;
    a missing or extra line counts all its characters."""
    n = max(len(expected), len(got))
    exp = expected + [""] * (n - len(expected))
    out = list(got) + [""] * (n - len(got))
    errors = sum(edit_distance(e, g) for e, g in zip(exp, out))
    return 1 - errors / sum(len(e) for e in expected), errors
