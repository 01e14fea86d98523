"""What a translation stream and a post-editing completion stream share: their clock and the
new token ids of a search event. Imported by ``translator`` and ``prefix`` (which ``translator``
imports), so the imports point one way."""

from __future__ import annotations

import time

from . import generation as gen


def new_ids(event: gen.SearchEvent, count: int) -> list[int]:
    """The ids a search event adds to a stream that has shown ``count`` of them."""
    if isinstance(event, gen.TokensStep):
        return event.ids
    return event.ids[count:] if isinstance(event, gen.ItemDone) else []


class Clock:
    """A stream's timing: seconds since it started, and to its first shown text."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.first: float | None = None

    def mark(self) -> None:
        """Text is being shown: the first time, note when."""
        if self.first is None:
            self.first = self.elapsed()

    def elapsed(self) -> float:
        return time.perf_counter() - self.started
