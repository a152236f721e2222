"""EIE counters -> actions, bytes and metrics, for either path's counters.

Per PE (brief, per-PE power by module): the activation queue (FIFO writes and reads of
(a_j, j)), the pointer read (two single-ported banks, half the pointer SRAM each), the
sparse-matrix read (``spmat_sram_width``-bit lines), the arithmetic unit (codebook lookup,
multiply, accumulate, and the address accumulator adding z + 1 in ``log2(local rows)`` bits) and
the activation read / write (the LNZD reads every source activation; every entry reads and writes
its accumulator b_x in the destination activations, except that a bypassed entry does not read
it). Activations live in the 64-entry register files, or in the activation SRAM when a PE's
share is longer. A spilled layer reads its excess bytes from DRAM once.
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.models.eie.counters import EIECounters
from accel_sim.models.eie.plan import EIEPlan
from accel_sim.models.eie.spec import POINTER_BANKS
from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.results.components import Component
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult

BITS_PER_BYTE = 8


def _address_bits(count: int) -> int:
    """Bits that address ``count >= 1`` items (at least one)."""
    return max(1, math.ceil(math.log2(count)))


def account(plan: EIEPlan, counters: EIECounters) -> LayerResult:
    spec, layer = plan.spec, plan.layer
    word = spec.arithmetic_bits
    local_inputs, local_outputs = -(-layer.k // spec.n_pes), -(-layer.n // spec.n_pes)

    def act_store(local: int) -> tuple[str, int]:
        in_registers = local <= spec.activation_registers
        return ("register_file", 0) if in_registers else ("sram", spec.activation_sram_size)

    source_class, source_capacity = act_store(local_inputs)
    dest_class, dest_capacity = act_store(local_outputs)
    entries = sum(counters.pe_entries)
    macs = entries                     # every entry, padding included, is multiplied and accumulated
    accumulator_reads = macs - counters.accumulator_bypasses
    fifo_bits = word + _address_bits(layer.k)
    actions = [
        ActionCount("act_queue", "register_file", "write", counters.fifo_pushes, fifo_bits),
        ActionCount("act_queue", "register_file", "read", counters.fifo_pops, fifo_bits),
        ActionCount("pointer_read", "sram", "read", counters.pointer_reads, plan.pointer_bits,
                    plan.pointer_sram_size // POINTER_BANKS),
        ActionCount("spmat_read", "sram", "read", counters.spmat_reads, spec.spmat_sram_width, plan.spmat_sram_size),
        ActionCount("arithmetic", "register_file", "read", entries, word),          # codebook lookups
        ActionCount("arithmetic", "mult_int", "op", macs, word),
        ActionCount("arithmetic", "add_int", "op", macs, spec.accumulator_bits),
        ActionCount("arithmetic", "add_int", "op", entries, _address_bits(local_outputs)),
        ActionCount("act_rw", source_class, "read", counters.lnzd_activation_reads, word, source_capacity),
        ActionCount("act_rw", dest_class, "read", accumulator_reads, spec.accumulator_bits, dest_capacity),
        ActionCount("act_rw", dest_class, "write", macs, spec.accumulator_bits, dest_capacity),
    ]
    if counters.dram_spill_bytes:
        actions.append(ActionCount("dram", "dram", "read", counters.dram_spill_bytes, BITS_PER_BYTE))

    def sram_bytes(kind: str) -> int:
        bits = sum(a.count * a.bits for a in actions if a.component_class == "sram" and a.action == kind)
        return math.ceil(bits / BITS_PER_BYTE)

    cycles = counters.compute_cycles
    busy = sum(counters.pe_busy_cycles)
    metrics = {
        "load_efficiency": busy / (spec.n_pes * cycles) if cycles else 0.0,
        "padding_fraction": counters.padding_entries / entries if entries else 0.0,
        "ideal_cycles": float(counters.ideal_cycles),
        "broadcasts": float(counters.broadcasts),
        "entries": float(entries),
        "padding_entries": float(counters.padding_entries),
        "max_pe_entries": float(max(counters.pe_entries)),
        "fifo_pushes": float(counters.fifo_pushes),
        "fifo_pops": float(counters.fifo_pops),
        "pointer_reads": float(counters.pointer_reads),
        "spmat_reads": float(counters.spmat_reads),
        "codebook_lookups": float(entries),
        "accumulator_bypasses": float(counters.accumulator_bypasses),
        "stall_fifo_full_cycles": float(counters.fifo_full_stall_cycles),
        "stall_pe_starved_cycles": float(counters.pe_starved_cycles),
        "stall_pe_tail_cycles": float(counters.pe_tail_cycles),
        "pe_empty_slice_cycles": float(counters.empty_slice_cycles),
        "spill_bytes": float(counters.dram_spill_bytes),
        "pointer_bits": float(plan.pointer_bits),
        "pointer_sram_bytes": float(plan.pointer_sram_size),
    }
    return LayerResult(
        layer=layer.name,
        cycles=cycles + counters.spill_stall_cycles,
        compute_cycles=cycles,
        stall_cycles=counters.spill_stall_cycles,
        macs_dense=layer.macs,
        macs_issued=macs,
        peak_macs_per_cycle=spec.n_pes,
        dram_read_bytes=counters.dram_spill_bytes,
        dram_write_bytes=0,
        sram_read_bytes=sram_bytes("read"),
        sram_write_bytes=sram_bytes("write"),
        actions=tuple(actions),
        metrics=MappingProxyType(metrics),
        operand_hashes=plan.operand_hashes,
    )


def components(arch: ArchBase) -> tuple[Component, ...]:
    """The chip's blocks for area and leakage: per PE (brief, per-PE modules) the sparse-matrix SRAM,
    the two pointer banks, the activation SRAM and the source / destination registers, the
    activation FIFO of (a_j, j) entries, and the arithmetic unit (codebook, multiplier, accumulator
    adder, address accumulator). Sizes are the config's (a layer that grows the pointer SRAM on
    chip does not change the chip). The LNZD tree and the central control unit are not listed
    (the paper's per-PE breakdown has no such module)."""
    spec, n = arch.section("eie"), arch.section("eie").n_pes
    word = spec.arithmetic_bits
    return (
        Component("spmat_read", "sram", n, spec.spmat_sram_width, spec.spmat_sram_size),
        Component("pointer_read", "sram", n * POINTER_BANKS, spec.pointer_bits, spec.pointer_sram_size // POINTER_BANKS),
        Component("act_rw", "sram", n, word, spec.activation_sram_size),
        Component("act_rw", "register", n, 2 * spec.activation_registers * word),   # source + destination
        Component("act_queue", "register", n, spec.fifo_depth * (word + spec.pointer_bits)),  # (a_j, j) entries
        Component("arithmetic", "register", n, 2 ** spec.weight_code_bits * word),   # shared-weight codebook
        Component("arithmetic", "mult_int", n, word),
        Component("arithmetic", "add_int", n, spec.accumulator_bits),
        Component("arithmetic", "add_int", n, spec.pointer_bits),                    # address accumulator
    )
