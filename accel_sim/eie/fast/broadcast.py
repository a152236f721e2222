"""The LNZD root's broadcasts into the PEs' activation FIFOs, and when each PE pops them: the
fast path's recurrence, one numpy step per broadcast, vectorised over PEs.

The rules (the discrete-event reference plays them out with processes: the LNZD root in
:mod:`accel_sim.eie.reference.lnzd`, the PEs in :mod:`accel_sim.eie.reference.pe`, the FIFOs as
:class:`accel_sim.hardware.Broadcast`):

- The LNZD tree delivers the non-zero activations in index order, one per cycle; the first can
  leave the root at cycle ``L = spec.lnzd_latency``.
- Broadcast t (cycle ``b_t``) pushes one entry into every PE's FIFO. It needs a free slot in
  every FIFO after that cycle's pops: broadcast t waits until every PE has popped broadcast
  ``t - depth``.
- A PE pops its FIFO head in the first cycle it is idle after the cycle the entry was pushed,
  then spends ``w[t, p]`` cycles on it (one entry of its column slice per cycle, padding
  included; an empty slice costs 0 cycles, or 1 if ``empty_column_costs_cycle``). A 0-cycle
  item frees the PE in the same cycle.

Hence ``b_t = max(b_{t-1} + 1, max_p s[t - depth, p])``, ``b_0 >= L`` and
``s[t, p] = max(b_t + 1, s[t-1, p] + w[t-1, p])``. The vector takes
``max(L, max_p (s[T-1, p] + w[T-1, p]))`` cycles.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class VectorTimeline:
    """When each broadcast left the root and when each PE started each broadcast's slice."""

    broadcast: np.ndarray   # (T,) cycle of each broadcast
    start: np.ndarray       # (T, n_pes) cycle each PE popped each broadcast
    work: np.ndarray        # (T, n_pes) cycles each PE spent on each broadcast
    cycles: int             # cycles of the vector

    @property
    def finish(self) -> np.ndarray:
        """Per PE, the cycle its last item ended (0 when nothing was broadcast)."""
        if not self.work.size:
            return np.zeros(self.work.shape[1], dtype=np.int64)
        return self.start[-1] + self.work[-1]

    @property
    def busy(self) -> np.ndarray:
        """Per PE, cycles spent on items."""
        return self.work.sum(axis=0)

    @property
    def fifo_full_stall_cycles(self) -> int:
        """Cycles the root held a ready broadcast because some FIFO was full."""
        if not self.broadcast.size:
            return 0
        gaps = np.diff(self.broadcast) - 1
        return int(gaps.sum())


def vector_timeline(work: np.ndarray, fifo_depth: int, lnzd_latency: int) -> VectorTimeline:
    """Solve the broadcast / FIFO recurrence for one vector (``work`` is ``(T, n_pes)``)."""
    work = np.ascontiguousarray(work, dtype=np.int64)
    n_broadcasts, n_pes = work.shape
    broadcast = np.empty(n_broadcasts, dtype=np.int64)
    start = np.empty((n_broadcasts, n_pes), dtype=np.int64)
    latest_pop = np.empty(n_broadcasts, dtype=np.int64)  # max over PEs of start[t]
    free = np.zeros(n_pes, dtype=np.int64)
    previous = lnzd_latency - 1
    for t in range(n_broadcasts):
        cycle = previous + 1
        if t >= fifo_depth and latest_pop[t - fifo_depth] > cycle:
            cycle = int(latest_pop[t - fifo_depth])
        row = start[t]
        np.maximum(free, cycle + 1, out=row)
        latest_pop[t] = row.max()
        np.add(row, work[t], out=free)
        broadcast[t] = cycle
        previous = cycle
    cycles = max(lnzd_latency, int(free.max()) if n_broadcasts else 0)
    return VectorTimeline(broadcast, start, work, cycles)
