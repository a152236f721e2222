"""The DLU array's trace: the lock-step pipeline's stages per tile (operand loads from DRAM, the
array's MACs, the statistics block's leading-bit detection, the write-back), the registers between
them, the array's stalls (waiting for operand loads or for the write-back) and the histogram
readouts."""
from __future__ import annotations

from accel_sim.models.dlu.reference import PIPELINE_STEPS, reference
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    out = {"cycles": counters.cycles, "macs": counters.macs,
           "stall_cycles": counters.load_stall_cycles + counters.writeback_stall_cycles}
    if plan.arch.dram.bandwidth_mode == "user" and plan.spec.bits % 8 == 0 and plan.stored_weight_bits % 8 == 0:
        out["dram_bytes"] = ((counters.input_fill_words + counters.output_words) * plan.spec.bits
                             + counters.weight_fill_words * plan.stored_weight_bits) / 8
    return out


def estimate(plan) -> int:
    """Per pipeline step: each stage's work, three registers' push and pop, two stalls, three DRAM
    transfers; per group a readout."""
    return plan.groups * ((len(plan.tiles.rows) + PIPELINE_STEPS - 1) * 14 + 1)


SOURCE = TraceSource("dlu", lambda plan, recorder: reference(plan, None, recorder=recorder), totals, estimate,
                     Example("dlu", "trace_examples", "conv_small"))
