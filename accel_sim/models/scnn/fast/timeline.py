"""Closed-form timeline of one pass, fast path: groups, barriers, double-buffered drains, DRAM.

Per output-channel group ``g``, every PE is busy ``busy[pe, g]`` cycles; the group ends at a
barrier when the slowest PE finishes (the others idle). The group's accumulator buffer then
drains (halo exchange, then PPU: ReLU and compression) while the next group computes in the
other buffer (paper, Table 3: double-buffered accumulators). With two buffers, group ``g + 1``
starts at the barrier of group ``g`` once the drain of group ``g - 1`` has freed its buffer,
and one drain unit drains groups in order:

    start[g]       = max(end[g-1], drain_end[g-2])
    end[g]         = start[g] + max_pe busy[:, g]
    drain_end[g]   = max(end[g], drain_end[g-1]) + drain[g]

The pass's compute time is the last drain's end. With one buffer (``halo_charge:
largest_region_serial``, DNNsim) ``start[g] = max(end[g-1], drain_end[g-1])``: nothing overlaps.
With a barrier per (group, input channel) (DNNsim) a group's length is the sum over its
channels of the slowest PE, and PEs idle at every channel's barrier. DRAM: a pass first loads its input
activations (``load`` cycles, nothing overlaps it: the IARAM holds one tile), then weights,
outputs and spilled partial sums stream during the compute (``stream`` cycles); the pass
takes ``load + max(compute, stream)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PassTiming:
    compute_cycles: int   # last drain end (barrier idle included)
    load_stall: int       # input load before the compute
    stream_stall: int     # streaming beyond the compute
    barrier_idle: int     # PE-cycles waiting at barriers (sum over PEs and groups)
    group_cycles: int     # sum over groups of the slowest PE's busy cycles


def pass_timing(busy: np.ndarray, drain: np.ndarray, load: int, stream: int, buffers: int = 2) -> PassTiming:
    """``busy`` (PEs, groups) cycles of one pass, or (PEs, groups, channels) with a barrier after
    every (group, input channel): a group then takes the sum over its channels of the slowest PE.
    ``drain`` (groups,); ``buffers``: accumulator buffers per PE (1: a group waits for the
    previous group's drain, DNNsim's serial halo charge)."""
    slowest_parts = busy.max(axis=0) if busy.shape[0] else np.zeros(busy.shape[1:], dtype=np.int64)
    idle = int((slowest_parts[None] - busy).sum())
    slowest = slowest_parts.reshape(busy.shape[1], -1).sum(axis=1)
    end_prev, drains = 0, [0, 0]
    for g in range(busy.shape[1]):
        start = max(end_prev, drains[-buffers])
        end = start + int(slowest[g])
        drains.append(max(end, drains[-1]) + int(drain[g]))
        end_prev = end
    compute = drains[-1]
    return PassTiming(compute, load, max(0, stream - compute), idle, int(slowest.sum()))
