"""Scatter crossbar and accumulator bank conflicts, fast path (vectorised over steps).

One step of a PE multiplies an F-vector of weights by an I-vector of activations and sends
the F x I products through the crossbar to the A accumulator banks (paper, Fig. 6; Table 3:
A = 2 x F x I = 32). Products for different banks land in the same cycle, products for one
bank serialise, and the next step starts when the crossbar has delivered all of them: a step
takes as many cycles as its busiest bank receives products.

With the additive bank mappings of :mod:`accel_sim.models.scnn.plan.bank_mapping` a product's bank is
``(weight term + activation term) mod A``, so a step's load on bank ``b`` is
``sum_i count(activation terms == b - w_i)``. Two ways to count it:

- bit-sliced (A <= 32, :func:`max_bank_load`): each I-vector is an A-bit mask (one mask per
  multiplicity when two activations share a term) stored twice side by side in a uint64, so a
  rotation by a weight term is a shift; the F rotated masks are added with bit-sliced counters
  and the maximum over banks is read from the counter bits;
- counting (any A, :func:`max_bank_load_counting`): each step's F x I bank numbers are sorted
  and its longest run of equal numbers is its busiest bank. Slower per step; it is what runs
  when A > 32, so any bank count a config can describe runs.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.scnn.plan.nonzeros import unique_inverse

EMPTY_SHIFT = np.iinfo(np.uint64).max   # the rotation of an unused slot of a ragged F-vector: shifts a mask to 0
BIT_SLICED_MAX_BANKS = 32               # a doubled A-bit mask fills one uint64


def bit_sliced(banks: int) -> bool:
    return banks <= BIT_SLICED_MAX_BANKS


def activation_banks(vector: np.ndarray, slot: np.ndarray, term: np.ndarray, n: int, banks: int,
                     width: int) -> np.ndarray:
    """The bank terms of ``n`` I-vectors (element ``e`` is in vector ``vector[e]``, slot ``slot[e]``,
    bank term ``term[e]``), as the counting path needs them: bit-sliced, (planes, n) uint64 masks
    doubled (``m | m << A``), one plane per multiplicity of a term; else (n, width) terms with
    ``banks`` in unused slots."""
    if not bit_sliced(banks):
        terms = np.full((n, width), banks, dtype=np.int64)
        terms[vector, slot] = term
        return terms
    plane = np.zeros(vector.size, dtype=np.int64)
    for d in range(1, width):
        same = np.zeros(vector.size, dtype=bool)
        same[d:] = (vector[d:] == vector[:-d]) & (term[d:] == term[:-d])
        plane += same
    planes = int(plane.max()) + 1 if vector.size else 1
    bit = np.left_shift(np.uint64(1), term.astype(np.uint64))
    starts = np.searchsorted(vector, np.arange(n))
    masks = np.zeros((planes, n), dtype=np.uint64)
    for p in range(planes):
        if n:
            m = np.bitwise_or.reduceat(np.where(plane == p, bit, np.uint64(0)), starts)
            masks[p] = m | (m << np.uint64(banks))
    return masks


def step_cycles(acts: np.ndarray, rows: np.ndarray, rows_ok: np.ndarray, shifts: np.ndarray,
                banks: int) -> np.ndarray:
    """Cycles of every (I-vector, F-vector) step of B blocks: ``acts`` from :func:`activation_banks`,
    ``rows`` (B, n_i) the I-vectors of each block (``rows_ok`` False: padding, 0 cycles), ``shifts``
    (B, n_f, F) the F-vectors' rotations (``EMPTY_SHIFT``: padding). Returns (B, n_i, n_f)."""
    if bit_sliced(banks):
        return max_bank_load(np.where(rows_ok[None], acts[:, rows], np.uint64(0)), shifts, banks)
    return max_bank_load_counting(np.where(rows_ok[:, :, None], acts[rows], banks), shifts, banks)


def max_bank_load(masks: np.ndarray, shifts: np.ndarray, banks: int) -> np.ndarray:
    """Bit-sliced (A <= 32): the largest number of products on one bank in every step.

    ``masks`` (planes, B, n_i) doubled activation masks; ``shifts`` (B, n_f, F), for B blocks.
    Returns (B, n_i, n_f); an all-zero mask row or an all-empty shift row gives 0.
    """
    addends = (plane[:, :, None] >> shifts[:, None, :, i] for plane in masks if plane.any()
               for i in range(shifts.shape[2]))
    bank_bits = np.uint64(np.iinfo(np.uint64).max) >> np.uint64(64 - banks)   # the A low bits
    return largest_count(addends, (masks.shape[1], masks.shape[2], shifts.shape[1]), bank_bits)


