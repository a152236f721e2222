"""SCNN's trace: each PE's batches of Cartesian-product steps (a group, or a group and input channel)
with their MACs (the pass's in-plane products, shared over its batches by their products into the
banks) and the bank-conflict cycles that serialise products on one bank, each PE's waits at the
group barrier, the drain unit's halo exchange and PPU, the passes' waits for DRAM and the DRAM bursts."""
from __future__ import annotations

from accel_sim.models.scnn.reference import reference
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    return {"cycles": counters.compute_cycles + counters.input_load_stall_cycles + counters.dram_stream_stall_cycles,
            "macs": counters.macs_issued,
            "stall_cycles": counters.input_load_stall_cycles + counters.dram_stream_stall_cycles
            + counters.barrier_idle_cycles + counters.bank_conflict_cycles,
            "dram_bytes": (counters.dram_read_bits + counters.dram_write_bits) / 8}


def estimate(plan) -> int:
    """Per pass: per PE and batch of steps a compute, a conflict and a barrier wait; a drain per
    group; two DRAM bursts and two stalls."""
    spec, tiling = plan.spec, plan.tiling
    batches = tiling.out_groups * (plan.view.in_channels if spec.barrier == "group_channel" else 1)
    passes = plan.view.groups * plan.view.batch * tiling.temporal_tiles * tiling.channel_chunks
    return passes * (3 * spec.pes * batches + tiling.out_groups + 4)


SOURCE = TraceSource("scnn", lambda plan, recorder: reference(plan, None, recorder), totals, estimate,
                     Example("scnn", "tiny_conv", "conv1"))
