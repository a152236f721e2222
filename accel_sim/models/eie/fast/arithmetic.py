"""The PE's arithmetic unit on the fast path: its pace and its accumulator bypass.

The unit takes one entry (v, z) per cycle, padding entries included (brief: a padding entry
still costs a cycle): codebook lookup of v, address accumulator adds z + 1, multiply-accumulate
into accumulator b_x. An empty column slice (p_j = p_j+1) costs 0 cycles, or 1 with
``eie.empty_column_costs_cycle`` (not stated by the paper). When two consecutive entries of a
PE hit the same accumulator, the bypass path forwards the sum (brief) and no accumulator read
is needed.
"""
from __future__ import annotations

import numpy as np


def item_cycles(entries: np.ndarray, empty_column_costs_cycle: bool) -> np.ndarray:
    """Cycles a PE spends on each broadcast slice of ``entries`` entries."""
    return np.maximum(entries, 1) if empty_column_costs_cycle else entries


class BypassCount:
    """Back-to-back entries on the same accumulator (the bypass path), per vector, for ``V`` vectors
    whose broadcast slices arrive block by block (arrays ``(V, c, n_pes)``, in broadcast order).

    Within a slice rows strictly increase, so a hit is a slice whose first row equals the last
    row of the PE's previous non-empty slice in the same vector. That row is carried forward by a
    running maximum of ``(position + 1) * (local_rows + 1) + last row`` over the non-empty slices;
    the value ``local_rows`` (no row has it) stands for "no slice yet"."""

    def __init__(self, vectors: int, n_pes: int, local_rows: int):
        self._stride = local_rows + 1
        self._previous_last = np.full((vectors, n_pes), local_rows, dtype=np.int64)
        self.hits = np.zeros(vectors, dtype=np.int64)   # per vector, all PEs

    def add(self, first_row: np.ndarray, last_row: np.ndarray, entries: np.ndarray) -> None:
        vectors, width, n_pes = entries.shape
        busy = entries > 0
        key = np.empty((vectors, width + 1, n_pes), dtype=np.int64)
        key[:, 0] = self._previous_last
        position = np.arange(1, width + 1, dtype=np.int64)[None, :, None] * self._stride
        np.copyto(key[:, 1:], position + last_row)
        np.copyto(key[:, 1:], -1, where=~busy)
        np.maximum.accumulate(key, axis=1, out=key)
        key %= self._stride
        self.hits += np.count_nonzero(busy & (first_row == key[:, :-1]), axis=(1, 2))
        self._previous_last = key[:, -1].copy()