def largest_count(addends, shape: tuple[int, ...], bank_bits: np.uint64) -> np.ndarray:
    """The largest per-bank count of a sum of ``shape`` uint64 words with one bit per bank (bank
    ``b``: bit ``b`` of ``bank_bits``): the words are added with bit-sliced counters (counter
    level ``l`` holds bit ``l`` of every bank's count), then the maximum is read level by level
    from the top."""
    counters: list[np.ndarray] = []
    added = 0
    for carry in addends:
        added += 1
        for level in range(len(counters)):
            nxt = counters[level] & carry
            counters[level] ^= carry
            carry = nxt
        if added >= (1 << len(counters)):
            counters.append(carry)
    result = np.zeros(shape, dtype=np.int64)
    current = bank_bits   # the banks still at the largest count read so far
    for level in reversed(range(len(counters))):
        candidate = current & counters[level]
        hit = candidate != 0
        result += hit.astype(np.int64) << level
        if level:   # the last level's banks are not read again
            current = np.where(hit, candidate, current)
    return result


def max_bank_load_counting(terms: np.ndarray, shifts: np.ndarray, banks: int) -> np.ndarray:
    """Any A: the largest number of products on one bank in every step.

    ``terms`` (B, n_i, I) activation bank terms (``banks``: unused slot); ``shifts`` (B, n_f, F).
    Returns (B, n_i, n_f). A product of activation term ``t`` and weight rotation ``s`` lands on bank
    ``(t - s) mod A``; each step's I x F bank numbers (a unique number above A for an unused slot)
    are sorted, and its busiest bank is its longest run of equal numbers: a step has a run of
    ``r + 1`` where some number equals the one ``r`` places after it. Rows leave the search once
    they have no longer run, so the passes cost I x F per step, not A x F.
    """
    blocks, n_i, width_i = terms.shape
    n_f, width_f = shifts.shape[1:]
    used = shifts != EMPTY_SHIFT
    rotation = np.where(used, shifts, 0).astype(np.int64)
    bank = (terms[:, :, None, :, None] - rotation[:, None, :, None, :]) % banks      # (B, n_i, n_f, I, F)
    valid = (terms < banks)[:, :, None, :, None] & used[:, None, :, None, :]
    width = width_i * width_f
    unused = (banks + np.arange(width)).reshape(width_i, width_f)                    # never equal to a bank
    products = np.where(valid, bank, unused).astype(np.int32).reshape(-1, width)
    products.sort(axis=1)
    result = valid.reshape(-1, width).any(axis=1).astype(np.int64)
    rows = np.arange(products.shape[0])
    run = 1
    while rows.size and run < width:
        longer = (products[:, run:] == products[:, :-run]).any(axis=1)
        rows, products = rows[longer], products[longer]
        run += 1
        result[rows] = run
    return result.reshape(blocks, n_i, n_f)


def weight_multiplicity(shift: np.ndarray) -> np.ndarray:
    """Per F-vector (row of ``shift``): the most weights sharing one bank term (the longest run of
    equal used rotations once each row is sorted). With a single activation, a step puts exactly
    that many products on its busiest bank, whatever the activation."""
    ordered = np.sort(shift, axis=1)   # EMPTY_SHIFT, the largest uint64, sorts last
    best = np.ones(shift.shape[0], dtype=np.int64)
    run = best
    for i in range(1, shift.shape[1]):
        same = (ordered[:, i] == ordered[:, i - 1]) & (ordered[:, i] != EMPTY_SHIFT)
        run = np.where(same, run + 1, 1)
        best = np.maximum(best, run)
    return best


# --- the step-cost table: every step's cost looked up by the rotation classes of its two vectors ---
#
# A step's loads are ``L(b) = sum_j count_A(b + s_j)`` over the F-vector's rotations ``s_j``:
# rotating the I-vector's bank terms by ``t`` (or every rotation of the F-vector by ``u``) turns
# ``L`` into ``L(b + t)`` (``L(b + u)``), the same loads on renamed banks. So a step's cost (its
# largest load) depends only on the two vectors' classes up to rotation, and a layer has few of
# them (at most ``C(A, I) / A``-ish 4-sets of 32 banks against thousands of vectors per
# segment): :func:`step_cost_table` computes the cost of every (I class, F class) pair once with
# :func:`max_bank_load`, and each step is a table lookup.


def _packed(words: np.ndarray, banks: int) -> np.ndarray:
    """One uint64 key per column of ``words`` (planes, n) A-bit words, plane 0 most significant
    (planes x A <= 64): keys compare as the multisets do, plane by plane."""
    key = np.zeros(words.shape[1], dtype=np.uint64)
    for plane in words:
        key = (key << np.uint64(banks)) | plane
    return key


def _unpacked(key: np.ndarray, planes: int, banks: int) -> np.ndarray:
    low = np.uint64((1 << banks) - 1)
    return np.stack([(key >> np.uint64(banks * (planes - 1 - p))) & low for p in range(planes)])


