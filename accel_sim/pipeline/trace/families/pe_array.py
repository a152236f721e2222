"""The PE array's trace: each PE row's weight vectors (dense, gating, memory) or decoded chunks
(skipping, reassignment) with the MACs they issue, a reassigned chunk as a flow from the row it
was taken from, each row's waits for its weight feeder or index decoder and for the tile's slowest
row, and the three DRAM streams."""
from __future__ import annotations

from accel_sim.models.pe_array.reference import reference
from accel_sim.models.pe_array.reference.array import tiles
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    out = {"cycles": counters.cycles, "macs": counters.macs_issued}
    if plan.arch.dram.bandwidth_mode == "user":
        out["dram_bytes"] = (counters.weight_dram_bits + counters.input_dram_bits
                             + counters.output_words * plan.arch.word_bits) / 8
    return out


def estimate(plan) -> int:
    """Per tile and row: a vector or chunk event per weight position (at most), a feeder wait, a
    tile wait; three DRAM streams."""
    spec = plan.spec
    per_row = sum(work.weights.shape[0] + 2 for work in plan.groups for _ in tiles(spec, work))
    return 2 * spec.rows * per_row + 3


SOURCE = TraceSource("pe_array", lambda plan, recorder: reference(plan, None, recorder), totals, estimate,
                     Example("pe_array_reassignment", "trace_examples", "conv_small"))
