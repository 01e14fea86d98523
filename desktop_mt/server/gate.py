"""Turns on the engine: one computation at a time, granted in arrival order.

The server's engine work comes from three kinds of threads: the batcher (one engine call of up
to ``--max-batch`` texts), streams and n-best searches (one generation each, at most
``--max-streams``). Run side by side they compete for the same cores (each ONNX Runtime call
uses all of its intra-op threads), and on the issue's measurement 8 streams cut batched
throughput from 58 to 12.5 requests/s. :class:`FairGate` makes them take turns:

- the batcher takes one turn per engine call (at most ``--max-batch`` texts);
- a stream keeps its turn while nobody else waits; when others wait it gives the turn up once
  it has used as much engine time as each batched request got from the last batched call
  (that call's seconds / the batched requests, in it and still waiting;
  :meth:`.service.TranslationService.stream_slice_s`);
- an n-best search takes one turn per text.

Turns are granted first come, first served. The policy: **every client gets about the same
engine time**, whether its request is batched or streamed. A batched request shares its
call's time with the others in the call (batching makes that time go further), a stream gets
the same amount per round of turns, and nobody waits for more than one batched call plus one
slice of each other stream. A waiter whose cancel flag is set leaves the line
(:meth:`FairGate.wake` makes it look).
"""

from __future__ import annotations

import collections
import contextlib
import threading
from collections.abc import Iterator

from ..base.errors import TranslationCancelled

__all__ = [
    "TurnCancelled",
    "FairGate",
]


class TurnCancelled(TranslationCancelled):
    """The cancel flag was set while waiting for a turn."""


class FairGate:
    """A first-come-first-served lock for engine work (see the module docstring)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._line: collections.deque[object] = collections.deque()
        self._busy = False
        self.turns = 0  # turns granted so far (for tests and metrics)

    @contextlib.contextmanager
    def turn(self, cancel: threading.Event | None = None) -> Iterator[None]:
        """Hold the engine for the ``with`` block (raises TurnCancelled when ``cancel`` is set
        before the turn comes)."""
        me = object()
        with self._cond:
            self._line.append(me)
            while self._busy or self._line[0] is not me:
                if cancel is not None and cancel.is_set():
                    self._line.remove(me)
                    self._cond.notify_all()
                    raise TurnCancelled()
                self._cond.wait()
            self._line.popleft()
            self._busy = True
            self.turns += 1
        try:
            yield
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def wake(self) -> None:
        """Make waiters look at their cancel flags."""
        with self._cond:
            self._cond.notify_all()

    @property
    def waiting(self) -> int:
        """Threads waiting for a turn."""
        return len(self._line)
