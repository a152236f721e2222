"""Eyeriss v1's trace: each processing pass on the PE array (its filter ramp-up, then its MACs:
dense minus those gated on zero ifmaps), the array's waits for the DRAM link (ifmaps before a block
of channels, a pass's filters, the ofmap dump) and every burst on the DRAM link."""
from __future__ import annotations

from accel_sim.models.eyeriss.plan import blocks
from accel_sim.models.eyeriss.reference import reference
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    return {"cycles": counters.cycles, "macs": counters.macs_issued,
            "stall_cycles": counters.filter_wait_cycles + counters.ifmap_load_cycles + counters.ofmap_dump_cycles,
            "dram_bytes": (counters.dram_ifmap_read_bits + counters.dram_filter_read_bits
                           + counters.dram_ofmap_write_bits) / 8}


def estimate(plan) -> int:
    """Per block of channels: the ifmap burst and wait; per pass: ramp-up, compute, filter burst and
    wait; per block of filters: the ofmap burst and wait."""
    shape, mp = plan.shape, plan.mapping
    channel_blocks = len(blocks(shape.channels, mp.q * mp.r))
    per_m = sum(2 + channel_blocks * (2 + 4 * len(blocks(m, mp.p * mp.t))) for m in blocks(shape.filters, mp.m))
    return shape.groups * len(plan.strips) * len(blocks(shape.images, mp.n)) * per_m


SOURCE = TraceSource("eyeriss", lambda plan, recorder: reference(plan, None, recorder), totals, estimate,
                     Example("eyeriss_v1", "trace_examples", "conv_small"))
