"""Bit-Tactical's weight scheduler (pure): which weight each multiplier slot holds at each step.

Per filter set, the weight buffer is ``T`` lines of ``rows x lanes`` slots. Walking the lines in
order, a line of zeros is skipped while fewer than ``lookahead_h`` lines were skipped in a row;
otherwise, in every filter row, zero slots are filled with non-zero weights promoted from the
search window (``search_offsets``: (steps ahead, lanes aside), the lane wrapping within the row):
repeatedly, the zero slot (lowest lane first) with the most candidates takes its first candidate
(the two slots swap), until no zero slot has a candidate. Every entry keeps the (step, lane) it
came from: a promoted weight multiplies the activation of its original slot.

This is DNNsim's ``BitTactical::original_schedule`` (core/src/BitTactical.cpp:74-133, search map
BitTactical.h:42-72) and the Bit-Tactical paper's front-end (Delmas Lascorz et al., ASPLOS 2019).
With numba, one compiled loop over the sets, steps and rows (:func:`schedule_loop`); without it, vectorised
over every row of every filter set, one pass per step and per promotion round (:func:`_promote`). Both give the
same schedule (tests run both).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.compiled import compiled_loop


def search_offsets(shape: str, lookahead_h: int, lookaside_d: int) -> tuple[tuple[int, int], ...]:
    """The promotion window, sorted as DNNsim sorts it: 'L' = (1..h, 0) and (1, -1..-d); 'T' = (1..h, 0)
    and d lanes alternating right / left, one step ahead then two (h = 2, d = 5)."""
    offsets = [(h, 0) for h in range(1, lookahead_h + 1)]
    if shape == "L":
        offsets += [(1, -d) for d in range(1, lookaside_d + 1)]
    else:
        h, d, second = 1, 1, False
        for _ in range(lookaside_d):
            offsets.append((h, d))
            d = -d
            if second:
                d, h, second = d + 1, h + 1 if h < lookahead_h else 1, False
            else:
                second = True
    return tuple(sorted(offsets))


@dataclass(frozen=True)
class Schedule:
    """The scheduled weight buffers of every filter set, ``(sets, T, rows, lanes)`` each."""

    values: np.ndarray       # the weight in each slot (int64)
    source_step: np.ndarray  # the step the weight came from (0 for slots outside the layer, as DNNsim)
    source_lane: np.ndarray  # the lane it came from
    real: np.ndarray         # the slot holds a weight of the layer (not padding)
    issued: np.ndarray       # (sets, T) bool: the line is issued (not a skipped line of zeros)


def schedule(values: np.ndarray, real: np.ndarray, lookahead_h: int,
             offsets: tuple[tuple[int, int], ...], loop=None) -> Schedule:
    """Schedule ``values`` ``(sets, T, rows, lanes)``; ``real`` marks slots inside the layer. ``loop``: the
    scheduling loop to run (default: :func:`schedule_loop` compiled by numba; :func:`schedule_passes` without
    numba)."""
    sets, steps, rows, lanes = values.shape
    loop = compiled_loop(schedule_loop) if loop is None else loop
    if loop is None:
        return schedule_passes(values, real, lookahead_h, offsets)
    vals, src_t, src_l, held = _start(values, real)
    dt = np.array([o[0] for o in offsets], dtype=np.int64)
    cand_l = (np.arange(lanes)[:, None] + np.array([o[1] for o in offsets], dtype=np.int64)[None, :]) % lanes
    skipped = np.zeros((sets, steps), dtype=bool)
    loop(vals, src_t, src_l, held, skipped, lookahead_h, dt, cand_l)
    return Schedule(vals, src_t, src_l, held, ~skipped)


def _start(values: np.ndarray, real: np.ndarray):
    """(values, source step, source lane, held) before scheduling: each weight in its own slot (int64 copies)."""
    steps, lanes = values.shape[1], values.shape[3]
    vals = values.astype(np.int64)   # a copy: scheduled in place
    t_index = np.broadcast_to(np.arange(steps)[None, :, None, None], values.shape)
    l_index = np.broadcast_to(np.arange(lanes)[None, None, None, :], values.shape)
    src_t = np.where(real, t_index, 0).astype(np.int64)
    src_l = np.where(real, l_index, 0).astype(np.int64)
    return vals, src_t, src_l, real.copy()


def schedule_passes(values: np.ndarray, real: np.ndarray, lookahead_h: int,
                    offsets: tuple[tuple[int, int], ...]) -> Schedule:
    """:func:`schedule` in numpy: one vectorised pass per step and per promotion round over every row."""
    sets, steps, rows, lanes = values.shape
    vals, src_t, src_l, held = _start(values, real)
    dt = np.array([o[0] for o in offsets])
    dl = np.array([o[1] for o in offsets])
    run = np.zeros(sets, dtype=np.int64)
    skipped = np.zeros((sets, steps), dtype=bool)
    lane = np.arange(lanes)
    for t in range(steps):
        zero = ~vals[:, t].reshape(sets, -1).any(axis=1)
        skip = zero & (run < lookahead_h)
        skipped[:, t] = skip
        run = np.where(skip, run + 1, 0)
        active = np.repeat(~skip, rows)           # (sets * rows,) rows promoted into at this step
        _promote((vals, src_t, src_l, held), t, active, dt, dl, lane)
    return Schedule(vals, src_t, src_l, held, ~skipped)


def _promote(arrays, t, active, dt, dl, lane) -> None:
    """Promotion rounds of step ``t`` in the ``active`` rows, all rows at once (``arrays``: values first)."""
    vals = arrays[0]
    sets, steps, rows, lanes = vals.shape
    ok_t = t + dt < steps                                       # (offsets,)
    cand_t = np.minimum(t + dt, steps - 1)                      # (offsets,)
    cand_l = (lane[:, None] + dl[None, :]) % lanes              # (lanes, offsets)
    set_of = np.repeat(np.arange(sets), rows)
    row_of = np.tile(np.arange(rows), sets)
    todo = active.copy()
    while todo.any():
        s_idx, r_idx = set_of[todo], row_of[todo]
        here = vals[s_idx, t, r_idx]                          # (n, lanes)
        cand = vals[s_idx[:, None, None], cand_t[None, None, :], r_idx[:, None, None], cand_l[None]]
        has = (cand != 0) & ok_t[None, None, :] & (here == 0)[:, :, None]   # (n, lanes, offsets)
        count = has.sum(axis=2)
        overlap = count.max(axis=1)
        go = overlap > 0
        if not go.any():
            break
        pick_lane = np.argmax(count == overlap[:, None], axis=1)
        pick_off = np.argmax(has[np.arange(len(s_idx)), pick_lane], axis=1)
        s, r = s_idx[go], r_idx[go]
        a_l = pick_lane[go]
        b_t, b_l = cand_t[pick_off[go]], cand_l[a_l, pick_off[go]]
        for array in arrays:
            a, b = array[s, t, r, a_l].copy(), array[s, b_t, r, b_l].copy()
            array[s, t, r, a_l], array[s, b_t, r, b_l] = b, a
        still = np.zeros_like(todo)
        still[np.flatnonzero(todo)[go]] = True
        todo = still


def schedule_loop(vals, src_t, src_l, held, skipped, lookahead_h, dt, cand_l) -> None:
    """:func:`schedule` in place on ``vals``, ``src_t``, ``src_l``, ``held`` ``(sets, T, rows, lanes)`` and
    ``skipped`` ``(sets, T)``: set by set, step by step, row by row (``dt``: the offsets' steps ahead, ``cand_l``:
    ``(lanes, offsets)`` the lane each offset reaches from each lane). The loop numba compiles; plain Python too
    (slow; the tests run it on small buffers)."""
    sets, steps, rows, lanes = vals.shape
    offsets = dt.shape[0]
    for s in range(sets):
        run = 0
        for t in range(steps):
            zero = True
            for r in range(rows):
                for j in range(lanes):
                    if vals[s, t, r, j] != 0:
                        zero = False
                        break
                if not zero:
                    break
            if zero and run < lookahead_h:
                skipped[s, t] = True
                run += 1
                continue
            run = 0
            for r in range(rows):
                while True:   # a promotion round: the zero slot with the most candidates takes its first
                    best, pick, b_t, b_l = 0, 0, 0, 0
                    for j in range(lanes):
                        if vals[s, t, r, j] != 0:
                            continue
                        count = 0
                        for o in range(offsets):
                            if t + dt[o] < steps and vals[s, t + dt[o], r, cand_l[j, o]] != 0:
                                count += 1
                        if count > best:
                            best, pick = count, j
                    if best == 0:
                        break
                    for o in range(offsets):
                        b_t, b_l = t + dt[o], cand_l[pick, o]
                        if b_t < steps and vals[s, b_t, r, b_l] != 0:
                            break
                    vals[s, t, r, pick], vals[s, b_t, r, b_l] = vals[s, b_t, r, b_l], vals[s, t, r, pick]
                    src_t[s, t, r, pick], src_t[s, b_t, r, b_l] = src_t[s, b_t, r, b_l], src_t[s, t, r, pick]
                    src_l[s, t, r, pick], src_l[s, b_t, r, b_l] = src_l[s, b_t, r, b_l], src_l[s, t, r, pick]
                    held[s, t, r, pick], held[s, b_t, r, b_l] = held[s, b_t, r, b_l], held[s, t, r, pick]
