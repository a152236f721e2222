"""EIE (Han et al., ISCA 2016): one fully connected layer in, one :class:`LayerResult` out.

Two implementations of the same per-cycle timing (see :mod:`accel_sim.eie.timing`):

- :func:`simulate_layer`, the fast path: slice sizes from one vectorised pass over the weight
  mask (:mod:`accel_sim.eie.encoding`), then the broadcast / FIFO recurrence, one numpy step
  per broadcast;
- :func:`simulate_layer_reference`, the per-cycle machine (:mod:`accel_sim.eie.reference`)
  running the real encoded entries and computing the layer's outputs.

A GEMM layer of ``m`` rows is ``m`` input vectors run one after the other (each starts when
the previous one has drained). Weights are k-means shared (16-entry codebook), activations
16-bit fixed point; the broadcast set is the non-zero activation codes. Weights stay on chip:
a layer whose PE slices do not fit the SRAMs (or the pointer width) is refused, or with
``eie.sram_overflow: dram_spill`` the excess is loaded from DRAM first.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from accel_sim.arch.spec import ArchSpec
from accel_sim.compress.formats.eie import EIEInterleavedCSC
from accel_sim.eie import encoding, timing
from accel_sim.eie.reference import ReferenceRun, run_vector
from accel_sim.eie.spec import EIESpec
from accel_sim.errors import InputError, Problem
from accel_sim.results.counts import ActionCount
from accel_sim.results.layer_result import LayerResult
from accel_sim.workload.layer import GemmLayer, Layer
from accel_sim.workload.operands import LayerOperands, layer_operands

BITS_PER_BYTE = 8
POINTER_BANKS = 2  # even / odd single-ported pointer banks (brief)
PE_COUNTERS = ("fifo_pushes", "fifo_pops", "pointer_reads", "spmat_reads", "entries", "padding_entries",
               "macs", "codebook_lookups", "bypasses", "busy_cycles", "empty_cycles")


@dataclass(frozen=True, eq=False)
class LayerPlan:
    """What both implementations share: the operands, their codes, slice sizes and storage."""

    spec: EIESpec
    layer: GemmLayer
    operands: LayerOperands
    activations: np.ndarray      # (m, k) integer activation codes
    stats: encoding.SliceStats
    pointer_bits: int            # pointer width used (widened only under dram_spill)
    spill_bytes: int             # bytes loaded from DRAM before the layer (dram_spill)

    def broadcast_columns(self, vector: int) -> np.ndarray:
        return np.flatnonzero(self.activations[vector])


@dataclass(frozen=True)
class LayerCounts:
    """Per-PE counters summed over the layer's vectors, and the timing scalars."""

    per_pe: dict[str, np.ndarray]
    cycles: int                   # compute cycles, all vectors
    broadcasts: int
    fifo_full_stall_cycles: int
    starved_cycles: int           # sum over PEs: idle before their last item ended
    tail_cycles: int              # sum over PEs: idle after their last item, until the vector ended
    nonzeros_processed: int       # non-zero weights in broadcast columns
    ideal_cycles: int             # perfect balance and no padding: sum over vectors ceil(nnz / PEs)

    def total(self, name: str) -> int:
        return int(self.per_pe[name].sum())


def _spec(arch: ArchSpec) -> EIESpec:
    return arch.section("eie")


def _address_bits(count: int) -> int:
    return max(1, math.ceil(math.log2(count))) if count > 1 else 1


