"""``format=html``: translate the text between tags and keep every tag as it was.

The markup is split into tags (comments, doctype and ``<script>``/``<style>`` bodies count as
markup) and text runs. Each run is unescaped, translated on its own, escaped again and put back
between the same tags, with its surrounding whitespace. A sentence that spans inline tags
(``Hello <b>world</b>!``) is translated in pieces, one per text node, as LibreTranslate's HTML
mode does; runs without letters (spaces, punctuation, numbers) are kept as they are.
"""

from __future__ import annotations

import html
from collections.abc import Iterator

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


class _Scanner:
    """The markup spans of a document in one pass: comments, ``<script>``/``<style>`` blocks
    (to their closing tag) and tags (``<`` + optional ``!?/`` + a letter, up to the first ``>``
    outside quoted attribute values).

    Written out rather than one regular expression, whose failed matches (an unclosed
    ``<script>``, comment or quote, repeated) were each retried to the end of the input:
    quadratic time. Here each "is there a closing ... after here?" answer is remembered, and a
    tag left open at the end makes the rest of the input text, so the time is linear."""

    def __init__(self, markup: str) -> None:
        self.markup, self.lower = markup, markup.lower()
        self._none_after: dict[str, int] = {}  # needle -> a position after which it is absent

    def _find(self, needle: str, start: int, lowered: bool = False) -> int:
        absent = self._none_after.get(needle)
        if absent is not None and start >= absent:
            return -1
        found = (self.lower if lowered else self.markup).find(needle, start)
        if found < 0:
            self._none_after[needle] = min(start, absent if absent is not None else start)
        return found

    def spans(self) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of each markup span, in order."""
        markup, position = self.markup, 0
        while True:
            start = markup.find("<", position)
            if start < 0:
                return
            end: int | None = self._comment(start) or self._block(start)
            if not end:
                end = self._tag(start)
                if end is None:  # open to the end: the rest is text
                    return
            if end:
                yield start, end
                position = end
            else:
                position = start + 1

    def _comment(self, start: int) -> int:
        if not self.markup.startswith("<!--", start):
            return 0
        close = self._find("-->", start + 4)
        return close + 3 if close >= 0 else 0

    def _block(self, start: int) -> int:
        """The end of a ``<script ...>...</script>`` (or style) block starting here, or 0."""
        for name in ("script", "style"):
            after = start + 1 + len(name)
            if self.lower.startswith(name, start + 1) and (
                after >= len(self.lower) or not (self.lower[after].isalnum() or self.lower[after] == "_")
            ):
                opened = self._tag(start)
                position = opened or -1
                while position > 0:
                    close = self._find("</" + name, position, lowered=True)
                    if close < 0:
                        return 0
                    end = close + 2 + len(name)
                    while end < len(self.markup) and self.markup[end].isspace():
                        end += 1
                    if end < len(self.markup) and self.markup[end] == ">":
                        return end + 1
                    position = close + 1
                return 0
        return 0

    def _tag(self, start: int) -> int | None:
        """The end of the tag starting here; 0: not a tag; None: a tag left open to the end."""
        markup, position = self.markup, start + 1
        if position < len(markup) and markup[position] in "!?/":
            position += 1
        if position >= len(markup) or markup[position] not in _LETTERS:
            return 0
        close = markup.find(">", position)
        quotes = {'"': self._find('"', position), "'": self._find("'", position)}
        while True:  # each step passes a quoted value: every find below moves forward
            if close < 0:
                return None
            quote = min((q for q in quotes.values() if q >= 0), default=-1)
            if quote < 0 or close < quote:
                return close + 1
            ending = self._find(markup[quote], quote + 1)
            if ending < 0:  # an unclosed quote: not a tag (the regex's old answer)
                return 0
            position = ending + 1
            for mark, at in quotes.items():
                if 0 <= at < position:
                    quotes[mark] = self._find(mark, position)
            if close < position:
                close = markup.find(">", position)


def _edges(raw: str) -> tuple[str, str, str]:
    """Leading white space, the text, trailing white space."""
    body = raw.strip()
    if not body:
        return raw, "", ""
    lead = raw[: len(raw) - len(raw.lstrip())]
    return lead, body, raw[len(lead) + len(body) :]


class HtmlDocument:
    """One HTML input: ``texts`` to translate, then :meth:`render` with their translations."""

    def __init__(self, markup: str) -> None:
        self._parts: list[str] = []  # markup and text alternately; text parts are placeholders
        self._slots: list[tuple[int, str, str]] = []  # (part index, leading ws, trailing ws)
        self.texts: list[str] = []
        position = 0
        for start, end in _Scanner(markup).spans():
            self._add_text(markup[position:start])
            self._parts.append(markup[start:end])
            position = end
        self._add_text(markup[position:])

    def _add_text(self, raw: str) -> None:
        lead, body, trail = _edges(raw)
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
