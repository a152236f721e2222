"""Fast path: every window's cycles in one vectorised numpy pass per kernel position.

Per window, lane ``i`` spends at each of the ``R x S`` positions one cycle per non-zero neuron of
its slice (``empty_brick_cycles`` when it holds none; the baseline: ``slice_depth`` cycles, one
per brick slot); the window ends when its slowest lane ends, and every pass repeats the windows.
The DRAM streams (USER bandwidth) overlap compute: the layer takes the longer of the two.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.models.cnvlutin.counters import CnvlutinCounters
from accel_sim.models.cnvlutin.plan import CnvlutinPlan, GroupWork
from accel_sim.foundations.errors import SimulationError

BITS_PER_BYTE = 8


def _at_position(grid: np.ndarray, work: GroupWork, r: int, s: int) -> np.ndarray:
    """``grid[..., y, x]`` at kernel position (r, s) of every window: ``(..., out_h, out_w)``."""
    (oh, ow), (sh, sw) = work.out, work.stride
    return grid[..., r:r + sh * (oh - 1) + 1:sh, s:s + sw * (ow - 1) + 1:sw]


def _window_cycles(plan: CnvlutinPlan, work: GroupWork) -> int:
    """Cycles of one pass over every window of a group."""
    nnz = work.lane_nonzeros
    r_max, s_max = work.kernel
    if not plan.spec.zero_skipping:
        return r_max * s_max * plan.slice_depth * nnz.shape[0] * work.out[0] * work.out[1]
    cost = np.where(nnz > 0, nnz, plan.spec.empty_brick_cycles)
    lane_time = np.zeros((nnz.shape[0], nnz.shape[1], *work.out), dtype=np.int64)
    for r in range(r_max):
        for s in range(s_max):
            lane_time += _at_position(cost, work, r, s)
    return int(lane_time.max(axis=1).sum())


def dram_cycles(plan: CnvlutinPlan) -> int:
    """Longest of the three DRAM streams (inputs, weights, outputs), each at ``dram.bandwidth``."""
    arch, layer = plan.arch, plan.layer
    if arch.dram.bandwidth_mode != "user":
        return 0
    words = (layer.input_elements, layer.weight_elements, layer.output_elements)
    return max(math.ceil(w * arch.word_bits / BITS_PER_BYTE / arch.dram.bandwidth) for w in words) + arch.dram.latency


def fast(plan: CnvlutinPlan, max_cycles: int | None = None) -> CnvlutinCounters:
    spec, layer = plan.spec, plan.layer
    passes = len(plan.filters_per_pass)
    compute = passes * sum(_window_cycles(plan, work) for work in plan.groups)
    slots = nonzeros = 0
    for work in plan.groups:
        windows = work.lane_nonzeros.shape[0] * work.out[0] * work.out[1]
        slots += windows * work.kernel[0] * work.kernel[1] * plan.slice_depth * spec.neuron_lanes
        nonzeros += sum(int(_at_position(work.lane_nonzeros, work, r, s).sum())
                        for r in range(work.kernel[0]) for s in range(work.kernel[1]))
    memory = dram_cycles(plan)
    cycles = max(compute, memory)
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{layer.name}: {cycles} cycles exceed max_cycles={max_cycles}")
    filters = layer.gemm().n
    skipping = spec.zero_skipping
    return CnvlutinCounters(
        cycles=cycles, compute_cycles=compute, dram_cycles=memory, window_slots=slots, window_nonzeros=nonzeros,
        neuron_reads=(nonzeros if skipping else slots) * passes, offset_reads=nonzeros * passes if skipping else 0,
        macs_issued=nonzeros * filters if skipping else layer.macs,
        dram_read_words=layer.input_elements + layer.weight_elements, dram_write_words=layer.output_elements)
