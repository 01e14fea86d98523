"""Fonts and style: Chinese must render everywhere.

Qt falls back per glyph through the families of a QFont, so the editors get an explicit
list: a Latin UI font first, then CJK fonts that cover Simplified Chinese:

- "Noto Sans CJK SC" / "Noto Sans SC": Linux (Debian/Ubuntu package fonts-noto-cjk,
  Fedora google-noto-sans-cjk-fonts); the recommended font, and the one the README asks
  Linux users to install.
- "Source Han Sans SC": the same design under Adobe's name.
- "Microsoft YaHei" / "SimSun": Windows ships them.
- "PingFang SC" / "Hiragino Sans GB": macOS ships them.
- "WenQuanYi Micro Hei" / "Droid Sans Fallback": older Linux installs.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase

from ...base.resources_path import resource_path

__all__ = [
    "editor_font",
    "installed_cjk_families",
    "stylesheet",
]


_CJK_FAMILIES = [
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "Microsoft YaHei",
    "SimSun",
    "PingFang SC",
    "Hiragino Sans GB",
    "WenQuanYi Micro Hei",
    "Droid Sans Fallback",
]
_LATIN_FAMILIES = ["Noto Sans", "Segoe UI", "Helvetica Neue", "DejaVu Sans", "Sans Serif"]


def editor_font(point_size: int = 13) -> QFont:
    """A font whose fallback list covers English and Simplified Chinese."""
    font = QFont()
    font.setFamilies(_LATIN_FAMILIES + _CJK_FAMILIES)
    font.setPointSize(point_size)
    return font


def installed_cjk_families() -> list[str]:
    """The CJK families of :data:`_CJK_FAMILIES` present on this system (for diagnostics)."""
    have = set(QFontDatabase.families())
    return [f for f in _CJK_FAMILIES if f in have]


def stylesheet() -> str:
    """The packaged stylesheet styles/app.qss ("" if missing: Qt's default look)."""
    try:
        return resource_path("styles", "app.qss").read_text(encoding="utf-8")
    except OSError:
        return ""
