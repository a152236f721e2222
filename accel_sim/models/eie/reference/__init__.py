"""EIE's discrete-event reference (SimPy), for tests and small layers.

Agents and blocks (one module each):

- :mod:`.dram_spill`: with ``dram_spill``, one process loads the stored bytes that do not fit
  the PEs' SRAMs from DRAM; everything else waits for it;
- :mod:`.lnzd`: the LNZD root, one process: per input vector, the tree's latency, then one
  broadcast per cycle of each non-zero activation through a
  :class:`~accel_sim.hardware.broadcast.Broadcast` bus into every PE's activation
  :class:`~accel_sim.hardware.Fifo` (depth ``eie.fifo_depth``), stalled while any FIFO is full;
- :mod:`.pe`: one process per PE popping its FIFO (an event per FIFO entry), reading p_j and
  p_j+1 from its :mod:`.pointer_banks`, streaming the slice from its :mod:`.sparse_matrix_sram`
  and spending one cycle per entry in its :mod:`.arithmetic` unit, which accumulates the real
  outputs;
- a :class:`~accel_sim.hardware.Barrier` ends each vector when the root and every PE are done.

The weights run as stored: the plan's EIE encoding (the compress package's encoder), not the
fast path's slice statistics. ``record=True`` keeps, per vector, every broadcast and every
PE's slice with its cycle (the teaching trace, :mod:`accel_sim.pipeline.trace.eie`, expands it cycle by
cycle).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import simpy

from accel_sim.models.eie.counters import EIECounters
from accel_sim.models.eie.plan import EIEPlan
from accel_sim.models.eie.reference import dram_spill
from accel_sim.models.eie.reference.arithmetic import ArithmeticUnit
from accel_sim.models.eie.reference.lnzd import BroadcastLog, LnzdRoot
from accel_sim.models.eie.reference.pe import ProcessingElement, SliceLog
from accel_sim.models.eie.reference.pointer_banks import PointerBanks
from accel_sim.models.eie.reference.sparse_matrix_sram import SparseMatrixSram
from accel_sim.hardware.barrier import Barrier
from accel_sim.hardware.broadcast import Broadcast
from accel_sim.hardware.clock_guard import run_until_done
from accel_sim.hardware.fifo import Fifo
from accel_sim.hardware.recorder import DRAM, Recorder

SPILL_AGENT = "DRAM spill"
BROADCAST_LATENCY = 1  # an entry broadcast in cycle b is popped at the earliest in cycle b + 1


@dataclass(frozen=True)
class VectorLog:
    """One input vector: its start (absolute cycle), cycles, broadcasts and every PE's slices."""

    start: int
    cycles: int
    broadcasts: tuple[BroadcastLog, ...]
    slices: tuple[SliceLog, ...]


@dataclass(frozen=True, eq=False)
class ReferenceRun:
    """The layer's counters, its outputs, and (recorded) what happened in each vector."""

    counters: EIECounters
    outputs: np.ndarray                 # (m, n) int64: the accumulators of every vector
    vectors: tuple[VectorLog, ...]      # empty unless recorded


def run(plan: EIEPlan, record: bool = False, max_cycles: int | None = None,
        recorder: Recorder | None = None) -> ReferenceRun:
    """Run the layer on the discrete-event machine (SimulationError past ``max_cycles``); ``recorder``
    (teaching traces) gets the DRAM spill, every broadcast and FIFO entry, every PE's slices, waits
    for an empty FIFO and waits at the vector barrier."""
    spec, layer, n_pes = plan.spec, plan.layer, plan.spec.n_pes
    stored = plan.stored_weights()
    env = simpy.Environment()
    spill_bytes = dram_spill.spilled_bytes(spec, stored, plan.pointer_bits, plan.spmat_sram_size,
                                           plan.pointer_sram_size)
    spill = env.process(dram_spill.load(env, plan.arch.dram, spill_bytes))
    if recorder is not None and spill_bytes:
        recorder.agent(SPILL_AGENT, "dram")
        env.process(_record_spill(env, spill, recorder, spill_bytes))
    fifos = [Fifo(env, spec.fifo_depth, f"activation FIFO PE {p}", recorder=recorder) for p in range(n_pes)]
    bus = Broadcast(env, fifos, BROADCAST_LATENCY, "LNZD root", recorder=recorder)
    vector_end = Barrier(env, n_pes + 1, "vector", recorder)
    root = LnzdRoot(env, plan.activations, spec.lnzd_latency, bus, vector_end, record)
    pes = [ProcessingElement(env, p, n_pes, PointerBanks(stored.pes[p].col_ptr),
                             SparseMatrixSram(stored.pes[p], spec.entries_per_read),
                             ArithmeticUnit(stored.codebook, len(range(p, layer.n, n_pes))),
                             1 if spec.empty_column_costs_cycle else 0, record, recorder) for p in range(n_pes)]
    processes = [env.process(root.run(spill))] + [env.process(pe.run(spill, root, bus, vector_end)) for pe in pes]
    end = run_until_done(env, env.all_of(processes), max_cycles, f"EIE {layer.name}")
    starts = [*root.vector_starts, end]
    vectors = ()
    if record:
        vectors = tuple(VectorLog(starts[v], starts[v + 1] - starts[v], tuple(root.logs[v]),
                                  tuple(s for pe in pes for s in pe.logs[v])) for v in range(layer.m))
    outputs = np.zeros((layer.m, layer.n), dtype=np.int64)
    for pe in pes:
        for v, accumulators in enumerate(pe.outputs):
            outputs[v, pe.index::n_pes] = accumulators
    nonzeros = [sum(pe.vector_nonzeros[v] for pe in pes) for v in range(layer.m)]
    counters = EIECounters(
        compute_cycles=end - spill.value, spill_stall_cycles=spill.value, broadcasts=bus.sent,
        fifo_full_stall_cycles=bus.full_stall_cycles, pe_starved_cycles=sum(pe.starved_cycles for pe in pes),
        pe_tail_cycles=sum(pe.tail_cycles for pe in pes), lnzd_activation_reads=root.activation_reads,
        fifo_pushes=sum(f.pushes for f in fifos), fifo_pops=sum(f.pops for f in fifos),
        pointer_reads=sum(sum(pe.pointers.reads) for pe in pes), spmat_reads=sum(pe.sram.reads for pe in pes),
        pe_entries=tuple(pe.alu.entries for pe in pes), padding_entries=sum(pe.alu.padding for pe in pes),
        accumulator_bypasses=sum(pe.alu.bypasses for pe in pes), pe_busy_cycles=tuple(pe.busy_cycles for pe in pes),
        empty_slice_cycles=sum(pe.empty_cycles for pe in pes),
        ideal_cycles=sum(-(-n // n_pes) for n in nonzeros), dram_spill_bytes=spill_bytes)
    return ReferenceRun(counters, outputs, vectors)


def _record_spill(env: simpy.Environment, spill: simpy.Process, recorder: Recorder, nbytes: int):
    yield spill
    recorder.record(SPILL_AGENT, DRAM, 0, spill.value, "spilled entries and pointers", dram_bytes=nbytes)


def reference(plan: EIEPlan, max_cycles: int | None = None, recorder: Recorder | None = None) -> EIECounters:
    return run(plan, max_cycles=max_cycles, recorder=recorder).counters
