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

The pass's compute time is the last drain's end. DRAM: a pass first loads its input
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


def pass_timing(busy: np.ndarray, drain: np.ndarray, load: int, stream: int) -> PassTiming:
    """``busy`` (PEs, groups), ``drain`` (groups,) cycles of one pass."""
    slowest = busy.max(axis=0) if busy.size else np.zeros(busy.shape[1], dtype=np.int64)
    end_prev, drain_prev, drain_prev2 = 0, 0, 0
    for g in range(busy.shape[1]):
        start = max(end_prev, drain_prev2)
        end = start + int(slowest[g])
        drain_end = max(end, drain_prev) + int(drain[g])
        end_prev, drain_prev2, drain_prev = end, drain_prev, drain_end
    compute = drain_prev
    idle = int((slowest[None, :] - busy).sum())
    return PassTiming(compute, load, max(0, stream - compute), idle, int(slowest.sum()))
