"""PE datapath, vectorised: tile timing of the dense and skipping levels, and the MACs by fate.

- A tile is ``rows`` filters x ``cols`` output pixels; the next tile starts when every row of
  the current one is done (the array waits for the slowest row).
- Dense levels (none, memory, gating): a row consumes ``vector_width`` reduction positions
  per cycle, all rows in lockstep: ``ceil(K / vector_width)`` cycles per tile. ``memory`` and
  ``gating`` decompress in front of the array at least that fast (the spec refuses slower
  decompressors), so their cycles are those of ``none``.
- Skipping: a row's decoder presents one chunk per cycle (:mod:`.decoder`); the row's MACs
  take up to ``vector_width`` of the chunk's items per cycle and the decoder moves to the next
  chunk the cycle after the current one is used up (an empty bitmap chunk still takes its
  cycle). Row time ``sum_c max(1, ceil(items_c / vector_width))``; the tile adds
  ``decoder_latency``.
- MACs: ``none`` / ``memory`` multiply everything; ``gating`` multiplies only MACs whose weight
  and activation are both non-zero and gates the rest; the decoding levels issue the same MACs,
  gate the processed positions with a zero activation (N:M: also the stored zero slots) and
  skip the positions they never see.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accel_sim.models.pe_array.fast.decoder import NO_CHUNK
from accel_sim.models.pe_array.plan import GroupPlan
from accel_sim.models.pe_array.spec import PEArraySpec


@dataclass(frozen=True)
class FilterTileTiming:
    """Compute cycles of one pixel tile for each filter tile, and the reassignment traffic."""

    cycles: tuple[int, ...]      # per filter tile, decoder latency included
    stolen_items: int = 0        # weights another row processed, summed over filter tiles
    psum_runs: int = 0           # runs of consecutive chunks a row took from one other row


def act_nonzero(work: GroupPlan) -> np.ndarray:
    """For each reduction position ``(c, r, s)``, the output pixels that read a non-zero
    activation there (column sums of the im2col non-zero matrix, zero padding included)."""
    padded = work.input_nonzero
    (kh, kw), (sh, sw), (oh, ow) = work.kernel, work.stride, work.out
    out = np.empty((padded.shape[1], kh, kw), dtype=np.int64)
    for r in range(kh):
        for s in range(kw):
            window = padded[:, :, r:r + sh * (oh - 1) + 1:sh, s:s + sw * (ow - 1) + 1:sw]
            out[:, r, s] = window.sum(axis=(0, 2, 3))
    return out.ravel()


def effectual_macs(work: GroupPlan) -> int:
    """MACs whose weight and activation are both non-zero."""
    per_position = np.count_nonzero(work.weights, axis=1).astype(np.int64)
    return int(per_position @ act_nonzero(work))


def chunk_cycles(items: np.ndarray, vector_width: int) -> np.ndarray:
    """Cycles a row spends on a chunk of ``items`` weights (at least one: the decode)."""
    return np.maximum(1, -(-items // vector_width))


def by_row(spec: PEArraySpec, items: np.ndarray) -> np.ndarray:
    """Chunk items padded to whole filter tiles (rows without a filter have no chunks)."""
    n, chunks = items.shape
    full = np.full((math.ceil(n / spec.rows) * spec.rows, chunks), NO_CHUNK, dtype=np.int64)
    full[:n] = items
    return full


def dense_timing(spec: PEArraySpec, k: int, filter_tiles: int) -> FilterTileTiming:
    return FilterTileTiming(cycles=(math.ceil(k / spec.vector_width),) * filter_tiles)


def skipping_timing(spec: PEArraySpec, items: np.ndarray) -> FilterTileTiming:
    """Closed form: each row ``sum_c max(1, ceil(items_c / vector_width))``, the tile its slowest row."""
    full = by_row(spec, items)
    per_chunk = np.where(full >= 0, chunk_cycles(full, spec.vector_width), 0)
    rows = per_chunk.sum(axis=1).reshape(full.shape[0] // spec.rows, spec.rows).max(axis=1)
    return FilterTileTiming(cycles=tuple(int(c) + spec.decoder_latency for c in rows))


def busy_cycles(spec: PEArraySpec, work: GroupPlan, items: np.ndarray | None) -> int:
    """Cycles the rows of one pixel tile spend on work, summed over rows and filter tiles."""
    if items is None:
        return work.n * math.ceil(work.k / spec.vector_width)
    return int(np.where(items >= 0, chunk_cycles(items, spec.vector_width), 0).sum())
