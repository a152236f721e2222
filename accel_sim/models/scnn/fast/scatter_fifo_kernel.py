"""FIFO scatter network, fast path: the step recursion run sequence by sequence in compiled loops
(numba: :mod:`.scatter_fifo` runs its numpy path without it; the tests also run these loops as plain
Python on small layers).

Every (pass, PE, group) sequence runs its steps in order, one I-vector against every F-vector of its
segment and group. With an additive mapping a product's bank is ``(activation term + weight term) mod A``
(:mod:`accel_sim.models.scnn.plan.bank_mapping`), so no product is listed; DNNsim's coordinate rules
(XOR hash, ``out_of_plane: slot_only``, ``stride_phases: dnnsim``) take a product's bank and landing from
its output coordinate (:func:`coordinate_bank`). Two loops:

- :func:`packed_kernel` (A <= 32 banks, and a finite depth with ``D + F I <= 127``, or unbounded):
  the queues ``Q_b`` in 8-bit lanes, 8 banks to a uint64, 4 words. An I-vector's bank counts
  depend on its terms relative to its first one (its *pattern*) rotated by that first term; a weight
  of term ``w`` rotates them by ``w`` more: :func:`pattern_table` stores every pattern's counts under
  every rotation ``[0, 2A)`` packed the same way; per (segment, group) the loads of every distinct
  (pattern, first term) of the segment against every F-vector are summed once (:func:`block_combos`),
  so a step adds one precomputed row to the queues (``x = Q + n``; the rows of other mappings:
  :mod:`.scatter_fifo_rows`; the steps of I-vectors near the edges under ``slot_only``: their products
  one by one, :func:`product_words`). Its cycles ``d = max(1, max_b x_b - D)``: whether some lane reaches
  ``D + 2`` is one add and mask per word (then the lane maximum, :func:`lane_max`), and
  ``Q_b <- max(0, x_b - d)`` a borrow-free subtract per word (:func:`settle`; on VGG-16 99.9 % of the
  steps do not stall: ``d = 1``, :func:`lane_drain_one`). Compiled, a sequence's steps hold the four words in
  one vector register of 32 byte lanes (:func:`_lane_steps_codegen`). A finite depth keeps every lane below
  128 (``Q_b <= D`` after a step, a step adds at most ``F I``); unbounded queues are checked and a
  sequence whose lane would pass 127 is flagged and run again by the other loop. The packed loop indexes
  its word arrays by uint64: numba tests every signed index for a negative (wrap-around) value, which
  cost this loop half its time (measured on VGG-16);
- :func:`product_kernel` (any A, any depth, any rule): the recursion in drain times ``F_b = T + Q_b``, one
  product at a time: a product for bank ``b`` makes ``F_b <- max(F_b, T) + 1``, and after the step
  ``T <- max(T + 1, max_b F_b - D)``, the maximum over the banks the step touched (every bank has
  ``F_b <= T + D`` after each step, so an untouched one cannot set it).

Numpy alone cannot run the recursion cheaply: it is sequential in the steps and a finite depth couples
the banks through the stall, so numpy can only vectorise across the (pass, PE, group) sequences, one
Python iteration per step index: VGG-16's conv layers have 265 M steps over a few hundred sequences
per layer, i.e. about a million iterations of several numpy calls each, before any bank loads
(:func:`.scatter_fifo._bounded` does this with every product's bank listed: ~10 x ``serialise``).
"""
from __future__ import annotations

import functools
import types

import numpy as np

from accel_sim.models.scnn.plan.bank_mapping import xor_hash
from accel_sim.models.scnn.plan.nonzeros import unique_inverse

HIGH = np.uint64(0x8080808080808080)   # the top bit of each 8-bit lane
LOW = np.uint64(0x0101010101010101)    # one in each lane
LANE = np.uint64(0xFF)
WORDS = 4                              # uint64 words of lanes: A <= 32 banks
PACKED_MAX_BANKS = 8 * WORDS
LANE_LIMIT = 127                       # lanes hold 7-bit counts (the top bit is the borrow / overflow guard)
SEVEN = np.uint64(0x7F7F7F7F7F7F7F7F)  # LANE_LIMIT in each lane
UW, U1, U2, U3 = np.uint64(WORDS), np.uint64(1), np.uint64(2), np.uint64(3)   # word offsets as uint64 (below)


def packed_fits(banks: int, depth: int | None, step_products: int) -> bool:
    """Whether :func:`packed_kernel` runs (``depth`` None: unbounded; ``step_products``: F x I)."""
    return banks <= PACKED_MAX_BANKS and (depth is None or depth + step_products <= LANE_LIMIT)


