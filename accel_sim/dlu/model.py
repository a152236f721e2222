"""DLU-style dynamic fixed-point processor: one layer in, one :class:`LayerResult` out.

Two implementations give identical cycle counts: :func:`simulate_layer` (tile arrays and
the closed-form lock-step pipeline of :mod:`accel_sim.dlu.timing`) and
:func:`simulate_layer_reference` (the per-tile SimPy pipeline of :mod:`accel_sim.dlu.reference`).
Tiling: :mod:`accel_sim.dlu.tiling`. The datapath is dense: every MAC of the layer is issued
(zeros included), so cycles and counts do not depend on operand values; the numerics of the
statistics block live in :mod:`accel_sim.dlu.statistics` and
:mod:`accel_sim.dlu.dynamic_fixed_point`, driven by a real training run (:mod:`accel_sim.nn`).

Actions counted (energy is applied afterwards from the arch's table):

- MACs per data type (:data:`MAC_ACTIONS`): float ``mult_fp`` + ``add_fp`` (FP32 accumulate);
  fixed point ``mult_int`` at the data width + ``add_int`` at ``accumulator_bits``; binary one
  ``xnor`` + one ``popcount`` bit; ternary two of each (non-zero mask and sign planes). Binary
  and ternary outputs are scaled once (``mult_fp``, 32 bit: XNOR-Net's alpha).
- narrowing each fixed-point result to the data type: a rounding add (``add_int``, accumulator
  width) and a saturation compare (``add_int``, data width); stochastic rounding also clocks a
  random source of ``accumulator_bits - bits`` bits (an LFSR: counted as a ``register_file``
  write of that width).
- statistics block per result: a ``leading_bit_detector`` of the accumulator width and one
  histogram counter increment (``add_int``, ``histogram_counter_bits``); per layer the readout
  (``register_file`` reads of every counter of every unit, ``add_int`` to sum the units) and
  the settings-block write of the new point (``register_file`` write, 8 bits).
- on-chip memory: tile operand reads (broadcast to the lanes), fills from DRAM; DRAM reads of
  operands and writes of results, at the data width (FP32 for fp32).
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.arch.spec import ArchSpec
from accel_sim.dlu.spec import DLUSpec
from accel_sim.dlu.tiling import BITS_PER_BYTE, Tiling, plan_tiling, tile_arrays
from accel_sim.dlu.timing import GroupTiming, StageParameters, bytes_of, lockstep_timing, readout_cycles
from accel_sim.errors import SimulationError
from accel_sim.results.counts import ActionCount
from accel_sim.results.layer_result import LayerResult
from accel_sim.workload.layer import Layer

FLOAT_ACCUMULATOR_BITS = 32   # FP16 / FP32 products accumulate in FP32 (common mixed-precision practice)
SETTINGS_REGISTER_BITS = 8    # one point position per tensor in the settings block
BINARY_SCALE_BITS = 32        # XNOR-Net's per-output scale alpha, applied in FP32
# data type -> ((component class, action, bits or None for the data width, count per MAC), ...)
MAC_ACTIONS = {
    "fp32": (("mult_fp", "op", None, 1), ("add_fp", "op", FLOAT_ACCUMULATOR_BITS, 1)),
    "fp16": (("mult_fp", "op", None, 1), ("add_fp", "op", FLOAT_ACCUMULATOR_BITS, 1)),
    "binary": (("xnor", "op", 1, 1), ("popcount", "op", 1, 1)),
    "ternary": (("xnor", "op", 1, 2), ("popcount", "op", 1, 2)),
}


def dlu_spec(arch: ArchSpec) -> DLUSpec:
    return arch.section("dlu")


def statistics_on(spec: DLUSpec) -> bool:
    return spec.statistics and spec.is_fixed_point


def histogram_counters(spec: DLUSpec) -> int:
    """Counters of all units' statistics stores: one per accumulator bit position (x2 split by sign)."""
    return spec.processing_units * spec.accumulator_bits * (2 if spec.split_by_sign else 1)


def stage_parameters(arch: ArchSpec) -> StageParameters:
    spec = dlu_spec(arch)
    on = statistics_on(spec)
    return StageParameters(
        operand_bits=spec.bits, output_bits=spec.bits,
        dram_bytes_per_cycle=arch.dram.bandwidth if arch.dram.bandwidth_mode == "user" else None,
        dram_latency=arch.dram.latency, units=spec.processing_units, statistics=on,
        stats_results_per_cycle=spec.stats_results_per_cycle, stats_latency=spec.stats_latency,
        readout_cycles=readout_cycles(histogram_counters(spec), spec.readout_words_per_cycle) if on else 0)


def layer_tiling(arch: ArchSpec, layer: Layer) -> Tiling:
    spec = dlu_spec(arch)
    capacity_bits = spec.processing_units * spec.local_memory * BITS_PER_BYTE
    return plan_tiling(layer.gemm(), spec.lanes, capacity_bits, spec.bits)


def cycle_budget(tiling: Tiling, p: StageParameters) -> int:
    """A bound no correct run of one group exceeds: every stage of every step serialised."""
    words = (tiling.block_rows + tiling.block_cols) * tiling.chunk
    load = p.dram_latency + math.ceil(int(bytes_of(words, p.operand_bits)) / (p.dram_bytes_per_cycle or math.inf))
    drain = (p.stats_latency + tiling.block_rows * tiling.block_cols
             + math.ceil(int(bytes_of(tiling.block_rows * tiling.block_cols, p.output_bits))
                         / (p.dram_bytes_per_cycle or math.inf)))
    return (tiling.tiles + 2) * (load + tiling.chunk + drain) + p.readout_cycles


