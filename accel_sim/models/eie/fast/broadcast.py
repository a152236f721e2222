"""The LNZD root's broadcasts into the PEs' activation FIFOs, and when each PE pops them: the
fast path's recurrence, solved for many input vectors at once, ``fifo_depth + 1`` broadcasts
per numpy step (with numba, broadcast by broadcast in one compiled pass: ``advance_all``).

The rules (the discrete-event reference plays them out with processes: the LNZD root in
:mod:`accel_sim.models.eie.reference.lnzd`, the PEs in :mod:`accel_sim.models.eie.reference.pe`, the FIFOs as
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

Hence, with ``f[t, p]`` the cycle PE p finishes broadcast t and ``s[t, p] = f[t, p] - w[t, p]``
the cycle it pops it: ``s[t, p] = max(b_t + 1, f[t-1, p])`` (``f[-1, p] = 0``), ``b_{-1} = L - 1``
and ``b_t = max(b_{t-1} + 1, max_p s[t - depth, p])``. As ``b`` rises by at least one per
broadcast, ``max_p s[t - depth, p] = max(b_{t-depth} + 1, F[t - depth - 1])`` with
``F[u] = max_p f[u, p]``, and the first term never exceeds ``b_{t-1} + 1``:

    b_t = max(b_{t-1} + 1, F[t - depth - 1]),    f[t, p] = max(b_t + 1, f[t-1, p]) + w[t, p].

A chunk of ``c = depth + 1`` broadcasts ``t0 .. t0 + c - 1`` needs ``F`` of the previous chunk
only, so both recurrences unroll into running maxima (``np.maximum.accumulate``) over the chunk:

    b_{t0+i} = t0 + i + max(b_{t0-1} - (t0 - 1), max_{j<=i} (F[t0 + j - c] - (t0 + j)))
    f[t0+i, p] = W[i, p] + max(f[t0-1, p], max_{j<=i} (b_{t0+j} + 1 - W[j-1, p]))

with ``W`` the running sum of ``w`` over the chunk (``W[-1] = 0``). Every input vector starts
from an empty machine, so vectors are independent rows of one array: a vector with fewer
broadcasts than the longest is padded with 0-cycle items, which never change its earlier
values, and its results are read at its own last broadcast. The vector takes
``max(L, max_p f[T-1, p])`` cycles (``L`` with no broadcast).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np


NO_BOUND = np.iinfo(np.int64).min // 2   # "no earlier chunk": below every cycle, and no overflow when lowered


class BroadcastTimeline:
    """The recurrence for ``V`` input vectors, advanced chunk by chunk (:meth:`advance`)."""

    def __init__(self, counts: np.ndarray, n_pes: int, fifo_depth: int, lnzd_latency: int):
        self.counts = np.asarray(counts, dtype=np.int64)      # (V,) broadcasts of each vector
        self.chunk = fifo_depth + 1
        self.lnzd_latency = lnzd_latency
        vectors = self.counts.size
        self._last_broadcast = np.full(vectors, lnzd_latency - 1, dtype=np.int64)   # b_{t0-1}
        self._free = np.zeros((vectors, n_pes), dtype=np.int64)                     # f[t0-1, :]
        self._previous_latest: np.ndarray | None = None                             # F of the previous chunk
        self.first = np.zeros(vectors, dtype=np.int64)      # b_0 of each vector
        self.last = np.zeros(vectors, dtype=np.int64)       # b_{T-1} of each vector
        self.finish = np.zeros((vectors, n_pes), dtype=np.int64)  # f[T-1, :] of each vector (0 if T = 0)
        self._offsets = np.arange(self.chunk, dtype=np.int64)
        ending = np.flatnonzero(self.counts)
        ending_chunk = (self.counts[ending] - 1) // self.chunk
        order = np.argsort(ending_chunk, kind="stable")
        chunks, starts = np.unique(ending_chunk[order], return_index=True)
        # chunk -> the vectors whose last broadcast falls in it
        self._ending = dict(zip(chunks.tolist(), np.split(ending[order], starts[1:]))) if ending.size else {}
        self._t0 = 0

    def advance(self, work: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The next chunk: ``work`` is ``(V, c, n_pes)``, ``c = fifo_depth + 1`` but for the last chunk (0
        past a vector's broadcasts). Returns the chunk's broadcast cycles ``(V, c)`` and finish cycles
        ``(V, c, n_pes)``."""
        t0, width = self._t0, work.shape[1]
        offsets = self._offsets[:width]
        if self._previous_latest is None:
            lifted = np.full((self.counts.size, width), np.iinfo(np.int64).min // 2, dtype=np.int64)
        else:
            lifted = self._previous_latest[:, :width] - offsets
        np.maximum(lifted[:, 0], self._last_broadcast + 1, out=lifted[:, 0])
        broadcast = np.maximum.accumulate(lifted, axis=1)   # b_{t0+i} - i: the formula above, shifted by t0
        broadcast += offsets
        done = np.cumsum(work, axis=1)
        ready = broadcast[:, :, None] + 1 - done
        ready += work                          # b + 1 - W[i-1]
        np.maximum(ready[:, 0], self._free, out=ready[:, 0])
        finish = np.maximum.accumulate(ready, axis=1)
        finish += done
        if t0 == 0:
            self.first = broadcast[:, 0].copy()
        ending = self._ending.get(t0 // self.chunk)
        if ending is not None:
            at = self.counts[ending] - 1 - t0
            self.last[ending] = broadcast[ending, at]
            self.finish[ending] = finish[ending, at]
        self._previous_latest = finish.max(axis=2)
        self._free = finish[:, -1]
        self._last_broadcast = broadcast[:, -1]
        self._t0 = t0 + width
        return broadcast, finish

    def advance_all(self, work: np.ndarray) -> None:
        """:meth:`advance` over every chunk of ``work`` (``(V, B, n_pes)``, ``B`` whole chunks but for the last
        block), keeping only the state and the results. With numba, one compiled pass that plays the same
        recurrence broadcast by broadcast (:func:`timeline_steps`: no numpy step per chunk); without it, chunk
        by chunk. Both give the same values (tests run both)."""
        kernel = _compiled()
        width = work.shape[1]
        if kernel is None or width == 0:
            for t0 in range(0, width, self.chunk):
                self.advance(work[:, t0:t0 + self.chunk])
            return
        vectors, n_pes = self._free.shape
        if self._previous_latest is None:   # no earlier chunk: no bound from it
            self._previous_latest = np.full((vectors, self.chunk), NO_BOUND, dtype=np.int64)
        latest = np.empty((vectors, self.chunk), dtype=np.int64)
        kernel(np.ascontiguousarray(work, dtype=np.int64), self.counts, self._t0, self.chunk, self._last_broadcast,
               self._free, self._previous_latest, latest, self.first, self.last, self.finish)
        width_last = width - (width - 1) // self.chunk * self.chunk   # the last chunk's width
        self._previous_latest = latest[:, :width_last]
        self._t0 += width

    @property
    def cycles(self) -> np.ndarray:
        """Cycles of each vector."""
        return np.maximum(self.lnzd_latency, self.finish.max(axis=1, initial=0))

    @property
    def fifo_full_stall_cycles(self) -> np.ndarray:
        """Per vector, cycles the root held a ready broadcast because some FIFO was full."""
        return np.where(self.counts > 0, self.last - self.first - (self.counts - 1), 0)


def timeline_steps(work: np.ndarray, counts: np.ndarray, t0: int, chunk: int, last_broadcast: np.ndarray,
                   free: np.ndarray, previous_latest: np.ndarray, latest: np.ndarray, first: np.ndarray,
                   last: np.ndarray, finish: np.ndarray) -> None:
    """Broadcasts ``t0 ..`` of every vector, one by one: ``b_t = max(b_{t-1} + 1, F[t - chunk])`` (``F`` of the
    chunk before the first from ``previous_latest``), ``f[t, p] = max(b_t + 1, f[t-1, p]) + w[t, p]``, the
    recurrence :meth:`BroadcastTimeline.advance` solves a chunk at a time. Updates ``last_broadcast``, ``free``,
    ``first`` / ``last`` / ``finish`` (at each vector's first and last broadcast) in place; ``latest`` gets
    ``F`` of the last chunk. The loop numba compiles (plain Python too: slow, the tests run it on small cases)."""
    vectors, width, n_pes = work.shape
    history = np.empty(width, dtype=np.int64)
    for v in range(vectors):
        previous = last_broadcast[v]
        for i in range(width):
            t = t0 + i
            bound = history[i - chunk] if i >= chunk else previous_latest[v, i]
            broadcast = max(previous + 1, bound)
            most = NO_BOUND   # below every finish cycle (n_pes >= 1 replaces it)
            for p in range(n_pes):
                done = max(broadcast + 1, free[v, p]) + work[v, i, p]
                free[v, p] = done
                most = max(most, done)
            history[i] = most
            if t == 0:
                first[v] = broadcast
            if t == counts[v] - 1:
                last[v] = broadcast
                for p in range(n_pes):
                    finish[v, p] = free[v, p]
            previous = broadcast
        last_broadcast[v] = previous
        start = (width - 1) // chunk * chunk
        for i in range(start, width):
            latest[v, i - start] = history[i]


@functools.cache
def _compiled():
    """:func:`timeline_steps` compiled by numba (cached on disk), or None when numba is not installed."""
    try:
        from numba import njit
    except ImportError:   # pragma: no cover - depends on the environment
        return None
    return njit(cache=True, nogil=True)(timeline_steps)


@dataclass(frozen=True, eq=False)
class VectorTimeline:
    """One vector, every broadcast kept: when each left the root and when each PE started it."""

    broadcast: np.ndarray   # (T,) cycle of each broadcast
    start: np.ndarray       # (T, n_pes) cycle each PE popped each broadcast
    work: np.ndarray        # (T, n_pes) cycles each PE spent on each broadcast
    cycles: int             # cycles of the vector
    finish: np.ndarray      # (n_pes,) cycle each PE's last item ended (0 when nothing was broadcast)
    fifo_full_stall_cycles: int

    @property
    def busy(self) -> np.ndarray:
        """Per PE, cycles spent on items."""
        return self.work.sum(axis=0)


def vector_timeline(work: np.ndarray, fifo_depth: int, lnzd_latency: int) -> VectorTimeline:
    """Solve the recurrence for one vector (``work`` is ``(T, n_pes)``), keeping every broadcast."""
    work = np.asarray(work, dtype=np.int64)
    n_broadcasts, n_pes = work.shape
    timeline = BroadcastTimeline(np.array([n_broadcasts]), n_pes, fifo_depth, lnzd_latency)
    broadcasts, finishes = [np.empty(0, dtype=np.int64)], [np.empty((0, n_pes), dtype=np.int64)]
    for t0 in range(0, n_broadcasts, timeline.chunk):
        broadcast, finish = timeline.advance(work[None, t0:t0 + timeline.chunk])
        broadcasts.append(broadcast[0])
        finishes.append(finish[0])
    finish = np.concatenate(finishes)
    return VectorTimeline(np.concatenate(broadcasts), finish - work, work, int(timeline.cycles[0]),
                          timeline.finish[0], int(timeline.fifo_full_stall_cycles[0]))
