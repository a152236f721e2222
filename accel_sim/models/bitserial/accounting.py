"""Bit-serial counters -> actions and bytes.

As in DaDianNao, activations live in the central neuron memory and weights in the tiles' synapse
buffers; each operand is read from DRAM once and the outputs written once. Each step broadcasts its
activation line(s) to the tiles and each issuing tile reads its filters' weights. The processing
elements are costed per PE-cycle (``serial_cycles``): a bit-parallel DaDianNao PE does ``lanes``
word x word multiplies and adds them into its partial sum each cycle; a bit-serial inner-product unit
ANDs ``lanes`` single bits with their weights, sums them (costed as one ``lanes``-bit add: estimate, an
adder tree of ``lanes`` narrow inputs) and shift-accumulates the sum into its partial sum (one add of
``accumulator_bits``), each cycle; a Bit Fusion PE runs its ``bricks`` BitBricks (2-bit multiplies) and
one shift-add of ``accumulator_bits`` each cycle. The energies are the table's ``mult_int`` / ``add_int`` entries.
With ``packed_storage`` the weights and activations cross DRAM and the buffers at the layer's precision,
packed into words (:meth:`BitSerialPlan.stored_words`; the buffer reads are the counters' ``*_words``);
outputs are written to the neuron memory and DRAM at ``output_bits`` (the counters' ``output_words``:
ceil(output_bits / word_bits) words each). Every access is one ``word_bits`` access of the energy table.
Bit-Tactical skips the products of demoted zero weights: ``macs_skipped`` = dense - issued.
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.models.bitserial.counters import BitSerialCounters
from accel_sim.models.bitserial.plan import BitSerialPlan

BITS_PER_BYTE = 8


def account(plan: BitSerialPlan, counters: BitSerialCounters) -> LayerResult:
    spec, layer, word = plan.spec, plan.layer, plan.arch.word_bits
    dense, issued = layer.macs, counters.macs_issued
    parallel = spec.design == "dadiannao"
    products = counters.serial_cycles * (spec.lanes if parallel else 1)
    pe_op = (ActionCount("pe_array", "mult_int", "op", products, word) if parallel
             else ActionCount("pe_array", "mult_int", "op", counters.serial_cycles * spec.bricks, spec.brick_bits)
             if spec.design == "bitfusion"
             else ActionCount("pe_array", "add_int", "op", counters.serial_cycles, spec.lanes))
    input_words = plan.stored_words(layer.input_elements, plan.act_bits)
    weight_words = plan.stored_words(layer.weight_elements, plan.wgt_bits)
    output_words = counters.output_words
    actions = (
        ActionCount("dram", "dram", "read", input_words + weight_words, word),
        ActionCount("dram", "dram", "write", output_words, word),
        ActionCount("neuron_memory", "sram", "write", input_words + output_words, word,
                    spec.neuron_memory_size),
        ActionCount("neuron_memory", "sram", "read", counters.activation_words, word, spec.neuron_memory_size),
        ActionCount("synapse_buffer", "sram", "write", weight_words, word, spec.synapse_buffer_size),
        ActionCount("synapse_buffer", "sram", "read", counters.weight_words, word, spec.synapse_buffer_size),
        pe_op,
        ActionCount("pe_array", "add_int", "op", products, spec.accumulator_bits),
    )
    metrics = {
        "macs_skipped": float(dense - issued),
        "steps": float(counters.steps),
        "pe_utilization": counters.pe_steps / (counters.pe_steps + counters.idle_pe_steps)
        if counters.pe_steps else 0.0,
        "cycles_per_step": counters.cycles / counters.steps if counters.steps else 0.0,
        "activation_bits": float(plan.act_bits),
        "weight_bits": float(plan.wgt_bits),
    }
    peak = spec.dense_macs_per_cycle if parallel else spec.dense_macs_per_cycle // spec.pe_width
    if spec.design == "bitfusion":   # products per cycle at the layer's fused precisions
        peak = spec.dense_macs_per_cycle // plan.fusion_cycles
    return LayerResult(
        layer=layer.name, cycles=counters.cycles, compute_cycles=counters.cycles, stall_cycles=0,
        macs_dense=dense, macs_issued=issued, peak_macs_per_cycle=max(1, peak),
        dram_read_bytes=math.ceil((input_words + weight_words) * word / BITS_PER_BYTE),
        dram_write_bytes=math.ceil(output_words * word / BITS_PER_BYTE),
        sram_read_bytes=math.ceil((counters.activation_words + counters.weight_words) * word / BITS_PER_BYTE),
        sram_write_bytes=math.ceil((input_words + weight_words + output_words) * word / BITS_PER_BYTE),
        actions=actions, metrics=MappingProxyType(metrics), operand_hashes=plan.operand_hashes)
