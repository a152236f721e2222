"""Fast path: every candidate kernel timed from per-CTA numpy arrays and the pipeline's closed form.

The kernel starts ``kernel_launch_cycles`` after the call (the GPU-side gap between kernels) and, when it
reads DRAM, ends ``dram_stream_cycles`` after its last wave (the DRAM stream's ramp and drain); in between
CTAs run in waves of ``sms`` (one CTA per SM), in launch order; a wave ends when its slowest
CTA has written its C tile, then the next starts. With split-K each CTA covers its slice of K and
its epilogue moves the FP32 partial tile through L2 (a write; a read of the running partial but in
the first slice; the last slice writes C instead of a partial). Every quantity of a stage is linear in a
CTA's rows and columns, so each wave's path times come from its CTAs counted by kind (:mod:`.waves`: edge
tile or not, first / middle / last slice; no per-CTA array): :mod:`.memory` the load path and epilogue (a
round's DRAM reads at the rate :mod:`..plan.dram_rate` gives),
:mod:`.sm_pipeline` shared memory, tensor cores and the pipeline. The kernel that runs is the fastest candidate
(the first on ties).
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.tensor_core.counters import TensorCoreCounters
from accel_sim.models.tensor_core.fast.memory import dram_panels, l2_cycles, transfer_cycles
from accel_sim.models.tensor_core.fast.sm_pipeline import (
    pipeline_finish,
    ring_pipeline_finish,
    shared_memory_cycles,
    tensor_core_cycles,
)
from accel_sim.models.tensor_core.fast.waves import wave_kinds
from accel_sim.models.tensor_core.plan import TensorCorePlan
from accel_sim.models.tensor_core.plan.dram_rate import round_rate
from accel_sim.models.tensor_core.plan.mma import mmas_per_warp
from accel_sim.models.tensor_core.plan.tiling import slice_k


def kernel_counters(plan: TensorCorePlan, index: int) -> TensorCoreCounters:
    """The counters of candidate kernel ``index`` of the plan."""
    spec, problem, bits = plan.spec, plan.problem, plan.bits
    tile, grid = plan.kernels[index], plan.grids[index]
    kinds = wave_kinds(grid, spec.sms)            # per wave, its CTAs of each kind; per kind, its tile
    ctas, waves = grid.ctas, kinds.waves
    k = slice_k(problem, grid.split)
    stages = -(-k // tile.k)
    extents = (tile.k, k - (stages - 1) * tile.k)   # a full stage, the last stage
    dram_rows, dram_cols = dram_panels(grid, spec.sms, plan.l2_resident)
    warp_cols = -(-kinds.cols // tile.warp_n)
    warp_rows = -(-kinds.rows // tile.warp_m)

    # both extents at once: one row each (bits per A row of the stage, block scales included; per B column)
    a = np.array([[bits.a_stream(problem.slots(extent))] for extent in extents], dtype=np.int64)
    b = np.array([[bits.b_stream(extent)] for extent in extents], dtype=np.int64)
    fill = kinds.rows * a + kinds.cols * b
    reads = warp_cols * kinds.rows * a + warp_rows * kinds.cols * b
    l2 = l2_cycles(spec, kinds, fill)
    dram_bits = dram_rows * a + dram_cols * b       # per extent and wave: one round's DRAM reads
    dram = transfer_cycles(dram_bits, round_rate(spec, tile, dram_bits))
    load = np.maximum(l2, dram)
    smem, smem_reads = shared_memory_cycles(plan, kinds, fill, reads)
    times = []  # per extent: dict path -> per-wave array (or scalar)
    for row, extent in enumerate(extents):
        math, rf = tensor_core_cycles(plan, tile, extent)
        times.append({"l2": l2[row], "dram": dram[row], "load": load[row],
                      "shared_memory": smem[row], "shared_memory_reads": smem_reads[row],
                      "math": math, "register_file": rf, "compute": max(math, rf)})
    full, final = times
    overlap = spec.shared_memory_fill == "async"     # cp.async: the fill is written as the stage lands
    if spec.loads_in_flight == "stages":
        finish = ring_pipeline_finish(spec.memory_latency, stages, tile.stages, full, final, overlap)
    else:
        finish = pipeline_finish(spec.memory_latency, stages, full, final, overlap)
    outputs = kinds.rows * kinds.cols
    epilogue = l2_cycles(spec, kinds, outputs * (kinds.partial * spec.accumulator_bits + kinds.last * bits.c_value))

    def busy(path: str) -> int:
        per_wave = (stages - 1) * full[path] + final[path]
        return int(per_wave.sum()) if isinstance(per_wave, np.ndarray) else int(per_wave) * waves

    slots_total = (stages - 1) * problem.slots(extents[0]) + problem.slots(extents[1])
    dram_a, dram_b = int(dram_rows.sum()) * slots_total, int(dram_cols.sum()) * k
    drain = spec.dram_stream_cycles if dram_a + dram_b else 0      # the DRAM stream's ramp and drain, once
    cycles = spec.kernel_launch_cycles + int(np.sum(finish + epilogue)) + drain
    mmas_total = (stages - 1) * mmas_per_warp(spec, problem, tile, extents[0]) \
        + mmas_per_warp(spec, problem, tile, extents[1])
    return TensorCoreCounters(
        kernel=index, cycles=cycles, compute_cycles=busy("compute"), math_busy_cycles=busy("math"),
        register_file_busy_cycles=busy("register_file"), shared_memory_busy_cycles=busy("shared_memory"),
        l2_busy_cycles=busy("l2"), dram_busy_cycles=busy("dram"), waves=waves, ctas=ctas,
        dram_a=dram_a, dram_b=dram_b,
        fill_a=kinds.total(kinds.rows) * slots_total, fill_b=kinds.total(kinds.cols) * k,
        read_a=kinds.total(warp_cols * kinds.rows) * slots_total,
        read_b=kinds.total(warp_rows * kinds.cols) * k,
        mmas=ctas * tile.warps * mmas_total, c=kinds.total(outputs * kinds.last),
        partial=kinds.total(outputs * kinds.partial),
        split=grid.split)


def fast(plan: TensorCorePlan, max_cycles: int | None = None) -> TensorCoreCounters:
    """The fastest candidate kernel's counters (the first on ties)."""
    best = min((kernel_counters(plan, i) for i in range(len(plan.kernels))), key=lambda c: c.cycles)
    if max_cycles is not None and best.cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {best.cycles} cycles exceed the max_cycles guard {max_cycles}")
    return best
