"""Vector counters to a LayerResult: actions (ALU adds / multiplies, SFU results, SRAM accesses),
SRAM bytes, and the cycles the layer adds to the step: its kernel's launch gap (as stall cycles: the unit
waits for the kernel to start) and all of its busy cycles when the unit runs serially with the matrix unit
(what the overlap did not hide otherwise)."""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.models.vector_unit.counters import VectorCounters
from accel_sim.models.vector_unit.plan import VectorPlan

SRAM_ACCESS_BITS = 64  # the energy table's SRAM entries are 64-bit accesses (Horowitz ISSCC 2014)


def account(plan: VectorPlan, counters: VectorCounters, hidden_cycles: int = 0) -> LayerResult:
    """``hidden_cycles`` (<= busy cycles): cycles run under a matrix layer (overlapped mode)."""
    if not 0 <= hidden_cycles <= counters.busy_cycles:
        raise ValueError(f"{plan.layer.name}: hidden cycles {hidden_cycles} outside [0, {counters.busy_cycles}]")
    spec = plan.spec
    exposed = counters.busy_cycles - hidden_cycles
    reads, writes = (math.ceil(bits / SRAM_ACCESS_BITS) for bits in (counters.sram_read_bits, counters.sram_write_bits))
    actions = (
        ActionCount("vector_alu", "add_fp", "op", counters.adds + counters.reductions * (spec.lanes - 1),
                    spec.compute_bits),
        ActionCount("vector_alu", "mult_fp", "op", counters.mults, spec.compute_bits),
        ActionCount("vector_sfu", "special_function", "op", counters.special, spec.compute_bits),
        ActionCount("vector_sram", "sram", "read", reads, SRAM_ACCESS_BITS, spec.sram_size),
        ActionCount("vector_sram", "sram", "write", writes, SRAM_ACCESS_BITS, spec.sram_size),
    )
    metrics = {"vector_busy_cycles": float(counters.busy_cycles), "vector_hidden_cycles": float(hidden_cycles),
               "vector_elements": float(plan.layer.elements), "vector_special_ops": float(counters.special)}
    launch = counters.launch_cycles   # never hidden: the kernel has not started
    return LayerResult(layer=plan.layer.name, cycles=launch + exposed, compute_cycles=exposed, stall_cycles=launch,
                       macs_dense=0, macs_issued=0, peak_macs_per_cycle=0, dram_read_bytes=0, dram_write_bytes=0,
                       sram_read_bytes=math.ceil(counters.sram_read_bits / 8),
                       sram_write_bytes=math.ceil(counters.sram_write_bits / 8),
                       actions=actions, metrics=MappingProxyType(metrics))
