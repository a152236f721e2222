"""Work distribution under ``reassignment``, vectorised over windows.

Rows are split into windows of ``reassign_window`` sharing their decoded streams through a
crossbar. Each cycle, every free row with chunks of its own left takes its next one; then, in
row order, every free row whose own stream is done takes the next chunk of another row of its
window (policy ``in_order``: the lowest row with chunks left; ``longest_first``: the row with the
most chunks left, ties to the lower row). A chunk occupies the row that took it for
``max(1, ceil(items / vector_width))`` cycles. The weights of a taken chunk cross the crossbar;
a row accumulates the products of consecutive chunks taken from one row and sends them back as
one partial sum per pixel (a "run"). Reassignment never makes a window slower than skipping: a
thief takes the victim's next chunk, which the victim could not have finished sooner.
"""
from __future__ import annotations

import numpy as np

from accel_sim.pe_array.fast.datapath import FilterTileTiming, by_row, chunk_cycles
from accel_sim.pe_array.spec import PEArraySpec


def _until_first_idle(e: np.ndarray, v: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each window's ``(t0, pointer, busy)`` at the start of the first cycle ``t0`` in which one of
    its rows has no chunk of its own left.

    Until then no row is idle, so nothing is reassigned and every row works through its own
    chunks back to back: a row has taken every chunk that starts before ``t0`` and is busy until
    the last of them ends.
    """
    cycles = np.where(e >= 0, chunk_cycles(e, v), 0)       # (windows, rows, chunks)
    ends = np.cumsum(cycles, axis=2)
    t0 = cycles.sum(axis=2).min(axis=1)
    pointer = ((ends - cycles < t0[:, None, None]) & (e >= 0)).sum(axis=2)
    last_end = np.take_along_axis(ends, np.maximum(pointer - 1, 0)[:, :, None], axis=2)[:, :, 0] \
        if e.shape[2] else np.zeros_like(pointer)
    busy = np.where(pointer > 0, np.maximum(last_end - t0[:, None], 0), 0)
    return t0, pointer, busy


def reassignment_timing(spec: PEArraySpec, items: np.ndarray) -> FilterTileTiming:
    """The reassignment rules stepped one cycle at a time for all windows of all filter tiles at
    once (numpy over windows; finished windows drop out), from the first cycle a row of the window
    is idle (:func:`_until_first_idle`). Python work per cycle is a handful of array operations,
    independent of the number of rows, windows and MACs."""
    full = by_row(spec, items)
    w, v = spec.reassign_window, spec.vector_width
    chunks = full.shape[1]
    nw = full.shape[0] // w
    e = full.reshape(nw, w, chunks)
    windows = np.arange(nw)
    nchunks = (e >= 0).sum(axis=2)
    time, pointer, busy = _until_first_idle(e, v)
    last = np.broadcast_to(np.arange(w), (nw, w)).copy()   # whose partial sums a row holds
    stolen = runs = 0
    # state of the windows with work left (compacted when some finish); ``live`` maps to window ids
    live = windows[((busy > 0) | (pointer < nchunks)).any(axis=1)]
    b, p, n_, ee, la = busy[live], pointer[live], nchunks[live], e[live], last[live]
    while live.size:
        # own chunks first: a free row with chunks of its own takes its next one (rows independent)
        own = (b == 0) & (p < n_)
        if own.any():
            wi, ri = np.nonzero(own)
            b[wi, ri] = chunk_cycles(ee[wi, ri, p[wi, ri]], v)
            p[wi, ri] += 1
            la[wi, ri] = ri
        # then, row by row, a free row without chunks of its own takes another row's next chunk
        if (b == 0).any():
            for r in range(w):
                left = n_ - p
                thief = (b[:, r] == 0) & (left > 0).any(axis=1)
                if not thief.any():
                    continue
                idx = np.nonzero(thief)[0]
                victim = np.argmax(left[idx], axis=1) if spec.reassign_policy == "longest_first" \
                    else np.argmax(left[idx] > 0, axis=1)
                taken = ee[idx, victim, p[idx, victim]]
                b[idx, r] = chunk_cycles(taken, v)
                p[idx, victim] += 1
                stolen += int(taken.sum())
                runs += int(np.count_nonzero(la[idx, r] != victim))
                la[idx, r] = victim
        time[live] += 1   # a live window has a busy row every cycle: a free row takes any chunk left
        np.maximum(b - 1, 0, out=b)
        going = (b > 0).any(axis=1) | (p < n_).any(axis=1)
        if not going.all():
            live, b, p, n_, ee, la = live[going], b[going], p[going], n_[going], ee[going], la[going]
    per_tile = time.reshape(nw * w // spec.rows, spec.rows // w).max(axis=1)
    return FilterTileTiming(cycles=tuple(int(c) + spec.decoder_latency for c in per_tile),
                            stolen_items=stolen, psum_runs=runs)
