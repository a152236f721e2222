"""SIMT counters -> actions and bytes.

Memory: DRAM reads / writes (the kernel's footprint), L2 sector accesses (reads, stores and
atomics through the SMs' ports), the L2 slices' atomic units writing back each atomic request's sector,
L1 / shared-memory bytes. Math: FP32 FMAs on the CUDA cores
(CUDA-core kernels, at the arch word) or tensor-core MACs (FP16). ``macs_issued`` are the products
with the stored operand's values (non-zeros for CSR / CSB, stored blocks with their zeros for BSR,
kept 2:4 slots, every weight for the dense kernels): never above the dense layer's MACs.
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.models.simt.counters import SimtCounters
from accel_sim.models.simt.plan import SimtPlan

BITS_PER_BYTE = 8
BOUNDS = ("latency", "issue", "l1", "l2_port")


def account(plan: SimtPlan, counters: SimtCounters) -> LayerResult:
    m, spec, layer = plan.machine, plan.spec, plan.layer
    s = plan.candidates[counters.candidate].schedule
    word = plan.arch.word_bits
    sector_bits = m.sector * BITS_PER_BYTE
    tc_bits = spec.tensor_core_word_bits
    actions = (
        ActionCount("dram", "dram", "read", counters.dram_read_bytes, BITS_PER_BYTE),
        ActionCount("dram", "dram", "write", counters.dram_write_bytes, BITS_PER_BYTE),
        ActionCount("l2", "sram", "read", counters.l2_sectors, sector_bits, m.l2_size),
        ActionCount("l2", "sram", "write", counters.atomics, sector_bits, m.l2_size),   # atomic units' write-backs
        ActionCount("l1_shared", "sram", "read", math.ceil(counters.l1_bytes / 4), 32, m.shared_memory),
        ActionCount("cuda_cores", "mult_fp", "op", counters.fmas, word),
        ActionCount("cuda_cores", "add_fp", "op", counters.fmas, word),
        ActionCount("tensor_cores", "mult_fp", "op", counters.tensor_macs, tc_bits),
        ActionCount("tensor_cores", "add_fp", "op", counters.tensor_macs, 32),
    )
    peak = m.sms * (m.tensor_cores * m.tensor_macs_per_cycle if s.tensor_core else m.fp32_lanes)
    macs_issued = min(s.products, layer.macs)   # a grouped layer's dense kernels multiply its block-diagonal zeros
    bound_sums = {"latency": counters.latency_cycles, "issue": counters.issue_cycles, "l1": counters.l1_cycles,
                  "l2_port": counters.l2_port_cycles}
    metrics = {f"{name}_bound_cycles": float(value) for name, value in bound_sums.items()}
    metrics.update({
        "ctas": float(counters.ctas), "warps": float(counters.warps), "ctas_per_sm": float(counters.ctas_per_sm),
        "sm_cycles": float(counters.sm_cycles), "l2_cycles": float(counters.l2_cycles),
        "dram_cycles": float(counters.dram_cycles),
        "atomic_cycles": float(counters.atomic_cycles), "l2_sectors": float(counters.l2_sectors),
        "issue_slots": float(counters.issue_slots), "atomics": float(counters.atomics),
        "l1_hits": float(counters.l1_hits), "l1_misses": float(counters.l1_misses),
        "executed_macs": float(counters.fmas + counters.tensor_macs), "transpose": float(spec.transpose),
        "tensor_core": float(s.tensor_core), "candidate": float(counters.candidate),
        "longest_warp_cycles": float(s.longest_warp_cycles()),
    })
    if s.in_flight_bytes_per_cta:   # Little's law: the SM's resident CTAs' loads in flight per memory latency
        metrics["in_flight_bytes_per_sm"] = float(counters.ctas_per_sm * s.in_flight_bytes_per_cta)
    return LayerResult(
        layer=layer.name, cycles=counters.cycles, compute_cycles=counters.sm_cycles,
        stall_cycles=counters.cycles - counters.sm_cycles, macs_dense=layer.macs, macs_issued=macs_issued,
        peak_macs_per_cycle=peak, dram_read_bytes=counters.dram_read_bytes, dram_write_bytes=counters.dram_write_bytes,
        sram_read_bytes=counters.l2_sectors * m.sector + counters.l1_bytes, sram_write_bytes=0,
        actions=actions, metrics=MappingProxyType(metrics), operand_hashes=plan.operand_hashes)
