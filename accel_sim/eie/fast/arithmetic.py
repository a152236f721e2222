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


def accumulator_bypasses(first_row: np.ndarray, last_row: np.ndarray, entries: np.ndarray) -> np.ndarray:
    """Per PE: back-to-back entries on the same accumulator (the bypass path), for one vector's
    broadcast slices in order (arrays ``(T, n_pes)``). Within a slice rows strictly increase, so
    a hit is a slice whose first row equals the last row of the PE's previous non-empty slice."""
    hits = np.zeros(entries.shape[1], dtype=np.int64)
    for p in range(entries.shape[1]):
        busy = np.flatnonzero(entries[:, p])
        hits[p] = np.count_nonzero(first_row[busy[1:], p] == last_row[busy[:-1], p])
    return hits
