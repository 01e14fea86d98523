"""The translation memory's fuzzy searches: rapidfuzz over one direction's texts, read from the
database once and kept until a write drops them (:class:`FuzzyIndex`).

Two searches: :meth:`FuzzyIndex.matches` compares a sentence's key (``store.match_key``) with
the sources' keys by ``fuzz.ratio`` (what a batch reuses); :meth:`FuzzyIndex.like` finds a
query in the sources or targets, case folded, by ``fuzz.partial_ratio`` (the dialog's search).
rapidfuzz (the tm extra) is imported when a search runs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

__all__ = [
    "Rows",
    "FuzzyIndex",
]

# One direction's rows for the searches: (id, key, source, target).
Rows = Callable[[str], Iterable[tuple[int, str, str, str]]]


class FuzzyIndex:
    """Per direction, the keys and the folded texts the fuzzy searches choose from. ``rows``
    reads one direction's rows, ``lock`` is the memory's (a write and a fill never overlap),
    ``normalize`` is the memory's match key (``store.match_key``)."""

    def __init__(self, rows: Rows, lock: threading.RLock, normalize: Callable[[str], str]) -> None:
        self._rows, self._lock, self._normalize = rows, lock, normalize
        self._keys: dict[str, dict[int, str]] = {}  # per direction, id -> key
        self._folded: dict[str, tuple[dict[int, str], dict[int, str]]] = {}  # (sources, targets), id -> folded

    def forget(self, direction: str | None) -> None:
        """Drop what was read (of one direction) after a write."""
        if direction is None:
            self._keys.clear()
            self._folded.clear()
        else:
            self._keys.pop(direction, None)
            self._folded.pop(direction, None)

    def matches(self, key: str, direction: str, threshold: float, limit: int) -> list[tuple[int, float]]:
        """``(id, score)`` of the entries whose key is at least ``threshold`` % like ``key``
        (``fuzz.ratio``), best first, at most ``limit``."""
        from rapidfuzz import fuzz, process

        found = process.extract(key, self._choices(direction), scorer=fuzz.ratio, score_cutoff=threshold, limit=limit)
        return [(int(entry_id), float(score)) for _, score, entry_id in found]

    def like(self, query: str, direction: str, columns: tuple[str, ...], threshold: float) -> dict[int, float]:
        """Each entry's best ``fuzz.partial_ratio`` of the folded ``query`` in its ``columns``
        (``"source"``, ``"target"``), for those at ``threshold`` or above."""
        from rapidfuzz import fuzz, process

        sources, targets = self._folded_texts(direction)
        scores: dict[int, float] = {}
        for column in columns:
            choices = sources if column == "source" else targets
            for _, score, entry_id in process.extract(
                query, choices, scorer=fuzz.partial_ratio, score_cutoff=threshold, limit=None
            ):
                scores[int(entry_id)] = max(scores.get(int(entry_id), 0.0), float(score))
        return scores

    def fold(self, text: str) -> str:
        """What the dialog's search compares: the match key, case folded."""
        return self._normalize(text).casefold()

    def _choices(self, direction: str) -> dict[int, str]:
        with self._lock:
            if direction not in self._keys:
                self._keys[direction] = {i: key for i, key, _, _ in self._rows(direction)}
            return self._keys[direction]

    def _folded_texts(self, direction: str) -> tuple[dict[int, str], dict[int, str]]:
        with self._lock:
            if direction not in self._folded:
                rows = list(self._rows(direction))
                self._folded[direction] = (
                    {i: self.fold(source) for i, _, source, _ in rows},
                    {i: self.fold(target) for i, _, _, target in rows},
                )
            return self._folded[direction]
