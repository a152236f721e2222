"""Refinement of the fast path's per-wave counts by CTA kind (fast/waves.py, fast/memory.py dram_panels) against the same
reductions over the grid's per-CTA arrays (the reference's CTAs) on random grid shapes: every wave's sums and
maxima of per-CTA quantities, and its DRAM panels with and without L2 residency."""
from __future__ import annotations

import numpy as np
import pytest

from accel_sim.models.tensor_core.fast.memory import dram_panels
from accel_sim.models.tensor_core.fast.waves import wave_kinds
from accel_sim.models.tensor_core.plan.tiling import CtaGrid


def _per_cta_panels(grid: CtaGrid, sms: int, resident: bool) -> tuple[np.ndarray, np.ndarray]:
    wave = np.arange(grid.ctas) // sms
    waves = -(-grid.ctas // sms)
    sums = []
    for panel, extent in ((grid.row_panel, grid.rows), (grid.col_panel, grid.cols)):
        key = panel if resident else wave * (int(panel.max()) + 1) + panel
        _, first = np.unique(key, return_index=True)
        sums.append(np.bincount(wave[first], weights=extent[first], minlength=waves).astype(np.int64))
    return sums[0], sums[1]


def _grids(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        a_shared = int(rng.choice([1, 1, 2, 4]))
        yield CtaGrid(m=int(rng.integers(1, 300)), n=int(rng.integers(1, 300)), tile_m=int(rng.choice([16, 32, 64])),
                      tile_n=int(rng.choice([8, 16, 64])), groups=a_shared * int(rng.integers(1, 6)),
                      a_shared=a_shared, split=int(rng.choice([1, 1, 2, 3, 5]))), int(rng.choice([1, 3, 7, 16, 108]))


@pytest.mark.parametrize("seed", range(3))
def test_wave_kinds_match_the_per_cta_arrays(seed):
    for grid, sms in _grids(120, seed):
        kinds = wave_kinds(grid, sms)
        starts = np.arange(0, grid.ctas, sms)
        last = grid.slice == grid.split - 1
        partial = (grid.slice > 0).astype(np.int64) + (~last).astype(np.int64)
        for per_kind, per_cta in ((kinds.rows, grid.rows), (kinds.cols, grid.cols),
                                  (kinds.rows * 3 + kinds.cols * 5, grid.rows * 3 + grid.cols * 5),
                                  (kinds.rows * kinds.cols * (kinds.partial * 32 + kinds.last * 16),
                                   grid.rows * grid.cols * (partial * 32 + last * 16))):
            assert kinds.sums(per_kind).tolist() == np.add.reduceat(per_cta, starts).tolist(), grid
            assert kinds.maxima(per_kind).tolist() == np.maximum.reduceat(per_cta, starts).tolist(), grid
            assert kinds.total(per_kind) == int(per_cta.sum()), grid
        for resident in (False, True):
            got = dram_panels(grid, sms, resident)
            want = _per_cta_panels(grid, sms, resident)
            assert [g.tolist() for g in got] == [w.tolist() for w in want], (grid, sms, resident)
