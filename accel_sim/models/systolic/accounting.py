"""Systolic counters -> SCALE-Sim's report quantities, actions and bytes.

- SRAM accesses are SCALE-Sim's array-side counts (DETAILED_ACCESS_REPORT "SRAM ... Reads /
  Writes"), including two of its conventions: under N:M the ifmap is read ``M/N`` times ("a
  row needs to be read M/N times"), and the output-stationary output count adds
  ``rows + cols`` per fold (added when flipping the drained block). The buffers' DRAM side
  (fills, drains) is counted as extra SRAM writes / reads.
- DRAM words are the fills of the read buffers and the drained output words.
- N:M position metadata (``ceil(log2 M)`` bits per kept weight, SCALE-Sim's ``ellpack_block``
  storage) is fetched once and read with every weight: extra DRAM / filter-SRAM actions and
  bytes of that width. As in SCALE-Sim (which only reports it) it takes no cycles.
- Every issued MAC multiplies and accumulates, and latches in the next PE the operands that
  move through the array: both inputs (OS), or the streamed input and the partial sum (WS, IS).
- Block-scaled operands (``systolic.block_format``): ifmap and filter words are elements of the format's width
  plus a scale byte per block of K at every level; one scale application per output per block. With
  ``elements_per_pe`` = p the counters are in packed words: their ifmap / filter words and MACs are p
  elements each here.
- ``stall_cycles = cycles - compute_cycles`` is SCALE-Sim's "Stall Cycles" whenever the very
  last demand cycle has no read miss (always unless the array has a single column).
"""
from __future__ import annotations

import math
from fractions import Fraction
from types import MappingProxyType

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.results.components import Component
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.models.systolic.counters import SystolicCounters
from accel_sim.models.systolic.plan import SystolicPlan
from accel_sim.models.systolic.plan.block_scaling import SCALE_BITS

BITS_PER_BYTE = 8


def _bytes(words: int, word_bits: int) -> int:
    return math.ceil(words * word_bits / BITS_PER_BYTE)


