"""Fast path of the PE array: vectorised counting, one group at a time.

Blocks: :mod:`.decoder` (index decoders: chunks per row), :mod:`.datapath` (PE rows: dense
and skipping tile timing, MACs by fate), :mod:`.reassignment` (work distribution among the rows
of a window) and :mod:`.memory` (buffer and DRAM traffic, DRAM time). Every pixel tile of a
filter tile takes the same cycles (the weight stream decides them), so one pixel tile's timing
is counted ``pixel_tiles`` times.
"""
from __future__ import annotations

from dataclasses import fields, replace

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.errors import SimulationError
from accel_sim.models.pe_array.counters import PEArrayCounters
from accel_sim.models.pe_array.fast.datapath import busy_cycles, dense_timing, effectual_macs, skipping_timing
from accel_sim.models.pe_array.fast.decoder import chunk_items, padding_slots, processed_positions
from accel_sim.models.pe_array.fast.memory import dram_cycles, group_traffic
from accel_sim.models.pe_array.fast.reassignment import reassignment_timing
from accel_sim.models.pe_array.plan import GroupPlan, PEArrayPlan


def _group(arch: ArchBase, work: GroupPlan) -> PEArrayCounters:
    """One group's counts (``cycles`` = its compute cycles; no DRAM time yet)."""
    spec = arch.section("pe_array")
    k, n, m, pixel_tiles = work.k, work.n, work.m, work.pixel_tiles
    items = chunk_items(spec, work.weights) if spec.compressed else None
    if not spec.decodes:
        timing = dense_timing(spec, k, work.filter_tiles)
    elif spec.sparsity_support == "reassignment":
        timing = reassignment_timing(spec, items)
    else:
        timing = skipping_timing(spec, items)
    dense = m * k * n
    padding = 0
    if spec.sparsity_support in ("none", "memory"):
        issued, gated = dense, 0
    else:
        issued = effectual_macs(work)
        processed = k * n if spec.sparsity_support == "gating" else processed_positions(spec, work.weights)
        gated = processed * m - issued
        if spec.decodes and spec.weight_format == "nm":
            padding = padding_slots(spec, k) * n * m
    traffic = group_traffic(arch, work)
    if spec.decodes:  # rows pick their own positions out of the column register files
        rf_reads = processed_positions(spec, work.weights) * m
    else:             # lockstep rows: one read broadcast down each column
        rf_reads = traffic.input_sram_read_words
    compute = pixel_tiles * sum(timing.cycles)
    return PEArrayCounters(
        cycles=compute, compute_cycles=compute, dram_cycles=0,
        row_busy_cycles=pixel_tiles * busy_cycles(spec, work, items if spec.decodes else None),
        filter_tiles=work.filter_tiles, pixel_tiles=pixel_tiles, macs_issued=issued, macs_gated=gated,
        macs_skipped=dense - issued - gated, nm_padding_slots=padding,
        decoder_chunks=int((items >= 0).sum()) * pixel_tiles if items is not None else 0,
        macs_reassigned=timing.stolen_items * m, crossbar_weights=timing.stolen_items * pixel_tiles,
        crossbar_psums=timing.psum_runs * m, weight_dram_bits=traffic.weight_dram_bits,
        input_dram_bits=traffic.input_dram_bits, output_words=traffic.output_words,
        weight_sram_read_bits=traffic.weight_sram_read_bits, input_sram_read_words=traffic.input_sram_read_words,
        activation_rf_reads=rf_reads)


def fast(plan: PEArrayPlan, max_cycles: int | None = None) -> PEArrayCounters:
    groups = [_group(plan.arch, work) for work in plan.groups]
    total = PEArrayCounters(**{f.name: sum(getattr(g, f.name) for g in groups) for f in fields(PEArrayCounters)})
    memory = dram_cycles(plan.arch, total.weight_dram_bits, total.input_dram_bits, total.output_words)
    cycles = max(total.compute_cycles, memory)
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {cycles} cycles exceed max_cycles={max_cycles}")
    return replace(total, cycles=cycles, dram_cycles=memory)
