"""Fast path, SM pipeline: shared memory and tensor cores per stage, and the three-path pipeline.

Each stage of K passes three paths in order: **load** (L2 -> shared memory, cp.async; see
:mod:`.memory`), **shared memory** (the fill written plus the warps' ldmatrix reads, at the SM's
shared-memory bandwidth; the wave's slowest SM sets the stage) and **compute** (the tensor
cores; warps go round robin to the SM's sub-partitions, so the busiest one has ``ceil(warps /
tensor cores)`` warps; its register-file operand reads overlap its MMAs and the longer of the
two is the stage). A stage enters a path when the path is free and the previous path is done
with it; loaded data arrives ``latency`` cycles after its transfer. Stages 1 .. n-1 are
identical and the last may be shorter, so the finish has the closed form of a tandem line:
``F = latency + sum(t) + (n - 2) * max(t)`` after stage n-1, then one step of the recurrence.

With ``loads_in_flight: stages`` the load of stage j also waits for its slot of the kernel's buffer
ring (stage j - (stages - 1) entering the tensor cores; with one stage, stage j - 1 leaving them):
:func:`ring_pipeline_finish` runs the recurrence stage by stage, all waves at once.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.tensor_core.fast.memory import transfer_cycles
from accel_sim.models.tensor_core.plan import TensorCorePlan
from accel_sim.models.tensor_core.plan.mma import cycles_per_mma, mma_read_bits, mmas_per_warp
from accel_sim.models.tensor_core.spec import KernelTile


def shared_memory_cycles(plan: TensorCorePlan, bits: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per wave: the slowest SM's shared-memory time for its per-CTA ``bits`` (fills + reads)."""
    return np.maximum.reduceat(transfer_cycles(bits, plan.spec.shared_memory_bandwidth), starts)


def tensor_core_cycles(plan: TensorCorePlan, tile: KernelTile, extent: int) -> tuple[int, int]:
    """(math, register file) cycles of the busiest sub-partition for one stage of K ``extent``."""
    spec = plan.spec
    mmas = -(-tile.warps // spec.tensor_cores_per_sm) * mmas_per_warp(spec, plan.problem, tile, extent)
    return (mmas * cycles_per_mma(spec, plan.problem),
            int(transfer_cycles(mmas * mma_read_bits(spec, plan.problem), spec.register_file_bandwidth)))


def ring_pipeline_finish(latency: int, stages: int, ring: int, full: dict, last: dict) -> np.ndarray:
    """Per wave: when the last stage leaves the tensor cores, a stage's load waiting for its ring slot:
    load j starts when the load path is free and stage j - (ring - 1) has entered the tensor cores
    (``ring`` > 1) or stage j - 1 has left them (``ring`` = 1)."""
    tl, ts, tm = (np.asarray(full[p]) for p in ("load", "shared_memory", "compute"))
    lend = send = cend = np.zeros(np.broadcast(tl, ts, tm).shape, dtype=np.int64)
    starts = []                                                # when each stage entered the tensor cores
    for j in range(stages):
        if j == stages - 1:
            tl, ts, tm = (np.asarray(last[p]) for p in ("load", "shared_memory", "compute"))
        gate = cend if ring == 1 and j else (starts[j - ring + 1] if ring > 1 and j >= ring - 1 else 0)
        lend = np.maximum(lend, gate) + tl
        send = np.maximum(lend + latency, send) + ts
        start = np.maximum(send, cend)
        starts.append(start)
        cend = start + tm
    return cend


def pipeline_finish(latency: int, stages: int, full: dict, last: dict) -> np.ndarray:
    """Per wave: when the last stage leaves the tensor cores. ``full`` / ``last`` hold the path
    times (``load``, ``shared_memory``, ``compute``) of a full stage and of the last one."""
    tl, ts, tm = full["load"], full["shared_memory"], full["compute"]
    if stages == 1:
        return latency + last["load"] + last["shared_memory"] + last["compute"]
    before = stages - 2
    fs = latency + tl + ts + before * np.maximum(tl, ts)
    fm = latency + tl + ts + tm + before * np.maximum(np.maximum(tl, ts), tm)
    arrive = (stages - 1) * tl + last["load"] + latency
    fs = np.maximum(fs, arrive) + last["shared_memory"]
    return np.maximum(fm, fs) + last["compute"]
