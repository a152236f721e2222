"""Fast path: a kernel's cycles from per-CTA numpy arrays and the pipeline's closed form.

Every quantity of a stage is linear in the CTA's rows / columns, so each wave's path times
come from a few ``reduceat`` calls over the CTA arrays; the three-path pipeline of a wave
(stages 1 .. n-1 identical, the last one possibly shorter) has the closed form of a tandem
line: ``F = latency + sum(t) + (n - 2) * max(t)`` after stage n-1, then one step of the
recurrence for the last stage. The behaviour is defined in :mod:`kernel_run`.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from accel_sim.tensor_core.kernel_run import KernelRun
from accel_sim.tensor_core.problem import (
    BITS_PER_BYTE,
    TCProblem,
    cycles_per_mma,
    element_bits,
    mma_read_bits,
    mmas_per_warp,
    warps_per_tensor_core,
)
from accel_sim.tensor_core.spec import KernelTile, TensorCoreSpec


@dataclass(frozen=True)
class CtaGrid:
    """Per-CTA tile extents and wave numbers, in launch order (tile row fastest, then column, group)."""

    rows: np.ndarray
    cols: np.ndarray
    row_panel: np.ndarray     # A panel id (group, tile row)
    col_panel: np.ndarray     # B panel id (group, tile column)
    wave: np.ndarray
    waves: int


def cta_grid(problem: TCProblem, tile: KernelTile, sms: int) -> CtaGrid:
    gm, gn = -(-problem.m // tile.m), -(-problem.n // tile.n)
    idx = np.arange(problem.groups * gm * gn, dtype=np.int64)
    i, j, g = idx % gm, (idx // gm) % gn, idx // (gm * gn)
    rows = np.minimum(tile.m, problem.m - i * tile.m)
    cols = np.minimum(tile.n, problem.n - j * tile.n)
    wave = idx // sms
    return CtaGrid(rows, cols, g * gm + i, g * gn + j, wave, int(wave[-1]) + 1)


def _ceil_div(bits: np.ndarray | int, bytes_per_cycle: float) -> np.ndarray:
    return np.ceil(np.asarray(bits, dtype=np.float64) / (BITS_PER_BYTE * bytes_per_cycle)).astype(np.int64)


def _dram_panels(grid: CtaGrid, resident: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per wave: rows of the distinct A panels and columns of the distinct B panels read from DRAM."""
    sums = []
    for panel, extent in ((grid.row_panel, grid.rows), (grid.col_panel, grid.cols)):
        key = panel if resident else grid.wave * (int(panel.max()) + 1) + panel
        _, first = np.unique(key, return_index=True)
        sums.append(np.bincount(grid.wave[first], weights=extent[first], minlength=grid.waves).astype(np.int64))
    return sums[0], sums[1]


def kernel_timing(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile, latency: int) -> KernelRun:
    grid = cta_grid(problem, tile, spec.sms)
    bits = element_bits(spec, problem)
    starts = np.arange(0, grid.wave.size, spec.sms)
    stages = -(-problem.k // tile.k)
    extents = (tile.k, problem.k - (stages - 1) * tile.k)   # a full stage, the last stage
    footprint = problem.groups * (problem.m * problem.slots(problem.k) * bits.a_slot
                                  + problem.k * problem.n * bits.b_value)
    resident = footprint <= spec.l2_size * BITS_PER_BYTE
    dram_rows, dram_cols = _dram_panels(grid, resident)
    warp_cols = -(-grid.cols // tile.warp_n)
    warp_rows = -(-grid.rows // tile.warp_m)
    wptc = warps_per_tensor_core(spec, tile)

    times = []  # per extent: dict path -> per-wave array (or scalar)
    for extent in extents:
        a = problem.slots(extent) * bits.a_slot      # bits per A row of this stage
        b = extent * bits.b_value                   # bits per B column
        fill = grid.rows * a + grid.cols * b
        reads = warp_cols * grid.rows * a + warp_rows * grid.cols * b
        l2 = np.maximum(_ceil_div(np.add.reduceat(fill, starts), spec.l2_bandwidth),
                        _ceil_div(np.maximum.reduceat(fill, starts), spec.l2_to_sm_bandwidth))
        dram = _ceil_div(dram_rows * a + dram_cols * b, spec.dram_bandwidth)
        mmas = wptc * mmas_per_warp(spec, problem, tile, extent)
        math = mmas * cycles_per_mma(spec)
        rf = int(_ceil_div(mmas * mma_read_bits(spec, problem), spec.register_file_bandwidth))
        times.append({"l2": l2, "dram": dram, "load": np.maximum(l2, dram),
                      "shared_memory": np.maximum.reduceat(_ceil_div(fill + reads, spec.shared_memory_bandwidth),
                                                           starts),
                      "math": math, "register_file": rf, "compute": max(math, rf)})
    full, last = times
    tl, ts, tm = full["load"], full["shared_memory"], full["compute"]
    if stages == 1:
        finish = latency + last["load"] + last["shared_memory"] + last["compute"]
    else:
        before = stages - 2
        fs = latency + tl + ts + before * np.maximum(tl, ts)
        fm = latency + tl + ts + tm + before * np.maximum(np.maximum(tl, ts), tm)
        arrive = (stages - 1) * tl + last["load"] + latency
        fs = np.maximum(fs, arrive) + last["shared_memory"]
        finish = np.maximum(fm, fs) + last["compute"]
    c_bits = grid.rows * grid.cols * bits.c_value
    epilogue = np.maximum(_ceil_div(np.add.reduceat(c_bits, starts), spec.l2_bandwidth),
                          _ceil_div(np.maximum.reduceat(c_bits, starts), spec.l2_to_sm_bandwidth))
    cycles = int(np.sum(finish + epilogue))

    def busy(path: str) -> int:
        per_wave = (stages - 1) * np.asarray(full[path]) + np.asarray(last[path])
        return int(np.sum(np.broadcast_to(per_wave, (grid.waves,))))

    slots_total = (stages - 1) * problem.slots(extents[0]) + problem.slots(extents[1])
    mmas_total = (stages - 1) * mmas_per_warp(spec, problem, tile, extents[0]) \
        + mmas_per_warp(spec, problem, tile, extents[1])
    totals = {
        "dram_a": int(dram_rows.sum()) * slots_total, "dram_b": int(dram_cols.sum()) * problem.k,
        "fill_a": int(grid.rows.sum()) * slots_total, "fill_b": int(grid.cols.sum()) * problem.k,
        "read_a": int((warp_cols * grid.rows).sum()) * slots_total,
        "read_b": int((warp_rows * grid.cols).sum()) * problem.k,
        "mmas": grid.rows.size * tile.warps * mmas_total, "c": int((grid.rows * grid.cols).sum()),
    }
    return KernelRun(problem=problem, tile=tile, cycles=cycles, compute_cycles=busy("compute"),
                     busy=MappingProxyType({p: busy(p) for p in ("math", "register_file", "shared_memory",
                                                                 "l2", "dram")}),
                     totals=MappingProxyType(totals), waves=grid.waves, ctas=int(grid.rows.size),
                     l2_resident=bool(resident))
