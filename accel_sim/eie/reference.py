"""EIE, cycle by cycle: the reference the fast path (:mod:`accel_sim.eie.timing`) must match.

One loop iteration is one clock cycle. In each cycle, first every PE acts, then the root of
the LNZD tree:

1. PE. If it has no work left, it pops its FIFO head (if that entry was pushed in an earlier
   cycle), reads p_j and p_j+1 from the even / odd pointer banks and starts the column slice.
   An empty slice frees it again at once (or takes this cycle, with
   ``empty_column_costs_cycle``). With work left, it handles one entry (v, z) of the slice:
   the address accumulator adds z + 1 to the local row, the codebook turns v into a fixed-point
   weight and the arithmetic unit adds weight x activation to accumulator b_row (padding
   entries, v = 0, add the codebook's zero). A new sparse-matrix SRAM line is read when the
   entry lies in a line not yet read for this slice.
2. Root. From cycle ``lnzd_latency`` on, if a non-zero activation is left and every FIFO has a
   free slot, it broadcasts (a_j, j) to every FIFO.

Functional results come from the stored entries themselves (the compress package's
:class:`~accel_sim.compress.formats.eie.EIEInterleavedCSC` of the weight codes), so the
reference also checks the encoding. ``record=True`` keeps a per-cycle log for traces.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from accel_sim.compress.formats.eie import EIEInterleavedCSC
from accel_sim.errors import SimulationError


@dataclass(frozen=True)
class PEAction:
    """What one PE did in one cycle: 'mac' (a real entry), 'pad' (a padding entry) or 'empty'
    (a cycle spent on an empty slice)."""

    kind: str
    column: int
    row: int = -1          # global output row of the entry
    code: int = 0          # codebook index v
    pop: bool = False      # the PE popped its FIFO head this cycle


@dataclass(frozen=True)
class CycleRecord:
    cycle: int
    broadcast: tuple[int, int, int] | None      # (broadcast number, column j, activation code)
    pe: tuple[PEAction | None, ...]
    fifo: tuple[int, ...]                        # occupancy of each FIFO at the end of the cycle


@dataclass
class ReferenceRun:
    """One vector on the per-cycle machine."""

    cycles: int
    broadcast: np.ndarray                 # (T,)
    start: np.ndarray                     # (T, n_pes)
    outputs: np.ndarray                   # (n,) accumulators, int64
    counters: dict[str, np.ndarray]       # per PE
    log: list[CycleRecord] = field(default_factory=list)


def run_vector(encoded: EIEInterleavedCSC, codebook: np.ndarray, activations: np.ndarray, *, fifo_depth: int,
               lnzd_latency: int, entries_per_read: int, empty_column_costs_cycle: bool,
               max_cycles: int, record: bool = False) -> ReferenceRun:
    """Simulate one input vector (``activations``: integer codes of length n_columns)."""
    n_pes = encoded.n_pes
    n_rows = encoded.shape[0]
    pes = encoded.pes
    columns = [int(j) for j in np.flatnonzero(activations)]
    n_broadcasts = len(columns)
    codebook_values = [int(c) for c in codebook]
    fifos: list[deque] = [deque() for _ in range(n_pes)]
    cursor = [0] * n_pes
    end = [0] * n_pes
    empty_left = [0] * n_pes
    row = [-1] * n_pes
    act = [0] * n_pes
    column_of = [-1] * n_pes
    line = [-1] * n_pes
    last_row = [-1] * n_pes
    accumulators = [[0] * encoded.local_rows(p) for p in range(n_pes)]
    names = ("fifo_pushes", "fifo_pops", "pointer_reads", "spmat_reads", "entries", "padding_entries",
             "macs", "codebook_lookups", "bypasses", "busy_cycles", "empty_cycles")
    counters = {name: [0] * n_pes for name in names + ("finish",)}
    broadcast = np.zeros(n_broadcasts, dtype=np.int64)
    start = np.zeros((n_broadcasts, n_pes), dtype=np.int64)
    log: list[CycleRecord] = []
    next_broadcast = 0
    finished = 0
    cycle = 0
    while True:
        actions: list[PEAction | None] = [None] * n_pes
        for p in range(n_pes):
            popped = False
            while cursor[p] == end[p] and not empty_left[p] and fifos[p] and fifos[p][0][0] < cycle:
                _, t, j, a = fifos[p].popleft()
                popped = True
                counters["fifo_pops"][p] += 1
                counters["pointer_reads"][p] += 2  # p_j (even or odd bank) and p_j+1 (the other bank)
                start[t, p] = cycle
                cursor[p], end[p] = int(pes[p].col_ptr[j]), int(pes[p].col_ptr[j + 1])
                row[p], act[p], column_of[p], line[p] = -1, a, j, -1
                if cursor[p] == end[p]:
                    finished = max(finished, cycle)
                    counters["finish"][p] = max(counters["finish"][p], cycle)
                    if empty_column_costs_cycle:
                        empty_left[p] = 1
            if empty_left[p]:
                empty_left[p] = 0
                counters["busy_cycles"][p] += 1
                counters["empty_cycles"][p] += 1
                actions[p] = PEAction("empty", column_of[p], pop=popped)
                finished = counters["finish"][p] = cycle + 1
            elif cursor[p] < end[p]:
                entry = cursor[p]
                if entry // entries_per_read != line[p]:
                    line[p] = entry // entries_per_read
                    counters["spmat_reads"][p] += 1
                code = int(pes[p].values[entry])
                row[p] += int(pes[p].rel_index[entry]) + 1
                if row[p] == last_row[p]:
                    counters["bypasses"][p] += 1
                last_row[p] = row[p]
                accumulators[p][row[p]] += codebook_values[code] * act[p]
                counters["entries"][p] += 1
                counters["codebook_lookups"][p] += 1
                counters["macs"][p] += 1
                counters["busy_cycles"][p] += 1
                if code == 0:
                    counters["padding_entries"][p] += 1
                actions[p] = PEAction("pad" if code == 0 else "mac", column_of[p], row[p] * n_pes + p, code, popped)
                cursor[p] += 1
                finished = counters["finish"][p] = cycle + 1
            elif popped:
                actions[p] = PEAction("empty", column_of[p], pop=True) if record else None
        sent = None
        if (next_broadcast < n_broadcasts and cycle >= lnzd_latency
                and all(len(f) < fifo_depth for f in fifos)):
            j = columns[next_broadcast]
            a = int(activations[j])
            for p in range(n_pes):
                fifos[p].append((cycle, next_broadcast, j, a))
                counters["fifo_pushes"][p] += 1
            broadcast[next_broadcast] = cycle
            sent = (next_broadcast, j, a)
            next_broadcast += 1
            finished = max(finished, cycle + 1)
        if record:
            log.append(CycleRecord(cycle, sent, tuple(actions), tuple(len(f) for f in fifos)))
        cycle += 1
        done = next_broadcast == n_broadcasts and all(
            not fifos[p] and cursor[p] == end[p] and not empty_left[p] for p in range(n_pes))
        if done and cycle >= lnzd_latency:
            break
        if cycle > max_cycles:
            raise SimulationError(f"EIE reference passed the max_cycles guard {max_cycles}")
    outputs = np.zeros(n_rows, dtype=np.int64)
    for p in range(n_pes):
        outputs[p::n_pes] = accumulators[p]
    return ReferenceRun(cycles=max(lnzd_latency, finished), broadcast=broadcast, start=start, outputs=outputs,
                        counters={k: np.asarray(v, dtype=np.int64) for k, v in counters.items()}, log=log)