def plan_layer(arch: ArchSpec, layer: Layer) -> LayerPlan:
    """Operands, codes and storage of one layer, with the SRAM / pointer fit checks."""
    spec = _spec(arch)
    if not isinstance(layer, GemmLayer):
        raise InputError.single(f"layer {layer.name}", "type", "EIE runs fully connected / LSTM matrix-vector "
                                "layers (type fc or gemm); convolutions are not supported by this model")
    ops = layer_operands(layer)
    stats = encoding.slice_stats(ops.weights != 0, spec.n_pes, spec.max_run)
    per_pe = stats.entries_per_pe
    most = int(per_pe.max())
    spill = spec.sram_overflow == "dram_spill"
    problems = []
    needed_pointer_bits = max(1, most.bit_length())
    pointer_bits = spec.pointer_bits
    if needed_pointer_bits > spec.pointer_bits:
        if spill:
            pointer_bits = needed_pointer_bits
        else:
            problems.append(("eie.pointer_bits", f"layer {layer.name}: a PE holds {most:,} entries; "
                             f"{spec.pointer_bits}-bit column pointers address at most {(1 << spec.pointer_bits) - 1:,} "
                             f"(needs {needed_pointer_bits} bits, more PEs, or eie.sram_overflow: dram_spill)"))
    spmat_bits = per_pe * spec.entry_bits
    spmat_capacity = spec.spmat_sram_size * BITS_PER_BYTE
    if int(spmat_bits.max()) > spmat_capacity and not spill:
        problems.append(("eie.spmat_sram_size", f"layer {layer.name}: a PE needs {int(spmat_bits.max()) / 8 / 1024:.1f} KiB "
                         f"of sparse-matrix entries, the SRAM holds {spec.spmat_sram_size / 1024:g} KiB "
                         "(more PEs, a bigger SRAM, or eie.sram_overflow: dram_spill)"))
    pointer_storage = (layer.k + 1) * pointer_bits
    pointer_capacity = spec.pointer_sram_size * BITS_PER_BYTE
    if pointer_storage > pointer_capacity and not spill:
        problems.append(("eie.pointer_sram_size", f"layer {layer.name}: {layer.k + 1:,} column pointers of "
                         f"{pointer_bits} bits need {pointer_storage / 8 / 1024:.1f} KiB per PE, the pointer SRAM "
                         f"holds {spec.pointer_sram_size / 1024:g} KiB (a bigger SRAM or eie.sram_overflow: dram_spill)"))
    if problems:
        raise InputError([Problem(f"arch {arch.name}", path, message) for path, message in problems])
    spill_bits = np.maximum(spmat_bits - spmat_capacity, 0) + max(pointer_storage - pointer_capacity, 0)
    spill_bytes = int(np.ceil(spill_bits / BITS_PER_BYTE).sum())
    return LayerPlan(spec, layer, ops, encoding.quantize_activations(spec, ops.inputs), stats, pointer_bits, spill_bytes)


def spill_stall_cycles(arch: ArchSpec, spill_bytes: int) -> int:
    """Cycles to load the spilled bytes before the layer (none with an ideal 'calc' DRAM)."""
    if spill_bytes == 0 or arch.dram.bandwidth_mode == "calc":
        return 0
    return math.ceil(spill_bytes / arch.dram.bandwidth) + arch.dram.latency


def fast_vector(plan: LayerPlan, vector: int) -> tuple[timing.VectorTimeline, dict[str, np.ndarray], int]:
    """Timeline, per-PE counters and processed non-zeros of one vector, from the slice statistics."""
    spec, stats = plan.spec, plan.stats
    columns = plan.broadcast_columns(vector)
    entries = stats.entries[columns]
    work = timing.item_cycles(entries, spec.empty_column_costs_cycle)
    timeline = timing.vector_timeline(work, spec.fifo_depth, spec.lnzd_latency)
    n = np.full(spec.n_pes, columns.size, dtype=np.int64)
    processed = entries.sum(axis=0)
    nonzeros = stats.nonzeros[columns].sum(axis=0)
    counters = {
        "fifo_pushes": n, "fifo_pops": n, "pointer_reads": POINTER_BANKS * n,
        "spmat_reads": encoding.spmat_line_reads(stats.pointer[columns], entries, spec.entries_per_read).sum(axis=0),
        "entries": processed, "padding_entries": processed - nonzeros, "macs": processed,
        "codebook_lookups": processed,
        "bypasses": encoding.accumulator_bypasses(stats.first_row[columns], stats.last_row[columns], entries),
        "busy_cycles": work.sum(axis=0), "empty_cycles": (work - entries).sum(axis=0),
    }
    return timeline, counters, int(nonzeros.sum())


