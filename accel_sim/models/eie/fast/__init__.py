"""EIE's fast path: slice sizes from one pass over the weights' non-zero positions (the plan's
:mod:`~accel_sim.models.eie.plan.slices`), then the broadcast / FIFO recurrence (:mod:`.broadcast`: one
compiled pass, or one numpy step per ``fifo_depth + 1`` broadcasts without numba) and the accumulator
bypasses (:mod:`.arithmetic`) for all input vectors at once; the sparse-matrix SRAM line reads (:mod:`.sparse_matrix_sram`),
entries and busy cycles per column, weighted by how often each column is broadcast; the DRAM
spill (:mod:`.dram_spill`).

Every popped FIFO entry reads p_j and p_j+1, one from each pointer bank.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.eie.counters import EIECounters
from accel_sim.models.eie.fast.arithmetic import BypassCount, item_cycles
from accel_sim.models.eie.fast.broadcast import BroadcastTimeline
from accel_sim.models.eie.fast.dram_spill import spill_stall_cycles
from accel_sim.models.eie.fast.sparse_matrix_sram import spmat_line_reads
from accel_sim.models.eie.plan import EIEPlan
from accel_sim.models.eie.spec import POINTER_BANKS
from accel_sim.foundations.errors import SimulationError

STEP_ELEMENTS = 1 << 20   # (vectors x broadcasts x PEs) per numpy step: bounds the memory of one step


def fast(plan: EIEPlan, max_cycles: int | None = None) -> EIECounters:
    spec, stats, layer = plan.spec, plan.slices, plan.layer
    n_pes = spec.n_pes
    broadcast = plan.activations != 0                      # (m, k): which columns each vector broadcasts
    counts = np.count_nonzero(broadcast, axis=1)
    uses = np.count_nonzero(broadcast, axis=0)              # (k,) broadcasts of each column, all vectors
    used = np.flatnonzero(uses)
    entries = stats.entries[used]
    work = item_cycles(stats.entries, spec.empty_column_costs_cycle)
    pe_entries = uses[used] @ entries
    pe_busy = uses[used] @ work[used]
    spmat_reads = int(uses[used] @ spmat_line_reads(stats.pointer[used], entries, spec.entries_per_read).sum(axis=1))
    vector_nonzeros = broadcast[:, used].astype(np.int64) @ stats.nonzeros[used].sum(axis=1)
    # Vectors that broadcast the same columns run the same timeline: each distinct mask once, weighted.
    masks, repeats = distinct_rows(broadcast)
    mask_counts = np.count_nonzero(masks, axis=1)
    cycles = fifo_stall = finish_sum = bypasses = 0
    chunk = spec.fifo_depth + 1
    group = max(1, STEP_ELEMENTS // (chunk * n_pes))
    for first in range(0, repeats.size, group):
        rows = slice(first, first + group)
        timeline, bypass = _vectors(plan, work, masks[rows], mask_counts[rows], chunk)
        weight = repeats[rows]
        cycles += int(weight @ timeline.cycles)
        fifo_stall += int(weight @ timeline.fifo_full_stall_cycles)
        finish_sum += int(weight @ timeline.finish.sum(axis=1))
        bypasses += int(weight @ bypass.hits)
    stall = spill_stall_cycles(plan.arch, plan.spill_bytes)
    if max_cycles is not None and cycles + stall > max_cycles:
        raise SimulationError(f"{layer.name}: {cycles + stall} cycles exceed max_cycles={max_cycles}")
    broadcasts = int(counts.sum())
    pops = broadcasts * n_pes
    nonzeros = int(vector_nonzeros.sum())
    return EIECounters(
        compute_cycles=cycles, spill_stall_cycles=stall, broadcasts=broadcasts, fifo_full_stall_cycles=fifo_stall,
        pe_starved_cycles=finish_sum - int(pe_busy.sum()), pe_tail_cycles=n_pes * cycles - finish_sum,
        lnzd_activation_reads=layer.k * layer.m, fifo_pushes=pops, fifo_pops=pops,
        pointer_reads=POINTER_BANKS * pops, spmat_reads=spmat_reads, pe_entries=tuple(int(e) for e in pe_entries),
        padding_entries=int(pe_entries.sum()) - nonzeros, accumulator_bypasses=bypasses,
        pe_busy_cycles=tuple(int(b) for b in pe_busy), empty_slice_cycles=int((pe_busy - pe_entries).sum()),
        ideal_cycles=int((-(-vector_nonzeros // n_pes)).sum()), dram_spill_bytes=plan.spill_bytes)


def distinct_rows(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a boolean matrix (first occurrences, in order) and how often each occurs."""
    if mask.shape[0] <= 1:
        return mask, np.ones(mask.shape[0], dtype=np.int64)
    first: dict[bytes, int] = {}
    which = np.array([first.setdefault(row.tobytes(), len(first)) for row in np.packbits(mask, axis=1)])
    _, rows = np.unique(which, return_index=True)
    return mask[rows], np.bincount(which)


def _vectors(plan: EIEPlan, work: np.ndarray, broadcast: np.ndarray, counts: np.ndarray,
             chunk: int) -> tuple[BroadcastTimeline, BypassCount]:
    """The timeline and bypasses of the vectors whose broadcast masks are ``broadcast`` (rows)."""
    spec, stats = plan.spec, plan.slices
    vectors = counts.size
    longest = int(counts.max(initial=0))
    rows, columns = np.nonzero(broadcast)                  # row-major: each vector's columns in index order
    position = np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts, counts)
    column = np.zeros((vectors, longest), dtype=np.int64)  # padded with column 0, masked below
    column[rows, position] = columns
    sent = np.arange(longest) < counts[:, None]
    timeline = BroadcastTimeline(counts, spec.n_pes, spec.fifo_depth, spec.lnzd_latency)
    bypass = BypassCount(vectors, spec.n_pes, -(-plan.layer.n // spec.n_pes))
    block = chunk * max(1, STEP_ELEMENTS // (vectors * chunk * spec.n_pes))   # broadcasts gathered at once
    for b0 in range(0, longest, block):
        columns_now, sent_now = column[:, b0:b0 + block], sent[:, b0:b0 + block, None]
        entries = np.where(sent_now, stats.entries[columns_now], 0)
        bypass.add(stats.first_row[columns_now], stats.last_row[columns_now], entries)
        cycles = np.where(sent_now, work[columns_now], 0) if spec.empty_column_costs_cycle else entries
        timeline.advance_all(cycles)
    return timeline, bypass
