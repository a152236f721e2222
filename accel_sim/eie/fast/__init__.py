"""EIE's fast path: slice sizes from one vectorised pass over the weight mask (the plan's
:mod:`~accel_sim.eie.plan.slices`), then, per input vector, the broadcast / FIFO recurrence
(:mod:`.broadcast`, one numpy step per broadcast), the sparse-matrix SRAM line reads
(:mod:`.sparse_matrix_sram`), the arithmetic unit's pace and bypasses (:mod:`.arithmetic`) and
the DRAM spill (:mod:`.dram_spill`).

Every popped FIFO entry reads p_j and p_j+1, one from each pointer bank.
"""
from __future__ import annotations

import numpy as np

from accel_sim.eie.counters import EIECounters
from accel_sim.eie.fast.arithmetic import accumulator_bypasses, item_cycles
from accel_sim.eie.fast.broadcast import vector_timeline
from accel_sim.eie.fast.dram_spill import spill_stall_cycles
from accel_sim.eie.fast.sparse_matrix_sram import spmat_line_reads
from accel_sim.eie.plan import EIEPlan
from accel_sim.eie.spec import POINTER_BANKS
from accel_sim.errors import SimulationError


def fast(plan: EIEPlan, max_cycles: int | None = None) -> EIECounters:
    spec, stats, layer = plan.spec, plan.slices, plan.layer
    n_pes = spec.n_pes
    pe_entries = np.zeros(n_pes, dtype=np.int64)
    pe_busy = np.zeros(n_pes, dtype=np.int64)
    cycles = broadcasts = fifo_stall = starved = tail = ideal = 0
    nonzeros = spmat_reads = bypasses = empty = 0
    for vector in range(layer.m):
        columns = plan.broadcast_columns(vector)
        entries = stats.entries[columns]
        work = item_cycles(entries, spec.empty_column_costs_cycle)
        timeline = vector_timeline(work, spec.fifo_depth, spec.lnzd_latency)
        busy = work.sum(axis=0)
        vector_nonzeros = int(stats.nonzeros[columns].sum())
        cycles += timeline.cycles
        broadcasts += columns.size
        fifo_stall += timeline.fifo_full_stall_cycles
        starved += int((timeline.finish - busy).sum())
        tail += int((timeline.cycles - timeline.finish).sum())
        nonzeros += vector_nonzeros
        ideal += -(-vector_nonzeros // n_pes)
        pe_entries += entries.sum(axis=0)
        pe_busy += busy
        empty += int((work - entries).sum())
        spmat_reads += int(spmat_line_reads(stats.pointer[columns], entries, spec.entries_per_read).sum())
        bypasses += int(accumulator_bypasses(stats.first_row[columns], stats.last_row[columns], entries).sum())
    stall = spill_stall_cycles(plan.arch, plan.spill_bytes)
    if max_cycles is not None and cycles + stall > max_cycles:
        raise SimulationError(f"{layer.name}: {cycles + stall} cycles exceed max_cycles={max_cycles}")
    pops = broadcasts * n_pes
    return EIECounters(
        compute_cycles=cycles, spill_stall_cycles=stall, broadcasts=broadcasts, fifo_full_stall_cycles=fifo_stall,
        pe_starved_cycles=starved, pe_tail_cycles=tail, lnzd_activation_reads=layer.k * layer.m,
        fifo_pushes=pops, fifo_pops=pops, pointer_reads=POINTER_BANKS * pops, spmat_reads=spmat_reads,
        pe_entries=tuple(int(e) for e in pe_entries), padding_entries=int(pe_entries.sum()) - nonzeros,
        accumulator_bypasses=bypasses, pe_busy_cycles=tuple(int(b) for b in pe_busy), empty_slice_cycles=empty,
        ideal_cycles=ideal, dram_spill_bytes=plan.spill_bytes)