def _actions(arch: ArchSpec, layer: Layer, tiling: Tiling, p: StageParameters) -> tuple[list[ActionCount], dict]:
    spec = dlu_spec(arch)
    groups = layer.gemm().groups
    tiles = tile_arrays(tiling)
    macs = int((tiles.rows * tiles.cols * tiles.chunk).sum()) * groups
    outputs = tiling.m * tiling.n * groups
    operand_reads = int(((tiles.rows + tiles.cols) * tiles.chunk).sum()) * groups
    fills = int((tiles.input_words + tiles.weight_words).sum()) * groups
    bits, acc = spec.bits, spec.accumulator_bits
    memory = spec.local_memory
    actions: list[ActionCount] = []
    if spec.is_fixed_point:
        actions += [ActionCount("datapath", "mult_int", "op", macs, bits),
                    ActionCount("datapath", "add_int", "op", macs, acc),
                    ActionCount("requantize", "add_int", "op", outputs, acc),
                    ActionCount("requantize", "add_int", "op", outputs, bits)]
        if spec.rounding == "stochastic":
            actions.append(ActionCount("requantize", "register_file", "write", outputs, acc - bits))
    else:
        for component_class, action, width, per_mac in MAC_ACTIONS[spec.data_type]:
            actions.append(ActionCount("datapath", component_class, action, macs * per_mac, width or bits))
        if spec.data_type in ("binary", "ternary"):
            actions.append(ActionCount("datapath", "mult_fp", "op", outputs, BINARY_SCALE_BITS))
    readouts = groups if p.statistics else 0
    if p.statistics:
        counters = histogram_counters(spec)
        actions += [ActionCount("statistics", "leading_bit_detector", "op", outputs, acc),
                    ActionCount("statistics", "add_int", "op", outputs, spec.histogram_counter_bits),
                    ActionCount("statistics", "register_file", "read", counters * readouts,
                                spec.histogram_counter_bits),
                    ActionCount("statistics", "add_int", "op",
                                counters // spec.processing_units * (spec.processing_units - 1) * readouts,
                                spec.histogram_counter_bits),
                    ActionCount("settings", "register_file", "write", readouts, SETTINGS_REGISTER_BITS)]
    actions += [
        ActionCount("local_memory", "sram", "read", operand_reads, bits, memory),
        ActionCount("local_memory", "sram", "write", fills, bits, memory),
        ActionCount("dram", "dram", "read", fills, bits),
        ActionCount("dram", "dram", "write", outputs, p.output_bits),
    ]
    counts = {"macs": macs, "outputs": outputs, "operand_reads": operand_reads, "fills": fills,
              "statistics_results": outputs if p.statistics else 0, "histogram_readouts": readouts}
    return actions, counts


def _result(arch: ArchSpec, layer: Layer, tiling: Tiling, p: StageParameters, group: GroupTiming,
            max_cycles: int | None) -> LayerResult:
    spec = dlu_spec(arch)
    groups = layer.gemm().groups
    budget = max_cycles if max_cycles is not None else cycle_budget(tiling, p) * groups
    cycles = group.cycles * groups
    if cycles > budget:
        raise SimulationError(f"{layer.name}: {cycles} cycles exceed the max_cycles guard {budget}")
    actions, counts = _actions(arch, layer, tiling, p)
    dram_read = int(bytes_of(counts["fills"], spec.bits))
    metrics = {
        "lanes": float(spec.lanes), "tiles": float(group.tiles * groups),
        "block_rows": float(tiling.block_rows), "block_cols": float(tiling.block_cols),
        "chunk": float(tiling.chunk), "inputs_resident": float(tiling.inputs_resident),
        "weights_resident": float(tiling.weights_resident),
        "statistics_results": float(counts["statistics_results"]),
        "histogram_readout_cycles": float(p.readout_cycles * groups),
    }
    return LayerResult(
        layer=layer.name, cycles=cycles, compute_cycles=group.compute_cycles * groups,
        stall_cycles=(group.cycles - group.compute_cycles) * groups,
        macs_dense=layer.macs, macs_issued=counts["macs"], peak_macs_per_cycle=spec.lanes,
        dram_read_bytes=dram_read, dram_write_bytes=int(bytes_of(counts["outputs"], p.output_bits)),
        sram_read_bytes=int(bytes_of(counts["operand_reads"], spec.bits)), sram_write_bytes=dram_read,
        actions=tuple(actions), metrics=MappingProxyType(metrics))


def simulate_layer(arch: ArchSpec, layer: Layer, max_cycles: int | None = None) -> LayerResult:
    """Fast path: vectorised tile arrays and the closed-form lock-step pipeline."""
    tiling = layer_tiling(arch, layer)
    p = stage_parameters(arch)
    return _result(arch, layer, tiling, p, lockstep_timing(tile_arrays(tiling), p), max_cycles)


def simulate_layer_reference(arch: ArchSpec, layer: Layer, max_cycles: int | None = None,
                             log: list[tuple[str, int, int]] | None = None) -> LayerResult:
    """Per-tile SimPy reference (slow; same results as :func:`simulate_layer`)."""
    from accel_sim.dlu.reference import reference_timing

    tiling = layer_tiling(arch, layer)
    p = stage_parameters(arch)
    groups = layer.gemm().groups
    budget = max_cycles if max_cycles is not None else cycle_budget(tiling, p) * groups
    group = reference_timing(tiling, p, budget // groups, log)
    return _result(arch, layer, tiling, p, group, budget)
