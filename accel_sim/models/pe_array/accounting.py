"""PE-array counters -> actions and bytes.

Actions: DRAM reads (weights + inputs, words) and writes (outputs); the weight buffer is
written what DRAM delivers and read once per pixel tile; the input buffer is written what
DRAM delivers and read into the column register files; the output buffer is written and read
once per output. Multipliers: ``op`` per issued MAC (with an accumulator add), ``gated`` per
gated MAC and N:M padding slot, ``skip`` per MAC never issued. Every level but ``none`` counts
one index-decoder action per chunk (the width of a chunk's indices / metadata);
``reassignment`` counts the crossbar's weight and partial-sum transfers.

MAC accounting: ``macs_issued`` are the MACs the multipliers performed (dense levels: all;
others: both operands non-zero); ``metrics['macs_gated']`` MACs reaching a gated
multiplier, ``metrics['macs_skipped']`` MACs never issued; issued + gated + skipped = dense.
(``LayerResult.macs_skipped`` is dense - issued = gated + skipped.) N:M slots that fall on
the zero padding past the reduction length cost gated multiplier actions but are not MACs
of the layer.
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.models.pe_array.counters import PEArrayCounters
from accel_sim.models.pe_array.plan import PEArrayPlan
from accel_sim.models.pe_array.plan.decoder import chunk_index_bits
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult

BITS_PER_BYTE = 8


def _words(bits: int, word: int) -> int:
    return math.ceil(bits / word)


def _bytes(bits: int) -> int:
    return math.ceil(bits / BITS_PER_BYTE)


def account(plan: PEArrayPlan, counters: PEArrayCounters) -> LayerResult:
    spec, layer, word, acc = plan.spec, plan.layer, plan.arch.word_bits, plan.spec.accumulator_bits
    c = counters
    weight_dram, input_dram = _words(c.weight_dram_bits, word), _words(c.input_dram_bits, word)
    actions = [
        ActionCount("dram", "dram", "read", weight_dram + input_dram, word),
        ActionCount("dram", "dram", "write", c.output_words, word),
        ActionCount("weight_sram", "sram", "write", weight_dram, word, spec.weight_sram_size),
        ActionCount("weight_sram", "sram", "read", _words(c.weight_sram_read_bits, word), word, spec.weight_sram_size),
        ActionCount("input_sram", "sram", "write", input_dram, word, spec.input_sram_size),
        ActionCount("input_sram", "sram", "read", c.input_sram_read_words, word, spec.input_sram_size),
        ActionCount("activation_rf", "register_file", "write", c.input_sram_read_words, word),
        ActionCount("activation_rf", "register_file", "read", c.activation_rf_reads, word),
        ActionCount("output_sram", "sram", "write", c.output_words, word, spec.output_sram_size),
        ActionCount("output_sram", "sram", "read", c.output_words, word, spec.output_sram_size),
        ActionCount("pe_array", "mult_int", "op", c.macs_issued, word),
        ActionCount("pe_array", "add_int", "op", c.macs_issued, acc),
        ActionCount("pe_array", "mult_int", "gated", c.macs_gated + c.nm_padding_slots, word),
        ActionCount("pe_array", "mult_int", "skip", c.macs_skipped, word),
    ]
    if spec.compressed:
        actions.append(ActionCount("index_decoder", "index_decoder", "decode", c.decoder_chunks,
                                   chunk_index_bits(spec, plan.groups[-1].k)))
    if spec.sparsity_support == "reassignment":
        actions += [ActionCount("crossbar", "crossbar", "transfer", c.crossbar_weights, word),
                    ActionCount("crossbar", "crossbar", "transfer", c.crossbar_psums, acc)]
    metrics = {
        "macs_gated": float(c.macs_gated),
        "macs_skipped": float(c.macs_skipped),
        "macs_reassigned": float(c.macs_reassigned),
        "nm_padding_slots": float(c.nm_padding_slots),
        "filter_tiles": float(c.filter_tiles),
        "pixel_tiles": float(c.pixel_tiles),
        "decoder_chunks": float(c.decoder_chunks),
        "weight_storage_bits": float(sum(g.weight_bits for g in plan.groups)),
        "weight_index_bits": float(sum(g.index_bits for g in plan.groups)),
        "dram_cycles": float(c.dram_cycles),
        "crossbar_transfers": float(c.crossbar_weights + c.crossbar_psums),
    }
    return LayerResult(
        layer=layer.name, cycles=c.cycles, compute_cycles=c.compute_cycles, stall_cycles=c.cycles - c.compute_cycles,
        macs_dense=layer.macs, macs_issued=c.macs_issued, peak_macs_per_cycle=spec.rows * spec.cols * spec.vector_width,
        dram_read_bytes=_bytes(c.weight_dram_bits) + _bytes(c.input_dram_bits),
        dram_write_bytes=_bytes(c.output_words * word),
        sram_read_bytes=_bytes(c.weight_sram_read_bits) + _bytes((c.input_sram_read_words + c.output_words) * word),
        sram_write_bytes=_bytes(c.weight_dram_bits) + _bytes((input_dram + c.output_words) * word),
        actions=tuple(actions), metrics=MappingProxyType(metrics), operand_hashes=plan.operand_hashes)
