"""Render the packaging icons from ``desktop_mt/resources/icons/desktop-mt.svg``.

    python packaging/make_icons.py        # writes packaging/icons/desktop-mt.{png,ico,icns}

The outputs are committed, so building a bundle needs neither this script nor Pillow; rerun
it when the SVG changes. Qt renders the SVG (QtSvg, offscreen, so no display is needed);
Pillow writes the multi-size ``.ico`` (Windows) and ``.icns`` (macOS). The SVG draws its
letters as text, so render on a machine with DejaVu Sans and Noto Sans CJK installed.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "desktop_mt" / "resources" / "icons" / "desktop-mt.svg"
OUT = ROOT / "packaging" / "icons"
ICO_SIZES = [16, 24, 32, 48, 64, 128, 256]
ICNS_SIZES = [16, 32, 64, 128, 256, 512, 1024]


def render(size: int) -> bytes:
    """The SVG as a ``size`` x ``size`` RGBA PNG."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"cannot read {SVG}")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PIL import Image
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # fonts need an app
    OUT.mkdir(parents=True, exist_ok=True)
    images = {s: Image.open(io.BytesIO(render(s))).convert("RGBA") for s in sorted(set(ICO_SIZES + ICNS_SIZES))}
    images[256].save(OUT / "desktop-mt.png")  # Linux (.desktop Icon=, hicolor 256x256)
    images[256].save(
        OUT / "desktop-mt.ico", sizes=[(s, s) for s in ICO_SIZES], append_images=[images[s] for s in ICO_SIZES[:-1]]
    )
    images[1024].save(OUT / "desktop-mt.icns", append_images=[images[s] for s in ICNS_SIZES[:-1]])
    for name in ("desktop-mt.png", "desktop-mt.ico", "desktop-mt.icns"):
        print(f"{OUT / name}: {(OUT / name).stat().st_size} bytes")
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
