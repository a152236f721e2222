"""Eyeriss counters -> actions and bytes, in 16-bit words as the energy table (Chen et al., ISCA 2016,
Table IV: each level's access relative to a MAC) prices them.

Per MAC step a PE reads its ifmap value (the zero buffer is checked on every step); a gated MAC reads
neither the filter spad nor the psum spad and does not switch the datapath (JSSC 2017, Sec. V-C),
an issued one reads a weight and reads and writes its psum. The array network carries every word
the global buffer sends or receives and every psum hop between PEs. The clock network switches in every
cycle of the layer: its tree and the global buffer's leaf, and the leaves of the PEs the mapping uses
(unused PEs are clock gated: Chen et al., ISSCC 2016, 14.5).
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.results.components import Component
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.models.eyeriss.counters import EyerissCounters
from accel_sim.models.eyeriss.plan import EyerissPlan

BITS_PER_BYTE = 8


def _words(bits: int, word: int) -> int:
    return math.ceil(bits / word)


def account(plan: EyerissPlan, counters: EyerissCounters) -> LayerResult:
    spec, layer, word, mp = plan.spec, plan.layer, plan.arch.word_bits, plan.mapping
    dense, issued, c = layer.macs, counters.macs_issued, counters
    glb_reads = c.glb_ifmap_reads + c.glb_filter_words + c.glb_psum_reads
    glb_writes = c.glb_ifmap_writes + c.glb_filter_words + c.glb_psum_writes
    glb = spec.glb_size + spec.filter_glb_size
    actions = (
        ActionCount("dram", "dram", "read", _words(c.dram_ifmap_read_bits + c.dram_filter_read_bits, word), word),
        ActionCount("dram", "dram", "write", _words(c.dram_ofmap_write_bits, word), word),
        ActionCount("glb", "glb", "read", glb_reads, word, glb),
        ActionCount("glb", "glb", "write", glb_writes, word, glb),
        ActionCount("array_network", "array_network", "transfer",
                    glb_reads + c.glb_psum_writes + c.local_link_transfers, word),
        ActionCount("spads", "spad", "read", dense + 2 * issued, word),
        ActionCount("spads", "spad", "write", c.ifmap_spad_writes + c.filter_spad_writes + issued, word),
        ActionCount("pe_array", "mac", "op", issued, word),
        ActionCount("pe_array", "mac", "gated", c.macs_gated, word),
        ActionCount("clock_network", "clock", "cycle", c.cycles, word),
        ActionCount("clock_network", "clock", "pe_cycle", mp.active_pes * c.cycles, word),
    )
    clock = plan.arch.clock
    metrics = {
        "active_pes": float(mp.active_pes), "pe_sets": float(mp.r * mp.t), "strip_rows_e": float(mp.e),
        "map_p": float(mp.p), "map_q": float(mp.q), "map_r": float(mp.r), "map_t": float(mp.t),
        "map_n": float(mp.n), "map_m": float(mp.m), "passes": float(c.passes),
        "macs_gated": float(c.macs_gated), "processing_time_s": c.processing_cycles / clock,
        "ifmap_load_cycles": float(c.ifmap_load_cycles), "ofmap_dump_cycles": float(c.ofmap_dump_cycles),
        "filter_wait_cycles": float(c.filter_wait_cycles), "network_wait_cycles": float(c.network_wait_cycles),
        "glb_bytes": float((glb_reads + glb_writes) * word / BITS_PER_BYTE),
    }
    return LayerResult(
        layer=layer.name, cycles=c.cycles, compute_cycles=c.processing_cycles,
        stall_cycles=c.cycles - c.processing_cycles, macs_dense=dense, macs_issued=issued,
        peak_macs_per_cycle=spec.pes,
        dram_read_bytes=math.ceil((c.dram_ifmap_read_bits + c.dram_filter_read_bits) / BITS_PER_BYTE),
        dram_write_bytes=math.ceil(c.dram_ofmap_write_bits / BITS_PER_BYTE),
        sram_read_bytes=math.ceil(glb_reads * word / BITS_PER_BYTE),
        sram_write_bytes=math.ceil(glb_writes * word / BITS_PER_BYTE),
        actions=actions, metrics=MappingProxyType(metrics), operand_hashes=plan.operand_hashes)


def components(arch: ArchBase) -> tuple[Component, ...]:
    """The chip's blocks (JSSC 2017 Table IV, Sec. V): the global buffer, each PE's spads and MAC."""
    spec, word = arch.section("eyeriss"), arch.word_bits
    pes = spec.pes
    return (Component("glb", "sram", 1, 64, spec.glb_size + spec.filter_glb_size),
            Component("spads", "sram", pes, word, spec.filter_spad_entries * word // BITS_PER_BYTE),
            Component("spads", "register", pes, (spec.ifmap_spad_entries + spec.psum_spad_entries) * word),
            Component("pe_array", "mult_int", pes, word),
            Component("pe_array", "add_int", pes, word))
