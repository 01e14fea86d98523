"""``format=html``: HTML translated as the batch layer translates .html files.

The page is :class:`desktop_mt.batch.html.HtmlDocument`: text flows between block tags are
translated sentence by sentence with their inline tags (``<b>``, ``<a href>``...) placed on the
aligned words by the tag projection (not cut into one request per text node any more);
``<script>``, ``<style>``, ``<code>``, ``<pre>``, comments and ``translate="no"`` are kept;
``alt``/``title`` attributes are translated. This module keeps the server's small interface to it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..batch.html import HtmlDocument as _Page

__all__ = [
    "HtmlDocument",
]


class HtmlDocument:
    """One HTML input: ``texts`` to translate, then :meth:`render` with their translations."""

    def __init__(self, markup: str) -> None:
        self._page = _Page(markup)
        self._page.use_options(None)  # <html lang>: by the text's language
        self.texts: list[str] = self._page.segments

    def render(self, translations: Sequence[str]) -> str:
        """The markup with each text translated (HTML-escaped); one translation per text."""
        return self._page.render(translations)
