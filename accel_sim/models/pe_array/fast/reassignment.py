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

from dataclasses import dataclass

import numpy as np

from accel_sim.models.pe_array.fast.datapath import FilterTileTiming, by_row, chunk_cycles
from accel_sim.models.pe_array.spec import PEArraySpec


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


@dataclass(frozen=True)
class EpochJump:
    cycles: np.ndarray       # per window, cycles jumped
    stolen_items: int        # weights of the chunks stolen in the jump
    psum_runs: int           # runs begun in the jump


def _stolen_counts(policy: str, left: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """Chunks each row loses to ``taken`` thief takes in a row (``(windows, rows)``), every own row
    keeping at least one: ``longest_first`` takes from the row with the most left (ties to the lower
    row): a water level falling from the top, each level's rows in row order; ``in_order`` from the
    lowest own row."""
    if policy != "longest_first":
        first = np.argmax(left > 0, axis=1)
        out = np.zeros_like(left)
        out[np.arange(left.shape[0]), first] = taken
        return out
    # the level L: the lowest with f(L) = sum(max(left - L, 0)) <= taken; the remainder at L in row
    # order. With the counts sorted s_1 >= s_2 >= ..., f(L) = S_j - j L on [s_(j+1), s_j] (S_j the
    # sum of the j largest): the lowest L of segment j is max(s_(j+1), ceil((S_j - taken) / j)).
    ranked = -np.sort(-left, axis=1)
    top = np.cumsum(ranked, axis=1)
    j = np.arange(1, left.shape[1] + 1)
    below = np.concatenate([ranked[:, 1:], np.zeros((left.shape[0], 1), dtype=left.dtype)], axis=1)
    candidate = np.maximum(below, -((taken[:, None] - top) // j))
    level = np.where(candidate <= ranked, candidate, np.iinfo(np.int64).max).min(axis=1)[:, None]
    above = np.maximum(left - level, 0)
    rest = taken - above.sum(axis=1)
    at_level = left >= level
    extra = at_level & (np.cumsum(at_level, axis=1) <= rest[:, None])
    return above + extra


def _unit_epochs(policy: str, e: np.ndarray, p: np.ndarray, n: np.ndarray, last: np.ndarray) -> EpochJump:
    """Jump every window (in place on ``p`` / ``last``) over the cycles in which no own row runs out.

    Only for unit chunks (every chunk one cycle): then every row is free at every cycle start and, as
    long as the set of rows with own chunks stays, each cycle every own row takes its next chunk and
    the ``T`` thieves (rows without own chunks, in row order) take ``T`` more. The victims of the
    thieves' takes do not depend on the own takes (they lower every own row alike), so ``c`` cycles
    are ``c x T`` takes of :func:`_stolen_counts` on the counts at the start; the ``k``-th take of
    the epoch is thief ``k mod T``'s in cycle ``k // T``. A victim's own take comes first in a cycle,
    so its ``q``-th stolen chunk of the epoch, taken in cycle ``i``, is its chunk ``p + i + 1 + q``.
    The epoch is the longest that leaves every own row a chunk (the cycle one runs out is stepped).
    """
    windows, rows = p.shape
    left = n - p
    own = left > 0
    thieves = rows - own.sum(axis=1)
    lo = np.zeros(windows, dtype=np.int64)
    hi = np.where(own.any(axis=1), np.where(own, left, np.iinfo(np.int64).max).min(axis=1) - 1, 0)
    while (lo < hi).any():  # the longest epoch: every own row keeps >= 1 chunk (monotone in the cycles)
        mid = (lo + hi + 1) // 2
        keeps = (np.where(own, left - mid[:, None] - _stolen_counts(policy, left, mid * thieves), 1) >= 1).all(axis=1)
        lo = np.where(keeps, mid, lo)
        hi = np.where(keeps, hi, mid - 1)
    cycles = lo
    lost = _stolen_counts(policy, left, cycles * thieves)
    stolen = runs = 0
    if lost.any():
        # every stolen chunk: (window, victim, q-th of the victim, its level = left - q), built in
        # (window, victim, q) order, then put in take order: in_order takes from one victim (already
        # in order); longest_first by falling level, then row (a stable sort on the level keeps rows)
        per_window = lost.sum(axis=1)
        win = np.repeat(np.arange(windows), per_window)
        victim = np.repeat(np.tile(np.arange(rows), windows), lost.ravel())
        q = np.arange(win.size) - np.repeat(np.cumsum(lost.ravel()) - lost.ravel(), lost.ravel())
        if policy == "longest_first":
            level = left[win, victim] - q
            order = np.argsort(win * (int(left.max()) + 1) - level, kind="stable")
            win, victim, q = win[order], victim[order], q[order]
        k = np.arange(win.size) - np.repeat(np.cumsum(per_window) - per_window, per_window)
        per_cycle = thieves[win]
        cycle, slot = k // per_cycle, k % per_cycle
        thief = np.argsort(own, axis=1, kind="stable")[win, slot]  # thieves (no own chunk) first, in row order
        stolen = int(e[win, victim, p[win, victim] + cycle + 1 + q].sum())
        # runs: a new one whenever a thief's victim differs from its previous take's (T takes back)
        index = np.arange(win.size)
        before = np.where(k >= per_cycle, victim[np.maximum(index - per_cycle, 0)], last[win, thief])
        runs = int(np.count_nonzero(victim != before))
        final = k + per_cycle >= per_window[win]  # each thief's last take of the epoch
        last[win[final], thief[final]] = victim[final]
    # own rows' ``last`` stays their own: a row steals only once its own chunks are done
    p += np.where(own, cycles[:, None], 0) + lost
    return EpochJump(cycles, stolen, runs)


def reassignment_timing(spec: PEArraySpec, items: np.ndarray) -> FilterTileTiming:
    """The reassignment rules stepped one cycle at a time for all windows of all filter tiles at
    once (numpy over windows; finished windows drop out), from the first cycle a row of the window
    is idle (:func:`_until_first_idle`). Python work per cycle is a handful of array operations,
    independent of the number of rows, windows and MACs. With one-cycle chunks (CSR entries or
    bitmap bits per cycle <= ``vector_width``, the shipped configs) the cycles between two rows
    running out are jumped in closed form (:func:`_unit_epochs`): a handful of steps per window."""
    full = by_row(spec, items)
    w, v = spec.reassign_window, spec.vector_width
    chunks = full.shape[1]
    nw = full.shape[0] // w
    e = full.reshape(nw, w, chunks)
    windows = np.arange(nw)
    nchunks = (e >= 0).sum(axis=2)
    unit = int(e.max(initial=0)) <= v    # every chunk takes one cycle
    if unit:  # _until_first_idle with one-cycle chunks: every row has taken t0 chunks (or all it has)
        time = nchunks.min(axis=1)
        pointer, busy = np.minimum(nchunks, time[:, None]), np.zeros_like(nchunks)
    else:
        time, pointer, busy = _until_first_idle(e, v)
    last = np.broadcast_to(np.arange(w), (nw, w)).copy()   # whose partial sums a row holds
    stolen = runs = 0
    # state of the windows with work left (compacted when some finish); ``live`` maps to window ids
    live = windows[((busy > 0) | (pointer < nchunks)).any(axis=1)]
    b, p, n_, ee, la = busy[live], pointer[live], nchunks[live], e[live], last[live]
    while live.size:
        if unit:  # every row is free at every cycle start: jump whole epochs in closed form
            jump = _unit_epochs(spec.reassign_policy, ee, p, n_, la)
            time[live] += jump.cycles
            stolen += jump.stolen_items
            runs += jump.psum_runs
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
