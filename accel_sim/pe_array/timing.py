"""Fast-path timing of the PE array's tiles (vectorised numpy).

Per cycle, as both this module and :mod:`accel_sim.pe_array.reference` implement it:

- A tile is ``rows`` filters x ``cols`` output pixels; every row accumulates its filter's
  dot products for the tile's pixels. The next tile starts when every row of the current
  one is done (the array waits for the slowest row).
- Dense levels (none, memory, gating): a row consumes ``vector_width`` reduction positions
  per cycle, all rows in lockstep: ``ceil(K / vector_width)`` cycles per tile.
- Skipping: a row's decoder presents one chunk per cycle (:mod:`accel_sim.pe_array.decoder`);
  the row's MACs take up to ``vector_width`` of the chunk's items per cycle and the decoder
  moves to the next chunk the cycle after the current one is used up. An empty chunk
  (bitmap) still takes its cycle. Row time ``sum_c max(1, ceil(items_c / vector_width))``;
  the tile adds ``decoder_latency``.
- Reassignment: rows are split into windows of ``reassign_window`` sharing their compressed
  streams through a crossbar. Each cycle, every free row with chunks of its own left takes
  its next one; then, in row order, every free row whose own stream is done takes the next
  chunk of another row of its window (policy ``in_order``: the lowest row with chunks left; ``longest_first``: the
  row with the most chunks left, ties to the lower row). A chunk occupies the row that took
  it for ``max(1, ceil(items / vector_width))`` cycles. The weights of a taken chunk cross
  the crossbar; a row accumulates the products of consecutive chunks taken from one row
  and sends them back as one partial sum per pixel (a "run"). Reassignment never makes a
  window slower than skipping: a thief takes the victim's next chunk, which the victim
  could not have finished sooner.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accel_sim.pe_array.decoder import NO_CHUNK
from accel_sim.pe_array.spec import PEArraySpec


@dataclass(frozen=True)
class FilterTileTiming:
    """Compute cycles of one pixel tile for each filter tile, and the reassignment traffic."""

    cycles: tuple[int, ...]      # per filter tile, decoder latency included
    stolen_items: int = 0        # weights another row processed, summed over filter tiles
    psum_runs: int = 0           # runs of consecutive chunks a row took from one other row


def filter_tiles(spec: PEArraySpec, n: int) -> int:
    return math.ceil(n / spec.rows)


def dense_timing(spec: PEArraySpec, k: int, n: int) -> FilterTileTiming:
    return FilterTileTiming(cycles=(math.ceil(k / spec.vector_width),) * filter_tiles(spec, n))


def _by_row(spec: PEArraySpec, items: np.ndarray) -> np.ndarray:
    """Chunk items padded to whole filter tiles (missing rows have no chunks)."""
    n, chunks = items.shape
    full = np.full((filter_tiles(spec, n) * spec.rows, chunks), NO_CHUNK, dtype=np.int64)
    full[:n] = items
    return full


def skipping_timing(spec: PEArraySpec, items: np.ndarray) -> FilterTileTiming:
    """Closed form: each row ``sum_c max(1, ceil(items_c / vector_width))``, the tile its slowest row."""
    full = _by_row(spec, items)
    per_chunk = np.where(full >= 0, np.maximum(1, -(-full // spec.vector_width)), 0)
    rows = per_chunk.sum(axis=1).reshape(-1, spec.rows).max(axis=1)
    return FilterTileTiming(cycles=tuple(int(c) + spec.decoder_latency for c in rows))


def chunk_cycles(items: np.ndarray, vector_width: int) -> np.ndarray:
    """Cycles a row spends on a chunk of ``items`` weights (at least one: the decode)."""
    return np.maximum(1, -(-items // vector_width))


def reassignment_timing(spec: PEArraySpec, items: np.ndarray) -> FilterTileTiming:
    """The reassignment rules stepped one cycle at a time for all windows of all filter tiles at
    once (numpy over windows; finished windows drop out). Python work per cycle is a handful of
    array operations, independent of the number of rows, windows and MACs."""
    full = _by_row(spec, items)
    w, v = spec.reassign_window, spec.vector_width
    chunks = full.shape[1]
    nw = full.shape[0] // w
    e = full.reshape(nw, w, chunks)
    windows = np.arange(nw)
    nchunks = (e >= 0).sum(axis=2)
    pointer = np.zeros((nw, w), dtype=np.int64)
    busy = np.zeros((nw, w), dtype=np.int64)
    last = np.broadcast_to(np.arange(w), (nw, w)).copy()   # whose partial sums a row holds
    time = np.zeros(nw, dtype=np.int64)
    stolen = runs = 0
    # state of the windows with work left (compacted when some finish); ``live`` maps to window ids
    live = windows[(nchunks > 0).any(axis=1)]
    b, p, n_, ee, la = busy[live], pointer[live], nchunks[live], e[live], last[live]
    while live.size:
        # own chunks first: a free row with chunks of its own takes its next one (rows independent)
        own = (b == 0) & (p < n_)
        if own.any():
            wi, ri = np.nonzero(own)
            b[wi, ri] = chunk_cycles(ee[wi, ri, p[wi, ri]], v)
            p[wi, ri] += 1
            la[wi, ri] = ri
        # then, row by row, a free row without chunks of its own takes another row's next chunk
        if (b == 0).any():
            for r in range(w):
                left = n_ - p
                thief = (b[:, r] == 0) & (left > 0).any(axis=1)
                if not thief.any():
                    continue
                idx = np.nonzero(thief)[0]
                victim = np.argmax(left[idx], axis=1) if spec.reassign_policy == "longest_first" \
                    else np.argmax(left[idx] > 0, axis=1)
                taken = ee[idx, victim, p[idx, victim]]
                b[idx, r] = chunk_cycles(taken, v)
                p[idx, victim] += 1
                stolen += int(taken.sum())
                runs += int(np.count_nonzero(la[idx, r] != victim))
                la[idx, r] = victim
        time[live] += (b > 0).any(axis=1)
        np.maximum(b - 1, 0, out=b)
        going = (b > 0).any(axis=1) | (p < n_).any(axis=1)
        if not going.all():
            live, b, p, n_, ee, la = live[going], b[going], p[going], n_[going], ee[going], la[going]
    per_tile = time.reshape(-1, spec.rows // w).max(axis=1)
    return FilterTileTiming(cycles=tuple(int(c) + spec.decoder_latency for c in per_tile),
                            stolen_items=stolen, psum_runs=runs)
