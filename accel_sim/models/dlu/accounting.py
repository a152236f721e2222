"""DLU counters -> actions, bytes and metrics (energy is applied afterwards from the arch's table).

Actions counted:

- MACs per data type (:func:`mac_actions`): float ``mult_fp`` + ``add_fp`` (FP32 accumulate);
  fixed point ``mult_int`` at the data width + ``add_int`` at ``accumulator_bits``; binary one
  ``xnor`` + one ``popcount`` bit; ternary two of each (non-zero mask and sign planes). Binary
  and ternary outputs are scaled once (``mult_fp``, 32 bit: XNOR-Net's alpha).
- narrowing each fixed-point result to the data type: a rounding add (``add_int``, accumulator
  width) and a saturation compare (``add_int``, data width); stochastic rounding also clocks a
  random source of ``accumulator_bits - bits`` bits (an LFSR: counted as a ``register_file``
  write of that width).
- statistics block per result: a ``leading_bit_detector`` of the accumulator width and one
  histogram counter increment (``add_int``, ``histogram_counter_bits``); per readout (one per
  group) the ``register_file`` reads of every counter of every unit, the ``add_int`` that sum
  the units, and the settings-block write of the new point (``register_file`` write, 8 bits).
- a lane's registers and control, the overhead it shares across the operations packed into it
  (:func:`lane_overhead_actions`): per lane operation (one cycle of one ``lane_bits`` lane,
  ``ops_per_lane`` MACs) the two packed operand words read from the ``register_file`` at ``lane_bits``
  (the FMA form d = a x b + c, as a SIMD register file serves it); per MAC the partial sum c read
  and d written at the accumulator width (binary / ternary: one popcount accumulator per lane
  operation); per ``simd_lanes`` lane operations one ``register_file`` read of the element's
  ``INSTRUCTION_BITS`` instruction word (control).
- on-chip memory: tile operand reads (broadcast to the lanes), fills from DRAM; DRAM reads of
  operands and writes of results, at the data width (FP32 for fp32).

Public data for studies: :func:`mac_actions` (the actions of one MAC), :data:`COMPUTE_COMPONENTS`
and :data:`MEMORY_COMPONENTS` (the components of the actions above, by kind).
"""
from __future__ import annotations

from types import MappingProxyType
from typing import NamedTuple

from accel_sim.models.dlu.counters import DLUCounters
from accel_sim.models.dlu.plan import BITS_PER_BYTE, DLUPlan, bytes_of
from accel_sim.models.dlu.spec import DLUSpec
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult

FLOAT_ACCUMULATOR_BITS = 32   # FP16 / FP32 products accumulate in FP32 (common mixed-precision practice)
OPERAND_WORDS = 2             # a and b of d = a x b + c: two packed operand words read per lane operation
# estimate: one instruction word per element and cycle, broadcast to its SIMD lanes, read from a
# register (the DLU's instruction format is not published; 32 bits as a RISC instruction word)
INSTRUCTION_BITS = 32
SETTINGS_REGISTER_BITS = 8    # one point position per tensor in the settings block
BINARY_SCALE_BITS = 32        # XNOR-Net's per-output scale alpha, applied in FP32
COMPUTE_COMPONENTS = ("datapath", "registers", "control", "requantize", "statistics", "settings")
MEMORY_COMPONENTS = ("local_memory", "dram")


class MacAction(NamedTuple):
    """One energy-table action of a MAC: ``per_mac`` of ``component_class`` / ``action`` at ``bits``."""

    component_class: str
    action: str
    bits: int
    per_mac: int


def mac_actions(spec: DLUSpec) -> tuple[MacAction, ...]:
    """The datapath actions one MAC of ``spec``'s data type costs."""
    if spec.is_fixed_point:
        return MacAction("mult_int", "op", spec.bits, 1), MacAction("add_int", "op", spec.accumulator_bits, 1)
    if spec.data_type in ("fp32", "fp16"):
        return MacAction("mult_fp", "op", spec.bits, 1), MacAction("add_fp", "op", FLOAT_ACCUMULATOR_BITS, 1)
    planes = 2 if spec.data_type == "ternary" else 1   # ternary: non-zero mask and sign planes
    return MacAction("xnor", "op", 1, planes), MacAction("popcount", "op", 1, planes)


