"""Cnvlutin counters -> actions and bytes.

As in DaDianNao, activations live in the central neuron memory and weights in the units'
synapse buffers; each operand is read from DRAM once and the outputs written once. Every
issued MAC reads its weight from the synapse buffer; Cnvlutin reads, with every non-zero
neuron, its ``log2(neuron_lanes)``-bit offset. Cnvlutin skips activations, not weights:
``macs_skipped`` = dense - issued, nothing is gated.
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.models.cnvlutin.counters import CnvlutinCounters
from accel_sim.models.cnvlutin.plan import CnvlutinPlan
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult

BITS_PER_BYTE = 8


def account(plan: CnvlutinPlan, counters: CnvlutinCounters) -> LayerResult:
    spec, layer, word = plan.spec, plan.layer, plan.arch.word_bits
    dense, issued = layer.macs, counters.macs_issued
    actions = [
        ActionCount("dram", "dram", "read", counters.dram_read_words, word),
        ActionCount("dram", "dram", "write", counters.dram_write_words, word),
        ActionCount("neuron_memory", "sram", "write", layer.input_elements, word, spec.neuron_memory_size),
        ActionCount("neuron_memory", "sram", "read", counters.neuron_reads, word, spec.neuron_memory_size),
        ActionCount("synapse_buffer", "sram", "write", layer.weight_elements, word, spec.synapse_buffer_size),
        ActionCount("synapse_buffer", "sram", "read", issued, word, spec.synapse_buffer_size),
        ActionCount("neuron_memory", "sram", "write", layer.output_elements, word, spec.neuron_memory_size),
        ActionCount("units", "mult_int", "op", issued, word),
        ActionCount("units", "add_int", "op", issued, spec.accumulator_bits),
        ActionCount("units", "mult_int", "skip", dense - issued, word),
    ]
    if spec.zero_skipping:
        actions.append(ActionCount("neuron_memory", "sram", "read", counters.offset_reads, spec.offset_bits,
                                   spec.neuron_memory_size))
    metrics = {
        "macs_skipped": float(dense - issued),
        "macs_gated": 0.0,
        "filter_passes": float(len(plan.filters_per_pass)),
        "activation_density_seen": counters.window_nonzeros / counters.window_slots if counters.window_slots else 0.0,
        "dram_cycles": float(counters.dram_cycles),
    }
    offset_bytes = math.ceil(counters.offset_reads * spec.offset_bits / BITS_PER_BYTE)
    return LayerResult(
        layer=layer.name, cycles=counters.cycles, compute_cycles=counters.compute_cycles,
        stall_cycles=counters.cycles - counters.compute_cycles, macs_dense=dense, macs_issued=issued,
        peak_macs_per_cycle=spec.peak_macs_per_cycle,
        dram_read_bytes=math.ceil(counters.dram_read_words * word / BITS_PER_BYTE),
        dram_write_bytes=math.ceil(counters.dram_write_words * word / BITS_PER_BYTE),
        sram_read_bytes=math.ceil((counters.neuron_reads + issued) * word / BITS_PER_BYTE) + offset_bytes,
        sram_write_bytes=math.ceil((layer.input_elements + layer.weight_elements + layer.output_elements) * word
                                   / BITS_PER_BYTE),
        actions=tuple(actions), metrics=MappingProxyType(metrics), operand_hashes=plan.operand_hashes)