def _combine(plan: LayerPlan, vectors: list[tuple[int, np.ndarray, dict[str, np.ndarray], np.ndarray, int]]) -> LayerCounts:
    """Sum per-vector results: (cycles, broadcast cycles, counters, per-PE finish, non-zeros)."""
    n_pes = plan.spec.n_pes
    per_pe = {name: np.zeros(n_pes, dtype=np.int64) for name in PE_COUNTERS}
    cycles = broadcasts = fifo_stall = starved = tail = nonzeros = ideal = 0
    for vector_cycles, broadcast, counters, finish, vector_nonzeros in vectors:
        for name in PE_COUNTERS:
            per_pe[name] += counters[name]
        cycles += vector_cycles
        broadcasts += broadcast.size
        fifo_stall += int((np.diff(broadcast) - 1).sum()) if broadcast.size else 0
        starved += int((finish - counters["busy_cycles"]).sum())
        tail += int((vector_cycles - finish).sum())
        nonzeros += vector_nonzeros
        ideal += -(-vector_nonzeros // n_pes)
    return LayerCounts(per_pe, cycles, broadcasts, fifo_stall, starved, tail, nonzeros, ideal)


def fast_counts(plan: LayerPlan) -> LayerCounts:
    vectors = []
    for v in range(plan.layer.m):
        timeline, counters, nonzeros = fast_vector(plan, v)
        vectors.append((timeline.cycles, timeline.broadcast, counters, timeline.finish, nonzeros))
    return _combine(plan, vectors)


def encode_layer(plan: LayerPlan) -> tuple[EIEInterleavedCSC, np.ndarray]:
    """The weight codes in EIE's format (the compress package's encoder) and the fixed-point codebook."""
    codes, codebook = encoding.quantize_weights(plan.spec, plan.operands.weights)
    encoded = EIEInterleavedCSC.from_dense(codes.T, n_pes=plan.spec.n_pes, index_bits=plan.spec.index_bits,
                                           pointer_bits=None)
    return encoded, codebook


def reference_runs(plan: LayerPlan, *, record: bool = False, max_cycles: int | None = None) -> list[ReferenceRun]:
    """Every vector of the layer on the per-cycle machine."""
    spec = plan.spec
    encoded, codebook = encode_layer(plan)
    budget = max_cycles if max_cycles is not None else cycle_budget(plan)
    return [run_vector(encoded, codebook, plan.activations[v], fifo_depth=spec.fifo_depth,
                       lnzd_latency=spec.lnzd_latency, entries_per_read=spec.entries_per_read,
                       empty_column_costs_cycle=spec.empty_column_costs_cycle, max_cycles=budget, record=record)
            for v in range(plan.layer.m)]


def cycle_budget(plan: LayerPlan) -> int:
    """No correct vector takes longer than every slice one after the other, plus one cycle per
    broadcast and the LNZD latency (the reference's max_cycles guard)."""
    stats = plan.stats
    return int(stats.entries.sum()) + 2 * plan.layer.k + plan.spec.lnzd_latency + 1


def reference_counts(runs: list[ReferenceRun], plan: LayerPlan) -> LayerCounts:
    vectors = []
    for v, run in enumerate(runs):
        columns = plan.broadcast_columns(v)
        nonzeros = int(plan.stats.nonzeros[columns].sum())
        vectors.append((run.cycles, run.broadcast, run.counters, run.counters["finish"], nonzeros))
    return _combine(plan, vectors)


def functional_outputs(plan: LayerPlan) -> np.ndarray:
    """Numpy reference of the quantized layer: ``(m, n)`` int64 = activation codes @ codebook[codes]."""
    codes, codebook = encoding.quantize_weights(plan.spec, plan.operands.weights)
    return plan.activations @ codebook[codes]


def layer_result(arch: ArchSpec, plan: LayerPlan, counts: LayerCounts) -> LayerResult:
    spec, layer = plan.spec, plan.layer
    total = counts.total
    word = spec.arithmetic_bits
    local_inputs, local_outputs = -(-layer.k // spec.n_pes), -(-layer.n // spec.n_pes)

    def act_store(local: int) -> tuple[str, int]:
        in_registers = local <= spec.activation_registers
        return ("register_file", 0) if in_registers else ("sram", spec.activation_sram_size)

    source_class, source_capacity = act_store(local_inputs)
    dest_class, dest_capacity = act_store(local_outputs)
    lnzd_reads = layer.k * layer.m          # every activation is read once by its PE's LNZD leaf
    accumulator_reads = total("macs") - total("bypasses")
    result_writes = total("macs")
    fifo_bits = word + _address_bits(layer.k)
    actions = [
        ActionCount("act_queue", "register_file", "write", total("fifo_pushes"), fifo_bits),
        ActionCount("act_queue", "register_file", "read", total("fifo_pops"), fifo_bits),
        ActionCount("pointer_read", "sram", "read", total("pointer_reads"), plan.pointer_bits,
                    spec.pointer_sram_size // POINTER_BANKS),
        ActionCount("spmat_read", "sram", "read", total("spmat_reads"), spec.spmat_sram_width, spec.spmat_sram_size),
        ActionCount("arithmetic", "register_file", "read", total("codebook_lookups"), word),
        ActionCount("arithmetic", "mult_int", "op", total("macs"), word),
        ActionCount("arithmetic", "add_int", "op", total("macs"), spec.accumulator_bits),
        ActionCount("arithmetic", "add_int", "op", total("entries"), _address_bits(local_outputs)),
        ActionCount("act_rw", source_class, "read", lnzd_reads, word, source_capacity),
        ActionCount("act_rw", dest_class, "read", accumulator_reads, spec.accumulator_bits, dest_capacity),
        ActionCount("act_rw", dest_class, "write", result_writes, spec.accumulator_bits, dest_capacity),
    ]
    if plan.spill_bytes:
        actions.append(ActionCount("dram", "dram", "read", plan.spill_bytes, BITS_PER_BYTE))

    def sram_bytes(kind: str) -> int:
        bits = sum(a.count * a.bits for a in actions if a.component_class == "sram" and a.action == kind)
        return math.ceil(bits / BITS_PER_BYTE)

    stall = spill_stall_cycles(arch, plan.spill_bytes)
    busy = total("busy_cycles")
    entries = total("entries")
    metrics = {
        "load_efficiency": busy / (spec.n_pes * counts.cycles) if counts.cycles else 0.0,
        "padding_fraction": total("padding_entries") / entries if entries else 0.0,
        "ideal_cycles": float(counts.ideal_cycles),
        "broadcasts": float(counts.broadcasts),
        "entries": float(entries),
        "padding_entries": float(total("padding_entries")),
        "max_pe_entries": float(counts.per_pe["entries"].max()),
        "fifo_pushes": float(total("fifo_pushes")),
        "fifo_pops": float(total("fifo_pops")),
        "pointer_reads": float(total("pointer_reads")),
        "spmat_reads": float(total("spmat_reads")),
        "codebook_lookups": float(total("codebook_lookups")),
        "accumulator_bypasses": float(total("bypasses")),
        "stall_fifo_full_cycles": float(counts.fifo_full_stall_cycles),
        "stall_pe_starved_cycles": float(counts.starved_cycles),
        "stall_pe_tail_cycles": float(counts.tail_cycles),
        "pe_empty_slice_cycles": float(total("empty_cycles")),
        "spill_bytes": float(plan.spill_bytes),
    }
    return LayerResult(
        layer=layer.name,
        cycles=counts.cycles + stall,
        compute_cycles=counts.cycles,
        stall_cycles=stall,
        macs_dense=layer.macs,
        macs_issued=total("macs"),
        peak_macs_per_cycle=spec.n_pes,
        dram_read_bytes=plan.spill_bytes,
        dram_write_bytes=0,
        sram_read_bytes=sram_bytes("read"),
        sram_write_bytes=sram_bytes("write"),
        actions=tuple(actions),
        metrics=MappingProxyType(metrics),
        operand_hashes=MappingProxyType(plan.operands.hashes),
    )


def simulate_layer(arch: ArchSpec, layer: Layer) -> LayerResult:
    """Fast path: vectorised slice statistics and the broadcast recurrence."""
    plan = plan_layer(arch, layer)
    return layer_result(arch, plan, fast_counts(plan))


def simulate_layer_reference(arch: ArchSpec, layer: Layer, max_cycles: int | None = None) -> LayerResult:
    """Per-cycle reference (slow; for small layers): same result as :func:`simulate_layer`."""
    plan = plan_layer(arch, layer)
    return layer_result(arch, plan, reference_counts(reference_runs(plan, max_cycles=max_cycles), plan))


# Fields that change only the timing and the counts, not what is stored: a plan can be reused.
TIMING_FIELDS = frozenset({"fifo_depth", "spmat_sram_width", "empty_column_costs_cycle", "lnzd_fanin",
                           "lnzd_cycles_per_level"})


def replan(arch: ArchSpec, plan: LayerPlan, **changes) -> tuple[ArchSpec, LayerPlan]:
    """The arch and plan with some timing fields of ``eie`` changed (a sweep reuses the encoding)."""
    unknown = set(changes) - TIMING_FIELDS
    if unknown:
        raise ValueError(f"replan changes only {sorted(TIMING_FIELDS)}, not {sorted(unknown)}")
    spec = dataclasses.replace(_spec(arch), **changes)
    return dataclasses.replace(arch, eie=spec), dataclasses.replace(plan, spec=spec)