def pattern_table(i_elem: np.ndarray, a_term: np.ndarray, banks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per I-vector (activations ``i_elem[v]:i_elem[v + 1]`` of bank terms ``a_term``): its pattern and
    its first term; per pattern and rotation ``r`` in ``[0, 2A)``: its bank counts rotated by ``r``
    (the count of bank ``b`` is the pattern's activations of relative term ``b - r mod A``), packed
    into 8-bit lanes, (patterns x 2A x WORDS,) uint64. Patterns are numbered in the order of their
    codes (digit ``j`` in base ``A + 1``: slot ``j``'s relative term, ``A`` when the slot is empty), or of
    their terms when a code would not fit 63 bits (I-vectors of 13 or more activations on 32 banks)."""
    sizes, starts = np.diff(i_elem), i_elem[:-1]
    width = int(sizes.max())
    slot = np.arange(a_term.size) - np.repeat(starts, sizes)
    first = a_term[starts]
    relative = a_term - np.repeat(first, sizes)
    relative += np.where(relative < 0, banks, 0)   # mod A (both terms in [0, A))
    if (banks + 1) ** width < 1 << 63:
        power = (banks + 1) ** np.arange(width + 1)
        # a vector's code: its slots' digits, plus digit A in every empty slot j >= size (their sum: P^width - P^size)
        code = np.add.reduceat(relative * power[slot], starts) + (power[width] - power[sizes])
        codes, pattern = unique_inverse(code, int(power[width]))
        rows = codes[:, None] // power[:width] % (banks + 1)   # each pattern's relative terms (A: empty)
    else:
        terms = np.full((sizes.size, width), banks, dtype=np.int64)   # A: an empty slot
        terms[np.repeat(np.arange(sizes.size), sizes), slot] = relative
        rows, pattern = np.unique(terms, axis=0, return_inverse=True)
        pattern = pattern.reshape(-1)
    counts = np.zeros((rows.shape[0], banks), dtype=np.uint8)
    for j in range(width):
        used = rows[:, j] < banks
        np.add.at(counts, (np.flatnonzero(used), rows[used, j]), 1)
    table = np.zeros((rows.shape[0], 2 * banks, 8 * WORDS), dtype=np.uint8)
    table[:, :, :banks] = counts[:, (np.arange(banks)[None, :] - np.arange(2 * banks)[:, None]) % banks]   # rolled by r
    return pattern.astype(np.int64), first.astype(np.int64), table.view("<u8").reshape(-1)


def lane_max2(a, b):
    """Lane-wise maximum of two words of 8-bit lanes below 128."""
    keep = ((((a | HIGH) - b) & HIGH) >> np.uint64(7)) * LANE   # lanes where a >= b
    return (a & keep) | (b & ~keep)


def lane_max(a, b, c, e) -> int:
    """The largest lane of four words of 8-bit lanes below 128."""
    m = lane_max2(lane_max2(a, b), lane_max2(c, e))
    m = lane_max2(m, m >> np.uint64(32))
    m = lane_max2(m, m >> np.uint64(16))
    m = lane_max2(m, m >> np.uint64(8))
    return np.int64(m & LANE)


def lane_drain(x, d):
    """``max(0, lane - d)`` in every lane of ``x`` (lanes below 128, ``d`` in [1, 128]): no lane borrows."""
    y = (x | HIGH) - np.uint64(d) * LOW
    return (y & ~HIGH) & (((y & HIGH) >> np.uint64(7)) * LANE)


def lane_drain_one(x):
    """:func:`lane_drain` by 1 (a step that does not stall): a lane's ``lane + 127`` reaches the top bit
    (no carry out of a lane below 128) exactly when the lane is not 0, and that bit is the lane's 1 to take."""
    return x - (((x + SEVEN) & HIGH) >> np.uint64(7))


def settle(x0, x1, x2, x3, depth, reach):
    """A step that brought the queues to ``x``: the queues after it and its cycles
    ``d = max(1, max_b x_b - depth)``; ``reach``: ``LANE_LIMIT - 1 - depth`` in each lane (adding it sets a
    lane's top bit when the lane is ``depth + 2`` or more: the step stalls). ``depth`` < 0 (unbounded): ``d``
    is 1, or 0 when a lane has passed ``LANE_LIMIT`` (the queues are then not drained)."""
    if depth < 0:
        if (x0 | x1 | x2 | x3) & HIGH != np.uint64(0):
            return x0, x1, x2, x3, 0
    elif ((x0 + reach) | (x1 + reach) | (x2 + reach) | (x3 + reach)) & HIGH != np.uint64(0):
        d = lane_max(x0, x1, x2, x3) - depth
        return lane_drain(x0, d), lane_drain(x1, d), lane_drain(x2, d), lane_drain(x3, d), d
    return lane_drain_one(x0), lane_drain_one(x1), lane_drain_one(x2), lane_drain_one(x3), 1


def block_combos(pattern: np.ndarray, first: np.ndarray, i_segment: np.ndarray, n_seg: int, banks: int):
    """The distinct (pattern, first term) of each segment's I-vectors: (per segment the first of them
    ``(n_seg + 1,)``, their patterns, their first terms, per I-vector its index among its segment's)."""
    span = (int(pattern.max()) + 1) * banks
    keys, inverse = unique_inverse(i_segment * span + pattern * banks + first, n_seg * span)
    start = np.searchsorted(keys // span, np.arange(n_seg + 1))
    combo = keys % span
    return start, combo // banks, combo % banks, inverse - start[i_segment]


def packed_kernel(meet, unit, i_bounds, i_local, c_start, c_base, table, f_bounds, f_weight, w_key, border, e_start,
                  e_vec, n_seg, banks, depth, busy, failed, loads):
    """Adds to ``busy`` (passes, PEs, groups, segments) every (pass, PE, group) sequence's cycles.

    ``meet``: the segments with activations and weights, in the order the PEs run them; ``unit``: the
    barrier unit of each (the banks drain, into the unit's last segment, when it changes and at the
    end). I-vectors of (pass, segment, PE) ``k = (pass * n_seg + segment) * PEs + PE`` are
    ``i_bounds[k]:i_bounds[k + 1]``; I-vector ``v`` is its segment's (pattern, first term) number
    ``i_local[v]`` (segment ``s``'s are ``c_start[s]:c_start[s + 1]``). F-vectors of (segment, group)
    ``f_bounds[s * groups + g]:...``, their weights ``f_weight[f]:f_weight[f + 1]``. The bank counts of
    combination ``c``'s products with weight ``w`` are the WORDS words of ``table`` at
    ``c_base[c] + w_key[w]`` (:mod:`.scatter_fifo_rows`: an additive mapping, or DNNsim's XOR hash). The
    I-vectors near the plane's edges under ``out_of_plane: slot_only``, ``e_vec[e_start[s]:e_start[s + 1]]`` of
    segment ``s``, have their steps' counts summed product by product (:func:`product_words`; ``border``: its
    arguments but the two vectors'): the ``e``-th of segment ``s`` is its combination ``c_n + e`` (``c_n`` the
    segment's combinations; ``i_local`` numbers it so). Per (segment, group) the step loads of every
    combination (and vector near the edges) against every F-vector are summed once into ``loads`` (scratch,
    uint64), then every sequence runs its steps (queues carried in ``queue`` from segment to segment): a loop
    with no other case runs each step in registers (with the product-by-product case in it, numba kept the
    queues in memory and counted references of ``border``'s arrays for every sequence: 4 x the time, measured on
    VGG-16). ``depth`` < 0: unbounded; a sequence whose
    queue would pass ``LANE_LIMIT`` is left out of ``busy`` and flagged in ``failed`` (passes, PEs, groups)."""
    passes, pes, groups = busy.shape[0], busy.shape[1], busy.shape[2]
    zero = np.uint64(0)
    reach = np.uint64(0 if depth < 0 else LANE_LIMIT - 1 - depth) * LOW   # lane >= depth + 2: top bit set
    queue = np.zeros((passes, pes, groups, WORDS), dtype=np.uint64)
    for m in range(meet.size + 1):
        if m == meet.size or (m > 0 and unit[m] != unit[m - 1]):   # a barrier (or the end): the banks drain
            for t in range(passes):
                for p in range(pes):
                    for g in range(groups):
                        q = queue[t, p, g]
                        left = lane_max(q[0], q[1], q[2], q[3])
                        if left > 0:   # (no write of a zero: busy's untouched pages stay unmapped)
                            busy[t, p, g, meet[m - 1]] += left
                        q[:] = zero
            if m == meet.size:
                break
        s = meet[m]
        c_lo, c_n = c_start[s], c_start[s + 1] - c_start[s]
        for g in range(groups):
            f_lo, f_n = f_bounds[s * groups + g], f_bounds[s * groups + g + 1] - f_bounds[s * groups + g]
            for c in range(c_n):   # the block's step loads, once per (pattern, first term) and F-vector
                combination_rows(table, np.uint64(c_base[c_lo + c]), w_key, f_weight, f_lo, f_n, loads,
                                 np.uint64(c * f_n) * UW)
            for e in range(e_start[s + 1] - e_start[s]):   # the vectors near the edges: product by product
                v = e_vec[e_start[s] + e]
                for f in range(f_n):
                    product_words(border, v, f_weight[f_lo + f], f_weight[f_lo + f + 1], loads,
                                  np.uint64((c_n + e) * f_n + f) * UW)
            for t in range(passes):
                for p in range(pes):
                    key = (t * n_seg + s) * pes + p
                    if failed[t, p, g] or i_bounds[key] == i_bounds[key + 1] or f_n == 0:
                        continue
                    cycles, held = sequence_steps(loads, i_local, i_bounds[key], i_bounds[key + 1], f_n, queue[t, p, g],
                                                  depth, reach)
                    busy[t, p, g, s] += cycles
                    if not held:   # an unbounded queue passed LANE_LIMIT: the product loop runs the sequence
                        failed[t, p, g] = True
    for t in range(passes):
        for p in range(pes):
            for g in range(groups):
                if failed[t, p, g]:
                    busy[t, p, g, :] = 0


def combination_rows(table, at, w_key, f_weight, f_lo, f_n, loads, k):
    """The step loads of one combination (its rows of ``table`` at word ``at``) against F-vectors
    ``f_lo:f_lo + f_n``, written from word ``k`` of ``loads``: per F-vector the sum of its weights' rows (at
    ``at + w_key[w]``)."""
    for f in range(f_lo, f_lo + f_n):
        w, w_end = f_weight[f], f_weight[f + 1]
        y0 = y1 = y2 = y3 = np.uint64(0)
        while w + 1 < w_end:   # two weights at a time (independent loads)
            a, b = at + np.uint64(w_key[w]), at + np.uint64(w_key[w + 1])
            y0 += table[a] + table[b]
            y1 += table[a + U1] + table[b + U1]
            y2 += table[a + U2] + table[b + U2]
            y3 += table[a + U3] + table[b + U3]
            w += 2
        if w < w_end:
            a = at + np.uint64(w_key[w])
            y0, y1, y2, y3 = y0 + table[a], y1 + table[a + U1], y2 + table[a + U2], y3 + table[a + U3]
        loads[k], loads[k + U1], loads[k + U2], loads[k + U3] = y0, y1, y2, y3
        k += UW


def sequence_steps(loads, i_local, v_lo, v_hi, f_n, q, depth, reach):
    """The steps of I-vectors ``v_lo:v_hi``, each against the ``f_n`` F-vectors of their block (the loads of
    vector ``v``'s at word ``i_local[v] * f_n * WORDS`` of ``loads``), from the queues ``q`` (``WORDS`` words,
    updated): (their cycles, False when an unbounded lane passed ``LANE_LIMIT``)."""
    q0, q1, q2, q3 = q[0], q[1], q[2], q[3]
    cycles = 0
    for v in range(v_lo, v_hi):
        k = np.uint64(i_local[v] * f_n) * UW   # its first step's loads
        for _ in range(f_n):
            q0, q1, q2, q3, d = settle(q0 + loads[k], q1 + loads[k + U1], q2 + loads[k + U2], q3 + loads[k + U3],
                                       depth, reach)
            if d == 0:
                return cycles, False
            cycles += d
            k += UW
    q[0], q[1], q[2], q[3] = q0, q1, q2, q3
    return cycles, True


def lane_combination_rows(table, at, w_key, f_weight, f_lo, f_n, loads, k):
    """:func:`combination_rows` compiled by :func:`_lane_rows_codegen` (``lane_rows``: a row one 256-bit add)."""
    lane_rows(table, at, w_key, f_weight, f_lo, f_n, loads, k)


def lane_sequence_steps(loads, i_local, v_lo, v_hi, f_n, q, depth, reach):
    """:func:`sequence_steps` compiled by :func:`_lane_steps_codegen` (``lane_steps``: the 32 lanes in one vector
    register; cycles, -1 when an unbounded lane passed ``LANE_LIMIT``)."""
    cycles = lane_steps(loads, i_local, v_lo, v_hi, f_n, q, depth)
    return max(cycles, 0), cycles >= 0


# ``rule`` of :func:`product_kernel` (int64 array): how a product's bank and landing follow from its coordinate
COORDINATES, XOR, SLOT_ONLY, TRUNCATE_Y, TRUNCATE_X, ACC_W, OUT_H, OUT_W = range(8)


def product_rule(coordinates: bool, xor: bool, slot_only: bool, truncate_y: bool, truncate_x: bool, acc_w: int,
                 out_h: int, out_w: int) -> np.ndarray:
    """The ``rule`` array of :func:`product_kernel` (the fields named by :data:`COORDINATES` ... :data:`OUT_W`)."""
    return np.array([coordinates, xor, slot_only, truncate_y, truncate_x, acc_w, out_h, out_w], dtype=np.int64)


def coordinate_bank(a_term, a_pos, w_term, w_pos, e, w, rule, banks):
    """(bank, in plane) of the product of activation ``e`` and weight ``w`` when a rule needs its output
    coordinate (:func:`accel_sim.models.scnn.fast.products.segment_loads`, product by product): output row and column
    ``(qy - tap_y, qx - tap_x)`` (``a_pos[e]`` = (qy, qx), ``w_pos[w]`` = (tap_y, tap_x, layer filter k)),
    one above the floor when negative under ``stride_phases: dnnsim`` with a padding that is not a multiple of
    the stride (``TRUNCATE_Y`` / ``X``: :func:`~accel_sim.models.scnn.fast.products._truncated`); the bank by
    DNNsim's XOR hash (:func:`~accel_sim.models.scnn.plan.bank_mapping.xor_hash`) or the additive terms moved by the
    truncation; bank -1 when the product leaves the plane under ``out_of_plane: slot_only`` (no bank)."""
    floor_y, floor_x = a_pos[e, 0] - w_pos[w, 0], a_pos[e, 1] - w_pos[w, 1]
    oy = floor_y + 1 if rule[TRUNCATE_Y] != 0 and floor_y < 0 else floor_y
    ox = floor_x + 1 if rule[TRUNCATE_X] != 0 and floor_x < 0 else floor_x
    plane = 0 <= oy < rule[OUT_H] and 0 <= ox < rule[OUT_W]
    if rule[SLOT_ONLY] != 0 and not plane:
        return -1, plane
    if rule[XOR] != 0:
        return xor_hash(w_pos[w, 2], oy, ox, banks), plane
    return (a_term[e] + w_term[w] + rule[ACC_W] * (oy - floor_y) + (ox - floor_x)) % banks, plane


def product_words(border, v, w_lo, w_hi, loads, at):
    """The bank counts, packed (four words of 8-bit lanes, written to ``loads[at:at + WORDS]``), of I-vector ``v``'s
    products with weights ``w_lo:w_hi``, each product's bank and landing by :func:`coordinate_bank`; ``border``:
    (``i_elem``, ``a_term``, ``a_pos``, ``w_term``, ``w_pos``, ``rule``, ``banks``) as :func:`product_kernel`. A
    product adds to its bank's word in memory (a branch on the word mispredicts)."""
    i_elem, a_term, a_pos, w_term, w_pos, rule, banks = border
    # coordinate_bank written out with the rule's fields read once and the modulo of a power-of-two bank count
    # taken by a mask (as vector_costs does: numba divides by a run-time ``banks`` at every product otherwise)
    xor, slot_only = rule[XOR] != 0, rule[SLOT_ONLY] != 0
    truncate_y, truncate_x = rule[TRUNCATE_Y] != 0, rule[TRUNCATE_X] != 0
    acc_w, out_h, out_w = rule[ACC_W], rule[OUT_H], rule[OUT_W]
    mask = banks - 1 if banks & (banks - 1) == 0 else -1   # -1: not a power of two (then a modulo)
    for j in range(WORDS):
        loads[at + np.uint64(j)] = 0
    for w in range(w_lo, w_hi):
        tap_y, tap_x, k, wt = w_pos[w, 0], w_pos[w, 1], w_pos[w, 2], w_term[w]
        for e in range(i_elem[v], i_elem[v + 1]):
            floor_y, floor_x = a_pos[e, 0] - tap_y, a_pos[e, 1] - tap_x
            oy = floor_y + 1 if truncate_y and floor_y < 0 else floor_y
            ox = floor_x + 1 if truncate_x and floor_x < 0 else floor_x
            if slot_only and not (0 <= oy < out_h and 0 <= ox < out_w):   # no bank (out of the plane)
                continue
            b = xor_hash(k, oy, ox, banks) if xor else a_term[e] + wt + acc_w * (oy - floor_y) + (ox - floor_x)
            b = b & mask if mask >= 0 else b % banks
            loads[at + np.uint64(b >> 3)] += np.uint64(1) << np.uint64(8 * (b & 7))


def product_kernel(meet, unit, i_bounds, i_elem, a_term, a_pos, f_bounds, f_weight, w_term, w_pos, rule, n_seg,
                   banks, depth, busy, todo):
    """:func:`packed_kernel` for any A and depth (``depth`` < 0: unbounded), product by product, on
    the sequences flagged in ``todo`` (passes, PEs, groups); ``i_elem``, ``a_term``: the I-vectors'
    activations and their bank terms. ``rule[COORDINATES]`` 0: a product's bank is the sum of the two
    terms; else :func:`coordinate_bank` (``a_pos``, ``w_pos``: the operands' coordinates). Returns the
    products whose output lies in the plane (counted under ``rule[COORDINATES]`` only, else 0)."""
    passes, pes, groups = busy.shape[0], busy.shape[1], busy.shape[2]
    drain = np.zeros(banks, dtype=np.int64)        # F_b
    limit = depth if depth >= 0 else 1 << 62       # unbounded: T <- T + 1 every step
    coordinates = rule[COORDINATES] != 0
    in_plane = 0
    for t in range(passes):
        for p in range(pes):
            for g in range(groups):
                if not todo[t, p, g]:
                    continue
                drain[:] = 0
                now = 0   # T
                for m in range(meet.size):
                    s = meet[m]
                    if m > 0 and unit[m] != unit[m - 1]:   # a barrier: the banks drain
                        left = drain.max() - now
                        if left > 0:   # (no write of a zero, as in packed_kernel)
                            busy[t, p, g, meet[m - 1]] += left
                        drain[:] = 0
                        now = 0
                    key = (t * n_seg + s) * pes + p
                    f_lo, f_hi = f_bounds[s * groups + g], f_bounds[s * groups + g + 1]
                    start = now
                    for v in range(i_bounds[key], i_bounds[key + 1]):
                        for f in range(f_lo, f_hi):
                            top = 0
                            for w in range(f_weight[f], f_weight[f + 1]):
                                for e in range(i_elem[v], i_elem[v + 1]):
                                    if coordinates:
                                        b, plane = coordinate_bank(a_term, a_pos, w_term, w_pos, e, w, rule, banks)
                                        in_plane += plane
                                        if b < 0:   # slot_only: out of the plane, no bank
                                            continue
                                    else:
                                        b = a_term[e] + w_term[w]
                                        if b >= banks:
                                            b -= banks
                                    x = max(drain[b], now) + 1
                                    drain[b] = x
                                    top = max(top, x)
                            now = max(now + 1, top - limit)
                    if now > start:
                        busy[t, p, g, s] += now - start
                if meet.size and drain.max() > now:
                    busy[t, p, g, meet[meet.size - 1]] += drain.max() - now
    return in_plane


XOR_WEIGHT_CODES = 128   # (tap_y mod 4, tap_x mod 4, k mod 8): all DNNsim's hash reads of a weight


def xor_classes(a_pos: np.ndarray, w_pos: np.ndarray, out_h: int, out_w: int, banks: int, v_segment: np.ndarray,
                i_elem: np.ndarray) -> tuple:
    """:func:`serialise_kernel`'s ``codes`` under DNNsim's XOR hash on untruncated coordinates: the hash reads
    bits 0-1 of the output row ``qy - tap_y`` (and column), which depend on ``qy mod 4`` only, and a row
    ``qy`` away from the edges (``tap_y.max() <= qy < tap_y.min() + out_h``, every tap of the conv group)
    lands every product in the plane. So an activation's *class*, its row (column) where near an edge, else
    ``qy mod 4`` marked interior, fixes the bank and landing of each of its products, and the I-vectors of
    one segment with the same classes in order have the same step costs and in-plane products: ``uid``
    numbers those (segment, classes), ``u_rep`` is one I-vector of each, ``u_seg`` its segment, ``u_inner``
    whether all its activations are interior (then a product's bank is ``table[a_code + w_code]``, with
    ``a_code = 128 (4 (qy mod 4) + qx mod 4)`` and ``w_code = 8 (4 (tap_y mod 4) + tap_x mod 4) + k mod 8``;
    two's complement ``& 3`` is the floor modulo, negatives too). ``v_segment``: each I-vector's segment."""
    qy, qx, tap_y, tap_x = a_pos[:, 0], a_pos[:, 1], w_pos[:, 0], w_pos[:, 1]
    edge_y = (qy < tap_y.max()) | (qy - tap_y.min() >= out_h)
    edge_x = (qx < tap_x.max()) | (qx - tap_x.min() >= out_w)
    span_x = int(qx.max()) + 5 if qx.size else 5
    cls = np.where(edge_y, qy + 4, 3 - (qy & 3)) * span_x + np.where(edge_x, qx + 4, 3 - (qx & 3))
    _, dense = np.unique(cls, return_inverse=True)
    dense = dense.reshape(-1).astype(np.int64) + 1   # 0: an empty slot (a shorter I-vector differs)
    sizes = np.diff(i_elem)
    slot = np.arange(qy.size) - np.repeat(i_elem[:-1], sizes)
    base = int(dense.max()) + 1 if dense.size else 1
    width = int(sizes.max()) if sizes.size else 1
    if (int(v_segment.max()) + 1) * float(base) ** width < 2.0 ** 62:
        key = v_segment.astype(np.int64) * base ** width + np.add.reduceat(dense * base ** slot, i_elem[:-1])
        _, u_rep, uid = np.unique(key, return_index=True, return_inverse=True)
    else:   # (keys past int64: rows)
        rows = np.zeros((sizes.size, 1 + width), dtype=np.int64)
        rows[:, 0] = v_segment
        rows[np.repeat(np.arange(sizes.size), sizes), 1 + slot] = dense
        _, u_rep, uid = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    u_inner = np.logical_and.reduceat(~(edge_y | edge_x), i_elem[:-1])[u_rep]
    a = np.arange(16 * XOR_WEIGHT_CODES)
    a_y, a_x, w = (a >> 9) & 3, (a >> 7) & 3, a & (XOR_WEIGHT_CODES - 1)
    table = xor_hash(w & 7, (a_y - (w >> 5)) & 3, (a_x - ((w >> 3) & 3)) & 3, banks).astype(np.int64)
    a_code = XOR_WEIGHT_CODES * (4 * (qy & 3) + (qx & 3))
    w_code = 8 * (4 * (tap_y & 3) + (tap_x & 3)) + (w_pos[:, 2] & 7)
    return (uid.reshape(-1).astype(np.int64), u_rep.astype(np.int64), v_segment[u_rep].astype(np.int64), u_inner,
            a_code.astype(np.int64), w_code.astype(np.int64), table)


def no_codes() -> tuple:
    """:func:`serialise_kernel`'s ``codes`` when the I-vectors are not classed (every step counted)."""
    empty = np.zeros(0, dtype=np.int64)
    return empty, empty, empty, np.zeros(0, dtype=np.bool_), empty, empty, empty


def edge_costs(v, f_lo, f_hi, i_elem, a_code, a_pos, f_weight, w_code, w_pos, table, rule, count, stamp, step):
    """:func:`vector_costs` of an I-vector near an edge under :func:`xor_classes`: each product's landing from
    its output coordinate, its bank ``table[a_code + w_code]``: (summed step costs, products in the plane,
    the step stamp after)."""
    slot_only, out_h, out_w = rule[SLOT_ONLY] != 0, rule[OUT_H], rule[OUT_W]
    e_lo, e_hi = i_elem[v], i_elem[v + 1]
    total, in_plane = 0, 0
    for f in range(f_lo, f_hi):
        step += 1
        top = 0
        for w in range(f_weight[f], f_weight[f + 1]):
            wc, tap_y, tap_x = w_code[w], w_pos[w, 0], w_pos[w, 1]
            for e in range(e_lo, e_hi):
                oy, ox = a_pos[e, 0] - tap_y, a_pos[e, 1] - tap_x
                plane = 0 <= oy < out_h and 0 <= ox < out_w
                in_plane += plane
                if slot_only and not plane:   # out of the plane: a slot, no bank
                    continue
                b = table[a_code[e] + wc]
                if stamp[b] != step:
                    stamp[b] = step
                    count[b] = 0
                c = count[b] + 1
                count[b] = c
                if c > top:
                    top = c
        total += max(top, 1)
    return total, in_plane, step


def table_costs(v, f_lo, f_hi, i_elem, a_code, f_weight, w_code, table, count, stamp, step):
    """:func:`vector_costs` of an I-vector whose products all land in the plane, each product's bank
    ``table[a_code + w_code]`` (:func:`xor_classes`): (summed step costs, the step stamp after)."""
    e_lo, e_hi = i_elem[v], i_elem[v + 1]
    total = 0
    for f in range(f_lo, f_hi):
        step += 1
        top = 0
        for w in range(f_weight[f], f_weight[f + 1]):
            wc = w_code[w]
            for e in range(e_lo, e_hi):
                b = table[a_code[e] + wc]
                if stamp[b] != step:
                    stamp[b] = step
                    count[b] = 0
                c = count[b] + 1
                count[b] = c
                if c > top:
                    top = c
        total += max(top, 1)
    return total, step


def vector_costs(v, f_lo, f_hi, i_elem, a_term, a_pos, f_weight, w_term, w_pos, rule, banks, count, stamp, step):
    """I-vector ``v`` against F-vectors ``f_lo:f_hi`` at depth 0: (summed step costs, products in the plane,
    the step stamp after). Each product's bank is :func:`coordinate_bank`'s, written out with the rule's
    fields read once and the modulo of a power-of-two bank count taken by a mask (numba divides by a run-time
    ``banks`` at every product otherwise: half the loop's time, measured on DNNsim's preset); DNNsim's hash
    is :func:`~accel_sim.models.scnn.plan.bank_mapping.xor_hash` with ``k mod 4 = k & 3`` (``k >= 0``) and
    its sum below 32. A step's counts are reset lazily (``stamp[b]``: the step that last counted bank b)."""
    xor, slot_only = rule[XOR] != 0, rule[SLOT_ONLY] != 0
    truncate_y, truncate_x = rule[TRUNCATE_Y] != 0, rule[TRUNCATE_X] != 0
    acc_w, out_h, out_w = rule[ACC_W], rule[OUT_H], rule[OUT_W]
    mask = banks - 1 if banks & (banks - 1) == 0 else -1   # -1: not a power of two (then a modulo)
    e_lo, e_hi = i_elem[v], i_elem[v + 1]
    total, in_plane = 0, 0
    for f in range(f_lo, f_hi):
        step += 1
        top = 0
        for w in range(f_weight[f], f_weight[f + 1]):
            tap_y, tap_x, k, wt = w_pos[w, 0], w_pos[w, 1], w_pos[w, 2], w_term[w]
            k_bit, k_low = (k >> 2) & 1, k & 3
            for e in range(e_lo, e_hi):
                floor_y, floor_x = a_pos[e, 0] - tap_y, a_pos[e, 1] - tap_x
                oy = floor_y + 1 if truncate_y and floor_y < 0 else floor_y
                ox = floor_x + 1 if truncate_x and floor_x < 0 else floor_x
                plane = 0 <= oy < out_h and 0 <= ox < out_w
                in_plane += plane
                if slot_only and not plane:   # out of the plane: a slot, no bank
                    continue
                if xor:
                    b = 16 * ((k_bit ^ (oy >> 1) ^ (ox >> 1)) & 1) + 8 * (oy & 1) + 4 * (ox & 1) + k_low
                else:
                    b = a_term[e] + wt + acc_w * (oy - floor_y) + (ox - floor_x)
                b = b & mask if mask >= 0 else b % banks
                if stamp[b] != step:
                    stamp[b] = step
                    count[b] = 0
                c = count[b] + 1
                count[b] = c
                if c > top:
                    top = c
        total += max(top, 1)
    return total, in_plane, step


def coded_costs(codes, groups, i_elem, a_term, a_pos, f_bounds, f_weight, w_term, w_pos, rule, banks):
    """``(len(u_rep), groups, 2)``: the summed step costs and in-plane products of each class's I-vector
    ``u_rep[u]`` against the F-vectors of each group of its segment ``u_seg[u]`` (:func:`table_costs` for an
    interior class, else :func:`edge_costs`); ``codes``: :func:`xor_classes`'."""
    _, u_rep, u_seg, u_inner, a_code, w_code, table = codes
    out = np.zeros((u_rep.size, groups, 2), dtype=np.int64)
    count = np.zeros(banks, dtype=np.int64)
    stamp = np.full(banks, -1, dtype=np.int64)
    step = 0
    for u in range(u_rep.size):
        s, v = u_seg[u], u_rep[u]
        for g in range(groups):
            f_lo, f_hi = f_bounds[s * groups + g], f_bounds[s * groups + g + 1]
            if u_inner[u]:
                total, step = table_costs(v, f_lo, f_hi, i_elem, a_code, f_weight, w_code, table, count, stamp, step)
                in_plane = (i_elem[v + 1] - i_elem[v]) * (f_weight[f_hi] - f_weight[f_lo])
            else:
                total, in_plane, step = edge_costs(v, f_lo, f_hi, i_elem, a_code, a_pos, f_weight, w_code, w_pos,
                                                   table, rule, count, stamp, step)
            out[u, g, 0] = total
            out[u, g, 1] = in_plane
    return out


def serialise_kernel(meet, i_bounds, i_elem, a_term, a_pos, f_bounds, f_weight, w_term, w_pos, rule, n_seg, banks,
                     busy, codes):
    """:func:`product_kernel` at depth 0 (``scatter: serialise``) under a coordinate rule (``rule[COORDINATES]``):
    a step costs ``max(1, its busiest bank's products)`` and leaves the banks empty, so a step keeps its own
    counts only and no drain times (:func:`vector_costs`); the costs are added per (pass, PE, group, segment).
    ``codes``: :func:`xor_classes`' (an empty ``uid``: none), then each I-vector takes
    the costs of its class, found once (:func:`coded_costs`). Returns the products whose output lies in the
    plane."""
    uid = codes[0]
    coded = uid.size > 0
    passes, pes, groups = busy.shape[0], busy.shape[1], busy.shape[2]
    count = np.zeros(banks, dtype=np.int64)
    stamp = np.full(banks, -1, dtype=np.int64)
    known = coded_costs(codes, groups, i_elem, a_term, a_pos, f_bounds, f_weight, w_term, w_pos, rule, banks)
    in_plane = 0
    step = 0
    for t in range(passes):
        for p in range(pes):
            for m in range(meet.size):
                s = meet[m]
                key = (t * n_seg + s) * pes + p
                v_lo, v_hi = i_bounds[key], i_bounds[key + 1]
                if v_lo == v_hi:
                    continue
                for g in range(groups):
                    f_lo, f_hi = f_bounds[s * groups + g], f_bounds[s * groups + g + 1]
                    total = 0
                    for v in range(v_lo, v_hi):
                        if coded:
                            total += known[uid[v], g, 0]
                            in_plane += known[uid[v], g, 1]
                        else:
                            cost, landed, step = vector_costs(v, f_lo, f_hi, i_elem, a_term, a_pos, f_weight, w_term,
                                                              w_pos, rule, banks, count, stamp, step)
                            total += cost
                            in_plane += landed
                    if total:
                        busy[t, p, g, s] += total
    return in_plane


def _with(function, **names):
    """``function`` calling ``names`` in place of the module's functions of those names."""
    scope = dict(function.__globals__, **names)
    return types.FunctionType(function.__code__, scope, function.__name__, function.__defaults__)


@functools.cache
def compiled() -> dict | None:
    """The loops compiled by numba (cached on disk), or None when numba is not installed. Imported on
    first use, so runs without a FIFO never load numba. The plain-Python functions stay as they are."""
    try:
        from numba import njit
    except ImportError:   # pragma: no cover - depends on the environment
        return None
    jit = functools.partial(njit, cache=True, nogil=True)
    most = jit(lane_max2)
    bank = jit(_with(coordinate_bank, xor_hash=jit(xor_hash)))
    maximum = jit(_with(lane_max, lane_max2=most))
    lanes = _lane_steps_compiled()
    helpers = {"lane_max": maximum, "product_words": jit(_with(product_words, xor_hash=jit(xor_hash)), inline="always"),
               "sequence_steps": jit(_with(lane_sequence_steps, lane_steps=lanes[0]), inline="always"),
               "combination_rows": jit(_with(lane_combination_rows, lane_rows=lanes[1]), inline="always")}
    return {"packed": jit(_with(packed_kernel, **helpers)), "product": jit(_with(product_kernel, coordinate_bank=bank)),
            "serialise": _serialise_compiled(jit)}


def _lane_steps_compiled():
    """The numba intrinsics ``lane_steps`` of :func:`lane_sequence_steps` (:func:`_lane_steps_codegen`) and
    ``lane_rows`` of :func:`lane_combination_rows` (:func:`_lane_rows_codegen`)."""
    from numba.core import types
    from numba.extending import intrinsic

    def vector(array, dtype) -> bool:   # a contiguous vector of dtype (read-only or not)
        return isinstance(array, types.Array) and array.dtype == dtype and array.ndim == 1 and array.layout == "C"

    @intrinsic
    def lane_steps(typingctx, loads, i_local, v_lo, v_hi, f_n, q, depth):
        if not (vector(loads, types.uint64) and vector(i_local, types.int64) and vector(q, types.uint64)):
            return None
        return types.int64(loads, i_local, types.int64, types.int64, types.int64, q, types.int64), _lane_steps_codegen

    @intrinsic
    def lane_rows(typingctx, table, at, w_key, f_weight, f_lo, f_n, loads, k):
        if not (vector(table, types.uint64) and vector(loads, types.uint64) and vector(w_key, w_key.dtype)
                and w_key.dtype in types.signed_domain and vector(f_weight, types.int64)):
            return None
        return types.none(table, types.int64, w_key, f_weight, types.int64, types.int64, loads, types.int64), \
            _lane_rows_codegen

    return lane_steps, lane_rows


def _lane_rows_codegen(context, builder, signature, args):
    """LLVM IR of :func:`combination_rows`: a step's row the sum of its weights' rows as vectors of four words
    (the same 64-bit adds)."""
    from llvmlite import ir
    table, at, w_key, f_weight, f_lo, f_n, loads, k = args
    i64 = ir.IntType(64)
    words = ir.VectorType(i64, WORDS)
    table_at = context.make_array(signature.args[0])(context, builder, table).data
    keys = context.make_array(signature.args[2])(context, builder, w_key).data
    bounds = context.make_array(signature.args[3])(context, builder, f_weight).data
    out = builder.bitcast(builder.gep(context.make_array(signature.args[6])(context, builder, loads).data, [k]),
                          words.as_pointer())
    entry = builder.block
    head, body, weight, add, store, ended = (builder.append_basic_block(f"rows.{name}") for name in
                                             ("head", "body", "weight", "add", "store", "ended"))
    builder.branch(head)
    builder.position_at_end(head)   # F-vector f
    f = builder.phi(i64)
    f.add_incoming(ir.Constant(i64, 0), entry)
    builder.cbranch(builder.icmp_signed("<", f, f_n), body, ended)
    builder.position_at_end(body)
    at_f = builder.add(f_lo, f)
    first, last = (builder.load(builder.gep(bounds, [i])) for i in (at_f, builder.add(at_f, ir.Constant(i64, 1))))
    builder.branch(weight)
    builder.position_at_end(weight)   # weight w of F-vector f
    w, total = builder.phi(i64), builder.phi(words)
    w.add_incoming(first, body)
    total.add_incoming(ir.Constant(words, [0] * WORDS), body)
    builder.cbranch(builder.icmp_signed("<", w, last), add, store)
    builder.position_at_end(add)
    key = builder.sext(builder.load(builder.gep(keys, [w])), i64) if signature.args[2].dtype.bitwidth < 64 else \
        builder.load(builder.gep(keys, [w]))
    row = builder.load(builder.bitcast(builder.gep(table_at, [builder.add(at, key)]), words.as_pointer()), align=8)
    w.add_incoming(builder.add(w, ir.Constant(i64, 1)), add)
    total.add_incoming(builder.add(total, row), add)
    builder.branch(weight)
    builder.position_at_end(store)
    builder.store(total, builder.gep(out, [f]), align=8)
    f.add_incoming(builder.add(f, ir.Constant(i64, 1)), store)
    builder.branch(head)
    builder.position_at_end(ended)
    return context.get_dummy_value()


def _lane_steps_codegen(context, builder, signature, args):
    """LLVM IR of :func:`sequence_steps` with the queues' 32 lanes in one 256-bit vector (``x = q + loads`` by the
    same 64-bit adds as :func:`settle`'s, then byte lanes): a step that does not stall is one add, one compare
    with ``depth + 1`` and one saturating subtract of 1 (:func:`settle` on four words costs about four times
    the instructions), a step that stalls subtracts ``d = max_b x_b - depth`` (the lanes stay below 128 at a
    finite depth); unbounded lanes (``depth`` < 0) above ``LANE_LIMIT``: the sequence fails (-1). Blocks:
    ``vector`` (I-vector ``v`` or the end), ``step``, ``calm`` / ``stall`` (the queues after it), ``next``."""
    from llvmlite import ir
    from numba.core import cgutils
    loads, i_local, v_lo, v_hi, f_n, q, depth = args
    i64, i8, n_lanes = ir.IntType(64), ir.IntType(8), 8 * WORDS
    words, lanes, flags = ir.VectorType(i64, WORDS), ir.VectorType(i8, n_lanes), ir.VectorType(ir.IntType(1), n_lanes)
    module = builder.module
    drain = cgutils.get_or_insert_function(module, ir.FunctionType(lanes, [lanes, lanes]), f"llvm.usub.sat.v{n_lanes}i8")
    any_set = cgutils.get_or_insert_function(module, ir.FunctionType(ir.IntType(1), [flags]),
                                             f"llvm.vector.reduce.or.v{n_lanes}i1")
    top = cgutils.get_or_insert_function(module, ir.FunctionType(i8, [lanes]), f"llvm.vector.reduce.umax.v{n_lanes}i8")
    splat_mask = ir.Constant(ir.VectorType(ir.IntType(32), n_lanes), [0] * n_lanes)

    def splat(value):
        return builder.shuffle_vector(builder.insert_element(ir.Constant(lanes, ir.Undefined), value,
                                                             ir.Constant(ir.IntType(32), 0)),
                                      ir.Constant(lanes, ir.Undefined), splat_mask)

    q_at = builder.bitcast(context.make_array(signature.args[5])(context, builder, q).data, words.as_pointer())
    rows = builder.bitcast(context.make_array(signature.args[0])(context, builder, loads).data, words.as_pointer())
    combos = context.make_array(signature.args[1])(context, builder, i_local).data
    unbounded = builder.icmp_signed("<", depth, ir.Constant(i64, 0))
    bound = splat(builder.trunc(builder.select(unbounded, ir.Constant(i64, LANE_LIMIT),
                                               builder.add(depth, ir.Constant(i64, 1))), i8))
    start = builder.load(q_at, align=8)
    entry = builder.block
    head, vector, step, calm, stall, settled, following, ended, failed, result = (
        builder.append_basic_block(f"lanes.{name}") for name in
        ("head", "vector", "step", "calm", "stall", "settled", "next", "ended", "failed", "result"))
    builder.branch(head)
    builder.position_at_end(head)   # I-vector v, or the end
    v, queues, cycles = builder.phi(i64), builder.phi(words), builder.phi(i64)
    v.add_incoming(v_lo, entry)
    queues.add_incoming(start, entry)
    cycles.add_incoming(ir.Constant(i64, 0), entry)
    builder.cbranch(builder.icmp_signed("<", v, v_hi), vector, ended)
    builder.position_at_end(vector)   # its first step's row
    base = builder.mul(builder.load(builder.gep(combos, [v])), f_n)
    builder.cbranch(builder.icmp_signed(">", f_n, ir.Constant(i64, 0)), step, ended)
    builder.position_at_end(step)   # step f of I-vector v
    f, sq, sc = builder.phi(i64), builder.phi(words), builder.phi(i64)
    f.add_incoming(ir.Constant(i64, 0), vector)
    sq.add_incoming(queues, vector)
    sc.add_incoming(cycles, vector)
    x = builder.bitcast(builder.add(sq, builder.load(builder.gep(rows, [builder.add(base, f)]), align=8)), lanes)
    builder.cbranch(builder.call(any_set, [builder.icmp_unsigned(">", x, bound)]), stall, calm)
    builder.position_at_end(calm)   # d = 1
    calm_q = builder.call(drain, [x, ir.Constant(lanes, [1] * n_lanes)])
    calm_c = builder.add(sc, ir.Constant(i64, 1))
    builder.branch(following)
    builder.position_at_end(stall)   # d = max_b x_b - D (or an unbounded lane passed LANE_LIMIT)
    d = builder.sub(builder.zext(builder.call(top, [x]), i64), depth)
    builder.cbranch(unbounded, failed, settled)
    builder.position_at_end(settled)
    stall_q = builder.call(drain, [x, splat(builder.trunc(d, i8))])
    stall_c = builder.add(sc, d)
    builder.branch(following)
    builder.position_at_end(following)
    nq, nc = builder.phi(lanes), builder.phi(i64)
    nq.add_incoming(calm_q, calm)
    nc.add_incoming(calm_c, calm)
    nq.add_incoming(stall_q, settled)
    nc.add_incoming(stall_c, settled)
    nq = builder.bitcast(nq, words)
    next_f = builder.add(f, ir.Constant(i64, 1))
    f.add_incoming(next_f, following)
    sq.add_incoming(nq, following)
    sc.add_incoming(nc, following)
    v.add_incoming(builder.add(v, ir.Constant(i64, 1)), following)
    queues.add_incoming(nq, following)
    cycles.add_incoming(nc, following)
    builder.cbranch(builder.icmp_signed("<", next_f, f_n), step, head)
    builder.position_at_end(ended)
    builder.store(queues, q_at, align=8)
    builder.branch(result)
    builder.position_at_end(failed)
    builder.branch(result)
    builder.position_at_end(result)
    out = builder.phi(i64)
    out.add_incoming(cycles, ended)
    out.add_incoming(ir.Constant(i64, -1), failed)
    return out


def _serialise_compiled(jit):
    """:func:`serialise_kernel` compiled, :func:`vector_costs` inlined into both its callers."""
    costs = jit(vector_costs, inline="always")
    coded = jit(_with(coded_costs, edge_costs=jit(edge_costs, inline="always"),
                      table_costs=jit(table_costs, inline="always")))
    return jit(_with(serialise_kernel, vector_costs=costs, coded_costs=coded))


def python_kernels() -> dict:
    """The same loops as plain Python (slow: for tests on small layers)."""
    return {"packed": packed_kernel, "product": product_kernel, "serialise": serialise_kernel}