def reported_sram_accesses(plan: SystolicPlan, counters: SystolicCounters) -> dict[str, int]:
    """SCALE-Sim's array-side SRAM counts: ifmap / filter reads, ofmap writes."""
    mapping = plan.mapping
    ifmap = counters.ifmap_sram_reads
    if mapping.nm is not None:  # rounded per group, as SCALE-Sim reports each group as a layer
        ifmap = round(Fraction(ifmap // mapping.groups * mapping.nm.m, mapping.nm.n)) * mapping.groups
    ofmap = counters.ofmap_sram_writes
    if mapping.dataflow.stationary == "ofmap":
        ofmap += (mapping.rows + mapping.cols) * counters.folds
    return {"ifmap": ifmap, "filter": counters.filter_sram_reads, "ofmap": ofmap}


def _block_scale_actions(plan: SystolicPlan, sram: dict[str, int], fills: dict[str, int]) -> list[ActionCount]:
    """MX / NVFP4: a scale byte per block of K rides with the ifmap and filter elements (DRAM fills, buffer
    writes and reads); every output takes one scale application (combine and align) per block of K."""
    scaling, spec = plan.scaling, plan.spec
    if scaling is None or not scaling.block:    # word_bits operands, or plain int8 (scales outside the array)
        return []
    s, b = scaling.scales, SCALE_BITS
    outputs = plan.layer.macs // plan.layer.gemm().k
    applied = outputs * (plan.layer.gemm().k // scaling.block)
    combine = ("add_int", b) if scaling.scale_kind == "e8m0" else ("mult_int", b)
    return [
        ActionCount("dram", "dram", "read", s(sum(fills.values())), b),
        ActionCount("ifmap_sram", "sram", "write", s(fills["ifmap"]), b, spec.ifmap_sram.size),
        ActionCount("ifmap_sram", "sram", "read", s(sram["ifmap"]), b, spec.ifmap_sram.size),
        ActionCount("filter_sram", "sram", "write", s(fills["filter"]), b, spec.filter_sram.size),
        ActionCount("filter_sram", "sram", "read", s(sram["filter"]), b, spec.filter_sram.size),
        ActionCount("scale_unit", combine[0], "op", applied, combine[1]),
        ActionCount("scale_unit", "shift", "op", applied, spec.accumulator_bits),
    ]


def account(plan: SystolicPlan, counters: SystolicCounters) -> LayerResult:
    spec, layer, mapping, word = plan.spec, plan.layer, plan.mapping, plan.arch.word_bits
    pack = mapping.packing    # elements per ifmap / filter word and per issued MAC
    sram = reported_sram_accesses(plan, counters)
    sram = {"ifmap": sram["ifmap"] * pack, "filter": sram["filter"] * pack, "ofmap": sram["ofmap"]}
    fills = {"ifmap": counters.ifmap_dram_reads * pack, "filter": counters.filter_dram_reads * pack}
    drained = counters.ofmap_dram_writes
    macs = counters.macs_issued * pack
    e = word if plan.scaling is None else plan.scaling.element_bits    # ifmap / filter element width
    mult = "mult_int" if plan.scaling is None or plan.scaling.integer else "mult_fp"
    actions = [
        ActionCount("dram", "dram", "read", sum(fills.values()), e),
        ActionCount("dram", "dram", "write", drained, word),
        ActionCount("ifmap_sram", "sram", "read", sram["ifmap"], e, spec.ifmap_sram.size),
        ActionCount("ifmap_sram", "sram", "write", fills["ifmap"], e, spec.ifmap_sram.size),
        ActionCount("filter_sram", "sram", "read", sram["filter"], e, spec.filter_sram.size),
        ActionCount("filter_sram", "sram", "write", fills["filter"], e, spec.filter_sram.size),
        ActionCount("ofmap_sram", "sram", "write", sram["ofmap"], word, spec.ofmap_sram.size),
        ActionCount("ofmap_sram", "sram", "read", drained, word, spec.ofmap_sram.size),
        ActionCount("pe_array", mult, "op", macs, e),
        ActionCount("pe_array", "add_int", "op", macs, spec.accumulator_bits),
    ]
    if mapping.dataflow.stationary == "ofmap":
        actions.append(ActionCount("pe_array", "register_file", "write", 2 * macs, e))
    else:
        actions.append(ActionCount("pe_array", "register_file", "write", macs, e))
        actions.append(ActionCount("pe_array", "register_file", "write", macs, spec.accumulator_bits))
    index_bits = plan.metadata_bits
    metadata = counters.nm_metadata_reads
    if index_bits:
        actions += [ActionCount("dram", "dram", "read", metadata, index_bits),
                    ActionCount("filter_sram", "sram", "write", metadata, index_bits, spec.filter_sram.size),
                    ActionCount("filter_sram", "sram", "read", sram["filter"], index_bits, spec.filter_sram.size)]
    metadata_bytes = _bytes(metadata, index_bits)
    actions += _block_scale_actions(plan, sram, fills)
    read_bytes = _bytes(sum(fills.values()), word) + metadata_bytes
    sram_read = _bytes(sram["ifmap"] + sram["filter"] + drained, word)
    sram_write = _bytes(sram["ofmap"] + sum(fills.values()), word)
    if plan.scaling is not None:   # narrow elements plus their scale bytes; outputs at word_bits
        scales = plan.scaling.scales
        read_bytes = _bytes(sum(fills.values()), e) + _bytes(scales(sum(fills.values())), SCALE_BITS)
        sram_read = (_bytes(sram["ifmap"] + sram["filter"], e) + _bytes(drained, word)
                     + _bytes(scales(sram["ifmap"]) + scales(sram["filter"]), SCALE_BITS))
        sram_write = (_bytes(sram["ofmap"], word) + _bytes(sum(fills.values()), e)
                      + _bytes(scales(sum(fills.values())), SCALE_BITS))
    metrics = {
        "folds": float(counters.folds),
        "row_folds": float(mapping.row_folds),
        "col_folds": float(mapping.col_folds),
        "mapping_efficiency": mapping.mapping_efficiency,
        "compute_utilization": mapping.compute_utilization,
        "cycles_incl_prefetch": float(counters.cycles_incl_prefetch),
    }
    return LayerResult(
        layer=layer.name,
        cycles=counters.cycles,
        compute_cycles=counters.compute_cycles,
        stall_cycles=counters.cycles - counters.compute_cycles,
        macs_dense=layer.macs,
        macs_issued=macs,
        peak_macs_per_cycle=spec.rows * spec.cols * pack,
        dram_read_bytes=read_bytes,
        dram_write_bytes=_bytes(drained, word),
        sram_read_bytes=sram_read + _bytes(sram["filter"], index_bits),
        sram_write_bytes=sram_write + metadata_bytes,
        actions=tuple(actions),
        metrics=MappingProxyType(metrics),
    )


def components(arch: ArchBase) -> tuple[Component, ...]:
    """The chip's blocks for area and leakage: the three SRAM buffers (each bank a separate array)
    and rows x cols PEs of one multiplier, one accumulator adder and the operand / partial-sum
    registers the dataflow moves through them (two operands and an accumulator per PE)."""
    spec, word = arch.section("systolic"), arch.word_bits
    pes = spec.rows * spec.cols
    buffers = tuple(Component(name, "sram", buffer.banks, word, buffer.size // buffer.banks)
                    for name, buffer in (("ifmap_sram", spec.ifmap_sram), ("filter_sram", spec.filter_sram),
                                         ("ofmap_sram", spec.ofmap_sram)))
    return buffers + (
        Component("pe_array", "mult_int", pes, word),
        Component("pe_array", "add_int", pes, spec.accumulator_bits),
        Component("pe_array", "register", pes, 2 * word + spec.accumulator_bits),
    )