def _unique_columns(words: np.ndarray, banks: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct columns of ``words`` (planes, n) A-bit words: (distinct (planes, u), inverse (n,))."""
    planes = words.shape[0]
    if planes * banks <= 64:
        distinct, inverse = unique_inverse(_packed(words, banks))
        return _unpacked(distinct, planes, banks), inverse
    distinct, inverse = np.unique(words.T, axis=0, return_inverse=True)
    return distinct.T, inverse.reshape(-1)


def _smallest_rotation(words: np.ndarray, banks: int) -> np.ndarray:
    """The smallest rotation of each multiset (planes, n) of A-bit words, planes compared in
    order (plane 0 first)."""
    low = np.uint64((1 << banks) - 1)
    doubled = words | (words << np.uint64(banks))
    planes, n = words.shape
    if planes * banks <= 64:
        best = _packed(words, banks)
        for r in range(1, banks):
            best = np.minimum(best, _packed((doubled >> np.uint64(r)) & low, banks))
        return _unpacked(best, planes, banks)
    best = words.copy()
    for r in range(1, banks):
        rotated = (doubled >> np.uint64(r)) & low
        less, equal = np.zeros(n, dtype=bool), np.ones(n, dtype=bool)
        for p in range(planes):
            less |= equal & (rotated[p] < best[p])
            equal &= rotated[p] == best[p]
        best = np.where(less[None], rotated, best)
    return best


def rotation_classes(doubled: np.ndarray, banks: int) -> tuple[np.ndarray, np.ndarray]:
    """Classes up to rotation of multisets given as ``doubled`` (planes, n) masks (``m | m << A``):
    (class of each multiset (n,), representative (planes, classes) doubled masks)."""
    low = np.uint64((1 << banks) - 1)
    if doubled.shape[1] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros((doubled.shape[0], 0), dtype=np.uint64)
    distinct, inverse = _unique_columns(doubled & low, banks)
    classes, class_of = _unique_columns(_smallest_rotation(distinct, banks), banks)
    return class_of[inverse], classes | (classes << np.uint64(banks))


def shift_masks(shift: np.ndarray, banks: int) -> np.ndarray:
    """F-vectors' rotations ``shift`` (n, F) (``EMPTY_SHIFT`` unused) as doubled multiset masks
    (planes, n): plane ``p`` holds the rotations appearing more than ``p`` times."""
    n, width = shift.shape
    used = shift != EMPTY_SHIFT
    repeat = np.zeros((n, width), dtype=np.int64)
    for i in range(1, width):
        repeat[:, i] = ((shift[:, :i] == shift[:, i:i + 1]) & used[:, :i]).sum(axis=1)
    planes = int(repeat[used].max()) + 1 if used.any() else 1
    bit = np.left_shift(np.uint64(1), np.where(used, shift, 0))
    masks = np.zeros((planes, n), dtype=np.uint64)
    for p in range(planes):
        masks[p] = np.bitwise_or.reduce(np.where(used & (repeat == p), bit, np.uint64(0)), axis=1)
    return masks | (masks << np.uint64(banks))


def mask_shifts(doubled: np.ndarray, banks: int, width: int) -> np.ndarray:
    """Inverse of :func:`shift_masks`: (n, width) rotations, ``EMPTY_SHIFT`` in unused slots."""
    planes, n = doubled.shape
    bits = (doubled[:, :, None] >> np.arange(banks, dtype=np.uint64)) & np.uint64(1)    # (planes, n, A)
    vector, _, value = np.nonzero(bits.transpose(1, 0, 2).astype(bool))
    slot = np.arange(vector.size) - np.searchsorted(vector, vector)
    shift = np.full((n, width), EMPTY_SHIFT, dtype=np.uint64)
    shift[vector, slot] = value.astype(np.uint64)
    return shift


TABLE_ROWS_PAIRS = 1 << 16   # (I class, F class) pairs costed per max_bank_load call (memory bound)


def step_cost_table(acts: np.ndarray, shifts: np.ndarray, banks: int) -> np.ndarray:
    """Cost of every (I-vector class, F-vector class) step: ``acts`` (planes, n_a) and ``shifts``
    (n_f, F) representatives. Returns (n_a + 1, n_f + 1) float64 (small integers, exact) with a
    last row and column of 0 (the cost of padding)."""
    n_a, n_f = acts.shape[1], shifts.shape[0]
    table = np.zeros((n_a + 1, n_f + 1), dtype=np.float64)
    rows = max(1, TABLE_ROWS_PAIRS // max(1, n_f))
    for lo in range(0, n_a, rows):
        hi = min(n_a, lo + rows)
        table[lo:hi, :n_f] = max_bank_load(acts[:, None, lo:hi], shifts[None], banks)[0]
    return table
