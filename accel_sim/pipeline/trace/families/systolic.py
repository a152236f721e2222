"""The systolic array's trace: each fold on the PE array (its MACs), the array's stalls (waiting
for a prefetch burst or for the ofmap drain) and every DRAM burst of the ifmap / filter fills and
the ofmap drains (USER bandwidth; a CALC-bandwidth DRAM has no bursts to show)."""
from __future__ import annotations

import math

from accel_sim.models.systolic.plan.operands import READ_OPERANDS
from accel_sim.models.systolic.reference import reference
from accel_sim.models.systolic.reference.read_buffers import PREFILL_READY_CYCLE
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    out = {"macs": counters.macs_issued, "stall_cycles": counters.read_stall_cycles + counters.write_stall_cycles}
    if plan.user_bandwidth and plan.mapping.groups == 1:
        # the last event is the last ofmap drain, ending when its data is in DRAM:
        # SCALE-Sim's cycles including prefetch counted from the first DRAM read's data
        fill_lines = max(math.ceil(plan.fetch_sequences[op].size / plan.dram_words_per_cycle) for op in READ_OPERANDS)
        first_dram = PREFILL_READY_CYCLE - fill_lines  # + 1: the first read's data lands
        out["cycles"] = first_dram + 1 + counters.cycles_incl_prefetch
    if plan.user_bandwidth:
        words = counters.ifmap_dram_reads + counters.filter_dram_reads + counters.ofmap_dram_writes
        out["dram_bytes"] = words * plan.arch.word_bits / 8
    return out


def estimate(plan) -> int:
    """Per group: a fold event each, up to two stall events per demand line, the DRAM bursts."""
    mapping = plan.mapping
    folds = mapping.col_folds * mapping.row_folds
    bursts = sum(plan.fetch_sequences[op].size for op in READ_OPERANDS) // max(1, plan.dram_words_per_cycle * 8)
    return mapping.groups * (folds + 2 * mapping.demand_lines + bursts + 4)


def _record(plan, recorder):
    if plan.streaming:
        from accel_sim.foundations.errors import InputError
        raise InputError.single(plan.arch.name, "systolic.operand_fetch",
                                "a teaching trace records the SCALE-Sim buffers' run, not operand_fetch: streaming")
    return reference(plan, None, recorder)


SOURCE = TraceSource("systolic", _record, totals, estimate, Example("scalesim_32x32_ws", "tiny_conv", "conv2"))
