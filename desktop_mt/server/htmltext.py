"""``format=html``: translate the text between tags and keep every tag as it was.

The markup is split into tags (comments, doctype and ``<script>``/``<style>`` bodies count as
markup) and text runs. Each run is unescaped, translated on its own, escaped again and put back
between the same tags, with its surrounding whitespace. A sentence that spans inline tags
(``Hello <b>world</b>!``) is translated in pieces, one per text node, as LibreTranslate's HTML
mode does; runs without letters (spaces, punctuation, numbers) are kept as they are.
"""

from __future__ import annotations

import html
import re

# A tag, with quoted attribute values that may contain '>'; comments; <script>/<style> bodies.
_MARKUP = re.compile(
    r"(<!--.*?-->"
    r"|<(script|style)\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*>.*?</\2\s*>"
    r"|<[!?/]?[A-Za-z](?:[^>\"']|\"[^\"]*\"|'[^']*')*>)",
    re.DOTALL | re.IGNORECASE)
_EDGES = re.compile(r"^(\s*)(.*?)(\s*)$", re.DOTALL)


class HtmlDocument:
    """One HTML input: ``texts`` to translate, then :meth:`render` with their translations."""

    def __init__(self, markup: str) -> None:
        self._parts: list[str] = []  # markup and text alternately; text parts are placeholders
        self._slots: list[tuple[int, str, str]] = []  # (part index, leading ws, trailing ws)
        self.texts: list[str] = []
        position = 0
        for match in _MARKUP.finditer(markup):
            self._add_text(markup[position:match.start()])
            self._parts.append(match.group(0))
            position = match.end()
        self._add_text(markup[position:])

    def _add_text(self, raw: str) -> None:
        lead, body, trail = _EDGES.match(raw).groups()
        if not any(char.isalpha() for char in body):  # spaces, punctuation, numbers: keep
            self._parts.append(raw)
            return
        self._slots.append((len(self._parts), lead, trail))
        self._parts.append("")
        self.texts.append(html.unescape(body))

    def render(self, translations: list[str]) -> str:
        """The markup with each text run replaced by its translation (HTML-escaped)."""
        if len(translations) != len(self.texts):
            raise ValueError(f"expected {len(self.texts)} translations, got {len(translations)}")
        parts = list(self._parts)
        for (index, lead, trail), text in zip(self._slots, translations):
            parts[index] = lead + html.escape(text, quote=False) + trail
        return "".join(parts)
