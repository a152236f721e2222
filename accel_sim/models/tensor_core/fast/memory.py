"""Fast path, memory: the wave's shared load path (L2, SM ports, DRAM) and the epilogue, per wave.

A path moving ``bytes_per_cycle`` takes ``ceil(bits / (8 x bytes per cycle))`` whole cycles per
stage. A stage's load is shared by the wave: the L2 reads of all its CTAs over the L2 bandwidth,
the fullest CTA over its SM port, and the wave's DRAM reads over the DRAM bandwidth. DRAM reads
are the distinct A row panels and B column panels the wave touches; when A and B fit the L2
together, each panel only in the first wave that touches it. The epilogue writes the wave's C
tiles through L2 the same way (no DRAM time).
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.tensor_core.plan.problem import BITS_PER_BYTE
from accel_sim.models.tensor_core.plan.tiling import CtaGrid
from accel_sim.models.tensor_core.spec import TensorCoreSpec


def transfer_cycles(bits: np.ndarray | int, bytes_per_cycle: float) -> np.ndarray:
    """Whole cycles a path moving ``bytes_per_cycle`` needs for ``bits`` (0 for nothing)."""
    return np.ceil(np.asarray(bits, dtype=np.float64) / (BITS_PER_BYTE * bytes_per_cycle)).astype(np.int64)


def dram_panels(grid: CtaGrid, wave: np.ndarray, waves: int, resident: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per wave: rows of the distinct A panels and columns of the distinct B panels read from DRAM."""
    sums = []
    for panel, extent in ((grid.row_panel, grid.rows), (grid.col_panel, grid.cols)):
        stride = int(panel.max()) + 1           # one key per (wave, panel)
        key = panel if resident else wave * stride + panel
        _, first = np.unique(key, return_index=True)
        sums.append(np.bincount(wave[first], weights=extent[first], minlength=waves).astype(np.int64))
    return sums[0], sums[1]


def l2_cycles(spec: TensorCoreSpec, bits: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per wave: the L2 path's time for the per-CTA ``bits`` (all CTAs over L2, the fullest over its port)."""
    return np.maximum(transfer_cycles(np.add.reduceat(bits, starts), spec.l2_bandwidth),
                      transfer_cycles(np.maximum.reduceat(bits, starts), spec.l2_to_sm_bandwidth))
