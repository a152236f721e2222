"""Fast path, the CTAs of each wave by kind, counted from the grid's shape (no per-CTA array).

A CTA's numbers depend on its kind only: whether its tile is at the bottom edge (the last tile row, ``i =
tiles_m - 1``: fewer C rows) and at the right edge (``j = tiles_n - 1``: fewer C columns), and where its K slice
is (the first slice reads no partial tile, the last writes C instead of one). A wave is ``sms`` consecutive CTAs
of the launch order (:mod:`..plan.tiling`: tile row fastest, then tile column, group, slice), so how many CTAs
of each kind it holds is a difference of counts below its two ends: below index ``x``, ``x // tiles_m`` CTAs are
in the last tile row, and the tile columns ``q = x // tiles_m`` (the B panel ids) before ``x`` hold ``tiles_m``
CTAs each. A wave's sum of a per-CTA quantity is then the kinds' counts times their values, its maximum the
largest value of a kind it holds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.models.tensor_core.plan.tiling import CtaGrid


@dataclass(frozen=True)
class WaveKinds:
    """Per wave, how many CTAs of each kind it holds; per kind, a CTA's tile and slice. A per-kind value is an
    array over the kinds (its last axis; leading axes, e.g. one row per K extent, are kept)."""

    counts: np.ndarray    # (waves, kinds) CTAs of each kind in each wave
    rows: np.ndarray      # (kinds,) C rows of the kind's tile
    cols: np.ndarray      # (kinds,) C columns of the kind's tile
    partial: np.ndarray   # (kinds,) partial tiles the kind's CTA reads and writes (0, 1 or 2)
    last: np.ndarray      # (kinds,) 1 when the kind's slice is the last (its CTA writes C)
    present: np.ndarray   # (waves, kinds) 1 where the wave holds a CTA of the kind, else 0
    kind_totals: np.ndarray  # (kinds,) CTAs of each kind in the kernel

    @property
    def waves(self) -> int:
        return self.counts.shape[0]

    def sums(self, value: np.ndarray) -> np.ndarray:
        """Per wave: the sum of a per-kind ``value`` over the wave's CTAs."""
        return value @ self.counts.T

    def maxima(self, value: np.ndarray) -> np.ndarray:
        """Per wave: the largest per-kind ``value`` (non-negative) of a CTA of the wave."""
        return (value[..., None, :] * self.present).max(axis=-1)

    def total(self, value: np.ndarray) -> int:
        """The sum of a per-kind ``value`` over every CTA of the kernel."""
        return int(value @ self.kind_totals)


def wave_bounds(grid: CtaGrid, sms: int) -> tuple[np.ndarray, np.ndarray]:
    """Per wave: its first CTA and the CTA after its last."""
    lo = np.arange(0, grid.ctas, sms, dtype=np.int64)
    return lo, np.minimum(lo + sms, grid.ctas)


def _edge_counts(x: np.ndarray, gm: int, gn: int) -> tuple[np.ndarray, ...]:
    """CTAs below index ``x``: all, in the last tile row, in the last tile column, in both."""
    q = x // gm
    both = q // gn
    return x, q, gm * both + (x % gm) * (q % gn == gn - 1), both


def wave_kinds(grid: CtaGrid, sms: int) -> WaveKinds:
    """Each wave's CTAs of each kind (edge row or not, edge column or not, first / middle / last slice)."""
    gm, gn, plane = grid.tiles_m, grid.tiles_n, grid.tiles_m * grid.tiles_n * grid.groups
    lo, hi = wave_bounds(grid, sms)
    split = grid.split
    slices = [(0, 1)] if split == 1 else [(0, 1), (1, split - 1), (split - 1, split)]   # [first, stop) slices
    tile_rows = (grid.tile_m, grid.edge_rows)       # a full tile row, the last one
    tile_cols = (grid.tile_n, grid.edge_cols)
    counts, rows, cols, partial, last = [], [], [], [], []
    for first, stop in slices:
        if first >= stop:
            continue
        below_hi = _edge_counts(np.minimum(np.maximum(hi, first * plane), stop * plane), gm, gn)
        below_lo = _edge_counts(np.minimum(np.maximum(lo, first * plane), stop * plane), gm, gn)
        every, edge_row, edge_col, corner = (a - b for a, b in zip(below_hi, below_lo))
        counts += [every - edge_row - edge_col + corner, edge_col - corner, edge_row - corner, corner]
        rows += [tile_rows[0], tile_rows[0], tile_rows[1], tile_rows[1]]
        cols += [tile_cols[0], tile_cols[1], tile_cols[0], tile_cols[1]]
        partial += [int(first > 0) + int(first < split - 1)] * 4
        last += [int(first == split - 1)] * 4
    counts = np.stack(counts, axis=1)
    return WaveKinds(counts, np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64),
                     np.array(partial, dtype=np.int64), np.array(last, dtype=np.int64),
                     (counts > 0).astype(np.int64), counts.sum(axis=0))
