"""Decoder key/value caches, one class per decoder layout (numpy only).

The search loops see one interface: ``expand(beams)`` (each input's row becomes its beams'
rows), ``keep_items(items)`` (drop finished inputs with all their beams) and ``reorder(rows)``
(beam search: each row continues another row's history; only the self-attention part
changes, the cross part is the same for all beams of an input). Rows are ordered by input,
then beam.

- ``ConcatKVCache``: the Optimum layout. The decoder returns the grown self cache every step.
- ``KVBuffer``: the decoder-step layout. We own one buffer per layer and tensor,
  ``[rows, heads, capacity, head_dim]``; the graph reads the first ``length`` positions and
  returns only the new position, which ``append`` writes in place. No per-step copy of the
  cache, no per-step allocation. The step graph attends over the whole capacity (masked), so
  the buffer starts small (``FIRST_CAPACITY``, or the search's length limit when smaller) and
  doubles when full, capped at the limit: attention reads at most about twice the filled
  positions, and an output of n tokens costs O(log n) growth copies.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "FIRST_CAPACITY",
    "ConcatKVCache",
    "KVBuffer",
]

FIRST_CAPACITY = 16  # at most this many positions before the first growth (attention reads them all)


class ConcatKVCache:
    """Self and cross K/V as lists ``[layer0.key, layer0.value, ...]`` of ``[rows, heads, len, head_dim]``."""

    def __init__(self, self_kv: list[np.ndarray], cross_kv: list[np.ndarray], mask: np.ndarray):
        self.self_kv, self.cross_kv, self.mask, self.beams = list(self_kv), list(cross_kv), mask, 1

    @property
    def rows(self) -> int:
        return int(self.mask.shape[0])

    @property
    def length(self) -> int:
        return int(self.self_kv[0].shape[2])

    def expand(self, beams: int) -> None:
        self._select(np.repeat(np.arange(self.rows), beams))
        self.beams = beams

    def keep_items(self, items: np.ndarray) -> None:
        self._select(_item_rows(items, self.beams))

    def _select(self, rows: np.ndarray) -> None:
        self.self_kv = [kv[rows] for kv in self.self_kv]
        self.cross_kv = [kv[rows] for kv in self.cross_kv]
        self.mask = self.mask[rows]

    def reorder(self, rows: np.ndarray) -> None:
        if not np.array_equal(rows, np.arange(len(rows))):  # every row kept its own history: no copy
            self.self_kv = [kv[rows] for kv in self.self_kv]


class KVBuffer:
    """Preallocated self-attention buffers for the decoder-step graph (see the module docstring)."""

    def __init__(
        self,
        n_tensors: int,
        rows: int,
        heads: int,
        head_dim: int,
        cross_kv: list[np.ndarray],
        mask: np.ndarray,
        capacity: int = 0,
    ):
        """``capacity``: the most positions the search will write (its length limit; 0: unknown,
        no cap). The buffer starts at ``min(capacity, FIRST_CAPACITY)`` positions and doubles
        when full, never past ``capacity``."""
        self.limit = max(0, capacity)
        first = min(self.limit, FIRST_CAPACITY) if self.limit else FIRST_CAPACITY
        self.buffers = [np.zeros((rows, heads, max(1, first), head_dim), dtype=np.float32) for _ in range(n_tensors)]
        self.cross_kv, self.mask, self.length, self.beams = list(cross_kv), mask, 0, 1

    @property
    def rows(self) -> int:
        return int(self.buffers[0].shape[0])

    @property
    def capacity(self) -> int:
        return int(self.buffers[0].shape[2])

    def append(self, new: list[np.ndarray]) -> None:
        """Write one position (``[rows, heads, 1, head_dim]`` per tensor) after the last one."""
        if self.length == self.capacity:
            self._reallocate(slice(None), self._next_capacity())
        for buf, value in zip(self.buffers, new):
            buf[:, :, self.length] = value[:, :, 0]
        self.length += 1

    def _next_capacity(self) -> int:
        """Twice the capacity, capped at the limit (past it only if the search writes more than it said)."""
        doubled = 2 * self.capacity
        return min(doubled, self.limit) if self.capacity < self.limit else doubled

    def expand(self, beams: int) -> None:
        """Each row becomes ``beams`` rows; cross K/V and the mask stay per input (the graph
        attends over them once for all beams)."""
        self._reallocate(np.repeat(np.arange(self.rows), beams), self.capacity)
        self.beams = beams

    def keep_items(self, items: np.ndarray) -> None:
        self._reallocate(_item_rows(items, self.beams), self.capacity)
        self.cross_kv = [kv[items] for kv in self.cross_kv]
        self.mask = self.mask[items]

    def _reallocate(self, rows: np.ndarray | slice, capacity: int) -> None:
        """New buffers holding ``rows`` (an index or a slice) with ``capacity`` positions.

        Only the filled positions are copied: the pages of the rest stay untouched (not
        resident) until written, and they are zeros, not empty(): masked positions get
        probability 0, and 0 * NaN would be NaN.
        """
        for i, buf in enumerate(self.buffers):  # one at a time: at most one extra buffer alive
            taken = buf[rows, :, : self.length]
            new = np.zeros((taken.shape[0], buf.shape[1], capacity, buf.shape[3]), dtype=np.float32)
            new[:, :, : self.length] = taken
            self.buffers[i] = new

    def reorder(self, rows: np.ndarray) -> None:
        """In place, copying only the rows that take another row's history, only the filled positions."""
        changed = np.nonzero(rows != np.arange(len(rows)))[0]
        if len(changed) == 0:
            return
        source, n = rows[changed], self.length
        for buf in self.buffers:
            buf[changed, :, :n] = buf[source, :, :n]  # the right side is gathered first: overlaps are safe


def _item_rows(items: np.ndarray, beams: int) -> np.ndarray:
    """The rows of these inputs (all their beams, in order)."""
    return (np.asarray(items)[:, None] * beams + np.arange(beams)).reshape(-1)
