"""Low-bit array counters -> actions, bytes and metrics (energy applied afterwards from the table).

Actions: binary ``xnor`` and ``popcount`` of ``word_bits`` per word pair and an ``add_int`` of
the accumulator width per word (popcount into the accumulator); ternary / log2 an ``add_int``
per non-zero weight (log2 also a ``shift`` of the accumulator width); int-k a ``mult_int`` of k
bits and an accumulator ``add_int``; fp32 ``mult_fp`` + ``add_fp``; binary / ternary outputs one
``mult_fp`` (alpha, FP32; with ``activation_scale`` a second one for beta, and the binarizer's
FP32 ``add_fp`` per |x| summed); the binarizer a ``register_file`` write per packed word; weight and
input buffer reads in 64-bit words. No DRAM: the operands are taken to be on chip.
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.models.lowbit.counters import LowbitCounters
from accel_sim.models.lowbit.plan import FP_BITS, INT_BITS, LowbitPlan
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult

SRAM_WORD_BITS = 64   # buffer reads in 64-bit words (the Horowitz table's SRAM width)
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
    if c.binarized_words:
        actions.append(ActionCount("binarizer", "register_file", "write", c.binarized_words, spec.word_bits))
    return actions + [
        ActionCount("weight_buffer", "sram", "read", math.ceil(c.weight_read_bits / SRAM_WORD_BITS), SRAM_WORD_BITS,
                    spec.weight_buffer),
        ActionCount("input_buffer", "sram", "read", math.ceil(c.input_read_bits / SRAM_WORD_BITS), SRAM_WORD_BITS,
                    spec.input_buffer),
    ]


def peak_macs_per_cycle(plan: LowbitPlan) -> int:
    per_pe = plan.spec.word_bits if plan.precision == "binary" else plan.lanes
    return plan.spec.pes * per_pe


def account(plan: LowbitPlan, counters: LowbitCounters) -> LayerResult:
    layer = plan.layer
    metrics = {
        "binarize_cycles": float(counters.binarize_cycles), "drain_cycles": float(counters.drain_cycles),
        "idle_pe_cycles": float(counters.idle_pe_cycles), "passes": float(counters.passes),
        "macs_skipped": float(counters.macs_skipped), "weight_bits": float(plan.weight_bits),
    }
    return LayerResult(
        layer=layer.name, cycles=counters.cycles, compute_cycles=counters.cycles, stall_cycles=0,
        macs_dense=layer.macs, macs_issued=counters.macs_issued, peak_macs_per_cycle=peak_macs_per_cycle(plan),
        dram_read_bytes=0, dram_write_bytes=0,
        sram_read_bytes=math.ceil((counters.weight_read_bits + counters.input_read_bits) / BITS_PER_BYTE),
        sram_write_bytes=0, actions=tuple(_actions(plan, counters)), metrics=MappingProxyType(metrics),
        operand_hashes=plan.operand_hashes)
