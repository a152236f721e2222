"""Cnvlutin (Albericio et al., ISCA 2016) and its DaDianNao-like dense baseline, per layer.

``cnvlutin.zero_skipping`` switches between the two on the same machine (``units`` x
``neuron_lanes`` x ``filters_per_unit`` multipliers): the per-cycle rules are in
:mod:`accel_sim.cnvlutin.bricks`. Every unit sees the same window's neurons and computes
its own ``filters_per_unit`` filters, so a layer runs ``ceil(filters / (units x
filters_per_unit))`` passes over its windows (per group). Two implementations give
identical cycles: :func:`simulate_layer` (vectorised over windows) and
:func:`simulate_layer_reference` (per-cycle, one window at a time).

MACs: the baseline issues every MAC (zeros included); Cnvlutin issues the MACs of non-zero
activations only (zero weights are multiplied: Cnvlutin skips activations, not weights);
``metrics['macs_skipped']`` = dense - issued; nothing is gated.

Memory: as in DaDianNao, activations live in the central neuron memory and weights in the
units' synapse buffers; each operand is read from DRAM once and the outputs written once
(the same for both). With ``dram.bandwidth_mode: user`` the layer takes at least the DRAM
transfer time (streams overlap compute). Cnvlutin reads, per non-zero neuron, its value
and its ``log2(neuron_lanes)``-bit offset; the baseline reads every brick slot.
"""
from __future__ import annotations

import math
from types import MappingProxyType

import numpy as np

from accel_sim.arch.spec import ArchSpec
from accel_sim.cnvlutin import bricks
from accel_sim.cnvlutin.spec import CnvlutinSpec
from accel_sim.results.counts import ActionCount
from accel_sim.results.layer_result import LayerResult
from accel_sim.workload.layer import Layer
from accel_sim.workload.operands import layer_operands

BITS_PER_BYTE = 8


def _spec(arch: ArchSpec) -> CnvlutinSpec:
    return arch.section("cnvlutin")


def _group_window_cycles(spec: CnvlutinSpec, nnz: np.ndarray, slice_depth: int, geometry, out,
                         reference: bool) -> int:
    """Cycles of one pass over every window of a group."""
    r_max, s_max = geometry[:2]
    if not spec.zero_skipping:
        per_window = r_max * s_max * slice_depth
        windows = nnz.shape[0] * out[0] * out[1]
        if reference:
            from accel_sim.cnvlutin.reference import dense_window_cycles_reference
            return sum(dense_window_cycles_reference(per_window) for _ in range(windows))
        return per_window * windows
    if reference:
        from accel_sim.cnvlutin.reference import window_cycles_reference
        return sum(window_cycles_reference(bricks.window_lanes(nnz, geometry, (n, y, x)), spec.empty_brick_cycles)
                   for n in range(nnz.shape[0]) for y in range(out[0]) for x in range(out[1]))
    return int(bricks.cnvlutin_window_cycles(nnz, geometry, out, spec.empty_brick_cycles).sum())


def _simulate(arch: ArchSpec, layer: Layer, reference: bool) -> LayerResult:
    spec, word = _spec(arch), arch.word_bits
    ops = layer_operands(layer)
    groups = layer.groups
    n_per_group = layer.gemm().n
    passes = math.ceil(n_per_group / (spec.units * spec.filters_per_unit))
    out = bricks.out_size(layer)
    compute = nonzero_uses = slot_uses = 0
    for g in range(groups):
        padded, geometry = bricks.input_nonzero(layer, ops.inputs, g)
        nnz = bricks.lane_nonzeros(padded, spec.neuron_lanes)
        slice_depth = math.ceil(padded.shape[1] / spec.neuron_lanes)
        compute += passes * _group_window_cycles(spec, nnz, slice_depth, geometry, out, reference)
        windows = padded.shape[0] * out[0] * out[1]
        slot_uses += windows * geometry[0] * geometry[1] * slice_depth * spec.neuron_lanes
        for r in range(geometry[0]):
            for s in range(geometry[1]):
                nonzero_uses += int(bricks.window_slice(nnz, r, s, *out, *geometry[2:]).sum())
    dense = layer.macs
    issued = nonzero_uses * n_per_group if spec.zero_skipping else dense
    # neuron memory: every brick slot (baseline) or every non-zero value + offset (Cnvlutin), per pass
    neuron_reads = (nonzero_uses if spec.zero_skipping else slot_uses) * passes
    dram_read_bits = (layer.input_elements + layer.weight_elements) * word
    dram_write_bits = layer.output_elements * word
    memory = 0
    if arch.dram.bandwidth_mode == "user":
        memory = max(math.ceil(bits / BITS_PER_BYTE / arch.dram.bandwidth)
                     for bits in (layer.input_elements * word, layer.weight_elements * word, dram_write_bits))
        memory += arch.dram.latency
    cycles = max(compute, memory)
    outputs = layer.output_elements
    actions = [
        ActionCount("dram", "dram", "read", layer.input_elements + layer.weight_elements, word),
        ActionCount("dram", "dram", "write", outputs, word),
        ActionCount("neuron_memory", "sram", "write", layer.input_elements, word, spec.neuron_memory_size),
        ActionCount("neuron_memory", "sram", "read", neuron_reads, word, spec.neuron_memory_size),
        ActionCount("synapse_buffer", "sram", "write", layer.weight_elements, word, spec.synapse_buffer_size),
        ActionCount("synapse_buffer", "sram", "read", issued, word, spec.synapse_buffer_size),
        ActionCount("neuron_memory", "sram", "write", outputs, word, spec.neuron_memory_size),
        ActionCount("units", "mult_int", "op", issued, word),
        ActionCount("units", "add_int", "op", issued, spec.accumulator_bits),
        ActionCount("units", "mult_int", "skip", dense - issued, word),
    ]
    if spec.zero_skipping:
        actions.append(ActionCount("neuron_memory", "sram", "read", neuron_reads, spec.offset_bits,
                                   spec.neuron_memory_size))
    metrics = {
        "macs_skipped": float(dense - issued),
        "macs_gated": 0.0,
        "filter_passes": float(passes),
        "activation_density_seen": nonzero_uses / slot_uses if slot_uses else 0.0,
        "dram_cycles": float(memory),
    }
    offset_bytes = math.ceil(neuron_reads * spec.offset_bits / BITS_PER_BYTE) if spec.zero_skipping else 0
    return LayerResult(
        layer=layer.name, cycles=cycles, compute_cycles=compute, stall_cycles=cycles - compute,
        macs_dense=dense, macs_issued=issued, peak_macs_per_cycle=spec.peak_macs_per_cycle,
        dram_read_bytes=math.ceil(dram_read_bits / BITS_PER_BYTE),
        dram_write_bytes=math.ceil(dram_write_bits / BITS_PER_BYTE),
        sram_read_bytes=math.ceil((neuron_reads + issued) * word / BITS_PER_BYTE) + offset_bytes,
        sram_write_bytes=math.ceil((layer.input_elements + layer.weight_elements + outputs) * word / BITS_PER_BYTE),
        actions=tuple(actions), metrics=MappingProxyType(metrics), operand_hashes=MappingProxyType(ops.hashes))


def simulate_layer(arch: ArchSpec, layer: Layer) -> LayerResult:
    """Fast path: window cycles vectorised over all windows (one numpy pass per brick slot)."""
    return _simulate(arch, layer, reference=False)


def simulate_layer_reference(arch: ArchSpec, layer: Layer) -> LayerResult:
    """Per-cycle reference (slow; same results as :func:`simulate_layer`)."""
    return _simulate(arch, layer, reference=True)
