"""Eyeriss v2 counters -> actions and bytes. Widths as the paper gives them: 12-b CSC pairs for iacts
(SPads, GLB, NoC), 24-b weight words, 7-b weight addresses, 20-b psums, 8-b MACs (Sec. II, III-C, IV-A);
energies from the Eyeriss access-cost ratios (ISCA 2016 Table IV), scaled by width.

Per MAC cycle a PE reads a 24-b weight word; per non-zero iact one iact pair and one weight address;
per issued MAC one psum read and one psum write. Skipped MACs (a zero iact or a zero weight) cost nothing.
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.models.eyeriss_v2.counters import EyerissV2Counters
from accel_sim.models.eyeriss_v2.plan import EyerissV2Plan

BITS_PER_BYTE = 8


def account(plan: EyerissV2Plan, counters: EyerissV2Counters) -> LayerResult:
    spec, layer, c = plan.spec, plan.layer, counters
    pair, word, psum = spec.csc_pair_bits, spec.noc_port_bits, spec.psum_bits
    dram_read_bits = c.dram_iact_read_bits + c.dram_weight_read_bits
    actions = (
        ActionCount("dram", "dram", "read", math.ceil(dram_read_bits / BITS_PER_BYTE), BITS_PER_BYTE),
        ActionCount("dram", "dram", "write", math.ceil(c.dram_ofmap_write_bits / BITS_PER_BYTE), BITS_PER_BYTE),
        ActionCount("glb", "glb", "read", c.glb_iact_reads, pair),
        ActionCount("glb", "glb", "write", c.glb_iact_writes, pair),
        ActionCount("glb", "glb", "read", c.glb_psum_reads, psum),
        ActionCount("glb", "glb", "write", c.glb_psum_writes, psum),
        ActionCount("noc", "array_network", "transfer", c.iact_spad_writes, pair),
        ActionCount("noc", "array_network", "transfer", c.weight_load_words, word),
        ActionCount("noc", "array_network", "transfer", c.psum_out_words, psum),
        ActionCount("spads", "spad", "read", c.iact_spad_reads, pair),
        ActionCount("spads", "spad", "read", c.weight_addr_reads, spec.weight_addr_bits),
        ActionCount("spads", "spad", "read", c.weight_spad_reads, word),
        ActionCount("spads", "spad", "read", c.macs_issued, psum),
        ActionCount("spads", "spad", "write", c.macs_issued, psum),
        ActionCount("spads", "spad", "write", c.iact_spad_writes, pair),
        ActionCount("spads", "spad", "write", c.weight_spad_writes, word),
        ActionCount("pe_array", "mac", "op", c.macs_issued, plan.arch.word_bits),
    )
    clock = plan.arch.clock
    metrics = {"work_units": float(c.work_units), "rounds": float(c.rounds), "map_c0": float(plan.c0),
               "map_m0": float(plan.m0), "pe_utilization": c.pe_busy_cycles / max(1, c.cycles * spec.pes),
               "simd_idle_slots": float(c.simd_idle_slots), "weight_wait_cycles": float(c.cycles - c.compute_cycles),
               "time_s": c.cycles / clock}
    glb_read_bits = c.glb_iact_reads * pair + c.glb_psum_reads * psum
    glb_write_bits = c.glb_iact_writes * pair + c.glb_psum_writes * psum
    return LayerResult(
        layer=layer.name, cycles=c.cycles, compute_cycles=c.compute_cycles, stall_cycles=c.cycles - c.compute_cycles,
        macs_dense=layer.macs, macs_issued=c.macs_issued, peak_macs_per_cycle=spec.pes * spec.simd_width,
        dram_read_bytes=math.ceil(dram_read_bits / BITS_PER_BYTE),
        dram_write_bytes=math.ceil(c.dram_ofmap_write_bits / BITS_PER_BYTE),
        sram_read_bytes=math.ceil(glb_read_bits / BITS_PER_BYTE), sram_write_bytes=math.ceil(glb_write_bits / BITS_PER_BYTE),
        actions=actions, metrics=MappingProxyType(metrics), operand_hashes=plan.operand_hashes)
