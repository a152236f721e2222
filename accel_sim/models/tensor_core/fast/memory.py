"""Fast path, memory: the wave's shared load path (L2, SM ports, DRAM) and the epilogue, per wave.

A path moving ``bytes_per_cycle`` takes ``ceil(bits / (8 x bytes per cycle))`` whole cycles per
stage. A stage's load is shared by the wave: the L2 reads of all its CTAs over the L2 bandwidth,
the fullest CTA over its SM port, and the wave's DRAM reads over the DRAM bandwidth. DRAM reads
are the distinct A row panels and B column panels the wave touches; when A and B fit the L2
together, each panel only in the first wave that touches it. The epilogue writes the wave's C
tiles through L2 the same way (no DRAM time).

DRAM panels: the B panel of a CTA is its tile column ``q`` (one per ``tiles_m`` consecutive CTAs), so a wave
touches the panels ``lo // tiles_m .. (hi - 1) // tiles_m``; the A panel is (block, tile row) with a block of
``a_shared x tiles_n x tiles_m`` consecutive CTAs (the groups that read one A, of one slice), so a wave touches
every tile row of a block it covers whole and, in a block it covers in part (``L`` CTAs), ``L`` consecutive tile
rows round the block's column (all when ``L >= tiles_m``). With A and B resident in L2 a panel is read by the
first wave that touches it: the B panel ``q`` at CTA ``q x tiles_m``, the A panel (block, row) at CTA
``block x block size + row``.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.tensor_core.plan.problem import BITS_PER_BYTE
from accel_sim.models.tensor_core.fast.waves import WaveKinds, wave_bounds
from accel_sim.models.tensor_core.plan.tiling import CtaGrid
from accel_sim.models.tensor_core.spec import TensorCoreSpec


def transfer_cycles(bits: np.ndarray | int, bytes_per_cycle: float) -> np.ndarray:
    """Whole cycles a path moving ``bytes_per_cycle`` needs for ``bits`` (0 for nothing)."""
    return np.ceil(np.asarray(bits, dtype=np.float64) / (BITS_PER_BYTE * bytes_per_cycle)).astype(np.int64)


def _column_sum(q: np.ndarray, grid: CtaGrid) -> np.ndarray:
    """C columns of the B panels (tile columns) ``0 .. q - 1``."""
    return q * grid.tile_n - (q // grid.tiles_n) * (grid.tile_n - grid.edge_cols)


def _row_segment(start: np.ndarray, length: np.ndarray, grid: CtaGrid) -> np.ndarray:
    """C rows of the distinct A panels of ``length`` consecutive CTAs of one block from CTA ``start``."""
    gm, short = grid.tiles_m, grid.tile_m - grid.edge_rows
    holds_edge = (gm - 1 - start % gm) % gm < length
    return np.where(length >= gm, grid.m, length * grid.tile_m - short * holds_edge)


def _first_rows(x: np.ndarray, grid: CtaGrid, block: int) -> np.ndarray:
    """C rows of the A panels first touched below CTA ``x``."""
    gm, short = grid.tiles_m, grid.tile_m - grid.edge_rows
    rows = np.minimum(x % block, gm)
    return (x // block) * grid.m + rows * grid.tile_m - short * (rows >= gm)


def dram_panels(grid: CtaGrid, sms: int, resident: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per wave: rows of the distinct A panels and columns of the distinct B panels read from DRAM."""
    gm = grid.tiles_m
    lo, hi = wave_bounds(grid, sms)
    block = grid.a_shared * grid.tiles_n * gm
    if resident:
        return (_first_rows(hi, grid, block) - _first_rows(lo, grid, block),
                _column_sum(-(-hi // gm), grid) - _column_sum(-(-lo // gm), grid))
    first, final = lo // block, (hi - 1) // block
    same = first == final
    head = np.where(same, hi, (first + 1) * block) - lo
    tail_start = final * block
    rows = _row_segment(lo, head, grid) + np.where(
        same, 0, (final - first - 1) * grid.m + _row_segment(tail_start, hi - tail_start, grid))
    return rows, _column_sum((hi - 1) // gm + 1, grid) - _column_sum(lo // gm, grid)


def l2_cycles(spec: TensorCoreSpec, kinds: WaveKinds, bits: np.ndarray) -> np.ndarray:
    """Per wave: the L2 path's time for the per-kind CTA ``bits`` (all CTAs over L2, the fullest over its port)."""
    return np.maximum(transfer_cycles(kinds.sums(bits), spec.l2_bandwidth),
                      transfer_cycles(kinds.maxima(bits), spec.l2_to_sm_bandwidth))