def lane_operations(spec: DLUSpec, macs: int) -> int:
    """Cycles of one ``lane_bits`` lane that ``macs`` MACs take (``ops_per_lane`` MACs packed in each)."""
    return -(-macs // spec.ops_per_lane)


def lane_overhead_actions(spec: DLUSpec, macs: int) -> list[ActionCount]:
    """The registers and control of the lane operations ``macs`` MACs take (module doc)."""
    lane_ops = lane_operations(spec, macs)
    float_type = spec.data_type in ("fp32", "fp16")
    acc = FLOAT_ACCUMULATOR_BITS if float_type else spec.accumulator_bits
    partial_sums = lane_ops if spec.data_type in ("binary", "ternary") else macs
    return [ActionCount("registers", "register_file", "read", OPERAND_WORDS * lane_ops, spec.lane_bits),
            ActionCount("registers", "register_file", "read", partial_sums, acc),
            ActionCount("registers", "register_file", "write", partial_sums, acc),
            ActionCount("control", "register_file", "read", -(-lane_ops // spec.simd_lanes), INSTRUCTION_BITS)]


def _actions(plan: DLUPlan, c: DLUCounters) -> list[ActionCount]:
    spec = plan.spec
    bits, acc, outputs = spec.bits, spec.accumulator_bits, c.output_words
    fills = c.input_fill_words + c.weight_fill_words
    actions = [ActionCount("datapath", m.component_class, m.action, c.macs * m.per_mac, m.bits)
               for m in mac_actions(spec)]
    actions += lane_overhead_actions(spec, c.macs)
    if spec.is_fixed_point:
        actions += [ActionCount("requantize", "add_int", "op", outputs, acc),
                    ActionCount("requantize", "add_int", "op", outputs, bits)]
        if spec.rounding == "stochastic":
            actions.append(ActionCount("requantize", "register_file", "write", outputs, acc - bits))
    elif spec.data_type in ("binary", "ternary"):
        actions.append(ActionCount("datapath", "mult_fp", "op", outputs, BINARY_SCALE_BITS))
    if plan.statistics:
        counters, units, counter_bits = plan.histogram_counters, spec.processing_units, spec.histogram_counter_bits
        actions += [ActionCount("statistics", "leading_bit_detector", "op", c.statistics_results, acc),
                    ActionCount("statistics", "add_int", "op", c.statistics_results, counter_bits),
                    ActionCount("statistics", "register_file", "read", counters * c.histogram_readouts, counter_bits),
                    ActionCount("statistics", "add_int", "op",
                                counters // units * (units - 1) * c.histogram_readouts, counter_bits),
                    ActionCount("settings", "register_file", "write", c.histogram_readouts, SETTINGS_REGISTER_BITS)]
    wbits = plan.stored_weight_bits
    # fills at their stored widths (one action when weights are not quantized below the data type)
    stored = ([(fills, bits)] if wbits == bits else [(c.input_fill_words, bits), (c.weight_fill_words, wbits)])
    return actions + [
        ActionCount("local_memory", "sram", "read", c.operand_reads, bits, spec.local_memory),
        *(ActionCount("local_memory", "sram", "write", words, width, spec.local_memory) for words, width in stored),
        *(ActionCount("dram", "dram", "read", words, width) for words, width in stored),
        ActionCount("dram", "dram", "write", outputs, bits),
    ]


def account(plan: DLUPlan, counters: DLUCounters) -> LayerResult:
    spec, tiling, layer = plan.spec, plan.tiling, plan.layer
    dram_read = int(-(-(counters.input_fill_words * spec.bits + counters.weight_fill_words * plan.stored_weight_bits)
                      // BITS_PER_BYTE))
    metrics = {
        "lanes": float(spec.lanes), "tiles": float(counters.tiles),
        "block_rows": float(tiling.block_rows), "block_cols": float(tiling.block_cols),
        "chunk": float(tiling.chunk), "inputs_resident": float(tiling.inputs_resident),
        "weights_resident": float(tiling.weights_resident),
        "statistics_results": float(counters.statistics_results),
        "lane_operations": float(lane_operations(spec, counters.macs)),
        "histogram_readout_cycles": float(counters.readout_cycles),
    }
    return LayerResult(
        layer=layer.name, cycles=counters.cycles, compute_cycles=counters.compute_cycles,
        stall_cycles=counters.load_stall_cycles + counters.writeback_stall_cycles,
        macs_dense=layer.macs, macs_issued=counters.macs, peak_macs_per_cycle=spec.lanes,
        dram_read_bytes=dram_read, dram_write_bytes=int(bytes_of(counters.output_words, spec.bits)),
        sram_read_bytes=int(bytes_of(counters.operand_reads, spec.bits)), sram_write_bytes=dram_read,
        actions=tuple(_actions(plan, counters)), metrics=MappingProxyType(metrics))
