"""Skipper counters -> actions and bytes. Activations and weights come from on-chip buffers;
this example has no DRAM."""
from __future__ import annotations

import math

from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.models.skipper.counters import SkipperCounters
from accel_sim.models.skipper.plan import SkipperPlan


def account(plan: SkipperPlan, counters: SkipperCounters) -> LayerResult:
    word, spec = plan.arch.word_bits, plan.spec
    dense = plan.layer.macs
    actions = (
        ActionCount("activation_fifo", "sram", "read", counters.activation_reads, word, 64),
        ActionCount("weight_buffer", "sram", "read", counters.weight_reads, word, spec.weight_buffer_size),
        ActionCount("lanes", "mult_int", "op", counters.macs_issued, word),
    )
    return LayerResult(
        layer=plan.layer.name, cycles=counters.cycles, compute_cycles=counters.cycles, stall_cycles=0,
        macs_dense=dense, macs_issued=counters.macs_issued, peak_macs_per_cycle=spec.lanes,
        dram_read_bytes=0, dram_write_bytes=0,
        sram_read_bytes=math.ceil((counters.activation_reads + counters.weight_reads) * word / 8),
        sram_write_bytes=0, actions=actions, metrics={"macs_skipped": float(dense - counters.macs_issued)},
        operand_hashes=plan.operand_hashes)
