"""Low-bit array counters -> actions, bytes and metrics (energy applied afterwards from the table).

Actions: binary ``xnor`` and ``popcount`` of ``word_bits`` per word pair and an ``add_int`` of
the accumulator width per word (popcount into the accumulator); ternary / log2 an ``add_int``
per non-zero weight (log2 also a ``shift`` of the accumulator width); int-k a ``mult_int`` of k
bits and an accumulator ``add_int``; fp32 ``mult_fp`` + ``add_fp``; binary / ternary outputs one
``mult_fp`` (alpha, FP32; with ``activation_scale`` a second one for beta, and the binarizer's
FP32 ``add_fp`` per |x| summed); a fused max-pool an ``add_int`` of the output width per compare (a
compare is a subtraction; FP32 values compare as sign-magnitude integers, binary signs by an OR,
charged as a 1-bit add); the binarizer a ``register_file`` write per packed word; weight,
input and output buffer reads and writes in 64-bit words (buffer writes: the loads from DRAM and
the outputs; output buffer reads: the drain to DRAM); DRAM reads and writes in 32-bit accesses
(the Horowitz table's DRAM width). Time: ``compute_cycles`` is the array's own time (binarize,
passes, drains), ``stall_cycles`` the cycles it waited on DRAM.
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.models.lowbit.counters import LowbitCounters
from accel_sim.models.lowbit.plan import FP_BITS, INT_BITS, LowbitPlan
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult

SRAM_WORD_BITS = 64   # buffer reads in 64-bit words (the Horowitz table's SRAM width)
DRAM_WORD_BITS = 32   # DRAM accesses in 32-bit words (the Horowitz table's DRAM width)
SCALE_BITS = 32       # XNOR-Net's alpha is applied in FP32
BITS_PER_BYTE = 8


def _actions(plan: LowbitPlan, c: LowbitCounters) -> list[ActionCount]:
    spec, acc = plan.spec, plan.spec.accumulator_bits
    actions = []
    if c.xnor_words:
        actions += [ActionCount("datapath", "xnor", "op", c.xnor_words, spec.word_bits),
                    ActionCount("datapath", "popcount", "op", c.xnor_words, spec.word_bits),
                    ActionCount("datapath", "add_int", "op", c.xnor_words, acc)]
    if c.adds:
        actions.append(ActionCount("datapath", "add_int", "op", c.adds, acc))
    if c.shifts:
        actions.append(ActionCount("datapath", "shift", "op", c.shifts, acc))
    if c.mults:
        actions += [ActionCount("datapath", "mult_int", "op", c.mults, INT_BITS[plan.precision]),
                    ActionCount("datapath", "add_int", "op", c.mults, acc)]
    if c.fp_macs:
        actions += [ActionCount("datapath", "mult_fp", "op", c.fp_macs, FP_BITS),
                    ActionCount("datapath", "add_fp", "op", c.fp_macs, FP_BITS)]
    if c.scale_mults:
        actions.append(ActionCount("scale", "mult_fp", "op", c.scale_mults, SCALE_BITS))
    if c.beta_adds:
        actions.append(ActionCount("binarizer", "add_fp", "op", c.beta_adds, SCALE_BITS))
    if c.pool_compares:
        actions.append(ActionCount("pool", "add_int", "op", c.pool_compares, plan.output_bits))
    if c.binarized_words:
        actions.append(ActionCount("binarizer", "register_file", "write", c.binarized_words, spec.word_bits))
    return actions + [
        _words("weight_buffer", "sram", "read", c.weight_read_bits, SRAM_WORD_BITS, spec.weight_buffer),
        _words("input_buffer", "sram", "read", c.input_read_bits, SRAM_WORD_BITS, spec.input_buffer),
        _words("weight_buffer", "sram", "write", c.weight_buffer_write_bits, SRAM_WORD_BITS, spec.weight_buffer),
        _words("input_buffer", "sram", "write", c.input_buffer_write_bits, SRAM_WORD_BITS, spec.input_buffer),
        _words("output_buffer", "sram", "write", c.output_buffer_write_bits, SRAM_WORD_BITS, spec.output_buffer),
        _words("output_buffer", "sram", "read", c.output_buffer_read_bits, SRAM_WORD_BITS, spec.output_buffer),
        _words("dram", "dram", "read", c.dram_read_bits, DRAM_WORD_BITS),
        _words("dram", "dram", "write", c.dram_write_bits, DRAM_WORD_BITS),
    ]


def _words(component: str, kind: str, action: str, bits: int, word_bits: int, capacity: int | None = None) -> ActionCount:
    """``bits`` moved as whole ``word_bits`` words."""
    words = math.ceil(bits / word_bits)
    if capacity is None:
        return ActionCount(component, kind, action, words, word_bits)
    return ActionCount(component, kind, action, words, word_bits, capacity)


def peak_macs_per_cycle(plan: LowbitPlan) -> int:
    per_pe = plan.spec.word_bits if plan.precision == "binary" else plan.lanes
    return plan.spec.pes * per_pe


def account(plan: LowbitPlan, counters: LowbitCounters) -> LayerResult:
    layer = plan.layer
    metrics = {
        "binarize_cycles": float(counters.binarize_cycles), "drain_cycles": float(counters.drain_cycles),
        "idle_pe_cycles": float(counters.idle_pe_cycles), "passes": float(counters.passes),
        "macs_skipped": float(counters.macs_skipped), "weight_bits": float(plan.weight_bits),
        "dram_busy_cycles": float(counters.dram_busy_cycles), "input_fits": float(plan.input_fits),
        "output_bits": float(plan.output_bits), "row_tiles": float(counters.row_tiles),
        "written_outputs": float(plan.written_rows * plan.column_elements.size),
    }
    stall = counters.memory_stall_cycles
    return LayerResult(
        layer=layer.name, cycles=counters.cycles, compute_cycles=counters.cycles - stall, stall_cycles=stall,
        macs_dense=layer.macs, macs_issued=counters.macs_issued, peak_macs_per_cycle=peak_macs_per_cycle(plan),
        dram_read_bytes=math.ceil(counters.dram_read_bits / BITS_PER_BYTE),
        dram_write_bytes=math.ceil(counters.dram_write_bits / BITS_PER_BYTE),
        sram_read_bytes=math.ceil((counters.weight_read_bits + counters.input_read_bits
                                   + counters.output_buffer_read_bits) / BITS_PER_BYTE),
        sram_write_bytes=math.ceil((counters.weight_buffer_write_bits + counters.input_buffer_write_bits
                                    + counters.output_buffer_write_bits) / BITS_PER_BYTE), actions=tuple(_actions(plan, counters)), metrics=MappingProxyType(metrics),
        operand_hashes=plan.operand_hashes)
