"""SCNN-family counters to a :class:`LayerResult`: actions (with their bit widths), bytes and metrics.

Applied to either path's counters. Widths (paper, Table 3): 16-bit operands, 24-bit partial
sums; an activation or weight stored compressed is an entry of value + 4-bit zero-run index
(Fig. 7); a weight-FIFO entry is F weights (with their indices when weights are skipped).
Multiplier energy is charged per product that switches a multiplier (DCNN-opt gates zero
operands); a Cartesian design's products each cross the crossbar and read-modify-write an
accumulator; the dense designs accumulate in place and write each output once (or, with
``dense_partial_sums: buffer``, read-modify-write a partial sum per I products). Bits moved
to and from buffers become entries per (conv group, image), DRAM bits become bytes.
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.results.components import Component
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.models.scnn.counters import SCNNCounters
from accel_sim.models.scnn.plan import Plan

BITS_PER_BYTE = 8


def operand_dram_bits(plan: Plan) -> int:
    """Bits of the layer's weights, inputs and outputs in their DRAM formats of the plan's cut, each
    counted once: the DRAM traffic no order of the passes can go below (no weight re-read, no spilled
    halo, no carried partial sum)."""
    view = plan.view
    return sum(int(plan.weight_dram_bits.sum()) + int(plan.output_dram_bits[b].sum())
               + sum(int(plan.input_dram_bits(b, g).sum()) for g in range(view.groups)) for b in range(view.batch))


def account(plan: Plan, counters: SCNNCounters) -> LayerResult:
    spec, traits, c = plan.spec, plan.traits, counters
    stall = c.input_load_stall_cycles + c.dram_stream_stall_cycles
    cycles = c.compute_cycles + stall
    peak = spec.pes * spec.multipliers_per_pe
    word, acc = plan.value_bits, spec.accumulator_bits
    act_bits = word + spec.index_bits if traits.skip_activations else word
    fifo_bits = spec.mult_f * (word + spec.index_bits if traits.skip_weights else word)
    iaram_writes = sum(bits // act_bits for bits in c.iaram_write_bits)
    oaram_writes = sum(bits // act_bits for bits in c.oaram_write_bits)
    iaram_cap, oaram_cap = spec.iaram_size, spec.oaram_size
    acc_reads, acc_writes = c.accumulator_reads, c.accumulator_writes
    if spec.dense_partial_sums == "buffer":   # DCNN, input stationary: a read-modify-write per I products
        acc_reads = acc_writes = -(-c.products // spec.mult_i)
    actions = (
        ActionCount("multipliers", "mult_int", "op", c.multiplier_ops, word),
        ActionCount("crossbar", "crossbar", "transfer", c.crossbar_transfers, acc),
        ActionCount("accumulator_banks", "add_int", "op", c.accumulator_adds, acc),
        ActionCount("accumulator_banks", "register_file", "read", acc_reads, acc),
        ActionCount("accumulator_banks", "register_file", "write", acc_writes, acc),
        ActionCount("iaram", "sram", "read", c.iaram_reads, act_bits, iaram_cap),
        ActionCount("iaram", "sram", "write", iaram_writes, act_bits, iaram_cap),
        ActionCount("oaram", "sram", "write", oaram_writes, act_bits, oaram_cap),
        ActionCount("weight_fifo", "register_file", "read", c.weight_fifo_reads, fifo_bits),
        ActionCount("weight_fifo", "register_file", "write", c.weight_fifo_writes, fifo_bits),
        ActionCount("halo_links", "link", "transfer", c.halo_link_words, acc),
        ActionCount("ppu", "add_int", "op", c.ppu_outputs, acc),
        ActionCount("dram", "dram", "read", math.ceil(c.dram_read_bits / BITS_PER_BYTE), BITS_PER_BYTE),
        ActionCount("dram", "dram", "write", math.ceil(c.dram_write_bits / BITS_PER_BYTE), BITS_PER_BYTE),
    )
    if c.psum_oaram_words:
        actions += (ActionCount("oaram", "sram", "write", c.psum_oaram_words, acc, oaram_cap),
                    ActionCount("oaram", "sram", "read", c.psum_oaram_words, acc, oaram_cap))
    multiplier_cycles = cycles * peak
    metrics = {
        "products_issued": float(c.products),
        "steps": float(c.steps),
        "multiplier_utilization": c.products / multiplier_cycles if multiplier_cycles else 0.0,
        "useful_utilization": c.macs_issued / multiplier_cycles if multiplier_cycles else 0.0,
        "intra_pe_utilization": (c.products / (c.pe_busy_cycles * spec.multipliers_per_pe)
                                 if c.pe_busy_cycles else 0.0),
        "barrier_idle_fraction": (c.barrier_idle_cycles / (c.group_cycles * spec.pes) if c.group_cycles else 0.0),
        "bank_conflict_cycles": float(c.bank_conflict_cycles),
        "kc": float(plan.tiling.kc),
        "output_groups": float(plan.tiling.out_groups),
        "temporal_tiles": float(plan.tiling.temporal_tiles),
        "channel_chunks": float(plan.tiling.channel_chunks),
        "weight_fifo_overflow_blocks": float(c.weight_fifo_overflow_blocks),
        "halo_link_words": float(c.halo_link_words),
        "spilled_partial_sums": float(c.spilled_partial_sums),
        "dram_bits": float(c.dram_read_bits + c.dram_write_bits),
        "operand_dram_bits": float(operand_dram_bits(plan)),
    }
    sram_read_bits = c.iaram_reads * act_bits + c.psum_oaram_words * acc
    sram_write_bits = (iaram_writes + oaram_writes) * act_bits + c.psum_oaram_words * acc
    return LayerResult(
        layer=plan.layer.name, cycles=cycles, compute_cycles=c.compute_cycles, stall_cycles=stall,
        macs_dense=plan.layer.macs, macs_issued=c.macs_issued, peak_macs_per_cycle=peak,
        dram_read_bytes=math.ceil(c.dram_read_bits / BITS_PER_BYTE),
        dram_write_bytes=math.ceil(c.dram_write_bits / BITS_PER_BYTE),
        sram_read_bytes=math.ceil(sram_read_bits / BITS_PER_BYTE),
        sram_write_bytes=math.ceil(sram_write_bits / BITS_PER_BYTE),
        actions=actions, metrics=MappingProxyType(metrics), operand_hashes=plan.operand_hashes)


def components(arch: ArchBase) -> tuple[Component, ...]:
    """The chip's blocks for area and leakage, per PE as the paper's Table 4 breakdown lists them:
    IARAM and OARAM, the weight FIFO (entries of F weights with their indices), the F x I
    multipliers, the F*I x A scatter crossbar (Cartesian designs only), and the A accumulator banks
    (double-buffered registers with an adder each). The PPU, halo links and control ("other" in
    the paper) are not listed."""
    spec = arch.section("scnn")
    pes, word, acc = spec.pes, arch.word_bits, spec.accumulator_bits
    blocks = [
        Component("iaram", "sram", pes, word, spec.iaram_size),
        Component("oaram", "sram", pes, word, spec.oaram_size),
        Component("weight_fifo", "register", pes, spec.weight_fifo_entries * spec.mult_f * (word + spec.index_bits)),
        Component("multipliers", "mult_int", pes * spec.multipliers_per_pe, word),
        Component("accumulator_banks", "register", pes, 2 * spec.accumulator_banks * spec.accumulator_entries * acc),
        Component("accumulator_banks", "add_int", pes * spec.accumulator_banks, acc),
    ]
    if spec.design.startswith("scnn"):
        blocks.append(Component("crossbar", "crossbar", pes, acc, ports=spec.multipliers_per_pe * spec.accumulator_banks))
    return tuple(blocks)
